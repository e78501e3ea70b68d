/**
 * An in-process MCP server the CLI drops while one of its tool calls runs (found by a reviewing
 * helper; failing before): `setMcpServers` without it, or `toggleMcpServer(name, false)`. CLI
 * 2.1.332 closes its client, tells the model the call failed ("Connection closed", `is_error`) and
 * sends no `notifications/cancelled`; the handler ran on and completed the action the model was
 * told had failed (a model that retries does it twice). The session now interrupts the calls still
 * running on a server the CLI dropped, as the official SDK's closing of the server's transport does.
 *
 * And `reconnectMcpServer` on one of the session's own in-process servers failed with the CLI's
 * internal error ("SDK servers should be handled in print.ts", `ControlRejected`): it is
 * `InvalidInput` now, saying what to do instead.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

/** A tool whose call waits on `gate`; `ended` says how it ended. */
const deployTool = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const gate = yield* Deferred.make<void>()
  const ended = yield* Deferred.make<"completed" | "interrupted">()
  const deploy = McpServers.tool({
    name: "deploy",
    description: "Deploys.",
    input: Schema.Struct({}),
    handler: () =>
      Effect.gen(function*() {
        yield* Effect.addFinalizer((exit) => Deferred.succeed(ended, Exit.isSuccess(exit) ? "completed" : "interrupted"))
        yield* Deferred.succeed(started, undefined)
        yield* Deferred.await(gate)
        return "deployed"
      })
  })
  return { started, gate, ended, server: McpServers.server("byre", { alwaysLoad: true, tools: [deploy] }) }
})

describe("an in-process server the CLI drops with a call in flight (real CLI)", { timeout: 90_000 }, () => {
  for (const how of ["setMcpServers without it", "toggleMcpServer(name, false)"] as const) {
    it.live(`${how}: the running call is interrupted, not left to complete after the model was told it failed`, () =>
      Effect.gen(function*() {
        const { started, gate, ended, server } = yield* deployTool
        const croft = McpServers.server("croft", { alwaysLoad: true, tools: [] })
        const { model, options } = yield* live([FakeModel.toolUse("mcp__byre__deploy", {}), FakeModel.text("after")])
        const session = yield* Claude.open(options).pipe(Effect.provide(McpServers.layer(server)))
        const turn = yield* Effect.forkChild(session.run("Deploy"))
        yield* Deferred.await(started).pipe(Effect.timeout("30 seconds"))
        if (how === "setMcpServers without it") {
          const set = yield* session.setMcpServers({}, { inProcess: [croft] })
          assert.deepStrictEqual(set.removed, ["byre"])
        } else {
          yield* session.toggleMcpServer("byre", false)
        }
        yield* Fiber.join(turn).pipe(Effect.timeout("30 seconds"))
        const [, second] = yield* model.messageRequests
        const results = FakeModel.toolResults(second!)
        assert.strictEqual(results.length, 1)
        assert.isTrue(results[0]!.isError, "the model was told the call failed")
        const outcome = yield* Deferred.await(ended).pipe(Effect.timeoutOption("5 seconds"))
        yield* Deferred.succeed(gate, undefined)
        const after = yield* Deferred.await(ended)
        assert.strictEqual(
          Option.getOrElse(outcome, () => `still running after the server was dropped (then: ${after})`),
          "interrupted"
        )
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
  }

  it.live("reconnectMcpServer on an in-process server: InvalidInput saying what to do, not the CLI's internal error", () =>
    Effect.gen(function*() {
      const { server } = yield* deployTool
      const { options } = yield* live([FakeModel.text("ok")])
      const session = yield* Claude.open(options).pipe(Effect.provide(McpServers.layer(server)))
      yield* session.run("hi")
      const error = yield* Effect.flip(session.reconnectMcpServer("byre"))
      assert.strictEqual(error.reason._tag, "InvalidInput", error.message)
      assert.include(error.message, "toggleMcpServer")
      assert.notInclude(error.message, "print.ts")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
