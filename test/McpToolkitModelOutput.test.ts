/**
 * `McpServers.toolkit`: a tool's `toModelOutput` is what the model reads of its success (in place of
 * the encoded result, as `effect/ai` providers send it: its text, and its images as image blocks),
 * while `onResult` still sees the encoded result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import { connectTo, toolCall as call } from "./support/mcpWire.ts"
import { Lookup, lookupResult } from "./support/aiTools.ts"

const Screenshot = Tool.make("Screenshot", {
  description: "Takes a screenshot",
  success: Schema.Struct({ path: Schema.String }),
  toModelOutput: (shot) => [
    Prompt.textPart({ text: `Saved to ${shot.path}` }),
    Prompt.filePart({ mediaType: "image/png", fileName: "shot.png", data: "iVBORw0KGgo=" }),
    Prompt.filePart({ mediaType: "application/pdf", fileName: "shot.pdf", data: "JVBERi0=" })
  ]
})

const Kit = Toolkit.make(Lookup, Screenshot)
const Handlers = Kit.toLayer({
  Lookup: ({ id }) => Effect.succeed(lookupResult(id)),
  Screenshot: () => Effect.succeed({ path: "shots/1.png" })
})


type Answer = { readonly result: { readonly content: ReadonlyArray<Record<string, unknown>>; readonly isError?: boolean } }

describe("McpServers.toolkit: toModelOutput", () => {
  it.effect("the model reads the tool's model output, not its encoded result; onResult sees the result", () =>
    Effect.gen(function*() {
      const reported: Array<McpServers.ToolkitCallResult> = []
      const server = McpServers.toolkit("users", Kit, { onResult: (result) => Effect.sync(() => reported.push(result)) })
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(Handlers)))
      const answer = (yield* mcp.handle("users", call(1, "Lookup", { id: "7" }))) as Answer
      assert.notStrictEqual(answer.result.isError, true)
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "User ada-7" }])
      assert.notInclude(JSON.stringify(answer), "secret-token-123")
      assert.deepStrictEqual(reported.map((r) => [r.toolUseId, r.isFailure, r.encodedResult]), [
        ["toolu_1", false, { name: "ada-7", apiToken: "secret-token-123" }]
      ])
    }))

  it.effect("images of the model output go as image blocks, other files named", () =>
    Effect.gen(function*() {
      const mcp = yield* connectTo(McpServers.layer(McpServers.toolkit("users", Kit)).pipe(Layer.provide(Handlers)))
      const answer = (yield* mcp.handle("users", call(2, "Screenshot", {}))) as Answer
      assert.notStrictEqual(answer.result.isError, true)
      assert.deepStrictEqual(answer.result.content, [
        { type: "text", text: "Saved to shots/1.png" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "text", text: "[application/pdf shot.pdf omitted]" }
      ])
    }))
})
