/**
 * `McpServers.toolkit`: an `effect/ai` `Toolkit` with its handler layer served as an in-process
 * MCP server, driven over the JSON-RPC side as the session does (raw `mcp_message`s in,
 * `mcp_response` values out).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as McpServers from "../src/McpServers.ts"
import { connectTo, toolCall as call } from "./support/mcpWire.ts"

class CityUnknown extends Schema.TaggedError<CityUnknown>()("CityUnknown", { message: Schema.String }) {}

const GetWeather = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String, days: Schema.Int }),
  success: Schema.Struct({ celsius: Schema.Finite }),
  failure: CityUnknown
})

const Wait = Tool.make("Wait", {
  description: "Waits until cancelled",
  parameters: Schema.Struct({}),
  success: Schema.String
})

const Weather = Toolkit.make(GetWeather, Wait, ClaudeCodeLanguageModel.Bash)

const handlers = (seen: Array<unknown>, started?: Deferred.Deferred<void>, released?: Deferred.Deferred<void>) =>
  Weather.toLayer({
    GetWeather: (params) =>
      Effect.gen(function*() {
        seen.push(params)
        if (params.city === "Atlantis") return yield* new CityUnknown({ message: "No such city: Atlantis" })
        return { celsius: params.city.length + params.days }
      }),
    Wait: () =>
      Effect.gen(function*() {
        if (started !== undefined) yield* Deferred.succeed(started, undefined)
        return yield* Effect.never
      }).pipe(Effect.onInterrupt(() => released === undefined ? Effect.void : Deferred.succeed(released, undefined)))
  })


describe("McpServers.toolkit", () => {
  it.effect("lists the toolkit's tools with the JSON Schema of their parameters, not the provider's own", () =>
    Effect.gen(function*() {
      const server = McpServers.toolkit("weather", Weather, { alwaysLoad: true })
      const layer = McpServers.layer(server).pipe(Layer.provide(handlers([])))
      const mcp = yield* connectTo(layer)
      const answer = (yield* mcp.handle("weather", { jsonrpc: "2.0", id: 1, method: "tools/list" })) as {
        readonly result: { readonly tools: ReadonlyArray<{ readonly name: string; readonly inputSchema: unknown }> }
      }
      assert.deepStrictEqual(answer.result.tools.map((tool) => tool.name), ["GetWeather", "Wait"])
      assert.deepStrictEqual(answer.result.tools[0]!.inputSchema, Tool.getJsonSchema(GetWeather))
      const service = yield* Effect.service(McpServers.McpServers).pipe(Effect.provide(layer))
      assert.deepStrictEqual(McpServers.launchEntries(service), [{ name: "weather", alwaysLoad: true }])
    }))

  it.effect("decodes the parameters before the handler and sends the encoded success as JSON text", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const results: Array<McpServers.ToolkitCallResult> = []
      const server = McpServers.toolkit("weather", Weather, {
        onResult: (result) => Effect.sync(() => results.push(result))
      })
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(handlers(seen))))
      const answer = yield* mcp.handle("weather", call(2, "GetWeather", { city: "Paris", days: 2 }))
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: 2,
        result: { content: [{ type: "text", text: "{\"celsius\":7}" }] }
      })
      assert.deepStrictEqual(seen, [{ city: "Paris", days: 2 }])
      assert.deepStrictEqual(results, [{
        toolUseId: "toolu_2",
        name: "GetWeather",
        params: { city: "Paris", days: 2 },
        isFailure: false,
        encodedResult: { celsius: 7 }
      }])
    }))

  it.effect("parameters that do not decode never reach the handler: an isError result with the Schema's message", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const results: Array<McpServers.ToolkitCallResult> = []
      const server = McpServers.toolkit("weather", Weather, {
        onResult: (result) => Effect.sync(() => results.push(result))
      })
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(handlers(seen))))
      const answer = (yield* mcp.handle("weather", call(3, "GetWeather", { city: "Paris", days: 1.5 }))) as {
        readonly result: { readonly isError: boolean; readonly content: ReadonlyArray<{ readonly text: string }> }
      }
      assert.isTrue(answer.result.isError)
      assert.include(answer.result.content[0]!.text, "days")
      assert.deepStrictEqual(seen, [])
      assert.isTrue(results[0]!.isFailure)
    }))

  it.effect("a handler's typed failure is an isError result the model reads, its message first", () =>
    Effect.gen(function*() {
      const results: Array<McpServers.ToolkitCallResult> = []
      const server = McpServers.toolkit("weather", Weather, {
        onResult: (result) => Effect.sync(() => results.push(result))
      })
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(handlers([]))))
      const answer = yield* mcp.handle("weather", call(4, "GetWeather", { city: "Atlantis", days: 1 }))
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: 4,
        result: { content: [{ type: "text", text: "No such city: Atlantis" }], isError: true }
      })
      assert.deepStrictEqual(results[0]!.encodedResult, { _tag: "CityUnknown", message: "No such city: Atlantis" })
    }))

  it.effect("failureMode \"return\": the failure returned by the handler is an isError result too", () =>
    Effect.gen(function*() {
      const Lookup = Tool.make("Lookup", {
        parameters: Schema.Struct({ key: Schema.String }),
        success: Schema.String,
        failure: CityUnknown,
        failureMode: "return"
      })
      const Kit = Toolkit.make(Lookup)
      const results: Array<McpServers.ToolkitCallResult> = []
      const layer = McpServers.layer(
        McpServers.toolkit("kv", Kit, { onResult: (result) => Effect.sync(() => results.push(result)) })
      ).pipe(Layer.provide(Kit.toLayer({ Lookup: ({ key }) => Effect.fail(new CityUnknown({ message: `no ${key}` })) })))
      const mcp = yield* connectTo(layer)
      assert.deepStrictEqual(yield* mcp.handle("kv", call(7, "Lookup", { key: "x" })), {
        jsonrpc: "2.0",
        id: 7,
        result: { content: [{ type: "text", text: "no x" }], isError: true }
      })
      assert.deepStrictEqual(results.map((result) => [result.isFailure, result.encodedResult]), [
        [true, { _tag: "CityUnknown", message: "no x" }]
      ])
    }))

  it.effect("notifications/cancelled interrupts the handler", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const released = yield* Deferred.make<void>()
      const server = McpServers.toolkit("weather", Weather)
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(handlers([], started, released))))
      const fiber = yield* Effect.forkChild(mcp.handle("weather", call(5, "Wait", {})))
      yield* Deferred.await(started)
      yield* mcp.handle("weather", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } })
      yield* Deferred.await(released)
      const answer = (yield* Fiber.join(fiber)) as { readonly result: { readonly isError: boolean } }
      assert.isTrue(answer.result.isError)
    }))

  it.effect("McpServers.tool still serves a hand-written tool next to a toolkit", () =>
    Effect.gen(function*() {
      const echo = McpServers.tool({
        name: "echo",
        description: "Echo",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }) => Effect.succeed(text)
      })
      const mcp = yield* connectTo(
        McpServers.layer(McpServers.server("byre", { tools: [echo] }), McpServers.toolkit("weather", Weather)).pipe(
          Layer.provide(handlers([]))
        )
      )
      assert.deepStrictEqual(yield* mcp.handle("byre", call(6, "echo", { text: "hi" })), {
        jsonrpc: "2.0",
        id: 6,
        result: { content: [{ type: "text", text: "hi" }] }
      })
    }))
})
