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

  // A sixth review: the rest of the CLI's own check (its binary), which refused these and told
  // the model nobody answered.
  const input = {
    questions: [{
      question: "Which color?",
      header: "Color",
      multiSelect: false,
      options: [{ label: "Red", description: "red", preview: "RED" }, { label: "Blue", description: "blue" }]
    }, {
      question: "Which sizes?",
      header: "Sizes",
      multiSelect: true,
      options: [{ label: "S", description: "small" }, { label: "M", description: "medium" }]
    }]
  }
  const decideOn = (extra: Record<string, unknown>) =>
    Effect.gen(function*() {
      const reports: Array<HandlerFailure.HandlerFailed> = []
      const service = yield* Effect.provide(
        Effect.service(Permissions.Permissions),
        Permissions.layer((req) =>
          Effect.succeed(Permissions.allow({ updatedInput: { ...(req.input as object), ...extra } as Record<string, unknown> }))
        )
      )
      const answer = yield* Permissions.bind(service, (event) => void reports.push(event)).decide(
        { subtype: "can_use_tool", tool_name: "AskUserQuestion", input, tool_use_id: "toolu_2" },
        "r2"
      ).pipe(Effect.provide(Logger.layer([])))
      return { answer, reports }
    })

  it.effect("the rest of the CLI's check: sizes, annotation values, response, followUp, host and unknown fields, changed questions", () =>
    Effect.gen(function*() {
      const refused: ReadonlyArray<Record<string, unknown>> = [
        { answers: { "Which color?": "x".repeat(20_000), "Which sizes?": "y".repeat(20_000) } },
        { answers: { "Which sizes?": ["a".repeat(17_000), "b".repeat(17_000)] } },
        { answers: { "Which color?": "Red" }, annotations: { "Which color?": { notes: "n".repeat(8_193) } } },
        { answers: { "Which color?": "Red" }, annotations: { "Which color?": { notes: 1 } } },
        { annotations: { "Which color?": { unanswered: "later" } } },
        { answers: { "Which color?": "Red" }, annotations: { "Which color?": { preview: 1 } } },
        { answers: { "Which color?": "Red" }, response: 42 },
        { response: "r".repeat(32_769) },
        { answers: { "Which color?": "Red" }, followUp: true },
        { answers: { "Which color?": "Red" }, afkTimeoutMs: 1000 },
        { answers: { "Which color?": "Red" }, extra: 1 },
        { answers: { "Which color?": "Red" }, questions: [input.questions[0]] }
      ]
      for (const extra of refused) {
        const { answer, reports } = yield* decideOn(extra)
        assert.strictEqual(answer.behavior, "deny", JSON.stringify(extra).slice(0, 80))
        assert.deepStrictEqual(reports.map((r) => r.failure), ["invalid_answer"])
      }
      const taken: ReadonlyArray<Record<string, unknown>> = [
        { answers: { "Which color?": "" } },
        { answers: { "Which color?": "Red" }, annotations: { "Which color?": { preview: "RED", notes: "" } } },
        { annotations: { "Which color?": { unanswered: "skipped" }, "Which sizes?": { unanswered: "dismissed" } } },
        { answers: { "Which sizes?": [] } },
        { answers: { "Which color?": "Red" }, response: "Red, I think" }
      ]
      for (const extra of taken) {
        const { answer, reports } = yield* decideOn(extra)
        assert.strictEqual(answer.behavior, "allow", JSON.stringify(extra).slice(0, 80))
        assert.strictEqual(reports.length, 0)
      }
    }))
})
