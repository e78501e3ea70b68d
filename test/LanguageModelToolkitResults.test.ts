import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"
const cliWith = (script: (cli: FakeCli.FakeCliHandle) => Effect.Effect<void, unknown>) =>
  FakeCli.layer(FakeCli.conversation({ sessionId, onUser: (_text, _index, cli) => script(cli) }))
const modelOn = (transport: Layer.Layer<Transport>) => ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))

const toolkitCall = (cli: FakeCli.FakeCliHandle, name: string, id: string, rpcId: number, args: unknown, withMeta = true) =>
  Effect.gen(function*() {
    yield* cli.emit(assistantLine(sessionId, `msg_${id}`, [{ type: "tool_use", id, name: `mcp__toolkit__${name}`, input: args }], { stopReason: "tool_use" }))
    const answer = (yield* cli.request({
      subtype: "mcp_message",
      server_name: "toolkit",
      message: { jsonrpc: "2.0", id: rpcId, method: "tools/call", params: { name, arguments: args, ...(withMeta ? { _meta: { "claudecode/toolUseId": id } } : {}) } }
    })) as { readonly response?: { readonly mcp_response?: { readonly result?: { readonly isError?: boolean; readonly content?: ReadonlyArray<{ readonly text?: string }> } } } }
    const result = answer.response?.mcp_response?.result
    yield* cli.emit(toolResultLine(sessionId, id, result?.content?.[0]?.text ?? "", result?.isError === true))
  })

const Count = Tool.make("Count", { parameters: Schema.Struct({ n: Schema.Number }), success: Schema.BigInt })
const CountKit = Toolkit.make(Count)
const CountHandlers = CountKit.toLayer({ Count: ({ n }) => Effect.succeed(BigInt(n)) })
const Double = Tool.make("Double", { parameters: Schema.Struct({ n: Schema.FiniteFromString }), success: Schema.Number })
const DoubleKit = Toolkit.make(Double)
const DoubleHandlers = DoubleKit.toLayer({ Double: ({ n }) => Effect.succeed(n * 2) })
const Remind = Tool.make("Remind", { parameters: Schema.Struct({ note: Schema.optional(Schema.String), at: Schema.String }), success: Schema.String })
const RemindKit = Toolkit.make(Remind)
const RemindHandlers = RemindKit.toLayer({ Remind: ({ at, note }) => Effect.succeed(`${note ?? "-"} at ${at}`) })
class Flaky extends Schema.TaggedError<Flaky>()("Flaky", { message: Schema.String }) {}
const Fetch = Tool.make("Fetch", { parameters: Schema.Struct({ url: Schema.String }), success: Schema.String, failure: Flaky })
const FetchKit = Toolkit.make(Fetch)

/** A `tools/call` of the toolkit's server, its answer's `isError` and text. */
const callTool = (cli: FakeCli.FakeCliHandle, name: string, id: string, rpcId: number, args: unknown, withMeta: boolean) =>
  Effect.map(
    cli.request({
      subtype: "mcp_message",
      server_name: "toolkit",
      message: { jsonrpc: "2.0", id: rpcId, method: "tools/call", params: { name, arguments: args, ...(withMeta ? { _meta: { "claudecode/toolUseId": id } } : {}) } }
    }),
    (answer) => {
      const result = (answer as { readonly response?: { readonly mcp_response?: { readonly result?: { readonly isError?: boolean; readonly content?: ReadonlyArray<{ readonly text?: string }> } } } })
        .response?.mcp_response?.result
      return { isError: result?.isError === true, text: result?.content?.[0]?.text ?? "" }
    }
  )

