/**
 * An AskUserQuestion answer (`Permissions.allow({ updatedInput: { ...input, answers } })`) whose
 * answers are not text went to the CLI unchecked, with no `handler_failed` (found by a reviewing
 * helper on the real CLI; failing before): two labels for a single-select question reached the
 * model as the answer `"Red,Blue"`, a number as a "configuration issue in your canUseTool
 * callback". Answers are text by question (the CLI's schema, `AskUserQuestionInput.answers`), or
 * for a multi-select question a list of at most one more label than it offers, which the CLI
 * joins (its own check; a third review found the first fix refusing those): anything else is an
 * invalid answer, refused (the question is not answered) and reported.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Permissions from "../src/Permissions.ts"

const question = {
  questions: [{
    question: "Which color?",
    header: "Color",
    multiSelect: false,
    options: [{ label: "Red", description: "red" }, { label: "Blue", description: "blue" }]
  }, {
    question: "Which sizes?",
    header: "Sizes",
    multiSelect: true,
    options: [{ label: "S", description: "small" }, { label: "M", description: "medium" }]
  }]
}

const request = { subtype: "can_use_tool", tool_name: "AskUserQuestion", input: question, tool_use_id: "toolu_1" }

const decide = (answers: unknown) =>
  Effect.gen(function*() {
    const reports: Array<HandlerFailure.HandlerFailed> = []
    const service = yield* Effect.provide(
      Effect.service(Permissions.Permissions),
      Permissions.layer((req) =>
        Effect.succeed(Permissions.allow({ updatedInput: { ...(req.input as object), answers } as Record<string, unknown> }))
      )
    )
    const answer = yield* Permissions.bind(service, (event) => void reports.push(event)).decide(request, "r1").pipe(
      Effect.provide(Logger.layer([]))
    )
    return { answer, reports }
  })

describe("AskUserQuestion answers", () => {
  for (
    const answers of [
      { "Which color?": ["Red", "Blue"] },
      { "Which color?": 42 },
      { "Which color?": null },
      ["Red"],
      { "Which sizes?": ["S", "M", "L", "XL"] },
      { "Which sizes?": ["S", 1] },
      // The CLI's own check refuses these too (a fifth review): the model was told nobody answered.
      { "Which colour?": "Red" },
      { "Which color?": "x".repeat(32_769) }
    ]
  ) {
    it.effect(`answers ${JSON.stringify(answers).slice(0, 60)}: denied and reported as an invalid answer`, () =>
      Effect.gen(function*() {
        const { answer, reports } = yield* decide(answers)
        assert.strictEqual(answer.behavior, "deny")
        assert.deepStrictEqual(reports.map((r) => r.failure), ["invalid_answer"])
        assert.include(reports[0]!.message, "answers")
      }))
  }

  it.effect("answers as text by question, and a list for a multi-select question, go to the CLI as given", () =>
    Effect.gen(function*() {
      for (const answers of [{ "Which color?": "Red, Blue" }, { "Which sizes?": ["S", "M"] }, { "Which sizes?": ["S", "M", "other"] }]) {
        const { answer, reports } = yield* decide(answers)
        assert.strictEqual(answer.behavior, "allow", JSON.stringify(answers))
        assert.deepStrictEqual((answer.updatedInput as { answers?: unknown }).answers, answers)
        assert.strictEqual(reports.length, 0)
      }
    }))

  it.effect("annotations the CLI would refuse (not an object, keyed by no question, unknown fields): denied and reported", () =>
    Effect.gen(function*() {
      for (const annotations of ["bad", { "Nope?": { notes: "n" } }, { "Which color?": { color: "red" } }]) {
        const reports: Array<HandlerFailure.HandlerFailed> = []
        const service = yield* Effect.provide(
          Effect.service(Permissions.Permissions),
          Permissions.layer((req) =>
            Effect.succeed(Permissions.allow({
              updatedInput: { ...(req.input as object), answers: { "Which color?": "Red" }, annotations } as Record<string, unknown>
            }))
          )
        )
        const answer = yield* Permissions.bind(service, (event) => void reports.push(event)).decide(request, "r1").pipe(
          Effect.provide(Logger.layer([]))
        )
        assert.strictEqual(answer.behavior, "deny", JSON.stringify(annotations))
        assert.deepStrictEqual(reports.map((r) => r.failure), ["invalid_answer"])
      }
    }))
})
