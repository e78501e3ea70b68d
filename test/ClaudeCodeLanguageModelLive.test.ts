/**
 * `effect/ai` on Claude Code, against the real CLI 2.1.332 and the fake model: a `Toolkit` served
 * to the CLI in process (`McpServers.toolkit`), and `LanguageModel.generateText`, `streamText`,
 * `generateObject` and `Chat` on `ClaudeCodeLanguageModel`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import type * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

class CityUnknown extends Schema.TaggedError<CityUnknown>()("CityUnknown", { message: Schema.String }) {}

const GetWeather = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Finite }),
  failure: CityUnknown
})

const Add = Tool.make("Add", {
  description: "Adds two integers",
  parameters: Schema.Struct({ a: Schema.Int, b: Schema.Int }),
  success: Schema.Int
})

/** One toolkit for every model: two tools of ours, and Claude Code's Bash to see its calls. */
const Kit = Toolkit.make(GetWeather, Add, ClaudeCodeLanguageModel.Bash)

const handlers = (seen: Array<unknown>) =>
  Kit.toLayer({
    GetWeather: (params) =>
      Effect.gen(function*() {
        seen.push(params)
        if (params.city === "Atlantis") return yield* new CityUnknown({ message: "No such city: Atlantis" })
        return { celsius: 21 }
      }),
    Add: (params) =>
      Effect.sync(() => {
        seen.push(params)
        return params.a + params.b
      })
  })

/** Records every line the sessions write and read. */
const recording = () => {
  const lines: Array<{ readonly direction: "send" | "recv"; readonly message: unknown }> = []
  const recorder: Claude.Recorder = { record: (direction, message) => lines.push({ direction, message }) }
  const results = () =>
    lines.flatMap(({ direction, message }) => {
      const line = message as { readonly type?: unknown; readonly terminal_reason?: unknown }
      return direction === "recv" && line.type === "result" ? [line] : []
    })
  return { lines, recorder, results }
}

const modelLayer = (options: Claude.SessionOptions, extra?: ClaudeCodeLanguageModel.Options) =>
  ClaudeCodeLanguageModel.layer({ ...options, ...extra }).pipe(Layer.provide(processLayer))

