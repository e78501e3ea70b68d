/**
 * In-process MCP servers against the real CLI (the pinned devDependency) and the fake Messages
 * API: the `McpServers` service provided through layers, announced in `--mcp-config` as `sdk`
 * servers, answered over `mcp_message` control requests.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import type * as Protocol from "../src/Protocol.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import type { Transport } from "../src/Transport.ts"
import { live, processLayer } from "./support/live.ts"

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const EchoInput = Schema.Struct({ text: Schema.String })

/** `byre`'s `echo` tool; every decoded input it is called with lands in `received`. */
const echoTool = (received: Array<typeof EchoInput.Type>) =>
  McpServers.tool({
    name: "echo",
    description: "Echo the given text back.",
    input: EchoInput,
    handler: (input) =>
      Effect.sync(() => {
        received.push(input)
        return `echo: ${input.text}`
      })
  })

/** Records every line the session writes and reads. */
const recording = () => {
  const lines: Array<{ readonly direction: "send" | "recv"; readonly message: unknown }> = []
  const recorder: Claude.Recorder = { record: (direction, message) => lines.push({ direction, message }) }
  return { lines, recorder }
}

interface McpMessage {
  readonly server_name: string
  readonly message: { readonly method?: string; readonly id?: unknown; readonly params?: unknown }
}

/** The `mcp_message` requests the CLI sent, in order. */
const mcpMessages = (lines: ReturnType<typeof recording>["lines"]): ReadonlyArray<McpMessage> =>
  lines.flatMap(({ direction, message }) => {
    if (direction !== "recv") return []
    const line = message as { type?: unknown; request?: { subtype?: unknown } }
    return line.type === "control_request" && line.request?.subtype === "mcp_message"
      ? [line.request as unknown as McpMessage]
      : []
  })

/**
 * Every `mcp_message` the CLI sent got exactly one success `control_response` with an
 * `mcp_response`, the handshake's notifications included.
 */
const assertEveryMcpMessageAnsweredOnce = (lines: ReturnType<typeof recording>["lines"]): number => {
  const asked = lines.flatMap(({ direction, message }) => {
    const line = message as { type?: unknown; request_id?: string; request?: { subtype?: unknown } }
    return direction === "recv" && line.type === "control_request" && line.request?.subtype === "mcp_message"
      ? [line.request_id!]
      : []
  })
  for (const id of asked) {
    const answers = lines.filter(({ direction, message }) => {
      const line = message as { type?: unknown; response?: { subtype?: unknown; request_id?: unknown; response?: unknown } }
      return direction === "send" && line.type === "control_response" && line.response?.request_id === id
    })
    assert.strictEqual(answers.length, 1, `mcp_message ${id} got ${answers.length} answers`)
    const response = (answers[0]!.message as { response: { subtype: string; response: { mcp_response?: unknown } } })
      .response
    assert.strictEqual(response.subtype, "success")
    assert.isDefined(response.response.mcp_response)
  }
  return asked.length
}

/** Every text of a request message's content. */
const contentText = (content: FakeModel.RequestMessage["content"]): string =>
  typeof content === "string"
    ? content
    : content.flatMap((block) => block.type === "text" && typeof block.text === "string" ? [block.text] : []).join("\n")

const systemMessagesText = (request: FakeModel.RecordedRequest): string =>
  request.messages.filter((m) => m.role === "system").map((m) => contentText(m.content)).join("\n")

const resultOf = (events: ReadonlyArray<Claude.Event>): Claude.TurnResult => {
  const last = events.at(-1)
  assert.strictEqual(last?.type, "result")
  return last as Claude.TurnResult
}

/** The only tool result of the request. */
const onlyToolResult = (request: FakeModel.RecordedRequest): FakeModel.ToolResult => {
  const results = FakeModel.toolResults(request)
  assert.strictEqual(results.length, 1, `expected one tool_result, got ${JSON.stringify(results)}`)
  return results[0]!
}

/** The application's own service, with state. */
class Greeter extends Context.Service<Greeter, {
  readonly salutation: string
  readonly greeted: Ref.Ref<ReadonlyArray<string>>
}>()("test/Greeter") {}

