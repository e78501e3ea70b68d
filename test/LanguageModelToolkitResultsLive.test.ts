import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const Double = Tool.make("Double", { parameters: Schema.Struct({ n: Schema.FiniteFromString }), success: Schema.Number })
const DoubleKit = Toolkit.make(Double)
const Count = Tool.make("Count", { parameters: Schema.Struct({ n: Schema.Number }), success: Schema.BigInt })
const CountKit = Toolkit.make(Count)

describe("effect/ai toolkit results (real CLI)", { timeout: 120_000 }, () => {
  it.live("a call the parameters' transformation refused, then retried: generateText succeeds", () =>
    Effect.gen(function*() {
      const seen: Array<number> = []
      const setup = yield* live([
        FakeModel.toolUse("mcp__toolkit__Double", { n: "abc" }),
        FakeModel.toolUse("mcp__toolkit__Double", { n: "21" }),
        FakeModel.text("42.")
      ])
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "Double 21", toolkit: DoubleKit }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(setup.options).pipe(Layer.provide(processLayer))),
        Effect.provide(DoubleKit.toLayer({ Double: ({ n }) => Effect.sync(() => { seen.push(n); return n * 2 }) }))
      ))
      const requests = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.toolResults(requests[1]!)[0]!.isError)
      assert.deepStrictEqual(seen, [21])
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
    }).pipe(Effect.scoped))

  it.live("a handler whose success JSON cannot carry: the model reads a failure, generateText succeeds", () =>
    Effect.gen(function*() {
      const setup = yield* live([FakeModel.toolUse("mcp__toolkit__Count", { n: 5 }), FakeModel.text("The tool failed.")])
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "Count", toolkit: CountKit }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(setup.options).pipe(Layer.provide(processLayer))),
        Effect.provide(CountKit.toLayer({ Count: ({ n }) => Effect.succeed(BigInt(n)) }))
      ))
      const requests = yield* setup.model.messageRequests
      assert.isTrue(FakeModel.toolResults(requests[1]!)[0]!.isError)
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
    }).pipe(Effect.scoped))
})
