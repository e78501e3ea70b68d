/**
 * A toolkit tool's `toModelOutput` through the real CLI: the model's `tool_result` holds the
 * tool's model output, never the encoded result it replaces; the program's `tool-result` part
 * still holds the typed result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { Users, UsersHandlers } from "./support/aiTools.ts"

const Kit = Users

describe("effect/ai toolModelOutput (real CLI)", { timeout: 120_000 }, () => {
  it.live("the model reads the tool's model output, the program the typed result", () =>
    Effect.gen(function*() {
      const setup = yield* live([FakeModel.toolUse("mcp__toolkit__Lookup", { id: "7" }), FakeModel.text("Found.")])
      const response = yield* LanguageModel.generateText({ prompt: "Look up 7", toolkit: Kit }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer(setup.options).pipe(Layer.provide(processLayer))),
        Effect.provide(UsersHandlers)
      )
      const requests = yield* setup.model.messageRequests
      const [result] = FakeModel.toolResults(requests[1]!)
      assert.isFalse(result!.isError)
      assert.strictEqual(result!.content, "User ada-7")
      assert.deepStrictEqual(response.toolResults.map((part) => part.result), [{ name: "ada-7", apiToken: "secret-token-123" }])
    }).pipe(Effect.scoped))
})
