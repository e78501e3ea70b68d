/**
 * On the real CLI 2.1.332: a list of labels answering a multi-select AskUserQuestion reaches the
 * model as the answer (the CLI joins it); the first check of answers refused it (found by a third
 * review; failing before). See `AskUserQuestionAnswers.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const questions = {
  questions: [{
    question: "Which colors?",
    header: "Colors",
    multiSelect: true,
    options: [{ label: "Red", description: "red" }, { label: "Blue", description: "blue" }]
  }]
}

describe("AskUserQuestion, multi-select (real CLI)", { timeout: 60_000 }, () => {
  it.live("a list of labels reaches the model as the answer", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.toolUse("AskUserQuestion", questions), FakeModel.text("done")], {
        permissionMode: "default"
      })
      const session = yield* Claude.open(options).pipe(Effect.provide(Permissions.layer((request) =>
        Effect.succeed(
          request.tool_name === "AskUserQuestion"
            ? Permissions.allow({ updatedInput: { ...(request.input as object), answers: { "Which colors?": ["Red", "Blue"] } } })
            : Permissions.allow()
        )
      )))
      yield* session.turn("go").pipe(Stream.runDrain)
      const results = (yield* model.requests).flatMap(FakeModel.toolResults)
      assert.strictEqual(results.length, 1)
      assert.isFalse(results[0]!.isError, results[0]!.content)
      assert.include(results[0]!.content, "Red,Blue")
    }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([]))))
})
