/**
 * The older CLIs of the supported range against the fake model (installed as
 * `test/CliVersionsLive.test.ts` installs them): a turn CLI 2.1.0 ended short by an SSE error
 * (`error_during_execution`, `is_error: false`) read as a success, and an unreachable API was
 * `TurnFailed` on 2.1.0 and 2.1.200 (the unit tests: `test/TurnOutcomeErrorDuringExecution.test.ts`,
 * `test/TurnOutcomeOlderCliApiErrors.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { installOnce } from "./support/cliVersions.ts"
import { live, processLayer } from "./support/live.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("the turn read as a success")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  assert.isTrue(ClaudeError.isClaudeError(error), Cause.pretty(exit.cause))
  return error!.reason
}

const runOn = (version: string, script: FakeModel.Script, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { executable } = yield* Effect.orDie(installOnce(version))
    const { options } = yield* live(script, { executable, env: { CLAUDE_CODE_MAX_RETRIES: "0", ...env } })
    const session = yield* Claude.open(options)
    return reasonOf(yield* Effect.exit(session.run("hello")))
  }).pipe(Effect.scoped, Effect.provide(processLayer))

describe.concurrent("failed turns on the older CLIs", { timeout: 300_000 }, () => {
  it.live("CLI 2.1.0, an SSE error on every request: TurnFailed, not a success", () =>
    Effect.gen(function*() {
      const reason = yield* runOn("2.1.0", () => FakeModel.sseError())
      assert.strictEqual(reason._tag, "TurnFailed", reason.message)
      const result = (reason as ClaudeError.TurnFailed).result as Claude.TurnResult
      assert.strictEqual(result.subtype, "error_during_execution")
      assert.isFalse(result.is_error)
    }))

  for (const version of ["2.1.0", "2.1.200"]) {
    it.live(`CLI ${version}, the API unreachable: a retryable ApiError with no status`, () =>
      Effect.gen(function*() {
        const reason = yield* runOn(version, [FakeModel.text("never")], { ANTHROPIC_BASE_URL: "http://127.0.0.1:9" })
        assert.strictEqual(reason._tag, "ApiError", reason.message)
        assert.isNull((reason as ClaudeError.ApiError).status)
        assert.isTrue((reason as ClaudeError.ApiError).isRetryable)
      }))
  }
})
