import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import { connectTo, type Wire } from "./support/mcpWire.ts"

// -----------------------------------------------------------------------------
// Fixtures: the `message` of real `mcp_message` control requests from CLI 2.1.332
// (testdata/protocol/ d1, d4, d6, l2), and the answers the CLI accepted.
// -----------------------------------------------------------------------------

const d1Initialize = {
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: {
      name: "claude-code",
      title: "Claude Code",
      description: "Anthropic's agentic coding tool",
      websiteUrl: "https://claude.com/claude-code",
      version: "2.1.332"
    }
  },
  jsonrpc: "2.0",
  id: 0
}
const d1InitializeAnswer = {
  jsonrpc: "2.0",
  id: 0,
  result: {
    protocolVersion: "2025-11-25",
    capabilities: { tools: {} },
    serverInfo: { name: "byre", version: "0.0.1" }
  }
}
const d1Initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const d1NotificationAnswer = { jsonrpc: "2.0", result: {}, id: 0 }
const d1ToolsList = { method: "tools/list", jsonrpc: "2.0", id: 1 }
const d1ToolsListAnswer = {
  jsonrpc: "2.0",
  id: 1,
  result: {
    tools: [{
      name: "echo",
      description: "Echo the given text back.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
    }]
  }
}
const toolsCall = (id: number, args: unknown, name = "echo") => ({
  method: "tools/call",
  params: {
    name,
    arguments: args,
    _meta: { "claudecode/toolUseId": `toolu_fake${id}`, progressToken: id }
  },
  jsonrpc: "2.0",
  id
})
// d1: tools/call id 2 {"text":"hi"} → {"content":[{"type":"text","text":"echo: hi"}]}
const d1ToolsCall = toolsCall(2, { text: "hi" })
const d1ToolsCallAnswer = { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "echo: hi" }] } }
// d6: tools/call id 2 {"text":"isError"} → {"content":[{"type":"text","text":"tool failed softly"}],"isError":true}
const d6ToolsCallSoftError = toolsCall(2, { text: "isError" })
const d6SoftErrorAnswer = {
  jsonrpc: "2.0",
  id: 2,
  result: { content: [{ type: "text", text: "tool failed softly" }], isError: true }
}
// l2: tools/call id 2 left pending; on interrupt the CLI sends:
const l2Cancelled = {
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId: 2, reason: "AbortError: remote-cancel" }
}

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const EchoInput = Schema.Struct({ text: Schema.String })

class SoftFailure extends Schema.TaggedError<SoftFailure>()("SoftFailure", { message: Schema.String }) {}

const echo = (seen?: Array<{ readonly text: string }>) =>
  McpServers.tool({
    name: "echo",
    description: "Echo the given text back.",
    input: EchoInput,
    handler: (input) =>
      Effect.gen(function*() {
        seen?.push(input)
        if (input.text === "isError") return yield* new SoftFailure({ message: "tool failed softly" })
        if (input.text === "die") return yield* Effect.die(new Error("boom"))
        return `echo: ${input.text}`
      })
  })

const byre = (seen?: Array<{ readonly text: string }>) =>
  McpServers.server("byre", { version: "0.0.1", alwaysLoad: true, tools: [echo(seen)] })


/** The generated schema, minus the keyword that is JSON Schema's default. */
const withoutAdditionalTrue = (answer: unknown): unknown =>
  JSON.parse(JSON.stringify(answer, (key, value) => key === "additionalProperties" && value === true ? undefined : value))

// -----------------------------------------------------------------------------

