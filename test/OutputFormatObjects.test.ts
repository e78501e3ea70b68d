/**
 * What structured output can carry. The CLI hands the JSON Schema to the model as a tool's input
 * schema, which the Messages API takes only as an object schema (`"type": "object"` at its top):
 * found by a reviewing helper, a Schema whose JSON Schema is not one (a string, an array, a union)
 * was sent as it was, every turn then failing at the API with an error naming no option; and a
 * Schema with an identifier (a `Schema.Class`) has its object behind a top-level `$ref`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

class Person extends Schema.Class<Person>("Person")({ name: Schema.String, age: Schema.Number }) {}

/** The `--json-schema` of the CLI `Claude.open({ outputFormat })` launches, or the open's failure. */
const sentFor = (outputFormat: Schema.Top) =>
  Effect.gen(function*() {
    const launched: Array<ReadonlyArray<string>> = []
    const layer = FakeCli.layer((cli) => {
      launched.push(cli.spec.args)
      return FakeCli.conversation({ sessionId: SESSION })(cli)
    })
    const exit = yield* Effect.exit(Effect.scoped(Claude.open({ outputFormat: outputFormat as unknown as Claude.OutputFormat })).pipe(Effect.provide(layer)))
    const args = launched[0]
    return { exit, launches: launched.length, sent: args === undefined ? undefined : JSON.parse(args[args.indexOf("--json-schema") + 1]!) as Record<string, unknown> }
  })

const invalidOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) => {
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
  return error?.reason._tag === "InvalidInput" ? error.reason.description : undefined
}

describe("structured output's JSON Schema is an object schema", () => {
  it.effect("a Schema.Class (its object behind a top-level $ref) is sent with the object at the top", () =>
    Effect.gen(function*() {
      const { exit, sent } = yield* sentFor(Person)
      assert.isTrue(Exit.isSuccess(exit), String(exit))
      assert.strictEqual(sent?.type, "object")
      assert.isUndefined(sent?.$ref)
      assert.deepStrictEqual(Object.keys(sent?.properties as object), ["name", "age"])
    }))

  for (const [name, format] of [
    ["a string", Schema.String],
    ["an array", Schema.Array(Schema.Number)],
    ["a union of structs", Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })])]
  ] as const) {
    it.effect(`${name} is InvalidInput at open, no CLI launched`, () =>
      Effect.gen(function*() {
        const { exit, launches } = yield* sentFor(format)
        assert.strictEqual(launches, 0)
        assert.strictEqual(
          invalidOf(exit),
          "Invalid outputFormat: its JSON Schema must describe an object (\"type\": \"object\" at its top): the CLI hands it " +
            "to the model as a tool's input, which is an object; wrap the value, e.g. Schema.Struct({ value: ... })"
        )
      }))
  }

  it.effect("a Schema.Class named with a space or a non-ASCII letter (its $ref percent-encoded) is sent with the object at the top", () =>
    Effect.gen(function*() {
      class Spaced extends Schema.Class<Spaced>("My Person")({ name: Schema.String }) {}
      class Accented extends Schema.Class<Accented>("Café")({ name: Schema.String }) {}
      for (const format of [Spaced, Accented]) {
        const { exit, sent } = yield* sentFor(format)
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        assert.strictEqual(sent?.type, "object")
      }
    }))

  it.effect("a raw draft-07 jsonSchema (its object behind a $ref into definitions, through another $ref) is sent with the object at the top", () =>
    Effect.gen(function*() {
      const raw = {
        $ref: "#/definitions/Alias",
        definitions: {
          Alias: { $ref: "#/definitions/Person" },
          Person: { type: "object", properties: { name: { type: "string" } } }
        }
      }
      yield* Launch.validate({ jsonSchema: raw })
      const { args } = Launch.buildCommand({ jsonSchema: raw }, { mcpServers: [], permissionPromptTool: false })
      const sent = JSON.parse(args[args.indexOf("--json-schema") + 1]!) as Record<string, unknown>
      assert.strictEqual(sent.type, "object")
      assert.isUndefined(sent.$ref)
    }))

  it.effect("a raw jsonSchema that does not describe an object is InvalidInput", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(Launch.validate({ jsonSchema: { type: "string" } }))
      assert.include(refused.message, "jsonSchema must describe an object (\"type\": \"object\" at its top)")
      yield* Launch.validate({ jsonSchema: { type: "object", properties: { a: { type: "string" } } } })
    }))
})
