/**
 * Two sessions streaming into one recorder (`streamEvents: true`, an `effect/ai` program's calls
 * sharing one): a delta held back because its text ends with what may begin a secret was joined
 * with the next delta of the same block index of the *other* session, so the first session's
 * delta was lost and its text written into the second session's line. A held delta holds back
 * its own session's later lines only (they keep their order behind it): the other session's are
 * written at once, so a session whose CLI died with a delta held holds no other session back.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

const delta = (text: string) => ({
  type: "stream_event",
  event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
  parent_tool_use_id: null
})

describe("Transcript: deltas of several sessions", () => {
  it.effect("each session's deltas stay its own, none lost", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      let beforeClose: ReadonlyArray<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(
          Sink.forEach((line: string) => Effect.sync(() => written.push(line))),
          { streamEvents: true }
        )
        recorder.secrets?.(["sk-secret-0123456789"])
        for (const session of [0, 1]) {
          recorder.record("send", { type: "control_request", request_id: `i${session}`, request: { subtype: "initialize" } }, session)
          recorder.record("recv", { type: "control_response", response: { subtype: "success", request_id: `i${session}`, response: {} } }, session)
        }
        // The first session's delta ends with "s", which may begin the secret: it is held.
        recorder.record("recv", delta("hello s"), 0)
        recorder.record("recv", delta("world"), 1)
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        beforeClose = [...written]
      }))
      const lines = (yield* Transcript.parse(written.join(""))).filter((line) => (line.msg as { type: string }).type === "stream_event")
      const texts = lines.map((line) => [
        line.session ?? 0,
        (line.msg as { event: { delta: { text: string } } }).event.delta.text
      ])
      assert.deepStrictEqual(texts, [[1, "world"], [0, "hello s"]])
      // The other session's line was not held behind the first session's held delta.
      assert.strictEqual(beforeClose.length, 5)
      assert.include(beforeClose[4], "world")
    }))
})