describe("ClaudeCodeLanguageModel: toolkit results", () => {
  it.effect("a handler whose success JSON cannot carry (the model read a failure) does not fail generateText", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) => Effect.gen(function*() {
        yield* toolkitCall(cli, "Count", "toolu_1", 1, { n: 5 })
        for (const line of FakeCli.textTurn({ sessionId, text: "The tool failed." })) yield* cli.emit(line)
      }))
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "Count", toolkit: CountKit }).pipe(Effect.provide(modelOn(transport)), Effect.provide(CountHandlers)))
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
      if (Exit.isSuccess(exit)) {
        assert.strictEqual(exit.value.text, "The tool failed.")
        assert.deepStrictEqual(exit.value.toolResults.map((result) => [result.id, result.isFailure]), [["toolu_1", true]])
        const failure: unknown = exit.value.toolResults[0]?.result
        assert.isTrue(AiError.isAiError(failure), `not an AiError: ${JSON.stringify(failure)}`)
        if (AiError.isAiError(failure)) assert.strictEqual(failure.reason._tag, "ToolResultEncodingError")
      }
    }))

  it.effect("a call whose arguments the parameters' transformation refused (the model retried) does not fail generateText", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) => Effect.gen(function*() {
        yield* toolkitCall(cli, "Double", "toolu_bad", 1, { n: "abc" })
        yield* toolkitCall(cli, "Double", "toolu_ok", 2, { n: "21" })
        for (const line of FakeCli.textTurn({ sessionId, text: "42." })) yield* cli.emit(line)
      }))
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt: "Double 21", toolkit: DoubleKit }).pipe(Effect.provide(modelOn(transport)), Effect.provide(DoubleHandlers)))
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
      if (Exit.isSuccess(exit)) {
        assert.strictEqual(exit.value.text, "42.")
        assert.deepStrictEqual(exit.value.toolResults.map((result) => [result.id, result.result]), [["toolu_ok", 42]])
      }
      const streamed = yield* Effect.exit(LanguageModel.streamText({ prompt: "Double 21", toolkit: DoubleKit }).pipe(Stream.runCollect, Effect.provide(modelOn(transport)), Effect.provide(DoubleHandlers)))
      assert.isTrue(Exit.isSuccess(streamed), `streamText failed: ${String(streamed)}`)
    }))

  it.effect("a call answered without the CLI's _meta id, with a null optional argument: the handler's success, not a denial", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) => Effect.gen(function*() {
        yield* toolkitCall(cli, "Remind", "toolu_1", 1, { note: null, at: "noon" }, false)
        for (const line of FakeCli.textTurn({ sessionId, text: "Set." })) yield* cli.emit(line)
      }))
      const response = yield* LanguageModel.generateText({ prompt: "Remind me", toolkit: RemindKit }).pipe(Effect.provide(modelOn(transport)), Effect.provide(RemindHandlers))
      assert.deepStrictEqual(response.toolResults.map((result) => [result.id, result.isFailure, result.result]), [["toolu_1", false, "- at noon"]])
    }))

  it.effect("a handler that died: the call's failure is an AiError, not a denial", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) => Effect.gen(function*() {
        yield* toolkitCall(cli, "Count", "toolu_1", 1, { n: 5 })
        for (const line of FakeCli.textTurn({ sessionId, text: "The tool broke." })) yield* cli.emit(line)
      }))
      const response = yield* LanguageModel.generateText({ prompt: "Count", toolkit: CountKit }).pipe(
        Effect.provide(modelOn(transport)),
        Effect.provide(CountKit.toLayer({ Count: () => Effect.die(new Error("disk on fire")) }))
      )
      const result = response.toolResults[0]
      assert.deepStrictEqual([result?.id, result?.isFailure], ["toolu_1", true])
      const failure: unknown = result?.result
      assert.isTrue(AiError.isAiError(failure), `not an AiError: ${JSON.stringify(failure)}`)
      if (AiError.isAiError(failure)) {
        assert.strictEqual(failure.reason._tag, "UnknownError")
        assert.include(failure.message, "disk on fire")
      }
    }).pipe(Effect.provide(Logger.layer([]))))

  for (const withMeta of [true, false]) {
    it.effect(`two calls of a tool with the same arguments at once, the first failing after the second succeeded: each result as the model read it (${withMeta ? "with" : "without"} the CLI's _meta id)`, () =>
      Effect.gen(function*() {
        // The first call fails once the second has answered: the handlers report in the other order.
        const secondAnswered = yield* Deferred.make<void>()
        let calls = 0
        const handlers = FetchKit.toLayer({
          Fetch: () =>
            ++calls === 1
              ? Effect.andThen(Deferred.await(secondAnswered), Effect.fail(new Flaky({ message: "timed out" })))
              : Effect.succeed("the page")
        })
        const modelRead: Array<[string, boolean]> = []
        const transport = cliWith((cli) =>
          Effect.gen(function*() {
            yield* cli.emit(assistantLine(sessionId, "msg_1", [
              { type: "tool_use", id: "toolu_1", name: "mcp__toolkit__Fetch", input: { url: "x" } },
              { type: "tool_use", id: "toolu_2", name: "mcp__toolkit__Fetch", input: { url: "x" } }
            ], { stopReason: "tool_use" }))
            const first = yield* Effect.forkChild(callTool(cli, "Fetch", "toolu_1", 1, { url: "x" }, withMeta), { startImmediately: true })
            const second = yield* callTool(cli, "Fetch", "toolu_2", 2, { url: "x" }, withMeta)
            yield* Deferred.succeed(secondAnswered, undefined)
            const firstAnswer = yield* Fiber.join(first)
            // The CLI's results in the order of the uses.
            for (const [id, answer] of [["toolu_1", firstAnswer], ["toolu_2", second]] as const) {
              modelRead.push([id, answer.isError])
              yield* cli.emit(toolResultLine(sessionId, id, answer.text, answer.isError))
            }
            for (const line of FakeCli.textTurn({ sessionId, text: "One failed." })) yield* cli.emit(line)
          })
        )
        const response = yield* LanguageModel.generateText({ prompt: "Fetch x twice", toolkit: FetchKit }).pipe(
          Effect.provide(modelOn(transport)),
          Effect.provide(handlers)
        )
        assert.deepStrictEqual(modelRead, [["toolu_1", true], ["toolu_2", false]])
        assert.deepStrictEqual(response.toolResults.map((result) => [result.id, result.isFailure]), modelRead)
        assert.strictEqual(response.toolResults[1]?.result, "the page")
      }))
  }
})
