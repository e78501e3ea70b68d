/**
 * Closing a session over a real process (live tier: test/fixtures/fake-claude.mjs): the close
 * escalates after `closeGrace`, and a grace already spent is not spent twice. The in-memory
 * engine tests are in test/SessionEngine.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

describe("issue 13, defect 4: deadlines compose (a process)", () => {
  it.live("closing the scope during a turn of a stalled CLI takes at most closeGrace", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Claude.open({
        executable: FAKE,
        env: { FAKE_CLAUDE_MODE: "stall,ignore-sigterm" },
        closeGrace: "1 second",
        interruptTimeout: "5 seconds"
      }).pipe(Scope.provide(scope))
      const started = yield* Deferred.make<void>()
      // The program consumes the turn in a fiber of the session's scope.
      yield* session.turn("hang").pipe(
        Stream.runForEach((e) => e.type === "system" ? Deferred.succeed(started, undefined) : Effect.void),
        Effect.forkIn(scope)
      )
      yield* Deferred.await(started)
      const before = yield* Clock.currentTimeMillis
      yield* Scope.close(scope, Exit.void)
      const elapsed = (yield* Clock.currentTimeMillis) - before
      // SIGTERM is ignored: SIGKILL at the end of the 1 s budget, plus the time to reap.
      assert.isBelow(elapsed, 1800, `closing took ${elapsed} ms`)
    }).pipe(Effect.provide(processLayer)), 20_000)

  it.live("after endInput and a wait as long as closeGrace, closing takes no second grace", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Claude.open({
        executable: FAKE,
        // The CLI stays 60 s after stdin EOF: closing must end it.
        env: { FAKE_CLAUDE_MODE: "linger-after-eof", FAKE_CLAUDE_LINGER_MS: "60000" },
        closeGrace: "2 seconds"
      }).pipe(Scope.provide(scope))
      yield* session.run("hello")
      yield* session.endInput
      const waited = yield* session.exit.pipe(Effect.timeoutOption("2 seconds"))
      assert.isTrue(Option.isNone(waited))
      const before = yield* Clock.currentTimeMillis
      yield* Scope.close(scope, Exit.void)
      const elapsed = (yield* Clock.currentTimeMillis) - before
      // The grace was spent while the program waited: SIGTERM at once (the fake exits 143).
      assert.isBelow(elapsed, 1000, `closing took ${elapsed} ms`)
    }).pipe(Effect.provide(processLayer)), 20_000)
})
