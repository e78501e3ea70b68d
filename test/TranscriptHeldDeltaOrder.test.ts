/**
 * A streamed delta held back by the recorder (`streamEvents: true`; its text ends with what may
 * begin a secret, as any text ending in "s" may begin an `sk-…` key) was written after the lines
 * that came while it was held: a line the program sent in answer to that very text (an
 * interrupt on seeing it) was before it in the transcript, so a replay played the text only once
 * the program had sent its answer, and the program, waiting for the text, waited until its
 * deadline. The recorder keeps the lines in their order now: those after a held delta wait
 * behind it, and the delta joined with the rest of its block's text is written in its place.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

const KEY = "sk-ant-order-0123456789abcdef"

const delta = (agent: string | null, text: string) => ({
  type: "stream_event",
  event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
  parent_tool_use_id: agent
})
const stop = (agent: string | null) => ({ type: "stream_event", event: { type: "content_block_stop", index: 0 }, parent_tool_use_id: agent })
const interrupt = { type: "control_request", request_id: "req-1", request: { subtype: "interrupt" } }

/** What a recorder given `lines` writes, each line as `dir type text`. */
const recorded = (lines: ReadonlyArray<readonly ["send" | "recv", unknown]>) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(
        Sink.forEach((line: string) => Effect.sync(() => written.push(line))),
        { streamEvents: true }
      )
      recorder.secrets?.([KEY])
      for (const [dir, msg] of lines) recorder.record(dir, msg)
    }))
    return (yield* Transcript.parse(written.join(""))).map((line) => {
      const msg = line.msg as { type: string; parent_tool_use_id?: string | null; event?: { type: string; delta?: { text: string } } }
      return `${line.dir} ${msg.event?.type ?? msg.type} ${msg.parent_tool_use_id ?? ""} ${msg.event?.delta?.text ?? ""}`.trim()
    })
  })

describe("Transcript: the order of the lines around a held delta", () => {
  it.effect("the program's answer to a held text comes after that text", () =>
    Effect.gen(function*() {
      const lines = yield* recorded([
        ["recv", delta(null, "please s")],
        ["send", interrupt],
        ["recv", delta(null, "top now")],
        ["recv", stop(null)]
      ])
      assert.deepStrictEqual(lines, [
        "recv content_block_delta  please stop now",
        "send control_request",
        "recv content_block_stop"
      ])
    }))

  it.effect("another agent's lines keep their place too, and a secret split between deltas is still redacted", () =>
    Effect.gen(function*() {
      const lines = yield* recorded([
        ["recv", delta("toolu_A", `key: ${KEY.slice(0, 10)}`)],
        ["recv", delta("toolu_B", "hello")],
        ["recv", delta("toolu_A", `${KEY.slice(10)} ok`)],
        ["recv", delta("toolu_B", " again")],
        ["recv", stop("toolu_A")],
        ["recv", stop("toolu_B")]
      ])
      assert.deepStrictEqual(lines, [
        "recv content_block_delta toolu_A key: [redacted] ok",
        "recv content_block_delta toolu_B hello",
        "recv content_block_delta toolu_B  again",
        "recv content_block_stop toolu_A",
        "recv content_block_stop toolu_B"
      ])
    }))
})
