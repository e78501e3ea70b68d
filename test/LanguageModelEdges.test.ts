/**
 * `effect/ai` on Claude Code, where an audit found it wanting: a toolkit call the CLI refused
 * before its handler ran (the CLI's raw text was decoded as the tool's result, and the whole call
 * failed), a call without the CLI's tool-use id, and a message the CLI re-sent without streaming
 * after a stream broke off (its text was lost, the abandoned attempt's kept). Also: a stream
 * ended early interrupts the CLI turn and ends the session.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import type { Transport } from "../src/Transport.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

const GetWeather = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Finite })
})
const Weather = Toolkit.make(GetWeather)
const WeatherHandlers = Weather.toLayer({ GetWeather: ({ city }) => Effect.succeed({ celsius: city.length }) })

const assistantToolUse = (id: string, name: string, input: unknown) =>
  assistantLine(sessionId, `msg_${id}`, [{ type: "tool_use", id, name, input }], { stopReason: "tool_use" })

const userToolResult = (id: string, content: string, isError = false) => toolResultLine(sessionId, id, content, isError)

const cliWith = (script: (cli: FakeCli.FakeCliHandle) => Effect.Effect<void, unknown>) =>
  FakeCli.layer(FakeCli.conversation({ sessionId, onUser: (_text, _index, cli) => script(cli) }))

const modelOn = (transport: Layer.Layer<Transport>) =>
  ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))

describe("ClaudeCodeLanguageModel: results and text the handler or the stream did not give", () => {
  it.effect("a toolkit call the CLI refused (permission denied, never reached the handler) is a failed tool result, not a failed call", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* cli.emit(assistantToolUse("toolu_w", "mcp__toolkit__GetWeather", { city: "Paris" }))
          // What the CLI writes when a hook or the permission handler denied the call.
          yield* cli.emit(userToolResult("toolu_w", "DENY-MESSAGE-host-said-no", true))
          for (const line of FakeCli.textTurn({ sessionId, text: "I could not check." })) yield* cli.emit(line)
        })
      )
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Weather?", toolkit: Weather }).pipe(
          Effect.provide(modelOn(transport)),
          Effect.provide(WeatherHandlers)
        )
      )
      assert.isTrue(Exit.isSuccess(exit), `generateText failed on a denied toolkit call: ${String(exit)}`)
      if (Exit.isSuccess(exit)) {
        assert.deepStrictEqual(
          exit.value.toolResults.map((result) => [result.id, result.isFailure, result.result]),
          [["toolu_w", true, { type: "execution-denied", reason: "DENY-MESSAGE-host-said-no" }]]
        )
      }
    }))

  it.effect("a toolkit call answered without the CLI's tool-use id (_meta) still reports the handler's result", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* cli.emit(assistantToolUse("toolu_w", "mcp__toolkit__GetWeather", { city: "Paris" }))
          const answer = yield* cli.request({
            subtype: "mcp_message",
            server_name: "toolkit",
            message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "GetWeather", arguments: { city: "Paris" } } }
          })
          const body = answer as { readonly response?: { readonly mcp_response?: { readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }> } } } }
          const text = body.response?.mcp_response?.result?.content?.[0]?.text ?? JSON.stringify(answer)
          yield* cli.emit(userToolResult("toolu_w", text))
          for (const line of FakeCli.textTurn({ sessionId, text: "Sunny." })) yield* cli.emit(line)
        })
      )
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Weather?", toolkit: Weather }).pipe(
          Effect.provide(modelOn(transport)),
          Effect.provide(WeatherHandlers)
        )
      )
      assert.isTrue(Exit.isSuccess(exit), `generateText failed on a toolkit call without _meta: ${String(exit)}`)
      if (Exit.isSuccess(exit)) {
        assert.deepStrictEqual(exit.value.toolResults.map((r) => [r.id, r.result]), [["toolu_w", { celsius: 5 }]])
      }
    }))

  // The lines of testdata/protocol/m8: an attempt streamed up to "partial ", cut by an SSE error,
  // then the CLI's retry, not streamed (only its assistant line carries the answer).
  const retriedCli = () => {
    const base = { session_id: sessionId, parent_tool_use_id: null }
    const streamEvent = (event: Record<string, unknown>, i: number) => ({ type: "stream_event", event, ...base, uuid: `se-${i}` })
    const usage = { input_tokens: 10, output_tokens: 5 }
    return cliWith((cli) =>
      Effect.gen(function*() {
        const [init] = FakeCli.textTurn({ sessionId, text: "" })
        yield* cli.emit(init)
        yield* cli.emit(streamEvent({
          type: "message_start",
          message: { id: "msg_attempt", type: "message", role: "assistant", model: "claude-fake-1", content: [], stop_reason: null, stop_sequence: null, usage }
        }, 1))
        yield* cli.emit(streamEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, 2))
        yield* cli.emit(streamEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "partial " } }, 3))
        yield* cli.emit(streamEvent({ type: "content_block_stop", index: 0 }, 4))
        yield* cli.emit(streamEvent({ type: "message_stop" }, 5))
        yield* cli.emit(assistantLine(sessionId, "msg_retry", [{ type: "text", text: "Recovered after errors." }], { usage, stopReason: "end_turn" }))
        yield* cli.emit(FakeCli.result({ sessionId, text: "Recovered after errors." }))
      })
    )
  }

  it.effect("a message the CLI re-sent without streaming after an SSE error mid-stream (as recorded in testdata m8): generateText's text is the response's", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "hello" }).pipe(Effect.provide(modelOn(retriedCli())))
      assert.strictEqual(response.text, "Recovered after errors.")
    }))

  it.effect("the same in streamText: the retried message comes whole, once, after the broken-off attempt's delta", () =>
    Effect.gen(function*() {
      const parts = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(Stream.runCollect, Effect.provide(modelOn(retriedCli())))
      const deltas = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : [])
      assert.deepStrictEqual(deltas, ["partial ", "Recovered after errors."])
    }))

  it.effect("streamText: the CLI's own line for an API error (<synthetic>) is no text of the model; the stream fails", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* cli.emit(FakeCli.textTurn({ sessionId, text: "" })[0])
          // As testdata/protocol/m2 (an API error 500): never streamed.
          yield* cli.emit({
            ...assistantLine(sessionId, "3f6c1c3e-0a4b-4c59-9a55-1d3c4c6e2b11", [{ type: "text", text: "API Error: 500 Internal server error" }]),
            error: "server_error",
            is_api_error_message: true
          })
          // An API error's result: `success` with `is_error` (as the CLI writes it).
          yield* cli.emit({
            ...FakeCli.result({ sessionId, text: "API Error: 500 Internal server error", terminalReason: "api_error" }),
            is_error: true,
            api_error_status: 500
          })
        })
      )
      const parts: Array<string> = []
      const exit = yield* LanguageModel.streamText({ prompt: "hello" }).pipe(
        Stream.runForEach((part) => Effect.sync(() => void (part.type === "text-delta" && parts.push(part.delta)))),
        Effect.provide(modelOn(transport)),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(parts, [])
    }))

  it.effect("streamText ended early: the CLI turn is interrupted and the session's CLI ended (no session left behind)", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const base = { session_id: sessionId, parent_tool_use_id: null }
      const streamEvent = (event: Record<string, unknown>, i: number) => ({ type: "stream_event", event, ...base, uuid: `se-${i}` })
      const transport = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          while (true) {
            const exit = yield* Effect.exit(cli.next)
            if (Exit.isFailure(exit)) {
              seen.push("stdin-closed")
              return 0
            }
            const message = exit.value
            if (message.type === "control_request") {
              const request = message.request as Record<string, unknown>
              seen.push(String(request.subtype))
              yield* cli.emit(FakeCli.success(message, request.subtype === "initialize" ? { commands: [], models: [] } : {}))
              if (request.subtype === "interrupt") {
                yield* cli.emit(FakeCli.result({ sessionId, subtype: "error_during_execution", terminalReason: "aborted_streaming" }))
              }
            } else if (message.type === "user") {
              yield* cli.emit(FakeCli.textTurn({ sessionId, text: "" })[0])
              yield* cli.emit(streamEvent({ type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "claude-fake-1", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }, 1))
              yield* cli.emit(streamEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, 2))
              yield* cli.emit(streamEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "one " } }, 3))
            }
          }
        })
      )
      const parts = yield* LanguageModel.streamText({ prompt: "Count" }).pipe(
        Stream.filter((part) => part.type === "text-delta"),
        Stream.take(1),
        Stream.runCollect,
        Effect.provide(modelOn(transport))
      )
      assert.strictEqual(parts.length, 1)
      assert.deepStrictEqual(seen, ["initialize", "interrupt", "stdin-closed"])
    }))
})

