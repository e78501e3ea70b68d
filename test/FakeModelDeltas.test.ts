/**
 * The embedded fake model streams text in pieces of whole characters: it split by UTF-16 units,
 * so a delta could hold half an emoji, which the real API never sends (a program printing each
 * delta printed U+FFFD). Found by an audit.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Sse from "../src/internal/sse.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"

/** A string with a lone UTF-16 surrogate (half of a character). */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const Delta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  delta: Schema.Struct({ type: Schema.String, text: Schema.optionalKey(Schema.String) })
})
const decodeDelta = Schema.decodeUnknownOption(Schema.fromJsonString(Delta))

describe("the fake model's stream", () => {
  it.live("streamed text deltas never split a character (no lone surrogate in a text_delta)", () =>
    Effect.gen(function*() {
      const model = yield* FakeModel.make([FakeModel.text("😀😀😀")])
      const body = yield* Effect.promise(() =>
        fetch(`${model.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] })
        }).then((res) => res.text())
      )
      const texts = Sse.decodeAll(body).flatMap((event) => {
        const delta = decodeDelta(event.data)
        return delta._tag === "Some" && delta.value.delta.text !== undefined ? [delta.value.delta.text] : []
      })
      assert.strictEqual(texts.join(""), "😀😀😀")
      for (const text of texts) assert.notMatch(text, loneSurrogate, `a text_delta holds half a character: ${JSON.stringify(text)}`)
    }))
})
