/**
 * `session.flushStore` on a session already closed waited forever: its signal went to the
 * mirror's fiber, stopped with the session. The session's other operations answer
 * `SessionClosed`; `flushStore` answers at once now, with what the close left: success when the
 * whole transcript reached the store, `StoreFailed` naming what did not. A `flushStore` whose
 * flush was still appending when the close stopped the mirror fails too, never succeeds.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { appendOnlyStore } from "./support/stores.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000e3"
const configDir = Path.join(Os.tmpdir(), "ecc-flush-after-close-config")
const mainFile = Path.join(configDir, "projects", "-repo-app", `${SESSION}.jsonl`)
const frame = { type: "transcript_mirror", filePath: mainFile, entries: [{ type: "user", uuid: "u1" }] }

const cli = FakeCli.layer(FakeCli.conversation({
  sessionId: SESSION,
  onUser: (text, _index, cli) =>
    Effect.gen(function*() {
      yield* cli.emit(frame)
      for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `re: ${text}` })) yield* cli.emit(line)
    })
}))

const down = appendOnlyStore(
  "down",
  () => Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "down", operation: "append", description: "down" })))
)

const stalled = appendOnlyStore("stalled", () => Effect.never)

/** `flushStore` of a session that ran one turn and was closed, after a minute of the TestClock. */
const flushAfterClose = (store: Layer.Layer<SessionStore.SessionStore>) =>
  Effect.gen(function*() {
    const session = yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ env: { CLAUDE_CONFIG_DIR: configDir }, sessionStore: true })
      yield* session.run("one")
      return session
    })).pipe(Effect.provide(Layer.merge(cli, store)))
    const flushed = yield* Effect.forkChild(session.flushStore)
    yield* TestClock.adjust("1 minute")
    const exit = flushed.pollUnsafe()
    assert.isDefined(exit, "flushStore on a closed session still waits")
    return exit!
  }).pipe(Effect.scoped)

describe("flushStore on a closed session", () => {
  it.effect("answers at once: success when the close stored everything", () =>
    Effect.gen(function*() {
      const exit = yield* flushAfterClose(SessionStore.layerMemory)
      assert.isTrue(Exit.isSuccess(exit))
    }))

  it.effect("answers at once: StoreFailed when entries never reached the store", () =>
    Effect.gen(function*() {
      const exit = yield* flushAfterClose(Layer.succeed(SessionStore.SessionStore)(down))
      assert.isTrue(Exit.isFailure(exit))
      const reason = (exit as Exit.Failure<void, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
      const error = (reason as { error: ClaudeError.ClaudeError }).error
      assert.strictEqual(error.reason._tag, "StoreFailed")
      assert.include(error.message, "1 entries of -repo-app/" + SESSION)
    }))

  it.effect("a flush still appending when the close stopped the mirror fails, never succeeds", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Claude.open({ env: { CLAUDE_CONFIG_DIR: configDir }, sessionStore: true }).pipe(
        Effect.provide(Layer.merge(cli, Layer.succeed(SessionStore.SessionStore)(stalled))),
        Scope.provide(scope)
      )
      yield* session.run("one")
      // Joins the end of turn's flush, whose append never answers.
      const flushed = yield* Effect.forkChild(session.flushStore, { startImmediately: true })
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void), { startImmediately: true })
      // The close's last flush waits 30 s, then the mirror stops (its append would time out at 60 s).
      yield* TestClock.adjust("31 seconds")
      yield* Fiber.join(closing)
      yield* TestClock.adjust("1 minute")
      const exit = flushed.pollUnsafe()
      assert.isDefined(exit, "flushStore still waits")
      assert.isTrue(Exit.isFailure(exit!), "flushStore succeeded, its entries never stored")
      const reason = (exit as Exit.Failure<void, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
      assert.strictEqual((reason as { error: ClaudeError.ClaudeError }).error.reason._tag, "StoreFailed")
    }))
})
