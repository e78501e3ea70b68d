/**
 * The API unreachable on the older CLIs of the supported range: CLI 2.1.0 ends the turn with
 * `is_error: true`, no `terminal_reason` and the text `API Error: Connection error.`; CLI 2.1.200
 * with `terminal_reason: "completed"`, `api_error_status: null` and `API Error: Unable to connect
 * to API (ConnectionRefused)` (both seen against the fake model). `run` failed with `TurnFailed`,
 * so the README's retry of what the API calls temporary (`ApiError` with `isRetryable`) gave up
 * at once, where CLI 2.1.332 (`terminal_reason: "api_error"`) gives a retryable `ApiError` with
 * no status (found by a reviewing helper). Both are that `ApiError` now; CLI 2.1.0's refusal,
 * whose text starts the same way and which has no `stop_reason`, stays `Refused`. CLI 2.1.0's
 * refused key (`Invalid API key · Fix external API key`, no status) was `TurnFailed` too, where the
 * README promises `ApiError` 401 `authentication_error`; and its 403, whose JSON body it follows
 * with `· Please run /login`, had no `errorType`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("the turn read as a success")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  assert.isTrue(ClaudeError.isClaudeError(error), Cause.pretty(exit.cause))
  return error!.reason
}

const failingWith = (fields: Record<string, unknown>) =>
  Effect.gen(function*() {
    const layer = FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (_text, _index, cli) =>
        cli.emit({
          ...FakeCli.result({ sessionId: SESSION, totalCostUsd: 0 }),
          is_error: true,
          stop_reason: "stop_sequence",
          ...fields
        })
    }))
    const session = yield* Claude.open().pipe(Effect.provide(layer))
    return reasonOf(yield* Effect.exit(session.run("hello")))
  })

describe("the API unreachable, as the older CLIs report it", () => {
  it.effect("CLI 2.1.0 (no terminal_reason): ApiError with no status, retryable", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({ terminal_reason: undefined, result: "API Error: Connection error." })
      assert.strictEqual(reason._tag, "ApiError", reason.message)
      assert.isNull((reason as ClaudeError.ApiError).status)
      assert.isTrue((reason as ClaudeError.ApiError).isRetryable)
    }))

  it.effect("CLI 2.1.200 (terminal_reason completed, api_error_status null): ApiError with no status, retryable", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({
        terminal_reason: "completed",
        api_error_status: null,
        result: "API Error: Unable to connect to API (ConnectionRefused)"
      })
      assert.strictEqual(reason._tag, "ApiError", reason.message)
      assert.isNull((reason as ClaudeError.ApiError).status)
      assert.isTrue((reason as ClaudeError.ApiError).isRetryable)
    }))

  it.effect("CLI 2.1.0's refusal (no stop_reason, only its text) stays Refused, not a retryable ApiError", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({
        terminal_reason: undefined,
        stop_reason: undefined,
        result: "API Error: Claude Code is unable to respond to this request, which appears to violate our Usage Policy " +
          "(https://www.anthropic.com/legal/aup). Try rephrasing the request or attempting a different approach."
      })
      assert.strictEqual(reason._tag, "Refused", reason.message)
    }))

  it.effect("CLI 2.1.0's refused key (no status, only its text): ApiError 401 authentication_error, as README says", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({ terminal_reason: undefined, result: "Invalid API key · Fix external API key" })
      assert.strictEqual(reason._tag, "ApiError", reason.message)
      assert.strictEqual((reason as ClaudeError.ApiError).status, 401)
      assert.strictEqual((reason as ClaudeError.ApiError).errorType, "authentication_error")
      assert.isFalse((reason as ClaudeError.ApiError).isRetryable)
    }))

  it.effect("CLI 2.1.0 with no key at all (Invalid API key · Please run /login) stays NotAuthenticated", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({ terminal_reason: undefined, result: "Invalid API key · Please run /login" })
      assert.strictEqual(reason._tag, "NotAuthenticated", reason.message)
    }))

  it.effect("CLI 2.1.0's 403 with a hint after its JSON body: the body's error type is read", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({
        terminal_reason: undefined,
        result: "API Error: 403 {\"type\":\"error\",\"error\":{\"type\":\"permission_error\",\"message\":\"Permission denied\"}," +
          "\"request_id\":\"req_1\"} · Please run /login"
      })
      assert.strictEqual(reason._tag, "ApiError", reason.message)
      assert.strictEqual((reason as ClaudeError.ApiError).status, 403)
      assert.strictEqual((reason as ClaudeError.ApiError).errorType, "permission_error")
    }))

  it.effect("CLI 2.1.332's own failures keep their reasons: a model_error with an API-like text is TurnFailed", () =>
    Effect.gen(function*() {
      const reason = yield* failingWith({ terminal_reason: "model_error", api_error_status: null, result: "API Error: something" })
      assert.strictEqual(reason._tag, "TurnFailed", reason.message)
    }))
})
