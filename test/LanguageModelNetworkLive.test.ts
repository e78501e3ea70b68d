/**
 * `generateText` when the CLI cannot reach the API (connection refused, no answer within
 * `API_TIMEOUT_MS`): the session's `ApiError` has no status and is retryable, but `effect/ai` got an
 * `InvalidRequestError` (not retryable), so `Effect.retry({ while: (e) => e.isRetryable })` and
 * `ExecutionPlan` never tried again (found by a reviewing helper; failing before). It is a
 * `NetworkError` now.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const generate = (options: Parameters<typeof ClaudeCodeLanguageModel.layer>[0]) =>
  Effect.exit(LanguageModel.generateText({ prompt: "hello" }).pipe(
    Effect.provide(ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(processLayer)))
  ))

const aiErrorOf = <A>(exit: Exit.Exit<A, AiError.AiError>): AiError.AiError => {
  if (Exit.isSuccess(exit)) return assert.fail("generateText succeeded")
  return exit.cause.reasons.find(Cause.isFailReason)!.error
}

describe("generateText when the API cannot be reached (real CLI)", { timeout: 60_000 }, () => {
  it.live("connection refused: a retryable NetworkError", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("never")], {
        env: { CLAUDE_CODE_MAX_RETRIES: "0", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }
      })
      const error = aiErrorOf(yield* generate(options))
      assert.strictEqual(error.reason._tag, "NetworkError", error.message)
      assert.isTrue(error.isRetryable, `${error.reason._tag}: ${error.message}`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("the API never answers (API_TIMEOUT_MS): a retryable NetworkError", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.hang, FakeModel.hang], {
        env: { CLAUDE_CODE_MAX_RETRIES: "0", API_TIMEOUT_MS: "1500" }
      })
      const error = aiErrorOf(yield* generate(options))
      assert.strictEqual(error.reason._tag, "NetworkError", error.message)
      assert.isTrue(error.isRetryable, `${error.reason._tag}: ${error.message}`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
