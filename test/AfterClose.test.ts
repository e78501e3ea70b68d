/**
 * What a session's operations fail with once the program ended its input or closed the session:
 * `SessionClosed` for every one (README, the reasons table), turns and control requests alike.
 * Control requests (`setModel`, `request`, `interrupt` with no turn running) used to fail with the
 * reason the CLI's clean exit at that EOF left, `ProcessExited` (exit code 0), which the README
 * keeps for a CLI that died by itself.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

describe("operations after the session closed", () => {
  it.effect("setModel and request after the scope closed fail with SessionClosed, as run does", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Claude.open().pipe(Scope.provide(scope))
      yield* session.run("one")
      yield* Scope.close(scope, Exit.void)
      const run = reasonOf(yield* Effect.exit(session.run("late")))
      const setModel = reasonOf(yield* Effect.exit(session.setModel("haiku")))
      const request = reasonOf(yield* Effect.exit(session.request({ subtype: "get_status" }, Schema.Unknown)))
      assert.deepStrictEqual(
        [run, setModel, request].map((reason) => reason._tag),
        ["SessionClosed", "SessionClosed", "SessionClosed"],
        `got: ${[run, setModel, request].map((reason) => `${reason._tag} (${reason.message})`).join(" | ")}`
      )
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("setModel and interrupt after endInput (the CLI then exited 0 at EOF) fail with SessionClosed, as send does", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      yield* session.run("one")
      yield* session.endInput
      const status = yield* session.exit
      assert.strictEqual(status.code, 0)
      yield* settle
      const send = reasonOf(yield* Effect.exit(session.send("late")))
      const setModel = reasonOf(yield* Effect.exit(session.setModel("haiku")))
      const interrupt = reasonOf(yield* Effect.exit(session.interrupt))
      assert.strictEqual(send._tag, "SessionClosed")
      assert.strictEqual(setModel._tag, "SessionClosed", `got ${setModel._tag}: ${setModel.message}`)
      assert.strictEqual(interrupt._tag, "SessionClosed", `got ${interrupt._tag}: ${interrupt.message}`)
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))
})
