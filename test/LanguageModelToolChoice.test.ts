import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

const Count = Tool.make("Count", { parameters: Schema.Struct({ n: Schema.Number }), success: Schema.Number })
const Double = Tool.make("Double", { parameters: Schema.Struct({ n: Schema.Number }), success: Schema.Number })
const Kit = Toolkit.make(Count, Double)
const Handlers = Kit.toLayer({ Count: ({ n }) => Effect.succeed(n), Double: ({ n }) => Effect.succeed(n * 2) })

/** The names the toolkit's server lists to the CLI in a turn ("no server" when the CLI has none by that name). */
const servedTools = (toolChoice: LanguageModel.ToolChoice<"Count" | "Double">) =>
  Effect.gen(function*() {
    const listed = yield* Ref.make<ReadonlyArray<string> | "no server">([])
    const transport = FakeCli.layer(FakeCli.conversation({
      sessionId,
      onUser: (_text, _index, cli) =>
        Effect.gen(function*() {
          const answer = (yield* cli.request({
            subtype: "mcp_message",
            server_name: "toolkit",
            message: { jsonrpc: "2.0", id: 1, method: "tools/list" }
          }).pipe(Effect.orElseSucceed(() => undefined))) as
            | { readonly response?: { readonly mcp_response?: { readonly result?: { readonly tools?: ReadonlyArray<{ readonly name: string }> } } } }
            | undefined
          const tools = answer?.response?.mcp_response?.result?.tools
          yield* Ref.set(listed, tools === undefined ? "no server" : tools.map((tool) => tool.name))
          for (const line of FakeCli.textTurn({ sessionId, text: "Done." })) yield* cli.emit(line)
        })
    }))
    yield* LanguageModel.generateText({ prompt: "Count", toolkit: Kit, toolChoice }).pipe(
      Effect.provide(ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))),
      Effect.provide(Handlers)
    )
    return yield* Ref.get(listed)
  })

describe("ClaudeCodeLanguageModel: toolChoice", () => {
  it.effect("auto serves every tool of the toolkit", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual([...(yield* servedTools("auto")) ].sort(), ["Count", "Double"])
    }))

  it.effect("none serves no tool: the CLI has no toolkit server", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* servedTools("none"), "no server")
    }))

  it.effect("{ tool } serves that tool alone: the model cannot call another of the toolkit", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* servedTools({ tool: "Double" }), ["Double"])
    }))

  it.effect("{ oneOf } serves those tools alone", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* servedTools({ oneOf: ["Count"] }), ["Count"])
    }))
})
