/**
 * An in-process MCP tool whose handler returns no Effect (a plain result or a Promise, from
 * JavaScript or a cast): the call is answered as a tool that died (an `isError` result the model
 * reads), as before, but its text said only `Tool plain failed`; it names the handler and what it
 * returned now, as for the Permissions and hook handlers (`test/HandlerNotAnEffect.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

describe("an MCP tool handler that returns no Effect", () => {
  it.live("a plain value and a Promise: each call answered isError, naming the tool and what it returned", () =>
    Effect.gen(function*() {
      const results: Array<Exit.Exit<McpServers.ToolResult, unknown>> = []
      const tool = (name: string, returned: () => unknown) =>
        McpServers.tool({
          name,
          description: "Returns no Effect.",
          input: Schema.Struct({}),
          handler: returned as never
        })
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          for (const name of ["plain", "promise"]) {
            results.push(yield* Effect.exit(FakeCli.callMcpTool(cli, "js", name, {}).pipe(Effect.timeout("3 seconds"))))
          }
          return yield* Effect.exit(cli.next).pipe(Effect.as(0))
        })
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "300 millis" })
        yield* session.initializeResult
        yield* Effect.sleep("500 millis")
      })).pipe(
        Effect.provide(McpServers.layer(McpServers.server("js", {
          tools: [tool("plain", () => McpServers.text("hi")), tool("promise", () => Promise.resolve(McpServers.text("hi")))]
        }))),
        Effect.provide(cli)
      )
      assert.lengthOf(results, 2)
      for (const exit of results) {
        assert.isTrue(Exit.isSuccess(exit), `a call was not answered: ${String(exit)}`)
        if (Exit.isSuccess(exit)) {
          assert.isTrue(exit.value.isError === true, JSON.stringify(exit.value))
          assert.include(JSON.stringify(exit.value.content), "not an Effect")
        }
      }
    }))
})
