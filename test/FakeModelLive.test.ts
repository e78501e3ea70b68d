/**
 * The real claude CLI against FakeModel (live tier): a raw CLI process per test, its HOME and cwd
 * fresh. The server alone is tested in memory in test/FakeModel.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { type CliLine, makeHome, makeTempDir, spawnRawCli } from "./support/realCli.ts"

const Json = Schema.Record(Schema.String, Schema.Unknown)

const ResultLine = Schema.Struct({
  type: Schema.Literal("result"),
  subtype: Schema.String,
  is_error: Schema.Boolean,
  result: Schema.optionalKey(Schema.String),
  terminal_reason: Schema.optionalKey(Schema.String),
  api_error_status: Schema.optionalKey(Schema.NullOr(Schema.Number))
})
const AssistantLine = Schema.Struct({
  type: Schema.Literal("assistant"),
  message: Schema.Struct({ id: Schema.String, model: Schema.String, content: Schema.Array(Json) })
})
const StreamEventLine = Schema.Struct({
  type: Schema.Literal("stream_event"),
  event: Schema.Struct({ type: Schema.String, delta: Schema.optionalKey(Json) })
})
const isType = (type: string) => (line: CliLine) => line.type === type

/** A fake model, a fresh HOME and cwd, and the real CLI, all released with the test's scope. */
const realCli = (script: FakeModel.Script) =>
  Effect.gen(function*() {
    const fake = yield* FakeModel.make(script)
    const home = yield* makeHome
    const cwd = yield* makeTempDir("ecc-cwd-")
    const cli = yield* spawnRawCli({ url: fake.url, home, cwd })
    return { fake, cli }
  })

const timed = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const a = yield* effect
    yield* Effect.logInfo(`${label}: ${(yield* Clock.currentTimeMillis) - start} ms`)
    return a
  })

