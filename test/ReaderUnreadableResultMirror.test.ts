/**
 * A turn whose `result` line the library cannot read (a field of the wrong type, or over
 * `maxLineBytes`) fails; it is still the end of the turn for the `sessionStore` mirror, which
 * appends what the CLI mirrored during it then ("at the end of each turn"), not only with the
 * next turn or at the close.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { appendOnlyStore } from "./support/stores.ts"

const SESSION = "5e551011-0000-4000-8000-000000000002"
const configDir = Path.join(Os.tmpdir(), "ecc-mirror-unreadable-result")
const mainFile = Path.join(configDir, "projects", "-repo-app", `${SESSION}.jsonl`)

const cli = (result: (line: Record<string, unknown>) => Record<string, unknown>) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, _index, cli) =>
      Effect.gen(function*() {
        const lines = FakeCli.textTurn({ sessionId: SESSION, text })
        yield* cli.emit({
          type: "transcript_mirror",
          filePath: mainFile,
          entries: [{ type: "user", uuid: "u1", message: { role: "user", content: text } }]
        })
        for (const line of lines.slice(0, -1)) yield* cli.emit(line)
        yield* cli.emit(result(lines[lines.length - 1] as Record<string, unknown>))
      })
  }))

const appended = (result: (line: Record<string, unknown>) => Record<string, unknown>, maxLineBytes?: number) =>
  Effect.gen(function*() {
    const calls = yield* Queue.unbounded<ReadonlyArray<string | undefined>>()
    const store = appendOnlyStore("recording", (_key, entries) => Effect.sync(() => Queue.offerUnsafe(calls, entries.map((e) => e.uuid))))
    return yield* Effect.gen(function*() {
      const session = yield* Claude.open({
        env: { CLAUDE_CONFIG_DIR: configDir },
        sessionStore: true,
        ...(maxLineBytes === undefined ? {} : { maxLineBytes })
      })
      const exit = yield* session.run("go").pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(exit), "the turn should fail")
      // The session is still open: the append comes from the turn's end.
      return yield* Queue.take(calls).pipe(Effect.timeoutOption("1 second"))
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(cli(result), Layer.succeed(SessionStore.SessionStore)(store))))
  })

describe("an unreadable result still ends the turn for the session store", () => {
  it.live("a field of the wrong type", () =>
    Effect.gen(function*() {
      const got = yield* appended((line) => ({ ...line, num_turns: "one" }))
      assert.deepStrictEqual(got, Option.some(["u1"]))
    }))

  it.live("over maxLineBytes", () =>
    Effect.gen(function*() {
      const got = yield* appended((line) => ({ ...line, result: "z".repeat(5000) }), 4000)
      assert.deepStrictEqual(got, Option.some(["u1"]))
    }))
})
