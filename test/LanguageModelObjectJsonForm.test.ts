/**
 * `generateObject` with a Schema whose JSON form differs from its encoded form (a `Date`, a
 * `BigInt`, an absent optional field): the CLI is given the JSON form's JSON Schema (an ISO string,
 * a digit string, `null`), so the structured output it accepts must be read in that form, not
 * refused as a wrong answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

const Reminder = Schema.Struct({ at: Schema.Date, count: Schema.BigInt, note: Schema.optional(Schema.String) })

/** A CLI whose turn ends with `structuredOutput`; the `--json-schema` it was launched with. */
const answering = (structuredOutput: unknown) => {
  const schemas: Array<unknown> = []
  const transport = FakeCli.layer((cli) => {
    const args = cli.spec.args
    const at = args.indexOf("--json-schema")
    if (at !== -1) schemas.push(JSON.parse(args[at + 1]!))
    return FakeCli.conversation({
      sessionId,
      onUser: (_text, _index, cli) =>
        Effect.forEach(
          [...FakeCli.textTurn({ sessionId, text: "Done." }).slice(0, -1), FakeCli.result({ sessionId, structuredOutput })],
          (line) => cli.emit(line),
          { discard: true }
        )
    })(cli)
  })
  return { schemas, model: ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport)) }
}

describe("ClaudeCodeLanguageModel: generateObject reads the JSON form it asked for", () => {
  it.effect("a Date, a BigInt and an absent optional field, answered in the JSON Schema's form, decode", () =>
    Effect.gen(function*() {
      const cli = answering({ at: "2024-01-02T03:04:05.000Z", count: "12", note: null })
      const response = yield* LanguageModel.generateObject({ prompt: "When?", schema: Reminder }).pipe(
        Effect.provide(cli.model)
      )
      assert.deepStrictEqual(response.value.at, new Date("2024-01-02T03:04:05.000Z"))
      assert.strictEqual(response.value.count, 12n)
      assert.strictEqual(response.value.note, undefined)
      // What the CLI was asked for: the JSON form.
      const properties = (cli.schemas[0] as { readonly properties: Record<string, { readonly type?: unknown }> }).properties
      assert.strictEqual(properties.at!.type, "string")
      assert.strictEqual(properties.count!.type, "string")
    }))

  it.effect("an answer the Schema refuses is still a StructuredOutputError", () =>
    Effect.gen(function*() {
      const cli = answering({ at: "not a date", count: "12", note: null })
      const exit = yield* Effect.exit(
        LanguageModel.generateObject({ prompt: "When?", schema: Reminder }).pipe(Effect.provide(cli.model))
      )
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
      const error = (failure as { readonly error: AiError.AiError } | undefined)?.error
      assert.strictEqual(error?.reason._tag, "StructuredOutputError")
    }))
})
