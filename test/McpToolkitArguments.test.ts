/**
 * An `effect/ai` toolkit served by `McpServers.toolkit` advertises, in `tools/list`, the JSON
 * Schema of the JSON form of its parameters; the arguments of `tools/call` are read in that form
 * before the toolkit decodes them. Before, the toolkit decoded them with the parameters Schema
 * itself, and refused what the advertised schema allows: `null` for an optional field, an ISO
 * string for a `Schema.Date` (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as McpServers from "../src/McpServers.ts"

const Remind = Tool.make("Remind", {
  description: "Sets a reminder",
  parameters: Schema.Struct({ note: Schema.optional(Schema.String), at: Schema.Date }),
  success: Schema.String
})
const Kit = Toolkit.make(Remind)
const Handlers = Kit.toLayer({ Remind: ({ at, note }) => Effect.succeed(`${note ?? "-"} at ${at.toISOString()}`) })

const connect = Effect.flatMap(Effect.service(McpServers.McpServers), McpServers.connect).pipe(
  Effect.provide(McpServers.layer(McpServers.toolkit("kit", Kit)).pipe(Layer.provide(Handlers)))
)

describe("McpServers.toolkit arguments in the form tools/list advertises", () => {
  it.effect("arguments valid for the advertised JSON Schema reach the handler", () =>
    Effect.gen(function*() {
      const mcp = yield* connect
      const list = (yield* mcp.handle("kit", { jsonrpc: "2.0", id: 1, method: "tools/list" })) as {
        readonly result: { readonly tools: ReadonlyArray<{ readonly inputSchema: { readonly properties: Record<string, unknown> } }> }
      }
      const inputSchema = list.result.tools[0]!.inputSchema
      // What the model is told it may send:
      assert.deepStrictEqual(inputSchema.properties.note, { anyOf: [{ type: "string" }, { type: "null" }] })
      assert.deepStrictEqual(inputSchema.properties.at, { type: "string" })
      // ...and an argument object that conforms to it:
      const args = { note: null, at: "2025-01-01T10:00:00.000Z" }
      const answer = (yield* mcp.handle("kit", {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "Remind", arguments: args }
      })) as { readonly result: { readonly isError?: boolean; readonly content?: ReadonlyArray<{ readonly type?: string; readonly text?: string }> } }
      assert.notStrictEqual(answer.result.isError, true, `refused: ${answer.result.content?.[0]?.text}`)
      assert.deepStrictEqual(answer.result, {
        content: [{ type: "text", text: "- at 2025-01-01T10:00:00.000Z" }]
      })
    }))

  it.effect("a tool whose parameters JSON cannot carry is refused at layer build, naming it (not thrown by McpServers.toolkit)", () =>
    Effect.gen(function*() {
      // Effect's JSON codec and JSON Schema generator both throw on a symbol property name.
      const Keyed = Tool.make("Keyed", {
        description: "Keyed by a symbol",
        parameters: Schema.Struct({ [Symbol.for("key")]: Schema.String }),
        success: Schema.String
      })
      const KeyedKit = Toolkit.make(Keyed)
      const server = McpServers.toolkit("kit", KeyedKit)
      const exit = yield* Effect.exit(
        Effect.flatMap(Effect.service(McpServers.McpServers), McpServers.connect).pipe(
          Effect.provide(McpServers.layer(server).pipe(Layer.provide(KeyedKit.toLayer({ Keyed: () => Effect.succeed("") }))))
        )
      )
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.strictEqual(
        (Cause.squash((exit as Exit.Failure<unknown, unknown>).cause) as Error).message,
        "McpServers: tool \"Keyed\" of server \"kit\": its input schema has no JSON Schema: Objects property names must be strings"
      )
    }))
})
