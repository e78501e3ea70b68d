import { assert, describe, it } from "@effect/vitest"
import * as Net from "node:net"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Sse from "../src/internal/sse.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { type CliLine, makeHome, makeTempDir, spawnRawCli } from "./support/realCli.ts"

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

interface HttpAnswer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

const request = (url: string, path: string, init?: { readonly method?: string; readonly body?: unknown }) =>
  Effect.promise(async (): Promise<HttpAnswer> => {
    const res = await fetch(url + path, {
      method: init?.method ?? "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-test" },
      ...(init?.body === undefined ? {} : { body: JSON.stringify(init.body) })
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  })

const messagesBody = (stream: boolean, extra?: Record<string, unknown>) => ({
  model: "claude-test-model",
  max_tokens: 1024,
  stream,
  messages: [{ role: "user", content: "Say hello" }],
  ...extra
})

const postMessages = (url: string, stream = true, extra?: Record<string, unknown>) =>
  request(url, "/v1/messages?beta=true", { body: messagesBody(stream, extra) })

const Json = Schema.Record(Schema.String, Schema.Unknown)
const decodeJson = Schema.decodeUnknownSync(Schema.fromJsonString(Json))

/** The SSE events of an answer, each with its JSON data decoded. */
const sseEvents = (answer: HttpAnswer) =>
  Sse.decodeAll(answer.text).map((e) => ({ event: e.event, data: decodeJson(e.data) }))

const ContentBlockStart = Schema.Struct({
  type: Schema.Literal("content_block_start"),
  index: Schema.Number,
  content_block: Json
})
const ContentBlockDelta = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: Schema.Struct({
    type: Schema.String,
    text: Schema.optionalKey(Schema.String),
    partial_json: Schema.optionalKey(Schema.String),
    thinking: Schema.optionalKey(Schema.String),
    signature: Schema.optionalKey(Schema.String)
  })
})
const MessageStart = Schema.Struct({
  type: Schema.Literal("message_start"),
  message: Schema.Struct({
    id: Schema.String,
    type: Schema.Literal("message"),
    role: Schema.Literal("assistant"),
    model: Schema.String,
    content: Schema.Array(Schema.Unknown),
    stop_reason: Schema.Null,
    stop_sequence: Schema.Null,
    usage: Schema.Struct({
      input_tokens: Schema.Number,
      cache_creation_input_tokens: Schema.Number,
      cache_read_input_tokens: Schema.Number,
      output_tokens: Schema.Number,
      service_tier: Schema.String
    })
  })
})
const MessageDelta = Schema.Struct({
  type: Schema.Literal("message_delta"),
  delta: Schema.Struct({ stop_reason: Schema.String, stop_sequence: Schema.Null }),
  usage: Schema.Struct({ output_tokens: Schema.Number })
})
const ErrorBody = Schema.Struct({
  type: Schema.Literal("error"),
  error: Schema.Struct({ type: Schema.String, message: Schema.String }),
  request_id: Schema.optionalKey(Schema.String)
})
const MessageJson = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("message"),
  role: Schema.Literal("assistant"),
  model: Schema.String,
  content: Schema.Array(Json),
  stop_reason: Schema.String,
  stop_sequence: Schema.Null,
  usage: Schema.Struct({ input_tokens: Schema.Number, output_tokens: Schema.Number })
})

const deltasOf = (events: ReadonlyArray<{ readonly event: string; readonly data: unknown }>, index: number) =>
  events
    .filter((e) => e.event === "content_block_delta")
    .map((e) => Schema.decodeUnknownSync(ContentBlockDelta)(e.data))
    .filter((d) => d.index === index)
    .map((d) => d.delta)

const isRefused = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(false))
    })
    socket.once("error", () => resume(Effect.succeed(true)))
  })

// ---------------------------------------------------------------------------------------------
// the server
// ---------------------------------------------------------------------------------------------

