/**
 * The CLI runs a tool as soon as its `tool_use` block is complete: an instant tool's `tool_result`
 * comes before its model request's `message_delta`, which alone carries the request's final
 * output tokens and stop reason (the `assistant` lines carry the `message_start` usage, output 1,
 * and no stop reason; CLI 2.1.332). The request's `chat` span ended at the tool result, and the
 * `message_delta` after it found no span: the span said 1 output token and no finish reason. The
 * span of a streamed request now ends at its `message_delta` when that comes after its tool results.
 * (An OpenTelemetry span drops what is written after its end: so does this test's tracer.)
 */

/** A span that, as OpenTelemetry's, takes no attribute once ended. */
class OtelLikeSpan extends Tracer.NativeSpan {
  override attribute(key: string, value: unknown): void {
    if (this.status._tag !== "Ended") super.attribute(key, value)
  }
}

const spans: Array<Tracer.NativeSpan> = []
const otelLike = Tracer.make({
  span: (options) => {
    const span = new OtelLikeSpan(options)
    spans.push(span)
    return span
  }
})
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { named } from "./support/spans.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const startUsage = { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

const streamEvent = (event: Record<string, unknown>, uuid: string, index: number) => ({
  type: "stream_event",
  event,
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: `se-${index}`,
  user_message_uuid: uuid,
  user_message_uuids: [uuid]
})

const message = (id: string) => ({
  id,
  type: "message",
  role: "assistant",
  model: "claude-fake-1",
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage: startUsage
})

describe("Tracing: a model request whose tool result comes before its end", () => {
  it.effect("keeps its final output tokens and finish reason", () =>
    Effect.gen(function*() {
      const cli = FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, user) =>
          Effect.gen(function*() {
            const uuid = String(user.uuid)
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
            yield* cli.emit(streamEvent({ type: "message_start", message: message("msg_1") }, uuid, 1))
            yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Read", input: {} }], {
              usage: startUsage,
              userMessageUuid: uuid
            }))
            // The instant tool's result, then the end of the request that asked for it.
            yield* cli.emit(toolResultLine(SESSION, "toolu_1", "contents"))
            yield* cli.emit(streamEvent({ type: "content_block_stop", index: 0 }, uuid, 2))
            yield* cli.emit(streamEvent({
              type: "message_delta",
              delta: { stop_reason: "tool_use", stop_sequence: null },
              usage: { output_tokens: 42 }
            }, uuid, 3))
            yield* cli.emit(streamEvent({ type: "message_stop" }, uuid, 4))
            yield* cli.emit(streamEvent({ type: "message_start", message: message("msg_2") }, uuid, 5))
            yield* cli.emit(assistantLine(SESSION, "msg_2", [{ type: "text", text: "Read it." }], { usage: startUsage, userMessageUuid: uuid }))
            yield* cli.emit(streamEvent({
              type: "message_delta",
              delta: { stop_reason: "end_turn", stop_sequence: null },
              usage: { output_tokens: 7 }
            }, uuid, 6))
            yield* cli.emit(streamEvent({ type: "message_stop" }, uuid, 7))
            yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION, text: "Read it." }), user_message_uuid: uuid, user_message_uuids: [uuid] })
          })
      })
      yield* Effect.flatMap(Claude.open(), (session) => session.run("read the file")).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(cli)),
        Effect.withTracer(otelLike),
        Effect.provide(Logger.layer([]))
      )
      const chat = (id: string) => named(spans, "chat").find((span) => span.attributes.get("gen_ai.response.id") === id)!
      const first = chat("msg_1")
      assert.strictEqual(first.attributes.get("gen_ai.usage.output_tokens"), 42)
      assert.deepStrictEqual(first.attributes.get("gen_ai.response.finish_reasons"), ["tool_use"])
      assert.strictEqual(first.status._tag, "Ended")
      const second = chat("msg_2")
      assert.strictEqual(second.attributes.get("gen_ai.usage.output_tokens"), 7)
      assert.deepStrictEqual(second.attributes.get("gen_ai.response.finish_reasons"), ["end_turn"])
    }))
})
