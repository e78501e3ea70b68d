import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const GetWeather = Tool.make("GetWeather", { parameters: Schema.Struct({ city: Schema.String }), success: Schema.Struct({ celsius: Schema.Finite }) })
const Weather = Toolkit.make(GetWeather)
const DottedWeather = Tool.make("weather.get", { parameters: Schema.Struct({ city: Schema.String }), success: Schema.Struct({ celsius: Schema.Finite }) })
const Dotted = Toolkit.make(DottedWeather)

describe("a toolkit under names the CLI rewrites (real CLI)", { timeout: 120_000 }, () => {
  it.live("toolServerName \"weather.kit\": the call is allowed, runs the handler, and is reported", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const setup = yield* live([
        FakeModel.toolUse("mcp__weather_kit__GetWeather", { city: "Paris" }),
        FakeModel.text("21 degrees.")
      ], { permissionMode: undefined })
      const response = yield* LanguageModel.generateText({ prompt: "Weather?", toolkit: Weather }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer({ ...setup.options, toolServerName: "weather.kit" }).pipe(Layer.provide(processLayer))),
        Effect.provide(Weather.toLayer({ GetWeather: (params) => Effect.sync(() => { seen.push(params); return { celsius: 21 } }) }))
      )
      const requests = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.hasTool(requests[0]!, "mcp__weather_kit__GetWeather"))
      assert.deepStrictEqual(FakeModel.toolResults(requests[1]!).map((result) => result.isError), [false])
      assert.deepStrictEqual(seen, [{ city: "Paris" }])
      assert.deepStrictEqual(response.toolCalls.map((call) => [call.name, call.params]), [["GetWeather", { city: "Paris" }]])
      assert.deepStrictEqual(response.toolResults.map((result) => [result.name, result.result]), [["GetWeather", { celsius: 21 }]])
    }).pipe(Effect.scoped))

  it.live("a tool named \"weather.get\": the call is allowed, runs the handler, and is reported", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const setup = yield* live([
        FakeModel.toolUse("mcp__toolkit__weather_get", { city: "Paris" }),
        FakeModel.text("21 degrees.")
      ], { permissionMode: undefined })
      const response = yield* LanguageModel.generateText({ prompt: "Weather?", toolkit: Dotted }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(setup.options).pipe(Layer.provide(processLayer))),
        Effect.provide(Dotted.toLayer({ "weather.get": (params) => Effect.sync(() => { seen.push(params); return { celsius: 21 } }) }))
      )
      const requests = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.hasTool(requests[0]!, "mcp__toolkit__weather_get"))
      assert.deepStrictEqual(FakeModel.toolResults(requests[1]!).map((result) => result.isError), [false])
      assert.deepStrictEqual(seen, [{ city: "Paris" }])
      assert.deepStrictEqual(response.toolCalls.map((call) => [call.name, call.params]), [["weather.get", { city: "Paris" }]])
    }).pipe(Effect.scoped))
})
