/**
 * What `toggleMcpServer`'s doc now says, on the real CLI 2.1.332 (it said a disabled server's
 * tools "leave the next request"): the next request still lists the tool, and a call of it is
 * refused by the CLI ("has been switched off") without reaching the server (found by a reviewing
 * helper).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

describe("toggleMcpServer(name, false) (real CLI)", { timeout: 120_000 }, () => {
  it.live("the tool is still listed; its call is refused and never reaches the server", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const echo = McpServers.server("late", {
        alwaysLoad: true,
        tools: [McpServers.tool({
          name: "echo",
          description: "Echo the given text back.",
          input: Schema.Struct({ text: Schema.String }),
          handler: (input) => Effect.sync(() => (received.push(input.text), `echo: ${input.text}`))
        })]
      })
      const { session, model } = yield* Offline.open([
        FakeModel.text("first"),
        FakeModel.toolUse("mcp__late__echo", { text: "hi" }),
        FakeModel.text("after")
      ], { executable: cliPath, allowedTools: ["mcp__late__echo"] }).pipe(Effect.provide(McpServers.layer(echo)))
      yield* session.run("one")
      yield* session.toggleMcpServer("late", false)
      yield* session.run("call it")
      const [, offered, answered] = yield* model.messageRequests
      assert.isTrue(FakeModel.hasTool(offered!, "mcp__late__echo"))
      const [result] = FakeModel.toolResults(answered!)
      assert.isTrue(result?.isError)
      assert.include(String(result?.content), "switched off")
      assert.deepStrictEqual(received, [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
