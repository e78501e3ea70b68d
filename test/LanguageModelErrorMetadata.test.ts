/**
 * The module's promise for failures: the `AiError`'s reason carries the `ClaudeError` as its
 * `cause` and the library's reason tag under `metadata["claude-code"]`, so that a program (or a
 * log) can tell a structured output the CLI gave up on from `effect/ai`'s own decoding failure.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as ClaudeError from "../src/ClaudeError.ts"

describe("ClaudeCodeLanguageModel.fromClaudeError: the reason tag in the metadata", () => {
  it("a structured output the CLI gave up on, or one the Schema refused, names its ClaudeError reason", () => {
    const cases: ReadonlyArray<ClaudeError.ClaudeError> = [
      ClaudeError.make(new ClaudeError.LimitReached({ result: {}, limit: "error_max_structured_output_retries" })),
      ClaudeError.make(new ClaudeError.LimitReached({ result: {}, limit: "structured_output_retry_exhausted" })),
      ClaudeError.make(new ClaudeError.StructuredOutputMissing({ result: {} })),
      ClaudeError.make(new ClaudeError.StructuredOutputInvalid({ value: { n: 1 }, issue: "n: expected a string", result: {} }))
    ]
    for (const error of cases) {
      const reason = ClaudeCodeLanguageModel.fromClaudeError("generateObject", error).reason
      assert.strictEqual(reason._tag, "StructuredOutputError")
      assert.deepStrictEqual(
        (reason as { readonly metadata?: Record<string, unknown> }).metadata?.[ClaudeCodeLanguageModel.metadataKey],
        { reason: error.reason._tag },
        error.reason._tag
      )
    }
  })

  it("a value the Schema refused is the StructuredOutputError's responseText", () => {
    const error = ClaudeError.make(
      new ClaudeError.StructuredOutputInvalid({ value: { n: 1 }, issue: "n: expected a string", result: {} })
    )
    const reason = ClaudeCodeLanguageModel.fromClaudeError("generateObject", error).reason
    assert.strictEqual((reason as { readonly responseText?: string }).responseText, JSON.stringify({ n: 1 }))
  })
})
