/**
 * The model's own stops that the CLI gives up on end the turn as API errors with no status
 * (`terminal_reason: "api_error"`, `api_error_status: null`), which read as an API that could not
 * be reached: `ApiError` with `status: null`, `isRetryable` true (found by a reviewing helper;
 * failing before). A refusal (twice `stop_reason: "refusal"`: the CLI tries once more) is now
 * `Refused` (not retryable; `ContentPolicyError` through `effect/ai`), an answer cut at the
 * model's output-token maximum on every try is `LimitReached` (`max_output_tokens`), and a full
 * context window (`model_context_window_exceeded`) is `PromptTooLong`. A refusal the CLI gets past
 * is still a success.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("the turn succeeded")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  assert.isTrue(ClaudeError.isClaudeError(error), Cause.pretty(exit.cause))
  return error!.reason
}

const runOnce = (script: FakeModel.Script) =>
  Effect.gen(function*() {
    const { options } = yield* live(script)
    const session = yield* Claude.open(options)
    return yield* Effect.exit(session.run("hello"))
  })

const refusing = () => [
  FakeModel.text("I can't help with that.", { stopReason: "refusal" }),
  FakeModel.text("Still no.", { stopReason: "refusal" })
]

describe("the model's own stops the CLI gives up on (real CLI)", { timeout: 120_000 }, () => {
  it.live("a refusal: Refused, not a retryable ApiError", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* runOnce(refusing()))
      assert.strictEqual(reason._tag, "Refused", `${reason._tag}: ${reason.message}`)
      assert.strictEqual(((reason as ClaudeError.Refused).result as Claude.TurnResult).stop_reason, "refusal")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a refusal through effect/ai: ContentPolicyError, not retryable", () =>
    Effect.gen(function*() {
      const { options } = yield* live(refusing())
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "hello" }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(processLayer)))
      ))
      if (Exit.isSuccess(exit)) return assert.fail("generateText succeeded")
      const error = exit.cause.reasons.find(Cause.isFailReason)!.error as AiError.AiError
      assert.strictEqual(error.reason._tag, "ContentPolicyError", error.message)
      assert.isFalse(error.isRetryable)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a refusal the CLI gets past is a success", () =>
    Effect.gen(function*() {
      const exit = yield* runOnce([FakeModel.text("No.", { stopReason: "refusal" }), FakeModel.text("Here it is.")])
      assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("an answer cut at the output-token maximum on every try: LimitReached max_output_tokens", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* runOnce(Array.from({ length: 4 }, (_, i) => FakeModel.text(`cut ${i} `, { stopReason: "max_tokens" }))))
      assert.strictEqual(reason._tag, "LimitReached", `${reason._tag}: ${reason.message}`)
      assert.strictEqual((reason as ClaudeError.LimitReached).limit, "max_output_tokens")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("the model's context window full: PromptTooLong", () =>
    Effect.gen(function*() {
      const reason = reasonOf(yield* runOnce(
        Array.from({ length: 4 }, () => FakeModel.text("partial", { stopReason: "model_context_window_exceeded" }))
      ))
      assert.strictEqual(reason._tag, "PromptTooLong", `${reason._tag}: ${reason.message}`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
