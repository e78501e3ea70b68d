/**
 * `effect/ai` on Claude Code sends its turns as written: a prompt is text on any other provider,
 * but the CLI reads the file of an `@path` mention in it and runs a leading slash command
 * (`test/VerbatimPromptsLive.test.ts`), so a user message relayed to `generateText` could make
 * it read a file. The turns go `client_composed` (verbatim) unless the layer's options say
 * `verbatimPrompts: false`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import { clientComposedCli } from "./support/clientComposed.ts"

/** The `client_composed` of the user line a `generateText` call writes. */
const clientComposedOf = (options: ClaudeCodeLanguageModel.Options) =>
  Effect.gen(function*() {
    const { seen, transport } = clientComposedCli()
    yield* LanguageModel.generateText({ prompt: "Summarize @notes.txt" }).pipe(
      Effect.provide(ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(transport)))
    )
    return seen
  })

describe("ClaudeCodeLanguageModel: verbatim turns", () => {
  it.effect("by default the turn is sent as written (client_composed: true)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* clientComposedOf({}), [true])
    }))

  it.effect("verbatimPrompts: false sends it as a typed prompt (the CLI reads its @path mentions)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* clientComposedOf({ verbatimPrompts: false }), [undefined])
    }))
})
