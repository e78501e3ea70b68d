/**
 * A toolkit tool's `toModelOutput` through the real CLI: the model's `tool_result` holds the
 * tool's model output, never the encoded result it replaces; the program's `tool-result` part
 * still holds the typed result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const Lookup = Tool.make("Lookup", {
  description: "Looks a user up",
  parameters: Schema.Struct({ id: Schema.String }),
  success: Schema.Struct({ name: Schema.String, apiToken: Schema.String }),
  toModelOutput: (user) => [Prompt.textPart({ text: `User ${user.name}` })]
})
const Kit = Toolkit.make(Lookup)

describe("effect/ai toolModelOutput (real CLI)", { timeout: 120_000 }, () => {
  it.live("the model reads the tool's model output, the program the typed result", () =>
    Effect.gen(function*() {
      const setup = yield* live([FakeModel.toolUse("mcp__toolkit__Lookup", { id: "7" }), FakeModel.text("Found.")])
      const response = yield* LanguageModel.generateText({ prompt: "Look up 7", toolkit: Kit }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(setup.options).pipe(Layer.provide(processLayer))),
        Effect.provide(Kit.toLayer({ Lookup: ({ id }) => Effect.succeed({ name: `ada-${id}`, apiToken: "secret-token-123" }) }))
      )
      const requests = yield* setup.model.messageRequests
      const [result] = FakeModel.toolResults(requests[1]!)
      assert.isFalse(result!.isError)
      assert.strictEqual(result!.content, "User ada-7")
      assert.deepStrictEqual(response.toolResults.map((part) => part.result), [{ name: "ada-7", apiToken: "secret-token-123" }])
    }).pipe(Effect.scoped))
})
