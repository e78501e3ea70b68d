/**
 * CLI 2.1.0 (the floor of the supported range) ends a turn its own error cut short (an SSE
 * `error` event mid-stream: an overloaded API) as `subtype: "error_during_execution"` with
 * `is_error: false`, no `terminal_reason` and no text, the same line it writes for an
 * interrupted turn. The program had asked for no interrupt, yet `run` returned that result as a
 * success (found by a reviewing helper, against CLI 2.1.0 and the fake model: a failed turn read
 * as a success). It is `TurnFailed` now; after the program's interrupt it is still returned.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Turn from "../src/Turn.ts"
import { startedTurn } from "./support/interrupts.ts"
import { reasonOf } from "./support/outcomes.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** The result CLI 2.1.0 wrote for a turn an SSE error cut short, and for an interrupted one. */
const cutShort = {
  ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", totalCostUsd: 0 }),
  is_error: false,
  errors: [],
  terminal_reason: undefined
}

describe("error_during_execution with is_error false (CLI 2.1.0)", () => {
  it.effect("with no interrupt asked, run fails with TurnFailed carrying the result", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) => cli.emit(cutShort)
      }))
      const session = yield* Claude.open().pipe(Effect.provide(layer))
      const reason = reasonOf(yield* Effect.exit(session.run("hello")))
      assert.strictEqual(reason._tag, "TurnFailed", reason.message)
      assert.strictEqual(((reason as ClaudeError.TurnFailed).result as Claude.TurnResult).subtype, "error_during_execution")
      // Turn.finalText over the session's events says so too.
      const failure = reasonOf(yield* Effect.exit(session.turn("again").pipe(Turn.finalText)))
      assert.strictEqual(failure._tag, "TurnFailed", failure.message)
    }))

  it.effect("after the program's interrupt, run returns it (an interrupted turn is no failure)", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* startedTurn(cli, SESSION)
          yield* Deferred.succeed(started, undefined)
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(interrupt))
          yield* cli.emit(cutShort)
          return yield* Effect.never
        })
      )
      const session = yield* Claude.open().pipe(Effect.provide(layer))
      const run = yield* Effect.forkChild(Effect.exit(session.run("long job")), { startImmediately: true })
      yield* Deferred.await(started)
      // The session reads the started turn's lines first.
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      yield* session.interrupt
      const exit = yield* Fiber.join(run)
      assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")
      if (Exit.isSuccess(exit)) assert.isTrue(exit.value.turn.interruptRequested)
    }))
})
