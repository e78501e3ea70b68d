/**
 * What the model reads of a tool result with `structuredContent`, on the real CLI 2.1.332 (found by
 * a reviewing helper): the JSON text of `structuredContent`, not the text blocks. So the `text` of
 * `McpServers.structured(value, { text })`, documented as the text block sent instead of the
 * value's JSON, never reached the model; its docs now say so. An `isError` result gives the model
 * its blocks; the program still sees the value in the `user` event's `tool_use_result`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const results: Record<string, McpServers.ToolResult> = {
  summary: McpServers.structured({ celsius: 21, city: "Oslo" }, { text: "It is 21 °C in Oslo." }),
  failed: { content: [McpServers.text("No such city")], structuredContent: { code: 404 }, isError: true }
}

const weather = McpServers.server("weather", {
  alwaysLoad: true,
  tools: [McpServers.tool({
    name: "lookup",
    description: "Looks the weather up.",
    input: Schema.Struct({ key: Schema.Literals(["summary", "failed"]) }),
    handler: ({ key }) => Effect.succeed(results[key]!)
  })]
})

describe("structuredContent on the real CLI", { timeout: 90_000 }, () => {
  it.live("the model reads the JSON of structuredContent, not the text block; an isError result, its blocks", () =>
    Effect.gen(function*() {
      const { session, model } = yield* Offline.open([
        FakeModel.toolUse("mcp__weather__lookup", { key: "summary" }),
        FakeModel.toolUse("mcp__weather__lookup", { key: "failed" }),
        FakeModel.text("done")
      ], { executable: cliPath, allowedTools: ["mcp__weather__lookup"] }).pipe(Effect.provide(McpServers.layer(weather)))
      const events = yield* Stream.runCollect(session.turn("What is the weather in Oslo?"))
      const requests = yield* model.messageRequests
      assert.deepStrictEqual(FakeModel.toolResults(requests[1]!).map((r) => [r.content, r.isError]), [
        [JSON.stringify({ celsius: 21, city: "Oslo" }), false]
      ])
      assert.deepStrictEqual(FakeModel.toolResults(requests[2]!).map((r) => [r.content, r.isError]), [
        ["No such city", true]
      ])
      const seen = events.flatMap((event) =>
        event.type === "user" && typeof event.tool_use_result === "object" && event.tool_use_result !== null &&
          "structuredContent" in event.tool_use_result
          ? [event.tool_use_result.structuredContent]
          : []
      )
      assert.deepStrictEqual(seen, [{ celsius: 21, city: "Oslo" }])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