describe("effect/ai on Claude Code (real CLI, fake model)", () => {
  it.live("a Toolkit served to the CLI: both tools called with decoded parameters, a failure read by the model, Bash reported", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const setup = yield* live([
        FakeModel.blocks([
          FakeModel.toolUseBlock("mcp__toolkit__GetWeather", { city: "Paris" }),
          FakeModel.toolUseBlock("mcp__toolkit__Add", { a: 2, b: 3 })
        ]),
        FakeModel.toolUse("mcp__toolkit__GetWeather", { city: "Atlantis" }),
        FakeModel.toolUse("Bash", { command: "echo hi" }),
        FakeModel.text("Paris is at 21 degrees, 2 + 3 = 5.")
      ])
      const response = yield* LanguageModel.generateText({ prompt: "Weather and sums", toolkit: Kit }).pipe(
        Effect.provide(modelLayer(setup.options)),
        Effect.provide(handlers(seen))
      )
      // The handlers got decoded parameters; the call with the unknown city reached its handler too.
      assert.deepStrictEqual(seen, [{ city: "Paris" }, { a: 2, b: 3 }, { city: "Atlantis" }])
      // The response: the text, the calls (toolkit and Bash, all run by the provider), their results, usage.
      assert.strictEqual(response.text, "Paris is at 21 degrees, 2 + 3 = 5.")
      assert.deepStrictEqual(
        response.toolCalls.map((call) => [call.name, call.params, call.providerExecuted]),
        [
          ["GetWeather", { city: "Paris" }, true],
          ["Add", { a: 2, b: 3 }, true],
          ["GetWeather", { city: "Atlantis" }, true],
          ["Bash", { command: "echo hi" }, true]
        ]
      )
      const results = response.toolResults.map((result) => [result.name, result.isFailure, result.result])
      assert.deepStrictEqual(results.slice(0, 2), [["GetWeather", false, { celsius: 21 }], ["Add", false, 5]])
      assert.strictEqual(results[2]![0], "GetWeather")
      assert.isTrue(results[2]![1])
      assert.strictEqual((results[2]![2] as CityUnknown).message, "No such city: Atlantis")
      assert.deepStrictEqual(results[3]!.slice(0, 2), ["Bash", false])
      assert.include(String(results[3]![2]), "hi")
      assert.isAbove(response.usage.outputTokens.total ?? 0, 0)
      assert.strictEqual(response.finishReason, "stop")

      // The model saw the tools, and the failing handler's message as an erroring tool result.
      const requests = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.hasTool(requests[0]!, "mcp__toolkit__GetWeather"))
      assert.isTrue(FakeModel.hasTool(requests[0]!, "mcp__toolkit__Add"))
      assert.deepStrictEqual(FakeModel.toolResults(requests[1]!).map((result) => result.content), ["{\"celsius\":21}", "5"])
      const failed = FakeModel.toolResults(requests[2]!)
      assert.strictEqual(failed[0]!.content, "No such city: Atlantis")
      assert.isTrue(failed[0]!.isError)
    }).pipe(Effect.scoped))

  it.live("the same Toolkit value with a hand-made LanguageModel: the framework runs the handler", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const testModel = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: () =>
            Effect.succeed([
              { type: "tool-call", id: "call_1", name: "Add", params: { a: 1, b: 2 } },
              { type: "finish", reason: "tool-calls", usage: { inputTokens: {}, outputTokens: {} } }
            ]),
          streamText: () => Stream.empty
        })
      )
      const response = yield* LanguageModel.generateText({ prompt: "Add", toolkit: Kit }).pipe(
        Effect.provide(testModel),
        Effect.provide(handlers(seen))
      )
      assert.deepStrictEqual(seen, [{ a: 1, b: 2 }])
      assert.deepStrictEqual(response.toolResults.map((result) => [result.name, result.result, result.providerExecuted]), [
        ["Add", 3, false]
      ])
    }))

  it.live("streamText yields text deltas before the turn ends", () =>
    Effect.gen(function*() {
      const { recorder, results } = recording()
      const setup = yield* live([FakeModel.text("one two three four five six", { chunks: 6, delayMs: 150 })])
      const resultsAtFirstDelta: Array<number> = []
      const deltas = yield* LanguageModel.streamText({ prompt: "Count" }).pipe(
        Stream.tap((part) =>
          Effect.sync(() => {
            if (part.type === "text-delta" && resultsAtFirstDelta.length === 0) resultsAtFirstDelta.push(results().length)
          })
        ),
        Stream.filter((part) => part.type === "text-delta"),
        Stream.runCollect,
        Effect.provide(modelLayer(setup.options, { transcript: recorder }))
      )
      assert.deepStrictEqual(resultsAtFirstDelta, [0])
      assert.isAtLeast(deltas.length, 2)
      assert.strictEqual(deltas.map((part) => part.type === "text-delta" ? part.delta : "").join(""), "one two three four five six")
      assert.lengthOf(results(), 1)
    }).pipe(Effect.scoped))

  it.live("generateObject returns a value of the Schema (the CLI's structured output)", () =>
    Effect.gen(function*() {
      const Person = Schema.Struct({ name: Schema.String, age: Schema.Int })
      const setup = yield* live([FakeModel.toolUse("StructuredOutput", { name: "Ada", age: 36 })])
      const response = yield* LanguageModel.generateObject({ prompt: "Who wrote the first program?", schema: Person }).pipe(
        Effect.provide(modelLayer(setup.options))
      )
      const person: { readonly name: string; readonly age: number } = response.value
      assert.deepStrictEqual(person, { name: "Ada", age: 36 })
      const [request] = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.hasTool(request!, "StructuredOutput"))
    }).pipe(Effect.scoped))

  it.live("a Chat of three turns keeps context, on one CLI session with conversation: \"resume\"", () =>
    Effect.gen(function*() {
      const setup = yield* live([
        FakeModel.text("Nice to meet you, Ada."),
        FakeModel.text("You like tea."),
        FakeModel.text("Your name is Ada.")
      ])
      const sessions = yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        const answers = []
        for (const prompt of ["My name is Ada.", "I like tea.", "What is my name?"]) {
          answers.push(yield* chat.generateText({ prompt }))
        }
        return answers.map((answer) => {
          const finish = answer.content.find((part) => part.type === "finish")!
          return (finish.metadata[ClaudeCodeLanguageModel.metadataKey] as { readonly sessionId: string }).sessionId
        })
      }).pipe(Effect.provide(modelLayer(setup.options, { conversation: "resume" })))
      assert.lengthOf(new Set(sessions), 1)
      const requests = yield* setup.model.messageRequests
      const third = requests.at(-1)!
      assert.include(JSON.stringify(third.messages), "My name is Ada.")
      assert.include(JSON.stringify(third.messages), "Nice to meet you, Ada.")
      assert.strictEqual(FakeModel.lastUserText(third), "What is my name?")
    }).pipe(Effect.scoped))

  it.live("a resumed session the CLI no longer has (its files removed) gives way to a fresh one", () =>
    Effect.gen(function*() {
      const setup = yield* live([FakeModel.text("Nice to meet you, Ada."), FakeModel.text("Your name is Ada.")])
      const answer = yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "My name is Ada." })
        Fs.rmSync(Path.join(setup.home, ".claude", "projects"), { recursive: true, force: true })
        return yield* chat.generateText({ prompt: "What is my name?" })
      }).pipe(Effect.provide(modelLayer(setup.options, { conversation: "resume" })))
      assert.strictEqual(answer.text, "Your name is Ada.")
      const requests = yield* setup.model.messageRequests
      // The fresh session got the first turn as a transcript.
      assert.include(FakeModel.lastUserText(requests.at(-1)!), JSON.stringify({ role: "user", content: "My name is Ada." }))
    }).pipe(Effect.scoped))

  it.live("interrupting streamText's consumer interrupts the CLI turn; the next call works", () =>
    Effect.gen(function*() {
      const { recorder, results } = recording()
      const setup = yield* live([
        FakeModel.text("a long answer that streams slowly, word by word, for a while", { chunks: 30, delayMs: 200 }),
        FakeModel.text("Short.")
      ])
      const layer = modelLayer(setup.options, { transcript: recorder })
      // The consumer is a fiber, interrupted once the first delta is in.
      const firstDelta = yield* Deferred.make<void>()
      const consumer = yield* LanguageModel.streamText({ prompt: "Talk" }).pipe(
        Stream.runForEach((part) => part.type === "text-delta" ? Deferred.succeed(firstDelta, undefined) : Effect.void),
        Effect.provide(layer),
        Effect.forkChild
      )
      yield* Deferred.await(firstDelta)
      yield* Fiber.interrupt(consumer)
      // Interrupting waited for the CLI's turn to end: its aborted result is already on the wire.
      const aborted = results().find((result) => String(result.terminal_reason).startsWith("aborted_"))
      assert.isDefined(aborted)
      const next = yield* LanguageModel.generateText({ prompt: "Again" }).pipe(Effect.provide(layer))
      assert.strictEqual(next.text, "Short.")
    }).pipe(Effect.scoped))
})
