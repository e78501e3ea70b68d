/**
 * The JSON-RPC ids of the CLI's MCP requests, found by a reviewing helper. The CLI restarts ids
 * at 0 when it reconnects a server (a new `initialize`), so an id names a call only within one
 * connection: a new call under the id of one still running from before replaced it (the running
 * tool was interrupted and answered "cancelled", though nothing cancelled it), and a late
 * `notifications/cancelled` interrupted whatever call held its id by the time it ran. A request
 * with `"id": null` (MCP: never null) was taken for a notification and answered with id 0.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { fromCli } from "./support/fakeCliHost.ts"
import { connectTo } from "./support/mcpWire.ts"

const call = (id: unknown, name: string, args: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })
const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25" } }
const resultOf = (answer: unknown) => (answer as { result: unknown }).result
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] })

/** A tool `wait` whose call for key k signals `started[k]` and answers what `gates[k]` gets. */
const gatedTool = Effect.gen(function*() {
  const gates = { a: yield* Deferred.make<string>(), b: yield* Deferred.make<string>() }
  const started = { a: yield* Deferred.make<void>(), b: yield* Deferred.make<void>() }
  const wait = McpServers.tool({
    name: "wait",
    description: "Waits for its gate.",
    input: Schema.Struct({ key: Schema.Literals(["a", "b"]) }),
    handler: ({ key }) => Effect.andThen(Deferred.succeed(started[key], undefined), Deferred.await(gates[key]))
  })
  return { gates, started, server: McpServers.server("s", { tools: [wait] }) }
})

const echo = McpServers.tool({
  name: "echo",
  description: "Echo.",
  input: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

describe("MCP request ids", () => {
  it.effect("after the CLI reconnects a server (ids restart), a call under the id of one still running does not replace it", () =>
    Effect.gen(function*() {
      const { gates, started, server } = yield* gatedTool
      const mcp = yield* connectTo(McpServers.layer(server))
      yield* mcp.handle("s", initialize)
      const old = yield* Effect.forkChild(mcp.handle("s", call(2, "wait", { key: "a" })))
      yield* Deferred.await(started.a)
      yield* mcp.handle("s", initialize)
      const fresh = yield* Effect.forkChild(mcp.handle("s", call(2, "wait", { key: "b" })))
      yield* Deferred.await(started.b)
      // A cancel now names the new connection's call 2.
      yield* mcp.handle("s", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })
      yield* Deferred.succeed(gates.a, "a done")
      assert.deepStrictEqual(resultOf(yield* Fiber.join(old)), text("a done"))
      assert.deepStrictEqual(resultOf(yield* Fiber.join(fresh)), { ...text("Tool wait was cancelled"), isError: true })
    }))

  it.effect("the same through a session: tools/call id 2, the CLI re-initializes the server, tools/call id 2 again", () =>
    Effect.gen(function*() {
      const { gates, started, server } = yield* gatedTool
      const { exit } = yield* fromCli((cli) =>
        Effect.gen(function*() {
          const a = yield* Effect.forkChild(FakeCli.callMcpTool(cli, "s", "wait", { key: "a" }, { id: 2 }))
          yield* Deferred.await(started.a)
          yield* cli.request({ subtype: "mcp_message", server_name: "s", message: initialize })
          const b = yield* Effect.forkChild(FakeCli.callMcpTool(cli, "s", "wait", { key: "b" }, { id: 2 }))
          yield* Deferred.await(started.b)
          yield* Deferred.succeed(gates.a, "a done")
          yield* Deferred.succeed(gates.b, "b done")
          return [yield* Fiber.join(a), yield* Fiber.join(b)] as const
        })
      ).pipe(Effect.provide(McpServers.layer(server)))
      assert.strictEqual(exit._tag, "Success", String(exit))
      if (exit._tag !== "Success") return
      assert.deepStrictEqual(exit.value, [text("a done"), text("b done")])
    }))

  it.effect("within one connection, a call under the id of one still running is refused (-32600); the running one goes on", () =>
    Effect.gen(function*() {
      const { gates, started, server } = yield* gatedTool
      const mcp = yield* connectTo(McpServers.layer(server))
      const first = yield* Effect.forkChild(mcp.handle("s", call(5, "wait", { key: "a" })))
      yield* Deferred.await(started.a)
      const second = yield* mcp.handle("s", call(5, "wait", { key: "b" }))
      assert.deepStrictEqual(second, {
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32600, message: "Request id 5 is the id of a call still running" }
      })
      yield* Deferred.succeed(gates.a, "a done")
      assert.deepStrictEqual(resultOf(yield* Fiber.join(first)), text("a done"))
    }))

  it.effect("a notifications/cancelled naming an id no call runs under cancels nothing, not the next call given that id", () =>
    Effect.gen(function*() {
      const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools: [echo] })))
      assert.deepStrictEqual(resultOf(yield* mcp.handle("s", call(3, "echo", { text: "a" }))), text("a"))
      // A late cancel for the call just answered (its answer and the CLI's abort crossed).
      yield* mcp.handle("s", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } })
      assert.deepStrictEqual(resultOf(yield* mcp.handle("s", call(3, "echo", { text: "b" }))), text("b"))
    }))

  it.effect("the same through a session: the late cancel and a new tools/call under its id in one read", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) =>
        Effect.gen(function*() {
          const line = (requestId: string, message: unknown) =>
            JSON.stringify({ type: "control_request", request_id: requestId, request: { subtype: "mcp_message", server_name: "s", message } }) +
            "\n"
          yield* cli.emitRaw(
            line("r-cancel", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }) +
              line("r-call", call(2, "echo", { text: "hi" }))
          )
          const answers = [
            yield* cli.nextMatching((m) => m.type === "control_response"),
            yield* cli.nextMatching((m) => m.type === "control_response")
          ]
          return answers.map((m) => m.response as { request_id: string; response: unknown })
            .find((r) => r.request_id === "r-call")!.response
        })
      ).pipe(Effect.provide(McpServers.layer(McpServers.server("s", { tools: [echo] }))))
      assert.strictEqual(exit._tag, "Success", String(exit))
      if (exit._tag !== "Success") return
      assert.deepStrictEqual(exit.value, { mcp_response: { jsonrpc: "2.0", id: 2, result: text("hi") } })
    }))

  it.effect("a request with \"id\": null is an invalid request (-32600, id null), not a notification answered with id 0", () =>
    Effect.gen(function*() {
      let ran = 0
      const count = McpServers.tool({
        name: "count",
        description: "Counts.",
        input: Schema.Struct({}),
        handler: () => Effect.sync(() => String(++ran))
      })
      const mcp = yield* connectTo(McpServers.layer(McpServers.server("s", { tools: [count] })))
      const answer = (yield* mcp.handle("s", call(null, "count", {}))) as Record<string, unknown>
      assert.deepStrictEqual(answer, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "Invalid request: a request id is a string or a number, never null" }
      })
      assert.strictEqual(ran, 0)
    }))
})
