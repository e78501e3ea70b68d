/**
 * On the real CLI 2.1.332 (found by a reviewing helper; each failed before its fix):
 * - `ClaudeCodeLanguageModel` dropped a local slash command's output (`/cost`): the CLI writes it
 *   as an `assistant` line of model `<synthetic>`, as its API-error lines, but with
 *   `local_command_run`, and a successful result; `generateText` gave "";
 * - `Turn.textDeltas` never gave the answer after a stream broke: the CLI retries without
 *   streaming and the answer comes as one `assistant` line with no deltas. A message the CLI did
 *   not stream now comes whole.
 * - Both still dropped the output of a local command the CLI refuses in print mode (`/status`,
 *   `/help`: "… isn't available in this environment."): a `<synthetic>` line with
 *   `local_command_source` and `local_command_outcome` but no `local_command_run`, and a
 *   successful result with that text (found by a second review). `local_command_source` is on
 *   every local command's line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Turn from "../src/Turn.ts"
import { live, processLayer } from "./support/live.ts"

describe("text the CLI did not stream (real CLI)", { timeout: 60_000 }, () => {
  it.live("generateText('/cost') gives the command's output, as the CLI's result does", () =>
    Effect.gen(function*() {
      const results: Array<{ readonly is_error: boolean; readonly result?: string }> = []
      const recorder: Claude.Recorder = {
        record: (direction, message) => {
          const line = message as { readonly type?: unknown; readonly is_error: boolean; readonly result?: string }
          if (direction === "recv" && line.type === "result") results.push(line)
        }
      }
      const setup = yield* live([FakeModel.text("the model is not called for /cost")], { transcript: recorder })
      const response = yield* LanguageModel.generateText({ prompt: "/cost" }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer({ ...setup.options, verbatimPrompts: false }).pipe(Layer.provide(processLayer)))
      )
      assert.strictEqual(results.length, 1)
      assert.isFalse(results[0]!.is_error)
      assert.include(results[0]!.result ?? "", "Estimated cost")
      assert.strictEqual(response.text, results[0]!.result)
    }).pipe(Effect.provide(processLayer)))

  for (const command of ["/status", "/help"]) {
    it.live(`${command}, refused in print mode: textDeltas and generateText give the text the result gives`, () =>
      Effect.gen(function*() {
        const { options } = yield* live([FakeModel.text("the model is not called")])
        const session = yield* Claude.open(options)
        const events = yield* session.turn(command).pipe(Stream.runCollect)
        const result = events.at(-1) as Claude.TurnResult
        assert.isFalse(result.is_error)
        assert.include(result.result ?? "", "isn't available")
        const texts = yield* Turn.textDeltas(Stream.fromIterable(events)).pipe(Stream.runCollect)
        assert.strictEqual(texts.join(""), result.result)

        const again = yield* live([FakeModel.text("the model is not called")])
        const response = yield* LanguageModel.generateText({ prompt: command }).pipe(
          Effect.provide(ClaudeCodeLanguageModel.layer({ ...again.options, verbatimPrompts: false }).pipe(Layer.provide(processLayer)))
        )
        assert.strictEqual(response.text, result.result)
      }).pipe(Effect.provide(processLayer)))
  }

  it.live("after an SSE error mid-stream, textDeltas ends with the answer the CLI's retry gave", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.sseError({ partialText: "ABANDONED PARTIAL " }), FakeModel.text("The real answer.")])
      const session = yield* Claude.open(options)
      const events = yield* session.turn("hi").pipe(Stream.runCollect)
      const result = events.at(-1) as Claude.TurnResult
      assert.strictEqual(result.result, "The real answer.")
      const streamed = (yield* Turn.textDeltas(Stream.fromIterable(events)).pipe(Stream.runCollect)).join("")
      assert.strictEqual(streamed, "ABANDONED PARTIAL The real answer.")
    }).pipe(Effect.provide(processLayer)))

  it.live("with includePartialMessages false, textDeltas gives each message whole", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("Whole, not streamed.")])
      const session = yield* Claude.open({ ...options, includePartialMessages: false })
      const texts = yield* session.turn("hi").pipe(Turn.textDeltas, Stream.runCollect)
      assert.deepStrictEqual(texts, ["Whole, not streamed."])
    }).pipe(Effect.provide(processLayer)))
})
