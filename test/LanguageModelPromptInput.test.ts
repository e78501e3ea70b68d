/**
 * `effect/ai` prompts Claude Code cannot take as they are, found by a review (the tests of these
 * failed before their fix; the others keep what still works): a prompt with no message at all
 * (an empty array, a history the program lost) ran a whole agent turn on a made-up user message,
 * "Continue.", in the session's working directory, with its tools, and read as a success; an
 * image of the turn given by URL was left out (the model read only "[file image/png]") and the
 * turn answered as if there were none, a `data:` URL too. Now the first two are an
 * `InvalidRequestError` naming the problem (no CLI started), and a `data:` URL is sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

/** A CLI answering every turn "ok", counting its launches and the user messages it got (text and content). */
const countingCli = () => {
  const seen = { launches: 0, users: [] as Array<string>, contents: [] as Array<unknown> }
  const transport = FakeCli.layer((cli) => {
    seen.launches++
    return FakeCli.conversation({
      sessionId,
      onUser: (text, _index, cli, message) => {
        seen.users.push(text)
        seen.contents.push((message.message as { readonly content?: unknown } | undefined)?.content)
        return Effect.forEach(FakeCli.textTurn({ sessionId, text: "ok" }), (line) => cli.emit(line), { discard: true })
      }
    })(cli)
  })
  return { seen, model: ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport)) }
}

const reasonOf = (exit: Exit.Exit<unknown, unknown>) => {
  const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
  const error = (failure as { readonly error?: unknown } | undefined)?.error
  return AiError.isAiError(error) ? error.reason : undefined
}

describe("ClaudeCodeLanguageModel: prompts Claude Code cannot take", () => {
  it.effect("generateText and streamText fail with an InvalidRequestError; no turn runs", () =>
    Effect.gen(function*() {
      const { model, seen } = countingCli()
      const generated = yield* Effect.exit(LanguageModel.generateText({ prompt: [] }).pipe(Effect.provide(model)))
      const streamed = yield* Effect.exit(
        LanguageModel.streamText({ prompt: Prompt.empty }).pipe(Stream.runDrain, Effect.provide(model))
      )
      for (const exit of [generated, streamed]) {
        const reason = reasonOf(exit)
        assert.strictEqual(reason?._tag, "InvalidRequestError")
        assert.include(String((reason as AiError.InvalidRequestError).description), "no message")
      }
      assert.deepStrictEqual(seen.users, [])
      assert.strictEqual(seen.launches, 0)
    }))

  it.effect("a prompt of a system message alone still runs (the system prompt is the ask)", () =>
    Effect.gen(function*() {
      const { model, seen } = countingCli()
      const response = yield* LanguageModel.generateText({
        prompt: Prompt.make([{ role: "system", content: "Write a haiku." }])
      }).pipe(Effect.provide(model))
      assert.strictEqual(response.text, "ok")
      assert.strictEqual(seen.users.length, 1)
    }))

  it.effect("an image of the turn given by URL fails with an InvalidRequestError, not a turn without it", () =>
    Effect.gen(function*() {
      const { model, seen } = countingCli()
      const exit = yield* Effect.exit(LanguageModel.generateText({
        prompt: Prompt.make([{
          role: "user",
          content: [
            { type: "file", mediaType: "image/png", data: new URL("https://example.com/chart.png") },
            { type: "text", text: "What does the chart show?" }
          ]
        }])
      }).pipe(Effect.provide(model)))
      const reason = reasonOf(exit)
      assert.strictEqual(reason?._tag, "InvalidRequestError")
      assert.include(String((reason as AiError.InvalidRequestError).description), "https://example.com/chart.png")
      assert.deepStrictEqual(seen.users, [])
      assert.strictEqual(seen.launches, 0)
    }))

  it.effect("an image by URL in an earlier message is still named in the transcript (earlier images are)", () =>
    Effect.gen(function*() {
      const { model, seen } = countingCli()
      const response = yield* LanguageModel.generateText({
        prompt: Prompt.make([
          { role: "user", content: [{ type: "file", mediaType: "image/png", data: new URL("https://example.com/a.png") }] },
          { role: "assistant", content: "A chart." },
          { role: "user", content: "Thanks" }
        ])
      }).pipe(Effect.provide(model))
      assert.strictEqual(response.text, "ok")
      assert.include(seen.users[0]!, "[file image/png]")
    }))

  it.effect("an image of the turn given as a data: URL goes as an image block", () =>
    Effect.gen(function*() {
      const { model, seen } = countingCli()
      yield* LanguageModel.generateText({
        prompt: Prompt.make([{
          role: "user",
          content: [
            { type: "file", mediaType: "image/png", data: new URL("data:image/png;base64,iVBORw==") },
            { type: "text", text: "What is this?" }
          ]
        }])
      }).pipe(Effect.provide(model))
      assert.deepStrictEqual(seen.contents[0], [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw==" } },
        { type: "text", text: "What is this?" }
      ])
    }))
})