describe("FakeModel server", () => {
  it.effect("streams a text reply as the exact SSE event sequence", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("Hello from the fake model!", { chunks: 3 })])
      const answer = yield* postMessages(fake.url)
      assert.strictEqual(answer.status, 200)
      assert.match(answer.headers.get("content-type") ?? "", /^text\/event-stream/)
      assert.match(answer.headers.get("request-id") ?? "", /^req_fake/)

      const events = sseEvents(answer)
      assert.deepStrictEqual(events.map((e) => e.event), [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop"
      ])
      for (const e of events) assert.strictEqual(e.data.type, e.event)

      const start = Schema.decodeUnknownSync(MessageStart)(events[0]?.data)
      assert.match(start.message.id, /^msg_fake\d{6}[0-9a-z]+$/)
      assert.strictEqual(start.message.model, "claude-test-model")
      assert.deepStrictEqual(start.message.content, [])
      assert.deepStrictEqual(start.message.usage, {
        input_tokens: 100,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
        service_tier: "standard"
      })
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(ContentBlockStart)(events[1]?.data).content_block,
        { type: "text", text: "" }
      )
      const deltas = deltasOf(events, 0)
      assert.deepStrictEqual(deltas.map((d) => d.type), ["text_delta", "text_delta", "text_delta"])
      assert.strictEqual(deltas.map((d) => d.text).join(""), "Hello from the fake model!")
      assert.deepStrictEqual(events[5]?.data, { type: "content_block_stop", index: 0 })
      const delta = Schema.decodeUnknownSync(MessageDelta)(events[6]?.data)
      assert.strictEqual(delta.delta.stop_reason, "end_turn")
      assert.strictEqual(delta.usage.output_tokens, 7)
      assert.deepStrictEqual(events[7]?.data, { type: "message_stop" })
    }))

  it.effect("streams several blocks: text, tool calls as input_json_delta, stop_reason tool_use", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([
        FakeModel.blocks([
          FakeModel.text("Let me run it."),
          FakeModel.toolUse("Bash", { command: "echo hi", description: "Print hi" }),
          FakeModel.toolUseBlock("Bash", { command: "echo there" }, { id: "toolu_given" })
        ], { usage: { inputTokens: 42, outputTokens: 29 } })
      ])
      const events = sseEvents(yield* postMessages(fake.url))
      const starts = events
        .filter((e) => e.event === "content_block_start")
        .map((e) => Schema.decodeUnknownSync(ContentBlockStart)(e.data))
      assert.deepStrictEqual(starts.map((s) => s.index), [0, 1, 2])
      assert.deepStrictEqual(starts[0]?.content_block, { type: "text", text: "" })
      const tool1 = starts[1]?.content_block
      assert.strictEqual(tool1?.type, "tool_use")
      assert.strictEqual(tool1?.name, "Bash")
      assert.match(String(tool1?.id), /^toolu_fake/)
      assert.deepStrictEqual(tool1?.input, {})
      assert.deepStrictEqual(starts[2]?.content_block, { type: "tool_use", id: "toolu_given", name: "Bash", input: {} })

      const json1 = deltasOf(events, 1)
      assert.isTrue(json1.length === 2 && json1.every((d) => d.type === "input_json_delta"))
      assert.deepStrictEqual(decodeJson(json1.map((d) => d.partial_json).join("")), {
        command: "echo hi",
        description: "Print hi"
      })
      assert.deepStrictEqual(decodeJson(deltasOf(events, 2).map((d) => d.partial_json).join("")), {
        command: "echo there"
      })
      const start = Schema.decodeUnknownSync(MessageStart)(events[0]?.data)
      assert.strictEqual(start.message.usage.input_tokens, 42)
      const delta = Schema.decodeUnknownSync(MessageDelta)(events.find((e) => e.event === "message_delta")?.data)
      assert.strictEqual(delta.delta.stop_reason, "tool_use")
      assert.strictEqual(delta.usage.output_tokens, 29)
    }))

  it.effect("streams thinking (thinking_delta, signature_delta) then text", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.thinking("The commands printed hi.", "Both ran.", { chunks: 1 })])
      const events = sseEvents(yield* postMessages(fake.url))
      const starts = events
        .filter((e) => e.event === "content_block_start")
        .map((e) => Schema.decodeUnknownSync(ContentBlockStart)(e.data).content_block)
      assert.deepStrictEqual(starts, [{ type: "thinking", thinking: "", signature: "" }, { type: "text", text: "" }])
      assert.deepStrictEqual(deltasOf(events, 0), [
        { type: "thinking_delta", thinking: "The commands printed hi." },
        { type: "signature_delta", signature: "fakesig" }
      ])
      assert.deepStrictEqual(deltasOf(events, 1), [{ type: "text_delta", text: "Both ran." }])
      assert.strictEqual(
        Schema.decodeUnknownSync(MessageDelta)(events.find((e) => e.event === "message_delta")?.data).delta.stop_reason,
        "end_turn"
      )
    }))

  it.effect("answers a plain JSON message when stream is false", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([
        FakeModel.blocks([FakeModel.text("Recovered."), FakeModel.toolUse("Read", { file_path: "/x" })])
      ])
      const answer = yield* postMessages(fake.url, false)
      assert.strictEqual(answer.status, 200)
      assert.match(answer.headers.get("content-type") ?? "", /^application\/json/)
      assert.match(answer.headers.get("request-id") ?? "", /^req_fake/)
      const message = Schema.decodeUnknownSync(Schema.fromJsonString(MessageJson))(answer.text)
      assert.match(message.id, /^msg_fake/)
      assert.strictEqual(message.model, "claude-test-model")
      assert.strictEqual(message.stop_reason, "tool_use")
      assert.deepStrictEqual(message.content[0], { type: "text", text: "Recovered." })
      assert.strictEqual(message.content[1]?.type, "tool_use")
      assert.deepStrictEqual(message.content[1]?.input, { file_path: "/x" })
      assert.strictEqual(message.usage.input_tokens, 100)
    }))

  it.effect("answers HTTP errors with the Anthropic error body and extra headers", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([
        FakeModel.httpError(500),
        FakeModel.httpError(529),
        FakeModel.httpError(429, { headers: { "retry-after": "1" } }),
        FakeModel.httpError(400, { message: "bad request from fake" })
      ])
      const expected: ReadonlyArray<readonly [number, string, string]> = [
        [500, "api_error", "Internal server error"],
        [529, "overloaded_error", "Overloaded"],
        [429, "rate_limit_error", "Rate limited"],
        [400, "invalid_request_error", "bad request from fake"]
      ]
      for (const [status, type, message] of expected) {
        const answer = yield* postMessages(fake.url)
        assert.strictEqual(answer.status, status)
        const body = Schema.decodeUnknownSync(Schema.fromJsonString(ErrorBody))(answer.text)
        assert.deepStrictEqual(body.error, { type, message })
        assert.strictEqual(body.request_id, answer.headers.get("request-id"))
        if (status === 429) assert.strictEqual(answer.headers.get("retry-after"), "1")
      }
    }))

  it.effect("sends an SSE error event mid-stream, and the matching HTTP error when not streaming", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.sseError(), FakeModel.sseError({ type: "api_error" })])
      const answer = yield* postMessages(fake.url)
      assert.strictEqual(answer.status, 200)
      const events = sseEvents(answer)
      assert.deepStrictEqual(events.map((e) => e.event), [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "error"
      ])
      assert.deepStrictEqual(events[3]?.data, {
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" }
      })

      const plain = yield* postMessages(fake.url, false)
      assert.strictEqual(plain.status, 500)
      assert.strictEqual(Schema.decodeUnknownSync(Schema.fromJsonString(ErrorBody))(plain.text).error.type, "api_error")
    }))

  it.effect("answers count_tokens and 404s other paths, without consuming the script", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("first")])
      const count = yield* request(fake.url, "/v1/messages/count_tokens?beta=true", {
        body: { model: "m", messages: [{ role: "user", content: "foo" }] }
      })
      assert.strictEqual(count.status, 200)
      const CountTokens = Schema.fromJsonString(Schema.Struct({ input_tokens: Schema.Number }))
      const tokens = Schema.decodeUnknownSync(CountTokens)(count.text)
      assert.isAbove(tokens.input_tokens, 0)

      const models = yield* request(fake.url, "/v1/models", { method: "GET" })
      assert.strictEqual(models.status, 404)
      const notFound = Schema.decodeUnknownSync(Schema.fromJsonString(ErrorBody))(models.text)
      assert.strictEqual(notFound.error.type, "not_found_error")
      const getMessages = yield* request(fake.url, "/v1/messages", { method: "GET" })
      assert.strictEqual(getMessages.status, 404)

      const events = sseEvents(yield* postMessages(fake.url))
      assert.strictEqual(deltasOf(events, 0).map((d) => d.text).join(""), "first")

      const all = yield* fake.requests
      assert.deepStrictEqual(all.map((r) => r.endpoint), ["count_tokens", "other", "other", "messages"])
      assert.deepStrictEqual((yield* fake.messageRequests).map((r) => r.index), [3])
    }))

  it.effect("models: an unknown model gets the API's 404 not_found_error 'model: <id>', without consuming the script", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("first")], { models: FakeModel.knownModels })
      const unknown = yield* request(fake.url, "/v1/messages", { body: messagesBody(false, { model: "claude-sonnet-9-9" }) })
      assert.strictEqual(unknown.status, 404)
      const body = Schema.decodeUnknownSync(Schema.fromJsonString(ErrorBody))(unknown.text)
      assert.strictEqual(body.error.type, "not_found_error")
      assert.strictEqual(body.error.message, "model: claude-sonnet-9-9")
      const tokens = yield* request(fake.url, "/v1/messages/count_tokens", { body: messagesBody(false, { model: "nope" }) })
      assert.strictEqual(tokens.status, 404)
      const known = yield* request(fake.url, "/v1/messages", { body: messagesBody(false, { model: "claude-sonnet-5-5" }) })
      assert.strictEqual(known.status, 200)
      assert.include(known.text, "first")
      // Without the option, any model is accepted.
      const lenient = yield* FakeModel.make([FakeModel.text("any")])
      const any = yield* request(lenient.url, "/v1/messages", { body: messagesBody(false, { model: "claude-sonnet-9-9" }) })
      assert.strictEqual(any.status, 200)
    }))

  it.effect("records every request: method, path, headers, parsed body and typed views", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("a"), FakeModel.text("b")])
      yield* postMessages(fake.url, true, {
        system: [{ type: "text", text: "billing header" }, { type: "text", text: "You are a Claude agent" }],
        tools: [{ name: "Bash", input_schema: {} }, { name: "mcp__byre__echo", input_schema: {} }]
      })
      yield* request(fake.url, "/v1/messages", { body: "not an object" })
      const [first, second] = yield* fake.requests
      assert.isDefined(first)
      assert.isDefined(second)
      if (first === undefined || second === undefined) return
      assert.strictEqual(first.index, 0)
      assert.strictEqual(first.method, "POST")
      assert.strictEqual(first.path, "/v1/messages?beta=true")
      assert.strictEqual(first.endpoint, "messages")
      assert.strictEqual(first.headers["x-api-key"], "sk-test")
      assert.strictEqual(first.headers["content-type"], "application/json")
      assert.strictEqual(first.model, "claude-test-model")
      assert.isTrue(first.stream)
      assert.deepStrictEqual(first.messages, [{ role: "user", content: "Say hello" }])
      assert.deepStrictEqual(first.tools, ["Bash", "mcp__byre__echo"])
      assert.strictEqual(FakeModel.systemText(first), "billing header\nYou are a Claude agent")
      assert.isTrue(FakeModel.hasTool(first, "mcp__byre__echo"))
      assert.isFalse(FakeModel.hasTool(first, "Write"))
      const body = Schema.decodeUnknownSync(Json)(first.body)
      assert.strictEqual(body.max_tokens, 1024)

      assert.strictEqual(second.index, 1)
      assert.strictEqual(second.body, "not an object")
      assert.isFalse(second.stream)
      assert.deepStrictEqual(second.messages, [])
      assert.isAtLeast(second.receivedAtMillis, first.receivedAtMillis)
    }))

  it.effect("helpers read the conversation the way the CLI shapes it", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make((req) => {
        const results = FakeModel.toolResults(req)
        return results.length === 0
          ? FakeModel.toolUse("Bash", { command: "echo fake-ok" })
          : FakeModel.text(`saw ${results.map((r) => r.content).join("+")}`)
      })
      // first request: user text, then the CLI's own system entry
      const firstAnswer = yield* postMessages(fake.url, false, {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "<system-reminder>\nAttribution for git commits\n</system-reminder>\n" },
              { type: "text", text: "Run it" }
            ]
          },
          { role: "system", content: [{ type: "text", text: "# Environment" }] }
        ]
      })
      const first = Schema.decodeUnknownSync(Schema.fromJsonString(MessageJson))(firstAnswer.text)
      assert.strictEqual(first.stop_reason, "tool_use")
      const toolUseId = String(first.content[0]?.id)
      // second request: the tool results (string and block-array contents)
      const secondAnswer = yield* postMessages(fake.url, false, {
        messages: [
          { role: "user", content: "Run it" },
          { role: "system", content: [{ type: "text", text: "# Environment" }] },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: toolUseId, content: "fake-ok", is_error: false },
              {
                type: "tool_result",
                tool_use_id: "toolu_other",
                content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }],
                is_error: true
              }
            ]
          }
        ]
      })
      const second = Schema.decodeUnknownSync(Schema.fromJsonString(MessageJson))(secondAnswer.text)
      assert.deepStrictEqual(second.content, [{ type: "text", text: "saw fake-ok+line 1\nline 2" }])

      const [r1, r2] = yield* fake.requests
      if (r1 === undefined || r2 === undefined) return assert.fail("two requests expected")
      assert.strictEqual(FakeModel.lastUserText(r1), "Run it")
      assert.deepStrictEqual(FakeModel.toolResults(r1), [])
      assert.strictEqual(FakeModel.lastUserText(r2), undefined)
      assert.deepStrictEqual(FakeModel.toolResults(r2), [
        { toolUseId, content: "fake-ok", isError: false },
        { toolUseId: "toolu_other", content: "line 1\nline 2", isError: true }
      ])
      assert.strictEqual(FakeModel.systemText(r1), "")
    }))

  it.effect("after the list: a clear 500 'script exhausted', or the whenExhausted reply", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("only one")])
      yield* postMessages(fake.url)
      const exhausted = yield* postMessages(fake.url)
      assert.strictEqual(exhausted.status, 500)
      assert.match(
        Schema.decodeUnknownSync(Schema.fromJsonString(ErrorBody))(exhausted.text).error.message,
        /script exhausted after 1 replies/
      )

      const lenient = yield* FakeModel.make([], { whenExhausted: FakeModel.text("OK") })
      const ok = yield* postMessages(lenient.url, false)
      assert.strictEqual(ok.status, 200)
      assert.deepStrictEqual(
        Schema.decodeUnknownSync(Schema.fromJsonString(MessageJson))(ok.text).content,
        [{ type: "text", text: "OK" }]
      )
    }))

  it.effect("setScript replaces the script and starts it from the top", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("one"), FakeModel.text("two")])
      const textOf = (answer: HttpAnswer) =>
        Schema.decodeUnknownSync(Schema.fromJsonString(MessageJson))(answer.text).content[0]?.text
      assert.strictEqual(textOf(yield* postMessages(fake.url, false)), "one")
      yield* fake.setScript([FakeModel.text("three")])
      assert.strictEqual(textOf(yield* postMessages(fake.url, false)), "three")
      yield* fake.setScript(() => FakeModel.text("always"))
      assert.strictEqual(textOf(yield* postMessages(fake.url, false)), "always")
      assert.strictEqual(textOf(yield* postMessages(fake.url, false)), "always")
    }))

  it.effect("a script function that throws answers a 500 saying so", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make(() => {
        throw new Error("boom")
      })
      const answer = yield* postMessages(fake.url)
      assert.strictEqual(answer.status, 500)
      assert.match(answer.text, /script function threw: Error: boom/)
    }))

  it.effect("awaitRequests waits for n requests; past its deadline it dies, even under TestClock", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make(() => FakeModel.text("hi"))
      const waiter = yield* fake.awaitRequests(2).pipe(Effect.forkChild)
      yield* postMessages(fake.url)
      yield* request(fake.url, "/v1/messages/count_tokens", { body: {} })
      const got = yield* Fiber.join(waiter)
      assert.strictEqual(got.length, 2)

      const onlyMessages = yield* fake.awaitRequests(1, { filter: (r) => r.endpoint === "messages" })
      assert.strictEqual(onlyMessages.length, 1)

      const exit = yield* Effect.exit(
        fake.awaitRequests(2, { timeout: "150 millis", filter: (r) => r.endpoint === "messages" })
      )
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        assert.match(Cause.pretty(exit.cause), /expected 2 matching request\(s\) within .*got 1/)
      }
    }))

  it.effect("FakeModel.layer provides the service", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.FakeModel
      const answer = yield* postMessages(fake.url, false)
      assert.strictEqual(answer.status, 200)
      assert.strictEqual((yield* fake.requests).length, 1)
      assert.strictEqual(fake.cliEnvironment("/h").ANTHROPIC_BASE_URL, fake.url)
    }).pipe(Effect.provide(FakeModel.layer([FakeModel.text("from a layer")]))))

  it.effect("releases the port when its scope closes", () =>
    Effect.gen(function*() {
      const port = yield* Effect.scoped(Effect.gen(function*() {
        const fake = yield* FakeModel.make([])
        assert.isFalse(yield* isRefused(fake.port))
        return fake.port
      }))
      assert.isTrue(yield* isRefused(port))
    }))

  it.live("closing the scope mid-stream cuts the connection at once", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const fake = yield* FakeModel.make([FakeModel.text("x".repeat(50), { chunks: 50, delayMs: 200 })]).pipe(
        Scope.provide(scope)
      )
      const reader = yield* Effect.promise(async () => {
        const res = await fetch(fake.url + "/v1/messages", { method: "POST", body: JSON.stringify(messagesBody(true)) })
        const reader = res.body!.getReader()
        await reader.read() // headers and message_start are out
        return reader
      })
      const before = yield* Clock.currentTimeMillis
      yield* Scope.close(scope, Exit.void)
      const outcome = yield* Effect.promise(async () => {
        try {
          for (;;) {
            const chunk = await reader.read()
            if (chunk.done) return "ended"
          }
        } catch {
          return "cut"
        }
      })
      const elapsed = (yield* Clock.currentTimeMillis) - before
      assert.strictEqual(outcome, "cut")
      assert.isBelow(elapsed, 1000)
      assert.isTrue(yield* isRefused(fake.port))
    }))

  it.live("delayMs paces the deltas in real time", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("abcdef", { chunks: 3, delayMs: 100 })])
      const before = yield* Clock.currentTimeMillis
      const events = sseEvents(yield* postMessages(fake.url))
      const elapsed = (yield* Clock.currentTimeMillis) - before
      assert.strictEqual(deltasOf(events, 0).length, 3)
      assert.isAtLeast(elapsed, 290)
    }))

  it("cliEnvironment points the CLI at the fake and removes what would send it elsewhere", () => {
    const env = FakeModel.cliEnvironment("http://127.0.0.1:1234", "/tmp/home", { maxRetries: 3 })
    assert.strictEqual(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:1234")
    assert.strictEqual(env.HOME, "/tmp/home")
    assert.strictEqual(env.IS_SANDBOX, "1")
    assert.strictEqual(env.ANTHROPIC_API_KEY, "sk-test")
    assert.strictEqual(env.CLAUDE_CODE_MAX_RETRIES, "3")
    assert.strictEqual(env.DISABLE_TELEMETRY, "1")
    assert.strictEqual(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1")
    assert.strictEqual(env.DISABLE_AUTOUPDATER, "1")
    assert.isTrue("CLAUDECODE" in env && env.CLAUDECODE === undefined)
    assert.strictEqual(FakeModel.cliEnvironment("u", "h").CLAUDE_CODE_MAX_RETRIES, "1")
  })

  it("the SSE decoder handles split chunks and CRLF", () => {
    const decoder = Sse.makeDecoder()
    const text = Sse.encode("message_stop", { type: "message_stop" }).replaceAll("\n", "\r\n")
    const events = [...text].flatMap((char) => decoder.push(char))
    assert.deepStrictEqual([...events, ...decoder.end()], [
      { event: "message_stop", data: "{\"type\":\"message_stop\"}" }
    ])
  })
})

// ---------------------------------------------------------------------------------------------
// the real CLI against the fake
// ---------------------------------------------------------------------------------------------

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
