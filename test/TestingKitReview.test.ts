/**
 * The testing kit (`effect-claude-code/testing`), where a reviewing helper found it unlike the
 * CLI it stands for (each test failed before its fix): `FakeCli.textTurn` put the echoed user
 * message uuids inside the API event of `message_start` (CLI 2.1.332 writes them on the
 * `stream_event` line), and it and `Replay`'s streamed text cut a text between the two halves of
 * a character (the API never does; `FakeModel` already split by code points).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { transcriptsDir } from "./scenarios.ts"

/** Half a character: a lone UTF-16 surrogate. */
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

const textDeltas = (events: ReadonlyArray<unknown>): Array<string> =>
  events.flatMap((event) => {
    const m = event as { type?: string; event?: { type?: string; delta?: { type?: string; text?: string } } }
    return m.type === "stream_event" && m.event?.type === "content_block_delta" && m.event.delta?.type === "text_delta"
      ? [m.event.delta.text ?? ""]
      : []
  })

describe("FakeCli.textTurn", () => {
  it("the message_start stream_event carries user_message_uuid(s) on the line, as CLI 2.1.332 writes it", () => {
    const lines = FakeCli.textTurn({ sessionId: "s", text: "hi", userMessageUuid: "u-1" })
    const start = lines.find((l) => l.type === "stream_event" && (l.event as { type: string }).type === "message_start")!
    assert.deepStrictEqual(
      { line: [start.user_message_uuid, start.user_message_uuids], event: Object.keys(start.event as object) },
      { line: ["u-1", ["u-1"]], event: ["type", "message"] }
    )
  })

  it("text_deltas never cut a character, and there are no empty ones", () => {
    const deltas = textDeltas(FakeCli.textTurn({ sessionId: "s", text: "😀😀😀", chunks: 2 }))
    assert.strictEqual(deltas.join(""), "😀😀😀")
    for (const delta of deltas) assert.notMatch(delta, loneSurrogate, JSON.stringify(delta))
    assert.deepStrictEqual(textDeltas(FakeCli.textTurn({ sessionId: "s", text: "ab", chunks: 5 })), ["a", "b"])
  })
})

describe("Replay with streamText", () => {
  it.live("text_deltas never cut a character", () =>
    Effect.gen(function*() {
      const recorded = yield* Transcript.read(Path.join(transcriptsDir, "plain-text.ndjson"))
      const lines = recorded.map((line): Transcript.Line => {
        const m = line.msg as { type?: string; message?: Record<string, unknown> }
        if (line.dir !== "recv" || m.type !== "assistant") return line
        return { ...line, msg: { ...m, message: { ...m.message, content: [{ type: "text", text: "😀😀😀" }] } } }
      })
      const events = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        return yield* Stream.runCollect(session.turn("Say hello"))
      })).pipe(Effect.provide(Replay.layer(lines, { streamText: true, chunks: 2 })))
      const deltas = textDeltas(events)
      assert.strictEqual(deltas.join(""), "😀😀😀")
      for (const delta of deltas) assert.notMatch(delta, loneSurrogate, JSON.stringify(delta))
    }))
})
