/**
 * `disableToolCallResolution`: the program resolves the calls itself. Claude Code runs a toolkit's
 * handlers inside the turn, so a call that asks for unresolved calls (`toolCallValidation:
 * "deferred"`, which a provider sees) is refused before any session starts, and never runs a
 * handler; without its handlers, the error says why they are needed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

const Charge = Tool.make("Charge", { parameters: Schema.Struct({ cents: Schema.Number }), success: Schema.String })
const Kit = Toolkit.make(Charge)

describe("ClaudeCodeLanguageModel: disableToolCallResolution", () => {
  it.effect("deferred validation: refused, no CLI started, no handler run", () =>
    Effect.gen(function*() {
      let spawned = false
      let charged = 0
      const transport = FakeCli.layer((cli) => {
        spawned = true
        return FakeCli.conversation({
          sessionId,
          onUser: (_text, _index, cli) =>
            Effect.gen(function*() {
              yield* cli.request({
                subtype: "mcp_message",
                server_name: "toolkit",
                message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Charge", arguments: { cents: 100 } } }
              }).pipe(Effect.ignore)
              for (const line of FakeCli.textTurn({ sessionId, text: "Charged." })) yield* cli.emit(line)
            })
        })(cli)
      })
      const exit = yield* LanguageModel.generateText({
        prompt: "Charge a dollar",
        toolkit: Kit,
        disableToolCallResolution: true,
        toolCallValidation: "deferred"
      }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))),
        Effect.provide(Kit.toLayer({ Charge: ({ cents }) => Effect.sync(() => { charged += cents; return "ok" }) })),
        Effect.exit
      )
      assert.strictEqual(charged, 0)
      assert.isFalse(spawned)
      assert.strictEqual(exit._tag, "Failure")
      assert.include(String(exit._tag === "Failure" ? exit.cause : ""), "disableToolCallResolution")
    }))

  it.effect("without handlers: the error names disableToolCallResolution as unsupported", () =>
    Effect.gen(function*() {
      const transport = FakeCli.layer(FakeCli.conversation({ sessionId }))
      const exit = yield* LanguageModel.generateText({ prompt: "Charge", toolkit: Kit, disableToolCallResolution: true }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))),
        Effect.exit
      )
      assert.strictEqual(exit._tag, "Failure")
      assert.include(String(exit._tag === "Failure" ? exit.cause : ""), "disableToolCallResolution")
    }))
})
