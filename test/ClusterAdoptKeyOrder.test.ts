/**
 * Resuming a mirrored session on a runner holding its own copy of the transcript, the entity
 * appends to the store the local lines the store lacks before the store's copy replaces the file.
 * A store keeps entries deep-equal, not byte-equal (PostgreSQL's JSONB orders an object's keys its
 * own way): the lines without a uuid it holds (a title, a tag) are not appended again, and one the
 * local file holds more times than the store is (found by a review; they were compared as JSON
 * text, so on such a store every resume appended each of them again).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStoreWiring from "../src/internal/sessionStoreWiring.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { launchedSession } from "./support/resumedSessions.ts"
import { makeTempDir } from "./support/tempDir.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

/** Each object's keys in reverse order, nested objects too: deep-equal, not byte-equal. */
const reorder = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reorder)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reorder(v)]))
    : value

describe("resuming a mirrored session on a runner with its own copy, on a store keeping entries deep-equal", () => {
  it.effect("the lines without a uuid the store holds are not appended again; one the file holds once more is", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-entity-adopt-key-order-")
      const sessionOptions = { cwd: dir, env: { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }, sessionStore: true }
      const where = SessionStoreWiring.locate(sessionOptions.env, dir)
      const filePath = Path.join(where.projectsDir, where.projectKey, `${S1}.jsonl`)
      const title = { type: "custom-title", customTitle: "Plan", sessionId: S1 }
      const memory = Effect.runSync(SessionStore.makeMemory)
      const store = SessionStore.SessionStore.of({
        ...memory,
        load: (key) => Stream.map(memory.load(key), (entry) => reorder(entry) as SessionStore.Entry)
      })
      const transport = FakeCli.layer((cli) => {
        const sessionId = launchedSession(cli.spec)!
        return FakeCli.conversation({
          sessionId,
          onUser: (text, _index, cli, message) =>
            Effect.gen(function*() {
              const userUuid = String(message.uuid)
              yield* cli.emit({
                type: "transcript_mirror",
                filePath,
                entries: [
                  { type: "user", uuid: userUuid, message: { role: "user", content: text } },
                  { type: "assistant", uuid: `answer-${text}`, parentUuid: userUuid, message: { role: "assistant", content: "ok" } },
                  ...(text === "one" ? [title] : [])
                ]
              })
              for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: userUuid })) {
                yield* cli.emit(line.type === "assistant" ? { ...line, uuid: `answer-${text}` } : line)
              }
            })
        })(cli)
      })
      const layer = ClaudeSessionEntity.layer({ session: () => sessionOptions }).pipe(
        Layer.provideMerge(TestRunner.layer),
        Layer.provide(transport),
        Layer.provide(Layer.succeed(SessionStore.SessionStore, store))
      )
      const titles = Effect.map(
        Stream.runCollect(memory.load({ projectKey: where.projectKey, sessionId: S1 })),
        (entries) => entries.filter((entry) => entry.type === "custom-title").length
      )
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        yield* session.Close()
        assert.strictEqual(yield* titles, 1)
        // This runner's own copy: what the store holds, in the CLI's key order.
        const local = [
          { type: "user", uuid: uuid(1), message: { role: "user", content: "one" } },
          { type: "assistant", uuid: "answer-one", parentUuid: uuid(1), message: { role: "assistant", content: "ok" } },
          title
        ]
        Fs.mkdirSync(Path.dirname(filePath), { recursive: true })
        Fs.writeFileSync(filePath, local.map((line) => `${JSON.stringify(line)}\n`).join(""))
        yield* session.Run({ uuid: uuid(2), prompt: "two" })
        yield* session.Close()
        assert.strictEqual(yield* titles, 1, "a title the store held was appended again")
        // The title set again on this runner (the store never got it): appended, once.
        Fs.writeFileSync(filePath, [...local, title].map((line) => `${JSON.stringify(line)}\n`).join(""))
        yield* session.Run({ uuid: uuid(3), prompt: "three" })
        assert.strictEqual(yield* titles, 2, "the title this runner's file holds once more than the store")
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped))
})
