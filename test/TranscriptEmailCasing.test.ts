/**
 * The account e-mail in another casing (found by a reviewing helper; failed before its fix): an
 * e-mail address is the same in any casing, and a tool prints it as it was typed (`git log`
 * shows `Jane.Doe@Example.com` for the account `jane.doe@example.com`). The transcript replaced
 * the e-mail only as the `initialize` answer spelled it, and kept the other spellings in clear.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

const EMAIL = "jane.doe@example.com"

/** The transcript of a session of the account `EMAIL` that reads `lines`. */
const recordLines = (lines: ReadonlyArray<unknown>, options?: Transcript.RecorderOptions) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))), options)
      recorder.record("send", { type: "control_request", request_id: "init-1", request: { subtype: "initialize" } })
      recorder.record("recv", {
        type: "control_response",
        response: { subtype: "success", request_id: "init-1", response: { account: { email: EMAIL } } }
      })
      for (const line of lines) recorder.record("recv", line)
    }))
    return written.join("")
  })

const toolResult = (text: string) => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: text }] },
  parent_tool_use_id: null,
  session_id: "s-1"
})

const delta = (text: string) => ({
  type: "stream_event",
  event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
  parent_tool_use_id: null,
  session_id: "s-1"
})

describe("the account e-mail in another casing", () => {
  it.effect("is redacted in a tool result (git log), and the text around it is kept", () =>
    Effect.gen(function*() {
      const written = yield* recordLines([toolResult("commit 1a2b\nAuthor: Jane Doe <Jane.Doe@Example.com>\n")])
      assert.notInclude(written.toLowerCase(), EMAIL, written)
      assert.include(written, "Author: Jane Doe <[redacted]>")
    }))

  it.effect("and when streamed over two text deltas", () =>
    Effect.gen(function*() {
      const written = yield* recordLines([
        delta("mail JANE.DOE@EX"),
        delta("AMPLE.COM now"),
        { type: "stream_event", event: { type: "content_block_stop", index: 0 }, parent_tool_use_id: null, session_id: "s-1" }
      ], { streamEvents: true })
      assert.notInclude(written, "AMPLE.COM", written)
      assert.include(written, "[redacted]")
    }))
})