describe("the real claude CLI against FakeModel", () => {
  it.live("runs a plain text turn", () =>
    timed(
      "plain turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([FakeModel.text("Hello from the fake model!", { chunks: 3 })])
        yield* cli.sendUser("Say hello")
        const result = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result")))
        yield* cli.closeStdin
        const exit = yield* cli.awaitExit()

        assert.strictEqual(result.subtype, "success")
        assert.isFalse(result.is_error)
        assert.strictEqual(result.result, "Hello from the fake model!")
        const lines = yield* cli.lines
        const textDeltas = lines
          .filter(isType("stream_event"))
          .map((l) => Schema.decodeUnknownSync(StreamEventLine)(l).event)
          .filter((e) => e.type === "content_block_delta" && e.delta?.type === "text_delta")
          .map((e) => String(e.delta?.text))
        assert.strictEqual(textDeltas.join(""), "Hello from the fake model!")
        assert.strictEqual(textDeltas.length, 3)
        const assistant = Schema.decodeUnknownSync(AssistantLine)(lines.find(isType("assistant")))
        assert.match(assistant.message.id, /^msg_fake/)
        assert.deepStrictEqual(assistant.message.content, [{ type: "text", text: "Hello from the fake model!" }])
        assert.strictEqual(exit.code, 0)

        const [req] = yield* fake.messageRequests
        if (req === undefined) return assert.fail("no request")
        assert.strictEqual(req.path, "/v1/messages?beta=true")
        assert.isTrue(req.stream)
        assert.strictEqual(req.headers["x-api-key"], "sk-test")
        assert.strictEqual(assistant.message.model, req.model)
        assert.strictEqual(FakeModel.lastUserText(req), "Say hello")
        assert.isTrue(FakeModel.hasTool(req, "Bash"))
        assert.match(FakeModel.systemText(req), /Claude/)
      })
    ), 60_000)

  it.live("runs a tool turn: Bash tool_use, then the tool_result comes back to the fake", () =>
    timed(
      "tool turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli((req) =>
          FakeModel.toolResults(req).length === 0
            ? FakeModel.toolUse("Bash", { command: "echo fake-ok", description: "Print fake-ok" })
            : FakeModel.text(`The command printed ${FakeModel.toolResults(req)[0]?.content}.`)
        )
        yield* cli.sendUser("Run the command")
        const result = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result")))
        yield* cli.closeStdin
        const exit = yield* cli.awaitExit()

        assert.strictEqual(result.subtype, "success")
        assert.isFalse(result.is_error)
        assert.strictEqual(result.result, "The command printed fake-ok.")
        const requests = yield* fake.messageRequests
        assert.strictEqual(requests.length, 2)
        const [, second] = requests
        if (second === undefined) return assert.fail("no second request")
        const [toolResult] = FakeModel.toolResults(second)
        assert.match(String(toolResult?.content), /fake-ok/)
        assert.isFalse(toolResult?.isError)
        assert.match(String(toolResult?.toolUseId), /^toolu_fake/)
        assert.strictEqual(exit.code, 0)
      })
    ), 60_000)

  it.live("runs a multi-block message (text + two tool calls), then thinking + text", () =>
    timed(
      "multi-block turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([
          FakeModel.blocks([
            FakeModel.text("Let me run them."),
            FakeModel.toolUse("Bash", { command: "echo hi", description: "Print hi" }),
            FakeModel.toolUse("Bash", { command: "echo there", description: "Print there" })
          ]),
          FakeModel.thinking("The commands printed hi and there.", "Both commands ran.")
        ])
        yield* cli.sendUser("Run two commands")
        const result = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result")))
        yield* cli.closeStdin
        yield* cli.awaitExit()

        assert.strictEqual(result.result, "Both commands ran.")
        const [, second] = yield* fake.messageRequests
        if (second === undefined) return assert.fail("no second request")
        // parallel tools: the results come back in completion order, not in tool_use order
        assert.deepStrictEqual(FakeModel.toolResults(second).map((r) => r.content).toSorted(), ["hi", "there"])
        const blockTypes = (yield* cli.lines)
          .filter(isType("assistant"))
          .flatMap((l) => Schema.decodeUnknownSync(AssistantLine)(l).message.content.map((b) => b.type))
        assert.deepStrictEqual(blockTypes, ["text", "tool_use", "tool_use", "thinking", "text"])
      })
    ), 60_000)

  it.live("lets the CLI interrupt a slow stream (delayMs), and the next turn works", () =>
    timed(
      "interrupt turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([
          FakeModel.text("word ".repeat(40), { chunks: 40, delayMs: 100 }),
          FakeModel.text("Second turn fine.")
        ])
        yield* cli.sendUser("Write a long text")
        yield* cli.awaitLine((l) =>
          l.type === "stream_event" &&
          Schema.decodeUnknownSync(StreamEventLine)(l).event.type === "content_block_delta"
        )
        yield* cli.send({ type: "control_request", request_id: "req_interrupt", request: { subtype: "interrupt" } })
        const first = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result"), "5 seconds"))
        assert.strictEqual(first.subtype, "error_during_execution")
        assert.strictEqual(first.terminal_reason, "aborted_streaming")

        yield* cli.sendUser("Again")
        const second = yield* cli.awaitLine(
          (l) => l.type === "result" && l.subtype === "success",
          "10 seconds"
        )
        assert.strictEqual(Schema.decodeUnknownSync(ResultLine)(second).result, "Second turn fine.")
        yield* cli.closeStdin
        yield* cli.awaitExit()

        const [, again] = yield* fake.messageRequests
        if (again === undefined) return assert.fail("no second request")
        assert.match(String(FakeModel.lastUserText(again)), /\[Request interrupted by user\][\s\S]*Again$/)
      })
    ), 60_000)

  it.live("answers count_tokens for get_context_usage", () =>
    timed(
      "context usage",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([])
        yield* cli.send({ type: "control_request", request_id: "req_usage", request: { subtype: "get_context_usage" } })
        const response = yield* cli.awaitLine(isType("control_response"), "15 seconds")
        yield* cli.closeStdin
        yield* cli.awaitExit()

        const ControlResponse = Schema.Struct({
          response: Schema.Struct({
            subtype: Schema.String,
            request_id: Schema.String,
            response: Schema.Struct({ totalTokens: Schema.Number, categories: Schema.Array(Json) })
          })
        })
        const decoded = Schema.decodeUnknownSync(ControlResponse)(response)
        assert.strictEqual(decoded.response.subtype, "success")
        assert.strictEqual(decoded.response.request_id, "req_usage")
        assert.isAbove(decoded.response.response.totalTokens, 0)
        const all = yield* fake.requests
        assert.isAbove(all.length, 0)
        assert.isTrue(
          all.every((r) => r.endpoint === "count_tokens" && r.path === "/v1/messages/count_tokens?beta=true")
        )
      })
    ), 60_000)

  it.live("ends an API error turn with is_error and terminal_reason api_error", () =>
    timed(
      "api error turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([FakeModel.httpError(500), FakeModel.httpError(500)])
        yield* cli.sendUser("hello")
        const result = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result")))
        yield* cli.closeStdin
        const exit = yield* cli.awaitExit()

        assert.isTrue(result.is_error)
        assert.strictEqual(result.subtype, "success")
        assert.strictEqual(result.terminal_reason, "api_error")
        assert.strictEqual(result.api_error_status, 500)
        assert.match(String(result.result), /^API Error: 500/)
        const lines = yield* cli.lines
        assert.strictEqual(lines.filter((l) => l.type === "system" && l.subtype === "api_retry").length, 1)
        assert.strictEqual((yield* fake.messageRequests).length, 2)
        assert.strictEqual(exit.code, 1)
      })
    ), 60_000)

  it.live("recovers from an SSE error mid-stream through the CLI's non-streaming retry", () =>
    timed(
      "sse error turn",
      Effect.gen(function*() {
        const { fake, cli } = yield* realCli([FakeModel.sseError(), FakeModel.text("Recovered after errors.")])
        yield* cli.sendUser("hello")
        const result = Schema.decodeUnknownSync(ResultLine)(yield* cli.awaitLine(isType("result")))
        yield* cli.closeStdin
        yield* cli.awaitExit()

        assert.isFalse(result.is_error)
        assert.strictEqual(result.result, "Recovered after errors.")
        const requests = yield* fake.messageRequests
        assert.deepStrictEqual(requests.map((r) => r.stream), [true, false])
      })
    ), 60_000)
})