const GreeterLive = Layer.effect(
  Greeter,
  Effect.map(Ref.make<ReadonlyArray<string>>([]), (greeted) => Greeter.of({ salutation: "Good morning", greeted }))
)

const greet = McpServers.tool({
  name: "greet",
  description: "Greet someone.",
  input: Schema.Struct({ name: Schema.String }),
  handler: ({ name }) =>
    Effect.gen(function*() {
      const greeter = yield* Greeter
      const greeted = yield* Ref.updateAndGet(greeter.greeted, (names) => [...names, name])
      return `${greeter.salutation}, ${name} (greeting #${greeted.length})`
    })
})

/** `byre` with `greet`, its Greeter taken from the application's layer. */
const GreeterMcp = McpServers.layer(McpServers.server("byre", { alwaysLoad: true, tools: [greet] }))

class LookupFailed extends Schema.TaggedError<LookupFailed>()("LookupFailed", { message: Schema.String }) {}

// -----------------------------------------------------------------------------

describe("McpServers against the real CLI", { timeout: 90_000 }, () => {
  it.live("alwaysLoad: the first request lists mcp__byre__echo; the call runs the handler with the decoded input; echo: hi reaches the model", () =>
    Effect.gen(function*() {
      const received: Array<typeof EchoInput.Type> = []
      const byre = McpServers.server("byre", { alwaysLoad: true, tools: [echoTool(received)] })
      const { model, options } = yield* live([
        FakeModel.toolUse("mcp__byre__echo", { text: "hi" }),
        FakeModel.text("It said echo: hi.")
      ])
      const { lines, recorder } = recording()
      const session = yield* Claude.open({ ...options, transcript: recorder }).pipe(
        Effect.provide(McpServers.layer(byre))
      )
      const events = yield* session.turn("Call the echo tool with text hi").pipe(Stream.runCollect)
      const result = resultOf(events)
      assert.strictEqual(result.subtype, "success")
      assert.strictEqual(result.result, "It said echo: hi.")
      assert.deepStrictEqual(received, [{ text: "hi" }])

      const [first, second] = yield* model.messageRequests
      assert.isTrue(FakeModel.hasTool(first!, "mcp__byre__echo"), `tools: ${first!.tools.join(", ")}`)
      const toolResult = onlyToolResult(second!)
      assert.strictEqual(toolResult.content, "echo: hi")
      assert.isFalse(toolResult.isError)
      // The advertised JSON Schema is the one the API received.
      const advertised = (first!.body as { tools: ReadonlyArray<{ name: string; input_schema?: unknown }> }).tools
        .find((tool) => tool.name === "mcp__byre__echo")
      assert.deepInclude(advertised!.input_schema as object, { type: "object", required: ["text"] })
      // The CLI sent exactly one tools/call, for echo with the model's arguments.
      const calls = mcpMessages(lines).filter((m) => m.message.method === "tools/call")
      assert.strictEqual(calls.length, 1)
      assert.deepInclude(calls[0]!.message.params as object, { name: "echo", arguments: { text: "hi" } })
    }).pipe(Effect.provide(processLayer)))

  it.live("deferred (no alwaysLoad): not in the first request's tools, named in the deferred-tools text, still callable directly", () =>
    Effect.gen(function*() {
      const received: Array<typeof EchoInput.Type> = []
      const byre = McpServers.server("byre", { tools: [echoTool(received)] })
      const { model, options } = yield* live([
        FakeModel.toolUse("mcp__byre__echo", { text: "hi" }),
        FakeModel.text("done")
      ])
      const { lines, recorder } = recording()
      const session = yield* Claude.open({ ...options, transcript: recorder }).pipe(
        Effect.provide(McpServers.layer(byre))
      )
      const result = yield* session.run("Call the echo tool with text hi")
      assert.strictEqual(result.subtype, "success")

      const [first, second] = yield* model.messageRequests
      assert.isFalse(FakeModel.hasTool(first!, "mcp__byre__echo"), `tools: ${first!.tools.join(", ")}`)
      assert.isTrue(FakeModel.hasTool(first!, "ToolSearch"))
      // Named in the CLI's list of deferred tools (a system message), one name a line.
      const system = systemMessagesText(first!)
      const listStart = system.indexOf("The following deferred tools are now available via ToolSearch")
      assert.isAbove(listStart, -1)
      assert.match(system.slice(listStart), /^[^\n]*calling them:\n(?:[^\n]+\n)*?mcp__byre__echo\n/)

      assert.isTrue(mcpMessages(lines).some((m) => m.message.method === "tools/call"))
      assert.deepStrictEqual(received, [{ text: "hi" }])
      const toolResult = onlyToolResult(second!)
      assert.strictEqual(toolResult.content, "echo: hi")
      assert.isFalse(toolResult.isError)
    }).pipe(Effect.provide(processLayer)))

  it.live("invalid input, a typed failure and a defect each give the model an is_error tool_result with a useful message; the next turn works", () =>
    Effect.gen(function*() {
      const received: Array<typeof EchoInput.Type> = []
      const lookup = McpServers.tool({
        name: "lookup",
        description: "Look a key up.",
        input: Schema.Struct({ key: Schema.String }),
        handler: ({ key }) => Effect.fail(new LookupFailed({ message: `no entry for key ${key}` }))
      })
      const boom = McpServers.tool({
        name: "boom",
        description: "Always dies.",
        input: Schema.Struct({}),
        handler: () => Effect.die(new Error("kaboom"))
      })
      const byre = McpServers.server("byre", { alwaysLoad: true, tools: [echoTool(received), lookup, boom] })
      const { model, options } = yield* live([
        FakeModel.toolUse("mcp__byre__echo", { text: 42 }),
        FakeModel.toolUse("mcp__byre__lookup", { key: "k1" }),
        FakeModel.toolUse("mcp__byre__boom", {}),
        FakeModel.text("all three failed"),
        FakeModel.toolUse("mcp__byre__echo", { text: "again" }),
        FakeModel.text("still here")
      ])
      const { lines, recorder } = recording()
      const logs: Array<Logger.Options<unknown>> = []
      const session = yield* Claude.open({ ...options, transcript: recorder }).pipe(
        Effect.provide(McpServers.layer(byre)),
        Effect.provide(Logger.layer([Logger.make((log) => void logs.push(log))]))
      )
      const first = yield* session.run("Try the tools")
      assert.strictEqual(first.subtype, "success")
      assert.strictEqual(first.result, "all three failed")
      // Each of the three reached the server (the CLI did not reject the bad input itself).
      const called = mcpMessages(lines).filter((m) => m.message.method === "tools/call")
        .map((m) => (m.message.params as { name: string }).name)
      assert.deepStrictEqual(called, ["echo", "lookup", "boom"])
      assert.deepStrictEqual(received, [])

      const requests = yield* model.messageRequests
      assert.strictEqual(requests.length, 4)
      const invalid = onlyToolResult(requests[1]!)
      assert.isTrue(invalid.isError)
      // The Schema's message: what was expected, and where.
      assert.strictEqual(invalid.content, "Expected string\n  at [\"text\"]")
      const failed = onlyToolResult(requests[2]!)
      assert.isTrue(failed.isError)
      assert.strictEqual(failed.content, "no entry for key k1")
      const died = onlyToolResult(requests[3]!)
      assert.isTrue(died.isError)
      assert.strictEqual(died.content, "Tool boom failed: kaboom")
      // The defect is logged, with its cause.
      const errors = logs.filter((log) => log.logLevel === "Error")
      assert.strictEqual(errors.length, 1)
      assert.include(String(errors[0]!.message), "Tool boom of MCP server byre failed")
      assert.isTrue(Cause.hasDies(errors[0]!.cause))

      assertEveryMcpMessageAnsweredOnce(lines)
      const next = yield* session.run("Once more")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "still here")
      assert.deepStrictEqual(received, [{ text: "again" }])
      const last = (yield* model.messageRequests).at(-1)!
      assert.deepStrictEqual(onlyToolResult(last), {
        toolUseId: FakeModel.toolResults(last)[0]!.toolUseId,
        content: "echo: again",
        isError: false
      })
    }).pipe(Effect.provide(processLayer)))

  it.live("interrupting a turn while a tool runs: notifications/cancelled interrupts the handler (its finalizer runs); the next turn works", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<Exit.Exit<unknown, unknown>>()
      const slow = McpServers.tool({
        name: "slow",
        description: "Never finishes.",
        input: Schema.Struct({}),
        handler: () =>
          Effect.gen(function*() {
            yield* Effect.addFinalizer((exit) => Deferred.succeed(finalized, exit))
            yield* Deferred.succeed(started, undefined)
            return yield* Effect.never
          })
      })
      const byre = McpServers.server("byre", { alwaysLoad: true, tools: [slow] })
      const { model, options } = yield* live([
        FakeModel.toolUse("mcp__byre__slow", {}),
        FakeModel.text("after the interrupt")
      ])
      const { lines, recorder } = recording()
      const session = yield* Claude.open({ ...options, transcript: recorder }).pipe(
        Effect.provide(McpServers.layer(byre))
      )
      const turn = yield* session.turn("Run the slow tool").pipe(Stream.runDrain, Effect.forkChild)
      yield* Deferred.await(started).pipe(Effect.timeout("30 seconds"))
      const abortedResult = yield* session.events.pipe(
        Stream.filter((e): e is Claude.TurnResult => e.type === "result"),
        Stream.runHead,
        Effect.forkChild
      )
      const before = yield* Clock.currentTimeMillis
      yield* Fiber.interrupt(turn)
      const exit = yield* Deferred.await(finalized).pipe(Effect.timeout("10 seconds"))
      const elapsed = (yield* Clock.currentTimeMillis) - before
      assert.isTrue(Exit.hasInterrupts(exit), `the handler's scope closed with ${String(exit)}`)
      yield* Effect.logInfo(`interrupt → tool finalizer: ${elapsed} ms`)
      assert.isBelow(elapsed, 5000)

      const call = mcpMessages(lines).find((m) => m.message.method === "tools/call")
      const cancelled = mcpMessages(lines).find((m) => m.message.method === "notifications/cancelled")
      assert.isDefined(cancelled)
      assert.strictEqual((cancelled!.message.params as { requestId: unknown }).requestId, call!.message.id)

      const aborted = yield* Fiber.join(abortedResult).pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(aborted._tag, "Some")
      assert.strictEqual(aborted._tag === "Some" ? aborted.value.terminal_reason : undefined, "aborted_tools")
      const next = yield* session.run("and now?")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "after the interrupt")
      const requests = yield* model.messageRequests
      assert.strictEqual(requests.length, 2)
      // The model saw the cancelled call as an erroring tool_result.
      assert.isTrue(onlyToolResult(requests[1]!).isError)
    }).pipe(Effect.provide(processLayer)))

  it.live("the first turn's system/init comes within 2 s of the user message (no stall on an MCP notification) and lists byre connected", () =>
    Effect.gen(function*() {
      const byre = McpServers.server("byre", { tools: [echoTool([])] })
      const { options } = yield* live([FakeModel.text("hello")])
      const { lines, recorder } = recording()
      const session = yield* Claude.open({ ...options, transcript: recorder }).pipe(
        Effect.provide(McpServers.layer(byre))
      )
      // The CLI is up (it answered initialize); what follows is the turn's own latency.
      yield* session.initializeResult
      let initAt: number | undefined
      let init: Claude.Event | undefined
      const sentAt = yield* Clock.currentTimeMillis
      const events = yield* session.turn("hi").pipe(
        Stream.tap((event) =>
          Effect.gen(function*() {
            if (init === undefined && event.type === "system" && event.subtype === "init") {
              init = event
              initAt = yield* Clock.currentTimeMillis
            }
          })
        ),
        Stream.runCollect
      )
      assert.strictEqual(resultOf(events).subtype, "success")
      assert.isDefined(initAt)
      const latency = initAt! - sentAt
      yield* Effect.logInfo(`send → system/init: ${latency} ms`)
      assert.isBelow(latency, 2000)
      assert.strictEqual(init?.type === "system" && init.subtype === "init" ? "init" : undefined, "init")
      const servers = (init as Protocol.SystemInit).mcp_servers
      assert.deepStrictEqual(servers.map(({ name, status }) => ({ name, status })), [{ name: "byre", status: "connected" }])
      // The handshake (initialize, notifications/initialized, tools/list) was answered, each once.
      assert.deepStrictEqual(mcpMessages(lines).map((m) => m.message.method), [
        "initialize",
        "notifications/initialized",
        "tools/list"
      ])
      assert.strictEqual(assertEveryMcpMessageAnsweredOnce(lines), 3)
    }).pipe(Effect.provide(processLayer)))

  /** `byre` and `croft` each registered by its own layer; `provide` puts both under `open`. */
  const twoServers = (
    provide: (
      open: Effect.Effect<Claude.Session, ClaudeError.ClaudeError, Transport | Scope.Scope | McpServers.McpServers>,
      byre: Layer.Layer<McpServers.McpServers>,
      croft: Layer.Layer<McpServers.McpServers>
    ) => Effect.Effect<Claude.Session, ClaudeError.ClaudeError, Transport | Scope.Scope>
  ) =>
    Effect.gen(function*() {
      const echoed: Array<typeof EchoInput.Type> = []
      const counted: Array<number> = []
      const byre = McpServers.server("byre", { alwaysLoad: true, tools: [echoTool(echoed)] })
      const croft = McpServers.server("croft", {
        alwaysLoad: true,
        tools: [
          McpServers.tool({
            name: "double",
            description: "Double a number.",
            input: Schema.Struct({ n: Schema.Finite }),
            handler: ({ n }) =>
              Effect.sync(() => {
                counted.push(n)
                return `double: ${n * 2}`
              })
          })
        ]
      })
      const { model, options } = yield* live([
        FakeModel.blocks([
          FakeModel.toolUseBlock("mcp__byre__echo", { text: "hi" }),
          FakeModel.toolUseBlock("mcp__croft__double", { n: 21 })
        ]),
        FakeModel.text("both answered")
      ])
      const session = yield* provide(Claude.open(options), McpServers.layer(byre), McpServers.layer(croft))
      const result = yield* session.run("Use both servers")
      assert.strictEqual(result.result, "both answered")
      assert.deepStrictEqual(echoed, [{ text: "hi" }])
      assert.deepStrictEqual(counted, [21])

      const [first, second] = yield* model.messageRequests
      assert.isTrue(FakeModel.hasTool(first!, "mcp__byre__echo"))
      assert.isTrue(FakeModel.hasTool(first!, "mcp__croft__double"))
      const contents = FakeModel.toolResults(second!).map((r) => [r.content, r.isError])
      assert.sameDeepMembers(contents, [["echo: hi", false], ["double: 42", false]])

      const status = yield* session.mcpStatus()
      const byName = (name: string) => status.mcpServers.find((server) => server.name === name)
      assert.strictEqual(byName("byre")?.status, "connected")
      assert.strictEqual(byName("croft")?.status, "connected")
      assert.deepStrictEqual(byName("byre")?.tools?.map((tool) => tool.name), ["echo"])
      assert.deepStrictEqual(byName("croft")?.tools?.map((tool) => tool.name), ["double"])
    }).pipe(Effect.provide(processLayer))

  it.live("two servers from stacked Effect.provide layers are both connected (mcpStatus) and both callable", () =>
    twoServers((open, byre, croft) =>
      open.pipe(Effect.provide(byre), Effect.provide(croft))
    ))

  it.live("two servers from McpServers.mergeLayers are both connected (mcpStatus) and both callable", () =>
    twoServers((open, byre, croft) =>
      open.pipe(Effect.provide(McpServers.mergeLayers(byre, croft)))
    ))

  it.live("a handler that uses the application's own service (provided via Layer) works end to end", () =>
    Effect.gen(function*() {
      const greeter = yield* Greeter
      const { model, options } = yield* live([
        FakeModel.toolUse("mcp__byre__greet", { name: "Ada" }),
        FakeModel.text("greeted")
      ])
      const session = yield* Claude.open(options)
      const result = yield* session.run("Greet Ada")
      assert.strictEqual(result.result, "greeted")
      const [, second] = yield* model.messageRequests
      assert.strictEqual(onlyToolResult(second!).content, "Good morning, Ada (greeting #1)")
      // The handler ran against the very instance the application holds.
      assert.deepStrictEqual(yield* Ref.get(greeter.greeted), ["Ada"])
    }).pipe(Effect.provide(Layer.merge(processLayer, GreeterMcp.pipe(Layer.provideMerge(GreeterLive))))))
})
