/**
 * A control_response that answers a pending request but breaks the protocol (an error answer
 * without `error` text, a success whose `response` is not an object) is reported as a
 * `protocol_problem` event, and its request fails at once with `ProtocolViolation` naming it.
 * Before, the request waited for its deadline and failed with `ControlTimeout`, which named the
 * wrong problem (the CLI did answer): 60 s by default, 120 s for `initialize`, which every turn of
 * a real CLI waits for.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

const cliAnswering = (answer: (request: Record<string, unknown>) => unknown) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const request = yield* cli.nextMatching((m) =>
        m.type === "control_request" && (m.request as Record<string, unknown>).subtype === "set_model"
      )
      yield* cli.emit(answer(request))
      return yield* Effect.never
    })
  )

describe("an unreadable answer to a pending control request", () => {
  it.live("an error answer without `error` text fails the request at once with ProtocolViolation, not ControlTimeout", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const exit = yield* session.setModel("opus", { timeout: "1 second" }).pipe(Effect.exit)
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProtocolViolation", `got ${reason._tag}: ${reason.message}`)
      assert.include(reason.message, "The CLI's answer to set_model breaks the protocol")
    }).pipe(
      Effect.scoped,
      Effect.provide(cliAnswering((request) => ({
        type: "control_response",
        response: { subtype: "error", request_id: request.request_id }
      })))
    ))

  it.live("a success answer whose `response` is not an object fails the request with ProtocolViolation, not ControlTimeout", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const exit = yield* session.setModel("opus", { timeout: "1 second" }).pipe(Effect.exit)
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProtocolViolation", `got ${reason._tag}: ${reason.message}`)
      assert.include(reason.message, "The CLI's answer to set_model breaks the protocol")
    }).pipe(
      Effect.scoped,
      Effect.provide(cliAnswering((request) => ({
        type: "control_response",
        response: { subtype: "success", request_id: request.request_id, response: "claude-opus" }
      })))
    ))
})
