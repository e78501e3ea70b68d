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
      yield* Scope.close(scope, Exit.void)
      // Cut, not ended: the 49 deltas still to come (200 ms apart) were never waited for.
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
      assert.strictEqual(outcome, "cut")
      assert.isTrue(yield* isRefused(fake.port))
    }))

  it.live("delayMs paces the deltas in real time", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("abcdef", { chunks: 3, delayMs: 100 })])
      const before = yield* Clock.currentTimeMillis
      const events = sseEvents(yield* postMessages(fake.url))
      const elapsed = (yield* Clock.currentTimeMillis) - before
      assert.strictEqual(deltasOf(events, 0).length, 3)
      // A lower bound only, on the fake's own sleeps (3 × 100 ms, real time by design): it cannot
      // flake on a slow machine, and it measures no performance.
      assert.isAtLeast(elapsed, 290)
    }))

  it.live("a request whose client hangs up before its body is complete is not recorded and takes no reply", () =>
    Effect.gen(function*() {
      const fake = yield* FakeModel.make([FakeModel.text("first"), FakeModel.text("second")])
      const body = JSON.stringify(messagesBody(true))
      // Half the body of a request that announced all of it, then the connection is gone.
      yield* Effect.callback<void>((resume) => {
        const socket = Net.connect(fake.port, "127.0.0.1", () => {
          socket.write(
            `POST /v1/messages?beta=true HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
              `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, body.length / 2)}`,
            () => {
              socket.destroy()
              resume(Effect.void)
            }
          )
        })
      })
      // Time for the server to see the hang-up (it cannot be awaited from here).
      yield* Effect.sleep("200 millis")
      const events = sseEvents(yield* postMessages(fake.url))
      const text = deltasOf(events, 0).map((d) => String((d as { readonly text?: unknown }).text)).join("")
      assert.strictEqual(text, "first")
      const recorded = yield* fake.requests
      assert.deepStrictEqual(recorded.map((r) => [r.index, r.body]), [[0, messagesBody(true)]])
    }))

  it("cliEnvironment points the CLI at the fake and removes what would send it elsewhere", () => {
    const env = FakeModel.cliEnvironment("http://127.0.0.1:1234", "/srv/home", { maxRetries: 3 })
    assert.strictEqual(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:1234")
    assert.strictEqual(env.HOME, "/srv/home")
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
