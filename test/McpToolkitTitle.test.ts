/**
 * `McpServers.toolkit` left out a tool's `Tool.Title` annotation, found by a reviewing helper:
 * `tools/list` advertised the hints but no `annotations.title`, which `effect/ai`'s own `McpServer`
 * sends and CLI 2.1.332 shows as the tool's `display_name` (`tool_use_meta` of the assistant line).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as McpServers from "../src/McpServers.ts"

const Lookup = Tool.make("Lookup", {
  description: "Looks the weather up",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.String
}).annotate(Tool.Title, "Weather Lookup").annotate(Tool.Readonly, true)

const Untitled = Tool.make("Untitled", { parameters: Schema.Struct({}), success: Schema.String })

const Kit = Toolkit.make(Lookup, Untitled)
const handlers = Kit.toLayer({ Lookup: ({ city }) => Effect.succeed(city), Untitled: () => Effect.succeed("") })

describe("McpServers.toolkit annotations", () => {
  it.effect("tools/list gives a tool's Tool.Title as annotations.title, as effect/ai's McpServer does", () =>
    Effect.gen(function*() {
      const layer = McpServers.layer(McpServers.toolkit("weather", Kit)).pipe(Layer.provide(handlers))
      const mcp = yield* Effect.flatMap(Effect.service(McpServers.McpServers), McpServers.connect).pipe(Effect.provide(layer))
      const answer = (yield* mcp.handle("weather", { jsonrpc: "2.0", id: 1, method: "tools/list" })) as {
        readonly result: { readonly tools: ReadonlyArray<{ readonly name: string; readonly annotations: unknown }> }
      }
      const [lookup, untitled] = answer.result.tools
      assert.deepStrictEqual(lookup!.annotations, {
        title: "Weather Lookup",
        readOnlyHint: true,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true
      })
      assert.notProperty(untitled!.annotations, "title")
    }))
})
