/**
 * Lines over the cap (`maxLineBytes`) that are still requests, answers or results: a request too
 * long to read gets an error answer (the CLI waited for ever), an answer too long fails its
 * request at once (it waited for its deadline), a result whose type lies further from the line's
 * end than 2 KiB still fails its turn (it hung); and a line within the cap is not reported over
 * it because its invalid bytes decode to U+FFFD (three bytes each in UTF-8). Each was wrong
 * before (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("lines over the cap", () => {
  it.effect("an over-cap control_request is answered, so the CLI does not wait for ever", () => {
    const answered: Array<unknown> = []
    return Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 1000 })
      yield* session.run("x")
      // Both requests were read before the turn's result: each one needs an answer.
      assert.deepStrictEqual(answered, ["big-1", "small-2"])
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli) =>
        Effect.gen(function*() {
          const lines = FakeCli.textTurn({ sessionId: SESSION, text })
          yield* cli.emit(lines[0])
          // A Write permission request whose file content takes the line over the cap.
          yield* cli.emit({
            type: "control_request",
            request_id: "big-1",
            request: {
              subtype: "can_use_tool",
              tool_name: "Write",
              input: { file_path: "big.txt", content: "z".repeat(5000) },
              tool_use_id: "toolu_big"
            }
          })
          // A malformed request, which the reader rejects with an error answer.
          yield* cli.emit({ type: "control_request", request_id: "small-2", request: { subtype: "can_use_tool" } })
          while (true) {
            const message = yield* cli.nextMatching((m) => m.type === "control_response")
            const id = (message.response as { readonly request_id?: unknown }).request_id
            answered.push(id)
            if (id === "small-2") break
          }
          for (const line of lines.slice(1)) yield* cli.emit(line)
        })
    }))))
  })

  it.live("an over-cap result whose type is more than 2 KiB from the line's end still fails its turn (no hang)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 4000, interruptTimeout: "200 millis" })
      const exit = yield* session.turn("x").pipe(Stream.runDrain, Effect.exit, Effect.timeoutOption("1 second"))
      assert.isTrue(Option.isSome(exit), "the turn never ended")
      if (Option.isSome(exit)) assert.isTrue(Exit.isFailure(exit.value))
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli) =>
        Effect.gen(function*() {
          const lines = FakeCli.textTurn({ sessionId: SESSION, text })
          for (const line of lines.slice(0, -1)) yield* cli.emit(line)
          // CLI 2.1.332's own result line (its key order), after a turn of 40 API calls over two
          // models, whose final text is over the cap.
          const recorded = fs.readFileSync(new URL("../testdata/protocol/a-plain-turn.ndjson", import.meta.url), "utf8")
            .split("\n").filter((l) => l.includes("\"type\":\"result\""))[0]!
          const result = (JSON.parse(recorded) as { readonly msg: Record<string, unknown> }).msg
          const usage = result.model_usage_since_last_result as Record<string, unknown>
          const model = usage["claude-opus-5-5"]
          result.result = "z".repeat(5000)
          result.session_id = SESSION
          result.begun_message_ids = Array.from({ length: 40 }, (_, i) => `msg_01${String(i).padStart(22, "A")}`)
          result.model_usage_since_last_result = { "claude-opus-5-5": model, "claude-haiku-4-5-20251001": model }
          yield* cli.emit(result)
        })
    })))))

  it.live("an over-cap control_response fails its request at once, not at controlTimeout", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 2000 })
      // The CLI did answer: the request must not wait for its 60-second deadline.
      const exit = yield* session.exportConversation().pipe(Effect.exit, Effect.timeoutOption("1 second"))
      assert.isTrue(Option.isSome(exit), "still waiting after the CLI answered")
      if (Option.isSome(exit)) {
        assert.isTrue(Exit.isFailure(exit.value))
        assert.include(String(exit.value), "over the cap")
      }
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onControl: (request, cli) => cli.emit(FakeCli.success(request, { text: "z".repeat(5000) }))
    })))))

  it("a line within the cap is not reported over it because invalid bytes decode to U+FFFD", () => {
    const splitter = new Framing.LineSplitter(12)
    // 10 bytes on the wire: `{"a":"` + two invalid bytes + `"}`.
    const line = Buffer.concat([Buffer.from("{\"a\":\""), Buffer.from([0xFF, 0xFF]), Buffer.from("\"}\n")])
    const frames = splitter.push(line)
    assert.deepStrictEqual(frames, ["{\"a\":\"\uFFFD\uFFFD\"}"])
  })
})
