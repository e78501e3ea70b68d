/**
 * A recorder given to several sessions (an `effect/ai` program's calls share one) held every
 * session's lines back while any session's `initialize` was not answered: a session whose CLI
 * died before answering (it failed to start) left the whole transcript unwritten until the
 * recorder closed, every other session's lines in memory only, lost if the process died. Each
 * session's lines are held until its own `initialize` is answered now; the others' are written.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

const initialize = (id: string) => ({ type: "control_request", request_id: id, request: { subtype: "initialize" } })
const answer = (id: string, email: string) => ({
  type: "control_response",
  response: { subtype: "success", request_id: id, response: { account: { email } } }
})

describe("Transcript: a session whose initialize is never answered", () => {
  it.effect("holds back its own lines only: the other sessions' lines are written as they come", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      let beforeClose: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
        recorder.record("send", initialize("a"), 0)
        recorder.record("recv", answer("a", "first@example.com"), 0)
        // The second session's CLI never answers.
        recorder.record("send", initialize("b"), 1)
        recorder.record("send", { type: "user", message: { role: "user", content: "hi from the second" } }, 1)
        for (let i = 0; i < 3; i++) recorder.record("recv", { type: "assistant", text: `line ${i} to first@example.com` }, 0)
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        beforeClose = [...written]
      }))
      assert.strictEqual(beforeClose.length, 5, beforeClose.join(""))
      assert.notInclude(beforeClose.join(""), "hi from the second")
      assert.notInclude(written.join(""), "first@example.com")
      // At close, what was held is written too.
      assert.strictEqual(written.length, 7)
    }))

  it.effect("a session's own lines before its answer are held and redacted with its e-mail", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
        recorder.record("send", initialize("a"), 0)
        recorder.record("recv", answer("a", "first@example.com"), 0)
        recorder.record("recv", { type: "system", text: "early line of second@example.com" }, 1)
        recorder.record("send", initialize("b"), 1)
        recorder.record("recv", { type: "assistant", text: "first goes on" }, 0)
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        assert.strictEqual(written.length, 3)
        recorder.record("recv", answer("b", "second@example.com"), 1)
        recorder.record("recv", { type: "assistant", text: "to second@example.com" }, 1)
      }))
      const text = written.join("")
      assert.strictEqual(written.length, 7)
      assert.notInclude(text, "second@example.com")
      assert.include(text, "early line of [redacted]")
    }))
})
