/**
 * An image block whose `data` is not base64, found by a reviewing helper on the real CLI 2.1.332:
 * the CLI's MCP client refuses the whole result ("MCP server \"pics\" returned a malformed result
 * that failed schema validation … Invalid Base64 string"), so the model reads an error, its text
 * blocks lost, while the library had answered a success: nothing logged, and a toolkit's
 * `onResult` told the program the call succeeded. A `data:` URL (`McpServers.image({ data:
 * "data:image/png;base64,…" })`) is the usual slip. Such a result is now the tool's defect, as any
 * result that breaks the wire shape: logged, and an `isError` result naming it; `onResult` sees a
 * failure. Base64 the CLI reads (line breaks, no padding) still goes as it is.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as McpServers from "../src/McpServers.ts"
import { connectTo, toolCall } from "./support/mcpWire.ts"

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

const images: Record<string, string> = {
  dataUrl: `data:image/png;base64,${png}`,
  notBase64: "not base64 !!",
  // What the CLI's `atob` reads: line breaks and spaces skipped, padding optional.
  wrapped: `${png.slice(0, 40)}\n${png.slice(40, 80)}\r\n ${png.slice(80)}`,
  unpadded: png.replace(/=+$/, "")
}

const pics = McpServers.server("pics", {
  tools: [McpServers.tool({
    name: "get",
    description: "Gets a picture.",
    input: Schema.Struct({ key: Schema.String }),
    handler: ({ key }) => Effect.succeed([McpServers.text("a picture"), McpServers.image({ data: images[key]!, mimeType: "image/png" })])
  })]
})

type Answer = { readonly result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string; readonly data?: string }>; readonly isError?: boolean } }

const Shot = Tool.make("Shot", {
  description: "Takes a screenshot",
  success: Schema.Struct({ data: Schema.String }),
  toModelOutput: (shot) => [Prompt.filePart({ mediaType: "image/png", data: shot.data })]
})
const Kit = Toolkit.make(Shot)
const Handlers = Kit.toLayer({ Shot: () => Effect.succeed({ data: images.dataUrl!.replace("data:", "file:") }) })

describe("McpServers: an image whose data is not base64", () => {
  it.effect("is the tool's defect: logged, and an isError result naming it; base64 the CLI reads goes as it is", () =>
    Effect.gen(function*() {
      const logs: Array<Logger.Options<unknown>> = []
      const capture = Logger.layer([Logger.make((options) => void logs.push(options))])
      const answers = yield* Effect.gen(function*() {
        const mcp = yield* connectTo(McpServers.layer(pics))
        return yield* Effect.forEach(
          Object.keys(images),
          (key, i) => Effect.map(mcp.handle("pics", toolCall(i + 1, "get", { key })), (answer) => [key, answer as Answer] as const)
        )
      }).pipe(Effect.provide(capture))
      const byKey = Object.fromEntries(answers)
      for (const key of ["dataUrl", "notBase64"]) {
        const result = byKey[key]!.result
        assert.strictEqual(result.isError, true, `${key}: ${JSON.stringify(result)}`)
        assert.include(result.content[0]!.text, "Tool get failed: the handler returned an invalid result", key)
        assert.include(result.content[0]!.text, "not base64", key)
      }
      for (const key of ["wrapped", "unpadded"]) {
        const result = byKey[key]!.result
        assert.notStrictEqual(result.isError, true, key)
        assert.strictEqual(result.content[1]!.data, images[key], key)
      }
      assert.strictEqual(logs.filter((log) => log.logLevel === "Error").length, 2)
    }))

  it.effect("a toolkit's model output with such an image: onResult sees a failure, as the model does", () =>
    Effect.gen(function*() {
      const reported: Array<McpServers.ToolkitCallResult> = []
      const server = McpServers.toolkit("shots", Kit, { onResult: (result) => Effect.sync(() => reported.push(result)) })
      const mcp = yield* connectTo(McpServers.layer(server).pipe(Layer.provide(Handlers)))
      const answer = (yield* mcp.handle("shots", toolCall(1, "Shot", {}))) as Answer
      assert.strictEqual(answer.result.isError, true, JSON.stringify(answer))
      assert.include(answer.result.content[0]!.text, "not base64")
      assert.deepStrictEqual(reported.map((result) => result.isFailure), [true])
    }).pipe(Effect.provide(Logger.layer([]))))
})