describe("McpServers", () => {
  describe("handshake", () => {
    it.effect("answers the CLI's initialize with the d1 result", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        const answer = yield* mcp.handle("byre", d1Initialize)
        assert.deepStrictEqual(answer, d1InitializeAnswer)
      }))

    it.effect("echoes a supported protocol version, offers the latest for an unknown one", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        const older = yield* mcp.handle("byre", {
          ...d1Initialize,
          params: { ...d1Initialize.params, protocolVersion: "2025-06-18" }
        })
        assert.deepStrictEqual(older, {
          ...d1InitializeAnswer,
          result: { ...d1InitializeAnswer.result, protocolVersion: "2025-06-18" }
        })
        const unknown = yield* mcp.handle("byre", {
          ...d1Initialize,
          id: 7,
          params: { ...d1Initialize.params, protocolVersion: "1999-01-01" }
        })
        assert.deepStrictEqual(unknown, { ...d1InitializeAnswer, id: 7 })
      }))

    it.effect("sends instructions when the server has them", () =>
      Effect.gen(function*() {
        const server = McpServers.server("byre", { version: "0.0.1", tools: [], instructions: "Use echo." })
        const mcp = yield* connectTo(McpServers.layer(server))
        const answer = yield* mcp.handle("byre", d1Initialize)
        assert.deepStrictEqual(answer, {
          ...d1InitializeAnswer,
          result: { ...d1InitializeAnswer.result, instructions: "Use echo." }
        })
      }))

    it.effect("answers notifications/initialized, unknown notifications and stray responses at once", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        assert.deepStrictEqual(yield* mcp.handle("byre", d1Initialized), d1NotificationAnswer)
        assert.deepStrictEqual(
          yield* mcp.handle("byre", { jsonrpc: "2.0", method: "notifications/roots/list_changed" }),
          d1NotificationAnswer
        )
        assert.deepStrictEqual(
          yield* mcp.handle("byre", { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1 } }),
          d1NotificationAnswer
        )
        assert.deepStrictEqual(yield* mcp.handle("byre", { jsonrpc: "2.0", id: 3, result: {} }), d1NotificationAnswer)
        // A cancellation of a request that is not running is still answered.
        assert.deepStrictEqual(yield* mcp.handle("byre", l2Cancelled), d1NotificationAnswer)
      }))

    it.effect("ping answers {}", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        assert.deepStrictEqual(
          yield* mcp.handle("byre", { jsonrpc: "2.0", id: 4, method: "ping" }),
          { jsonrpc: "2.0", id: 4, result: {} }
        )
      }))
  })

  describe("tools/list", () => {
    it.effect("lists the JSON Schema generated from the input Schema (d1)", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        const answer = yield* mcp.handle("byre", d1ToolsList)
        assert.deepStrictEqual(answer, {
          jsonrpc: "2.0",
          id: 1,
          result: {
            tools: [{
              name: "echo",
              description: "Echo the given text back.",
              inputSchema: {
                type: "object",
                properties: { text: { type: "string" } },
                required: ["text"],
                additionalProperties: true
              }
            }]
          }
        })
        // Same as what the CLI got in d1, up to the default `additionalProperties: true`.
        assert.deepStrictEqual(withoutAdditionalTrue(answer), d1ToolsListAnswer)
      }))

    it.effect("inlines an identified root schema, and lists annotations", () =>
      Effect.gen(function*() {
        const search = McpServers.tool({
          name: "search",
          description: "Search.",
          input: Schema.Struct({ query: Schema.String, limit: Schema.optionalKey(Schema.Int) }).annotate({
            identifier: "SearchInput"
          }),
          annotations: { title: "Search", readOnlyHint: true },
          handler: () => Effect.succeed("none")
        })
        const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools: [search] })))
        const answer = yield* mcp.handle("s", { jsonrpc: "2.0", id: 1, method: "tools/list" })
        assert.deepStrictEqual(answer, {
          jsonrpc: "2.0",
          id: 1,
          result: {
            tools: [{
              name: "search",
              description: "Search.",
              inputSchema: {
                type: "object",
                properties: {
                  query: { type: "string" },
                  limit: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }
                },
                required: ["query"],
                additionalProperties: true,
                $defs: {
                  SearchInput: {
                    type: "object",
                    properties: {
                      query: { type: "string" },
                      limit: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 }
                    },
                    required: ["query"],
                    additionalProperties: true
                  }
                }
              },
              annotations: { title: "Search", readOnlyHint: true }
            }]
          }
        })
      }))

    it.effect("a tool whose input is not an object schema is a defect at layer build", () =>
      Effect.gen(function*() {
        const bad = McpServers.tool({
          name: "bad",
          description: "Takes a bare string.",
          input: Schema.String,
          handler: () => Effect.succeed("")
        })
        const exit = yield* Effect.exit(connectTo(McpServers.layer(McpServers.server("s", { tools: [bad] }))))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        assert.match(String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause)), /tool "bad".*"type": "object"/)
      }))

    it.effect("a tool whose input has no JSON Schema is a defect at layer build that says why", () =>
      Effect.gen(function*() {
        // Effect's JSON Schema generator throws on a symbol property name.
        const bad = McpServers.tool({
          name: "bad",
          description: "Keyed by a symbol.",
          input: Schema.Struct({ [Symbol.for("key")]: Schema.String }),
          handler: () => Effect.succeed("")
        })
        const exit = yield* Effect.exit(connectTo(McpServers.layer(McpServers.server("s", { tools: [bad] }))))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        assert.strictEqual(
          (Cause.squash((exit as Exit.Failure<unknown, unknown>).cause) as Error).message,
          "McpServers: tool \"bad\" of server \"s\": its input schema has no JSON Schema: Objects property names must be strings"
        )
      }))
  })

  describe("tools/call", () => {
    it.effect("decodes the arguments, runs the handler and answers its content (d1)", () =>
      Effect.gen(function*() {
        const seen: Array<{ readonly text: string }> = []
        const mcp = yield* connectTo(McpServers.layer(byre(seen)))
        assert.deepStrictEqual(yield* mcp.handle("byre", d1ToolsCall), d1ToolsCallAnswer)
        assert.deepStrictEqual(seen, [{ text: "hi" }])
      }))

    it.effect("arguments that do not decode give an isError result with the Schema's message", () =>
      Effect.gen(function*() {
        const seen: Array<{ readonly text: string }> = []
        const mcp = yield* connectTo(McpServers.layer(byre(seen)))
        const expected = Schema.decodeUnknownResult(Schema.toCodecJson(EchoInput))({ text: 42 }, { errors: "all" })
        assert.isTrue(expected._tag === "Failure")
        const message = expected._tag === "Failure" ? expected.failure.message : ""
        assert.include(message, "text")
        const answer = yield* mcp.handle("byre", toolsCall(3, { text: 42 }))
        assert.deepStrictEqual(answer, {
          jsonrpc: "2.0",
          id: 3,
          result: { content: [{ type: "text", text: message }], isError: true }
        })
        // Missing arguments decode as {}.
        const missing = yield* mcp.handle("byre", { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo" } })
        assert.deepStrictEqual((missing as { result: unknown }).result, {
          content: [{ type: "text", text: "Missing key\n  at [\"text\"]" }],
          isError: true
        })
        assert.deepStrictEqual(seen, [])
      }))

    it.effect("a typed failure of the handler gives an isError result with its message (d6)", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        assert.deepStrictEqual(yield* mcp.handle("byre", d6ToolsCallSoftError), d6SoftErrorAnswer)
      }))

    it.effect("failures without a message still say something", () =>
      Effect.gen(function*() {
        class NoMessage extends Schema.TaggedError<NoMessage>()("NoMessage", {}) {}
        const tools = [
          McpServers.tool({ name: "tagged", description: "", input: Schema.Struct({}), handler: () => new NoMessage() }),
          McpServers.tool({
            name: "plain",
            description: "",
            input: Schema.Struct({}),
            handler: () => Effect.fail({ code: 7 })
          })
        ]
        const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools })))
        const tagged = yield* mcp.handle("s", toolsCall(1, {}, "tagged"))
        assert.deepStrictEqual((tagged as { result: unknown }).result, {
          content: [{ type: "text", text: "NoMessage" }],
          isError: true
        })
        const plain = yield* mcp.handle("s", toolsCall(2, {}, "plain"))
        assert.deepStrictEqual((plain as { result: unknown }).result, {
          content: [{ type: "text", text: "{\"code\":7}" }],
          isError: true
        })
      }))

    it.effect("a failure without a message whose cause has one gives the model the cause's message, not {}", () =>
      Effect.gen(function*() {
        const tools = [
          McpServers.tool({
            name: "wrapped",
            description: "",
            input: Schema.Struct({}),
            handler: () => Effect.fail(new Error("", { cause: new Error("disk full") }))
          })
        ]
        const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools })))
        const wrapped = yield* mcp.handle("s", toolsCall(1, {}, "wrapped"))
        assert.deepStrictEqual((wrapped as { result: unknown }).result, {
          content: [{ type: "text", text: "disk full" }],
          isError: true
        })
      }))

    it.effect("a dying handler gives an isError result and is logged with logError", () =>
      Effect.gen(function*() {
        const logs: Array<Logger.Options<unknown>> = []
        const capture = Logger.layer([Logger.make((options) => void logs.push(options))])
        const answer = yield* Effect.gen(function*() {
          const mcp = yield* connectTo(McpServers.layer(byre()))
          return yield* mcp.handle("byre", toolsCall(5, { text: "die" }))
        }).pipe(Effect.provide(capture))
        assert.deepStrictEqual(answer, {
          jsonrpc: "2.0",
          id: 5,
          result: { content: [{ type: "text", text: "Tool echo failed: boom" }], isError: true }
        })
        const errors = logs.filter((log) => log.logLevel === "Error")
        assert.strictEqual(errors.length, 1)
        assert.include(String(errors[0]!.message), "Tool echo of MCP server byre failed")
        assert.isTrue(Cause.hasDies(errors[0]!.cause))
      }))

    it.effect("content shorthands: blocks, images from bytes, structured content", () =>
      Effect.gen(function*() {
        const Empty = Schema.Struct({})
        const tools = [
          McpServers.tool({
            name: "blocks",
            description: "",
            input: Empty,
            handler: () =>
              Effect.succeed([
                McpServers.text("a"),
                McpServers.image({ data: new Uint8Array([1, 2, 3]), mimeType: "image/png" })
              ])
          }),
          McpServers.tool({
            name: "one",
            description: "",
            input: Empty,
            handler: () => Effect.succeed(McpServers.image({ data: "AQID", mimeType: "image/png" }))
          }),
          McpServers.tool({
            name: "structured",
            description: "",
            input: Empty,
            handler: () => Effect.succeed(McpServers.structured({ n: 1 }))
          }),
          McpServers.tool({
            name: "soft",
            description: "",
            input: Empty,
            handler: () => Effect.succeed({ content: [McpServers.text("nope")], isError: true })
          })
        ]
        const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools })))
        const result = (answer: unknown) => (answer as { result: unknown }).result
        assert.deepStrictEqual(result(yield* mcp.handle("s", toolsCall(1, {}, "blocks"))), {
          content: [{ type: "text", text: "a" }, { type: "image", data: "AQID", mimeType: "image/png" }]
        })
        assert.deepStrictEqual(result(yield* mcp.handle("s", toolsCall(2, {}, "one"))), {
          content: [{ type: "image", data: "AQID", mimeType: "image/png" }]
        })
        assert.deepStrictEqual(result(yield* mcp.handle("s", toolsCall(3, {}, "structured"))), {
          content: [{ type: "text", text: "{\"n\":1}" }],
          structuredContent: { n: 1 }
        })
        assert.deepStrictEqual(result(yield* mcp.handle("s", toolsCall(4, {}, "soft"))), {
          content: [{ type: "text", text: "nope" }],
          isError: true
        })
      }))

    it.effect("a handler uses a user service captured by the layer", () =>
      Effect.gen(function*() {
        class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => string }>()("test/Greeter") {}
        const greet = McpServers.tool({
          name: "greet",
          description: "Greets.",
          input: Schema.Struct({ name: Schema.String }),
          handler: ({ name }) => Effect.map(Effect.service(Greeter), (greeter) => greeter.greet(name))
        })
        const layer = McpServers.layer(McpServers.server("people", { tools: [greet] })).pipe(
          Layer.provide(Layer.succeed(Greeter, { greet: (name) => `hello ${name}` }))
        )
        // Greeter is not in this fiber's context: the call uses the one captured at build time.
        const mcp = yield* connectTo(layer)
        assert.isTrue(Option.isNone(yield* Effect.serviceOption(Greeter)))
        assert.deepStrictEqual(yield* mcp.handle("people", toolsCall(1, { name: "Ada" }, "greet")), {
          jsonrpc: "2.0",
          id: 1,
          result: { content: [{ type: "text", text: "hello Ada" }] }
        })
      }))

    it.effect("notifications/cancelled interrupts the running call; its finalizer runs (l2)", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const finalized = yield* Deferred.make<void>()
        const slow = McpServers.tool({
          name: "echo",
          description: "Never answers.",
          input: EchoInput,
          handler: () =>
            Effect.gen(function*() {
              yield* Effect.addFinalizer(() => Deferred.succeed(finalized, undefined))
              yield* Deferred.succeed(started, undefined)
              return yield* Effect.never
            })
        })
        const mcp = yield* connectTo(McpServers.layer(McpServers.server("byre", { tools: [slow] })))
        const call = yield* Effect.forkChild(mcp.handle("byre", d1ToolsCall))
        yield* Deferred.await(started)
        assert.isFalse(yield* Deferred.isDone(finalized))
        assert.deepStrictEqual(yield* mcp.handle("byre", l2Cancelled), d1NotificationAnswer)
        yield* Deferred.await(finalized)
        assert.deepStrictEqual(yield* Fiber.join(call), {
          jsonrpc: "2.0",
          id: 2,
          result: { content: [{ type: "text", text: "Tool echo was cancelled" }], isError: true }
        })
      }))

    it.effect("cancellation is per server and per id", () =>
      Effect.gen(function*() {
        const gates = new Map<string, Deferred.Deferred<string>>()
        const started = yield* Deferred.make<void>()
        const wait = McpServers.tool({
          name: "wait",
          description: "",
          input: Schema.Struct({ key: Schema.String }),
          handler: ({ key }) =>
            Effect.gen(function*() {
              const gate = yield* Deferred.make<string>()
              gates.set(key, gate)
              if (gates.size === 3) yield* Deferred.succeed(started, undefined)
              return yield* Deferred.await(gate)
            })
        })
        const mcp = yield* connectTo(
          McpServers.layer(McpServers.server("a", { tools: [wait] }), McpServers.server("b", { tools: [wait] }))
        )
        const a2 = yield* Effect.forkChild(mcp.handle("a", toolsCall(2, { key: "a2" }, "wait")))
        const a3 = yield* Effect.forkChild(mcp.handle("a", toolsCall(3, { key: "a3" }, "wait")))
        const b2 = yield* Effect.forkChild(mcp.handle("b", toolsCall(2, { key: "b2" }, "wait")))
        yield* Deferred.await(started)
        yield* mcp.handle("a", l2Cancelled)
        const a2Answer = yield* Fiber.join(a2)
        assert.deepStrictEqual((a2Answer as { result: unknown }).result, {
          content: [{ type: "text", text: "Tool wait was cancelled" }],
          isError: true
        })
        yield* Deferred.succeed(gates.get("a3")!, "a3 done")
        yield* Deferred.succeed(gates.get("b2")!, "b2 done")
        const result = (answer: unknown) => (answer as { result: unknown }).result
        assert.deepStrictEqual(result(yield* Fiber.join(a3)), { content: [{ type: "text", text: "a3 done" }] })
        assert.deepStrictEqual(result(yield* Fiber.join(b2)), { content: [{ type: "text", text: "b2 done" }] })
      }))

    it.effect("interrupting handle, or closing the connection, interrupts the tool", () =>
      Effect.gen(function*() {
        const startedCount = { n: 0 }
        const started = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
        const finalized = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
        const slow = McpServers.tool({
          name: "slow",
          description: "",
          input: Schema.Struct({}),
          handler: () =>
            Effect.gen(function*() {
              const i = startedCount.n++
              yield* Effect.addFinalizer(() => Deferred.succeed(finalized[i]!, undefined))
              yield* Deferred.succeed(started[i]!, undefined)
              return yield* Effect.never
            })
        })
        const service = yield* Effect.service(McpServers.McpServers).pipe(
          Effect.provide(McpServers.layer(McpServers.server("s", { tools: [slow] })))
        )
        // 1. the caller gives up
        const mcp = yield* McpServers.connect(service)
        const call = yield* Effect.forkChild(mcp.handle("s", toolsCall(1, {}, "slow")))
        yield* Deferred.await(started[0])
        yield* Fiber.interrupt(call)
        // The tool is interrupted (its finalizer runs), without `handle` waiting for it to stop.
        yield* Deferred.await(finalized[0])
        // 2. the connection's scope closes
        const scope = yield* Scope.make()
        const mcp2 = yield* McpServers.connect(service).pipe(Scope.provide(scope))
        const call2 = yield* Effect.forkChild(mcp2.handle("s", toolsCall(1, {}, "slow")))
        yield* Deferred.await(started[1])
        yield* Scope.close(scope, Exit.void)
        assert.isTrue(yield* Deferred.isDone(finalized[1]))
        const answer = yield* Fiber.join(call2)
        assert.deepStrictEqual((answer as { result: unknown }).result, {
          content: [{ type: "text", text: "Tool slow was cancelled" }],
          isError: true
        })
      }))

    it.effect("an unknown tool or bad params give error -32602", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        assert.deepStrictEqual(yield* mcp.handle("byre", toolsCall(6, {}, "nope")), {
          jsonrpc: "2.0",
          id: 6,
          error: { code: -32602, message: "Unknown tool: nope" }
        })
        const bad = yield* mcp.handle("byre", { jsonrpc: "2.0", id: 7, method: "tools/call", params: { arguments: {} } })
        assert.strictEqual((bad as { error: { code: number } }).error.code, -32602)
      }))
  })

  describe("errors", () => {
    it.effect("an unknown method with an id gives -32601", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        assert.deepStrictEqual(yield* mcp.handle("byre", { jsonrpc: "2.0", id: 8, method: "resources/list" }), {
          jsonrpc: "2.0",
          id: 8,
          error: { code: -32601, message: "Method not found: resources/list" }
        })
      }))

    it.effect("an unknown server fails with InvalidInput", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        const error = yield* Effect.flip(mcp.handle("other", d1Initialize))
        assert.instanceOf(error, ClaudeError.ClaudeError)
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "\"other\"")
      }))

    it.effect("a malformed message gives -32600 when it has an id, InvalidInput otherwise", () =>
      Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(byre()))
        const withId = yield* mcp.handle("byre", { id: 9, method: "ping" })
        assert.deepStrictEqual((withId as { id: unknown; error: { code: number } }).id, 9)
        assert.strictEqual((withId as { error: { code: number } }).error.code, -32600)
        const withoutId = yield* Effect.flip(mcp.handle("byre", "not json-rpc"))
        assert.strictEqual(withoutId.reason._tag, "InvalidInput")
        const noMethod = yield* Effect.flip(mcp.handle("byre", { jsonrpc: "2.0" }))
        assert.strictEqual(noMethod.reason._tag, "InvalidInput")
      }))
  })

  describe("layers", () => {
    const other = McpServers.server("other", { tools: [echo()] })

    it.effect("two stacked layers give both servers; launchEntries lists both", () =>
      Effect.gen(function*() {
        const service = yield* Effect.service(McpServers.McpServers).pipe(
          Effect.provide(McpServers.layer(byre())),
          Effect.provide(McpServers.layer(other))
        )
        assert.deepStrictEqual(McpServers.launchEntries(service), [
          { name: "other", alwaysLoad: false },
          { name: "byre", alwaysLoad: true }
        ])
        const mcp: Wire = yield* McpServers.connect(service)
        assert.deepStrictEqual(yield* mcp.handle("byre", d1ToolsCall), d1ToolsCallAnswer)
        assert.deepStrictEqual(yield* mcp.handle("other", d1ToolsCall), d1ToolsCallAnswer)
      }))

    it.effect("Layer.provideMerge and mergeLayers keep both servers", () =>
      Effect.gen(function*() {
        const viaProvideMerge = yield* McpServers.current.pipe(
          Effect.provide(Layer.provideMerge(McpServers.layer(other), McpServers.layer(byre())))
        )
        assert.deepStrictEqual(McpServers.launchEntries(viaProvideMerge).map((e) => e.name), ["byre", "other"])
        const viaMergeLayers = yield* McpServers.current.pipe(
          Effect.provide(McpServers.mergeLayers(McpServers.layer(byre()), McpServers.layer(other)))
        )
        assert.deepStrictEqual(McpServers.launchEntries(viaMergeLayers).map((e) => e.name), ["byre", "other"])
      }))

    it.effect("without a layer: empty", () =>
      Effect.gen(function*() {
        const service = yield* McpServers.current
        assert.strictEqual(service, McpServers.empty)
        assert.deepStrictEqual(McpServers.launchEntries(service), [])
      }))

    it.effect("two different servers with the same name are a defect; the same one twice is kept once", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          McpServers.current.pipe(
            Effect.provide(McpServers.layer(byre())),
            Effect.provide(McpServers.layer(byre()))
          )
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
        assert.include(String(Cause.squash((exit as Exit.Failure<unknown, unknown>).cause)), "\"byre\"")
        const one = byre()
        const service = yield* McpServers.current.pipe(
          Effect.provide(McpServers.layer(one)),
          Effect.provide(McpServers.layer(one))
        )
        assert.strictEqual(service.servers.length, 1)
      }))

    it.effect("two tools with the same name are a defect", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          McpServers.current.pipe(Effect.provide(McpServers.layer(McpServers.server("s", { tools: [echo(), echo()] }))))
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      }))
  })
})
