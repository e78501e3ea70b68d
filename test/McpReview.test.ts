/**
 * In-process MCP servers, found by a reviewing helper (each test failed before its fix):
 * - a session's close waited for ever on a tool call stuck where it cannot be interrupted (the
 *   connection's calls were awaited with no deadline, after `incoming` had let the handler go);
 *   it now waits within `closeGrace`, once (not once for the request's handler and again for the
 *   call: a second review), then leaves the call to stop in the background, logged;
 * - servers or tools whose names the CLI maps to one model-facing name (`a.b` and `a_b`: every
 *   character but letters, digits, `_` and `-` becomes `_`) were accepted, and the model's call
 *   ran one of them; they are refused when the layer is built;
 * - `ClaudeCodeLanguageModel` allowed a toolkit tool with `needsApproval` ahead, so the CLI ran
 *   it with no one asked; and served its toolkit beside the context's servers unchecked (a
 *   server of the same name replaced, or tools the model could not tell apart: a second review);
 * - a toolkit's `onResult` reported a success the model read as a failure (a result JSON cannot
 *   write).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { LaunchSpec } from "../src/Transport.ts"
import { withWarnings } from "./support/outcomes.ts"
import { argValue } from "./support/resumedSessions.ts"
import { Admin, AdminHandlers, ListRepos } from "./support/aiTools.ts"

const echo = (name: string) =>
  McpServers.tool({ name, description: "Echo.", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })

const defectOf = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n")[0]! : "built"

const build = <E>(layer: Layer.Layer<McpServers.McpServers, E>) => Effect.exit(Effect.scoped(Layer.build(layer)))

describe("in-process MCP servers", () => {
  it.effect("the close ends within closeGrace while a tool call is stuck where it cannot be interrupted, with a warning", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const stuck = McpServers.tool({
        name: "stuck",
        description: "Waits uninterruptibly (the acquire of a remote lock, say).",
        input: Schema.Struct({}),
        handler: () => Effect.uninterruptible(Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(gate))).pipe(Effect.as("done"))
      })
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit({
            type: "control_request",
            request_id: "req-1",
            request: {
              subtype: "mcp_message",
              server_name: "s",
              message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "stuck", arguments: {} } }
            }
          })
          return yield* Effect.never
        })
      )
      const scope = yield* Scope.make()
      const closed = yield* withWarnings(Effect.gen(function*() {
        yield* Claude.open({ closeGrace: "2 seconds" }).pipe(
          Scope.provide(scope),
          Effect.provide([cli, McpServers.layer(McpServers.server("s", { tools: [stuck] }))])
        )
        yield* Deferred.await(started)
        const closing = yield* Effect.forkDetach(Scope.close(scope, Exit.void), { startImmediately: true })
        // One closeGrace: the request's handler stops at once, the call is waited for once.
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow
        yield* TestClock.adjust("2 seconds")
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow
        const closedInTime = closing.pollUnsafe() !== undefined
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.await(closing)
        return closedInTime
      }))
      assert.isTrue(Exit.isSuccess(closed.exit) && closed.exit.value, "the close still waited on the stuck tool after closeGrace")
      // Said once, by the connection that holds the call.
      assert.deepStrictEqual(
        closed.warnings.filter((warning) => warning.includes("did not stop within closeGrace")),
        ["in-process MCP tool calls did not stop within closeGrace (2s): left to stop in the background"]
      )
    }))

  it.effect("two servers, or two tools of a server, that the model would see under one name are refused when built", () =>
    Effect.gen(function*() {
      const servers = yield* build(McpServers.layer(
        McpServers.server("a.b", { tools: [echo("echo")] }),
        McpServers.server("a_b", { tools: [echo("echo")] })
      ))
      assert.include(defectOf(servers), `tool "echo" of server "a.b" and tool "echo" of server "a_b" reach the model as one tool, "mcp__a_b__echo"`)
      const tools = yield* build(McpServers.layer(McpServers.server("s", { tools: [echo("get.weather"), echo("get_weather")] })))
      assert.include(defectOf(tools), `server "s" has tools "get.weather" and "get_weather", which the model sees as one: "get_weather"`)
      // Across the `__` that joins a server's name and its tool's.
      const across = yield* build(McpServers.layer(
        McpServers.server("a", { tools: [echo("b__c")] }),
        McpServers.server("a__b", { tools: [echo("c")] })
      ))
      assert.include(defectOf(across), `"mcp__a__b__c"`)
      // Names the model tells apart are fine.
      assert.strictEqual(defectOf(yield* build(McpServers.layer(
        McpServers.server("a-b", { tools: [echo("echo")] }),
        McpServers.server("a_b", { tools: [echo("echo")] })
      ))), "built")
    }))

  it.effect("setMcpServers refuses a server whose tools the model would not tell from a served one's", () =>
    Effect.gen(function*() {
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          return yield* Effect.never
        })
      )
      const exit = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        return yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.server("a_b", { tools: [echo("echo")] })] }))
      }).pipe(Effect.scoped, Effect.provide([cli, McpServers.layer(McpServers.server("a.b", { tools: [echo("echo")] }))]))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
      assert.include(error !== undefined && error._tag === "Some" ? error.value.message : "", `reach the model as one tool, "mcp__a_b__echo"`)
    }))

  it.effect("ClaudeCodeLanguageModel does not allow a toolkit tool that needs approval ahead", () =>
    Effect.gen(function*() {
      const launches: Array<LaunchSpec> = []
      const sessionId = "11111111-1111-4111-8111-111111111111"
      const transport = FakeCli.layer((cli) => {
        launches.push(cli.spec)
        return FakeCli.conversation({
          sessionId,
          onUser: (_text, _index, cli) => Effect.forEach(FakeCli.textTurn({ sessionId, text: "ok" }), (line) => cli.emit(line), { discard: true })
        })(cli)
      })
      yield* LanguageModel.generateText({ prompt: "Clean up", toolkit: Admin }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))),
        Effect.provide(AdminHandlers)
      )
      const allowed = argValue(launches[0]!, "--allowedTools") ?? ""
      assert.notInclude(allowed, "mcp__toolkit__DeleteRepo")
      assert.include(allowed, "mcp__toolkit__ListRepos")
    }))

  it.effect("ClaudeCodeLanguageModel refuses a toolkit the model could not tell from the session's servers", () =>
    Effect.gen(function*() {
      const Kit = Toolkit.make(ListRepos)
      let spawned = false
      const transport = FakeCli.layer((cli) => {
        spawned = true
        return FakeCli.conversation({})(cli)
      })
      for (const [toolServerName, serverName] of [["tool_kit", "tool.kit"], ["toolkit", "toolkit"]] as const) {
        const error = yield* LanguageModel.generateText({ prompt: "List", toolkit: Kit }).pipe(
          Effect.provide(ClaudeCodeLanguageModel.layer({ toolServerName }).pipe(Layer.provide(transport))),
          Effect.provide(Kit.toLayer({ ListRepos: () => Effect.succeed("a, b") })),
          Effect.provide(McpServers.layer(McpServers.server(serverName, { tools: [echo("ListRepos")] }))),
          Effect.flip
        )
        assert.include(error.message, `cannot be served beside the session's in-process servers`)
      }
      assert.isFalse(spawned)
    }))

  it.effect("a toolkit's onResult reports as a failure a success JSON cannot write, as the model reads it", () =>
    Effect.gen(function*() {
      const Count = Tool.make("Count", { description: "Counts rows", parameters: Schema.Struct({}), success: Schema.Unknown })
      const Kit = Toolkit.make(Count)
      const results: Array<McpServers.ToolkitCallResult> = []
      const mcp = yield* Effect.flatMap(Effect.service(McpServers.McpServers), (service) => McpServers.connect(service)).pipe(
        Effect.provide(
          McpServers.layer(McpServers.toolkit("db", Kit, { onResult: (result) => Effect.sync(() => results.push(result)) })).pipe(
            Layer.provide(Kit.toLayer({ Count: () => Effect.succeed({ rows: 12345678901234567890n }) }))
          )
        )
      )
      const answer = (yield* mcp.handle("db", {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "Count", arguments: {}, _meta: { "claudecode/toolUseId": "toolu_1" } }
      })) as { result: McpServers.ToolResult }
      assert.strictEqual(answer.result.isError, true)
      assert.deepStrictEqual(results.map((result) => result.isFailure), [true])
    }).pipe(Effect.scoped, Effect.provide(Logger.layer([]))))
})
