/**
 * One `effect/ai` program, two models: `assistant` knows only `LanguageModel` and a `Toolkit`.
 * Run once with a hand-made test `LanguageModel` (it asks for the tool; `effect/ai` runs the
 * handler) and once on Claude Code (`ClaudeCodeLanguageModel.layer`: the CLI calls the same tool,
 * served in process, then answers). Only the layer changes.
 *
 * Offline here: the CLI talks to the fake model, which calls the tool and then answers with its
 * result. With your own `claude`, drop `fakeModel` and pass your options (`model`, `cwd`, …).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

// ---- the tool, defined once ---------------------------------------------------------------

const GetWeather = Tool.make("GetWeather", {
  description: "The temperature in a city, in degrees Celsius",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Finite })
})

const Weather = Toolkit.make(GetWeather)

const WeatherHandlers = Weather.toLayer({
  GetWeather: ({ city }) => Effect.succeed({ celsius: city === "Paris" ? 21 : 15 })
})

// ---- the program: effect/ai only ----------------------------------------------------------------

/** What the program saw: the tools called, their results, the text. */
export interface Answer {
  readonly calls: ReadonlyArray<string>
  readonly results: ReadonlyArray<unknown>
  readonly text: string
}

/** Asks for the weather with the toolkit; whichever model is provided answers. */
export const assistant: Effect.Effect<Answer, unknown, LanguageModel.LanguageModel> = LanguageModel.generateText({
  prompt: "What is the weather in Paris?",
  toolkit: Weather
}).pipe(
  Effect.map((response) => ({
    calls: response.toolCalls.map((call) => call.name),
    results: response.toolResults.map((result) => result.result),
    text: response.text
  })),
  Effect.provide(WeatherHandlers)
)

// ---- model 1: a hand-made LanguageModel, for tests ----------------------------------------------

/** Always asks for the weather in Paris; `effect/ai` runs the handler. */
export const TestModel: Layer.Layer<LanguageModel.LanguageModel> = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: () =>
      Effect.succeed([
        { type: "text", text: "Let me check." },
        { type: "tool-call", id: "call_1", name: "GetWeather", params: { city: "Paris" } },
        { type: "finish", reason: "tool-calls", usage: { inputTokens: {}, outputTokens: {} } }
      ]),
    streamText: () => Stream.empty
  })
)

// ---- model 2: Claude Code ------------------------------------------------------------------------

/** The fake model calls the served tool, then answers with its result. */
const script: FakeModel.Script = (request) => {
  const [result] = FakeModel.toolResults(request)
  return result === undefined
    ? FakeModel.toolUse("mcp__toolkit__GetWeather", { city: "Paris" })
    : FakeModel.text(`It is ${JSON.parse(result.content).celsius} degrees in Paris.`)
}

/** The same program on both models. */
export const program: Effect.Effect<{ readonly test: Answer; readonly claudeCode: Answer }, unknown> = Effect.gen(
  function*() {
    const test = yield* assistant.pipe(Effect.provide(TestModel))
    const { options } = yield* fakeModel(script)
    const claudeCode = yield* assistant.pipe(
      Effect.provide(ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(processLayer)))
    )
    yield* Console.log("test model:", test)
    yield* Console.log("Claude Code:", claudeCode)
    return { test, claudeCode }
  }
).pipe(Effect.scoped)

if (isMain(import.meta)) NodeRuntime.runMain(program)
