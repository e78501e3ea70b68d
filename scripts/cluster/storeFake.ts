/**
 * The fake CLI of the cluster demo, tests and benchmark: the library's in-memory `FakeCli` whose
 * session transcript lives in the `SessionStore`, as a real CLI's does once mirrored there. A
 * process started with `--session-id <id>` starts empty; one started with `--resume=<id>` reads
 * the session's earlier turns from the store, on whichever runner it runs. As the real CLI's, the
 * transcript is a tree (each entry names its `parentUuid`): a resumed process follows the chain
 * ending at `--resume-session-at`, or at the last entry. Each answer names the
 * earlier prompts it saw, so a client can tell that the history came along:
 * `echo: <prompt> (after N turns: p1 | p2 | ...)`.
 *
 * `delayMs` holds each turn that long before its result (so a runner can be killed mid-turn);
 * `onTurn` is told of each turn the fake starts.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../../src/SessionStore.ts"
import * as FakeCli from "../../src/testing/FakeCli.ts"
import type { Transport } from "../../src/Transport.ts"

export const projectKey = "cluster"

export const layer = (options: {
  readonly delayMs?: number
  readonly onTurn?: (sessionId: string, uuid: string) => void
}): Layer.Layer<Transport, never, SessionStore.SessionStore> =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const args = cli.spec.args
      const resume = args.find((a) => a.startsWith("--resume="))
      const sessionId = resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]!
      const key = { projectKey, sessionId }
      const at = args.indexOf("--resume-session-at")
      const entries = resume === undefined ? [] : yield* store.load(key).pipe(
        Stream.runCollect,
        Effect.catch(() => Effect.succeed([] as ReadonlyArray<SessionStore.Entry>))
      )
      // The conversation: the chain of parents from its leaf.
      const byUuid = new Map(entries.map((entry) => [String(entry.uuid), entry]))
      const chain: Array<SessionStore.Entry> = []
      let leaf: string | undefined = at === -1 ? entries.at(-1)?.uuid as string | undefined : args[at + 1]
      for (let uuid = leaf; uuid !== undefined && byUuid.has(uuid);) {
        const entry = byUuid.get(uuid)!
        chain.unshift(entry)
        uuid = typeof entry.parentUuid === "string" ? entry.parentUuid : undefined
      }
      // The answered turns of it: a user line with no answer (a turn lost with its runner) is left
      // out, as a resumed CLI leaves an interrupted turn.
      const history: Array<string> = chain.flatMap((entry, i) =>
        entry.type === "user" && chain[i + 1]?.type === "assistant"
          ? [String((entry.message as { content?: unknown } | undefined)?.content ?? "")]
          : []
      )
      return yield* FakeCli.conversation({
        sessionId,
        onControl: (request, cli) => {
          const body = request.request as Record<string, unknown>
          return cli.emit(FakeCli.success(request, body.subtype === "set_model" ? { model: body.model } : {}))
        },
        onUser: (text, _index, cli, message) =>
          Effect.gen(function*() {
            const uuid = typeof message.uuid === "string" ? message.uuid : crypto.randomUUID()
            options.onTurn?.(sessionId, uuid)
            const now = new Date(yield* Clock.currentTimeMillis).toISOString()
            // The user line reaches the transcript first, as the CLI writes it.
            yield* store.append(key, [{ type: "user", uuid, parentUuid: leaf ?? null, timestamp: now, message: { role: "user", content: text } }])
            leaf = uuid
            if (options.delayMs !== undefined && options.delayMs > 0) yield* Effect.sleep(options.delayMs)
            const earlier = history.length === 0 ? "" : `: ${history.join(" | ")}`
            const reply = `echo: ${text} (after ${history.length} turns${earlier})`
            history.push(text)
            const answer = crypto.randomUUID()
            yield* store.append(key, [{
              type: "assistant",
              uuid: answer,
              parentUuid: uuid,
              timestamp: now,
              message: { role: "assistant", content: reply }
            }])
            leaf = answer
            // The assistant line carries the transcript entry's uuid, as the real CLI's does.
            for (const line of FakeCli.textTurn({ sessionId, text: reply, userMessageUuid: uuid })) {
              yield* cli.emit(line.type === "assistant" ? { ...line, uuid: answer } : line)
            }
          })
      })(cli)
    })
  )
