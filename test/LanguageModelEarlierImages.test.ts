/**
 * Images of a prompt's earlier messages on a fresh session (the default): a `Chat` whose first
 * turn showed the model an image, or a prompt whose image and question are two user messages.
 * The fresh session has only what this call sends: an earlier image named in the transcript
 * (`[file image/png]`) and not sent is one the model never sees, and it answers as if it had.
 * Every image the CLI can take goes as an image block; the transcript names each `[image N]`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

/** A CLI answering every turn "ok", keeping the content of each user message it got. */
const recordingCli = () => {
  const contents: Array<ReadonlyArray<Record<string, unknown>>> = []
  const transport = FakeCli.layer(FakeCli.conversation({
    sessionId,
    onUser: (_text, _index, cli, message) => {
      const content = (message.message as { readonly content?: unknown } | undefined)?.content
      contents.push(typeof content === "string" ? [{ type: "text", text: content }] : content as ReadonlyArray<Record<string, unknown>>)
      return Effect.forEach(FakeCli.textTurn({ sessionId, text: "ok" }), (line) => cli.emit(line), { discard: true })
    }
  }))
  return { contents, model: ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport)) }
}

const png = new Uint8Array([137, 80, 78, 71])
const pngBlock = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw==" } }
const gif = "R0lGODlh"
const gifBlock = { type: "image", source: { type: "base64", media_type: "image/gif", data: gif } }

const textOf = (content: ReadonlyArray<Record<string, unknown>>) =>
  content.filter((block) => block.type === "text").map((block) => block.text).join("")

describe("ClaudeCodeLanguageModel: the images of earlier messages on a fresh session", () => {
  it.effect("an image and its question in two user messages: the image goes as an image block", () =>
    Effect.gen(function*() {
      const { contents, model } = recordingCli()
      yield* LanguageModel.generateText({
        prompt: Prompt.make([
          { role: "user", content: [{ type: "file", mediaType: "image/png", data: png }] },
          { role: "user", content: "What is in this image?" }
        ])
      }).pipe(Effect.provide(model))
      assert.deepStrictEqual(contents[0]!.filter((block) => block.type === "image"), [pngBlock])
      assert.include(textOf(contents[0]!), JSON.stringify({ role: "user", content: "[image 1]" }))
      assert.include(textOf(contents[0]!), "What is in this image?")
    }))

  it.effect("a Chat's next turn on a fresh session sends the first turn's image again, before the turn's own", () =>
    Effect.gen(function*() {
      const { contents, model } = recordingCli()
      yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({
          prompt: Prompt.make([{
            role: "user",
            content: [{ type: "file", mediaType: "image/png", data: png }, { type: "text", text: "Remember this one." }]
          }])
        })
        yield* chat.generateText({
          prompt: Prompt.make([{
            role: "user",
            content: [{ type: "file", mediaType: "image/gif", data: gif }, { type: "text", text: "Same as before?" }]
          }])
        })
      }).pipe(Effect.provide(model))
      assert.deepStrictEqual(contents[0]!.filter((block) => block.type === "image"), [pngBlock])
      assert.deepStrictEqual(contents[1]!.filter((block) => block.type === "image"), [pngBlock, gifBlock])
      assert.include(textOf(contents[1]!), JSON.stringify({ role: "user", content: "[image 1]\nRemember this one." }))
      assert.notInclude(textOf(contents[1]!), "[file image/png]")
    }))
})
