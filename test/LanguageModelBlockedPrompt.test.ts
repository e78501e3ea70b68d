/**
 * A turn the model never answered, as CLI 2.1.332 ends it: a UserPromptSubmit hook of the session
 * blocked the prompt (a `system/informational` line, then a `result` with `subtype: "success"`,
 * `num_turns: 0`, no `terminal_reason`, `stop_reason: null`, the hook's words as its text), or a
 * hook stopped the turn (`terminal_reason: "hook_stopped"`). Through `effect/ai` it must not read
 * as the model's natural end (`finishReason: "stop"` with an empty text), and the CLI's words must
 * reach the program.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"
const blockedText = "UserPromptSubmit operation blocked by hook:\nno secrets in prompts\n\nOriginal prompt: my key is sk-123"

const init = FakeCli.textTurn({ sessionId, text: "" })[0]!

const blockedLines = [
  init,
  {
    type: "system",
    subtype: "informational",
    content: blockedText,
    level: "warning",
    prevent_continuation: true,
    prompt_submit_outcome: { kind: "blocked_by_hook", prompt_kept: false, reason: "no secrets in prompts" },
    uuid: "aeb8cfc8-2c4b-48da-b610-58fae21f818a",
    session_id: sessionId
  },
  (() => {
    const { terminal_reason: _terminal, ...line } = FakeCli.result({ sessionId, text: blockedText, numTurns: 0 })
    return { ...line, stop_reason: null }
  })()
]

const hookStoppedLines = [
  init,
  { ...FakeCli.result({ sessionId, text: "", terminalReason: "hook_stopped" }), stop_reason: "tool_use" }
]

const modelAnswering = (lines: ReadonlyArray<unknown>) =>
  ClaudeCodeLanguageModel.layer().pipe(
    Layer.provide(FakeCli.layer(FakeCli.conversation({
      sessionId,
      onUser: (_text, _index, cli) => Effect.forEach(lines, (line) => cli.emit(line), { discard: true })
    })))
  )

describe("ClaudeCodeLanguageModel: a turn the model did not end", () => {
  it.effect("a prompt a UserPromptSubmit hook blocked: finish reason other, the hook's words in the metadata", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "my key is sk-123" }).pipe(
        Effect.provide(modelAnswering(blockedLines))
      )
      assert.strictEqual(response.text, "")
      assert.strictEqual(response.finishReason, "other")
      const finish = response.content.find((part) => part.type === "finish")
      const metadata = finish?.metadata[ClaudeCodeLanguageModel.metadataKey] as Record<string, unknown> | undefined
      assert.strictEqual(metadata?.result, blockedText)
    }))

  it.effect("a turn a hook stopped (hook_stopped): finish reason other, not tool-calls", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "Run it" }).pipe(
        Effect.provide(modelAnswering(hookStoppedLines))
      )
      assert.strictEqual(response.finishReason, "other")
    }))
})
