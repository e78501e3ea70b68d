/**
 * Structured output as a Schema (`outputFormat`), against FakeCli: the JSON Schema on the command
 * line and in `initialize`; the result's `structured_output` decoded by the Schema (`structured`),
 * a value the Schema refuses as `StructuredOutputInvalid`, a result without one as
 * `StructuredOutputMissing`, the CLI's give-up as `LimitReached`; bad options refused before spawn.
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

const Person = Schema.Struct({
  name: Schema.String,
  age: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/** A fake CLI whose every turn ends with a result carrying `fields` (and records its launches). */
const cliAnswering = (fields: Omit<Parameters<typeof FakeCli.result>[0], "sessionId">) => {
  const launches: Array<FakeCli.FakeCliHandle> = []
  const layer = FakeCli.layer((cli) => {
    launches.push(cli)
    return FakeCli.conversation({
      sessionId: SESSION,
      onUser: (_text, _index, cli, message) => {
        const uuid = String(message.uuid)
        return cli.emit({ ...FakeCli.result({ sessionId: SESSION, ...fields }), user_message_uuid: uuid, user_message_uuids: [uuid] })
      }
    })(cli)
  })
  return { launches, layer }
}

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit))
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  assert.isTrue(ClaudeError.isClaudeError(error))
  return error!.reason
}

describe("outputFormat", () => {
  it.effect("sends the Schema's JSON Schema as --json-schema and in initialize", () =>
    Effect.gen(function*() {
      const { launches, layer } = cliAnswering({ structuredOutput: { name: "Ada", age: 36 } })
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ outputFormat: Person })
        yield* session.run("Who?")
      })).pipe(Effect.provide(layer))
      const cli = launches[0]!
      const args = cli.spec.args
      const at = args.indexOf("--json-schema")
      assert.isAbove(at, -1)
      const sent = JSON.parse(args[at + 1]!)
      assert.strictEqual(sent.type, "object")
      assert.deepStrictEqual(sent.required, ["name", "age"])
      assert.strictEqual(sent.properties.name.type, "string")
      assert.strictEqual(sent.properties.age.type, "integer")
      const initialize = cli.received.find((m) =>
        m.type === "control_request" && (m.request as { subtype?: unknown }).subtype === "initialize"
      )
      assert.deepStrictEqual((initialize?.request as { jsonSchema?: unknown }).jsonSchema, sent)
    }))

  it.effect("a session without outputFormat sends no JSON Schema", () =>
    Effect.gen(function*() {
      const { launches, layer } = cliAnswering({})
      const result = yield* Claude.query("Hi").pipe(Effect.provide(layer))
      assert.isFalse("structured" in result)
      assert.notInclude(launches[0]!.spec.args, "--json-schema")
      const initialize = launches[0]!.received.find((m) => m.type === "control_request")
      assert.isFalse("jsonSchema" in (initialize?.request as object))
    }))

  it.effect("run returns the structured output decoded by the Schema, as `structured`", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({ text: "{\"name\":\"Ada\",\"age\":36}", structuredOutput: { name: "Ada", age: 36 } })
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ outputFormat: Person })
        return yield* session.run("Who?")
      })).pipe(Effect.provide(layer))
      const person: { readonly name: string; readonly age: number } = result.structured
      assert.deepStrictEqual(person, { name: "Ada", age: 36 })
      assert.deepStrictEqual(result.structured_output, { name: "Ada", age: 36 })
    }))

  it.effect("Claude.query with outputFormat decodes too", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({ structuredOutput: { name: "Grace", age: 85 } })
      const result = yield* Claude.query("Who?", { outputFormat: Person }).pipe(Effect.provide(layer))
      assert.strictEqual(result.structured.name, "Grace")
    }))

  it.effect("decodes through the Schema's JSON codec: an ISO string becomes a Date", () =>
    Effect.gen(function*() {
      const Meeting = Schema.Struct({ at: Schema.Date })
      const { launches, layer } = cliAnswering({ structuredOutput: { at: "2026-11-30T12:00:00.000Z" } })
      const result = yield* Claude.query("When?", { outputFormat: Meeting }).pipe(Effect.provide(layer))
      assert.instanceOf(result.structured.at, Date)
      assert.strictEqual(result.structured.at.toISOString(), "2026-11-30T12:00:00.000Z")
      const sent = JSON.parse(launches[0]!.spec.args[launches[0]!.spec.args.indexOf("--json-schema") + 1]!)
      assert.strictEqual(sent.properties.at.type, "string")
    }))

  it.effect("a value the Schema refuses fails with StructuredOutputInvalid, carrying the raw value and the issue", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({ structuredOutput: { name: "Ada", age: -1 } })
      const exit = yield* Effect.exit(Claude.query("Who?", { outputFormat: Person }).pipe(Effect.provide(layer)))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "StructuredOutputInvalid")
      const invalid = reason as ClaudeError.StructuredOutputInvalid
      assert.deepStrictEqual(invalid.value, { name: "Ada", age: -1 })
      assert.include(invalid.issue, "age")
      assert.strictEqual((invalid.result as Claude.TurnResult).subtype, "success")
      assert.include(invalid.message, "does not match the output format")
    }))

  it.effect("a result without structured output fails with StructuredOutputMissing, carrying the result", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({ text: "Ada, 36" })
      const exit = yield* Effect.exit(Claude.query("Who?", { outputFormat: Person }).pipe(Effect.provide(layer)))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "StructuredOutputMissing")
      assert.strictEqual(((reason as ClaudeError.StructuredOutputMissing).result as Claude.TurnResult).result, "Ada, 36")
    }))

  it.effect("the CLI giving up on the model's output (error_max_structured_output_retries) is LimitReached", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({
        subtype: "error_max_structured_output_retries",
        terminalReason: "structured_output_retry_exhausted"
      })
      const reason = reasonOf(yield* Effect.exit(Claude.query("Who?", { outputFormat: Person }).pipe(Effect.provide(layer))))
      assert.strictEqual(reason._tag, "LimitReached")
      assert.strictEqual((reason as ClaudeError.LimitReached).limit, "error_max_structured_output_retries")
    }))

  it.effect("with errorResults: \"return\", a failed result (no structured output) fails with its own reason, not StructuredOutputMissing", () =>
    Effect.gen(function*() {
      const { layer } = cliAnswering({ subtype: "error_max_structured_output_retries" })
      const reason = reasonOf(
        yield* Effect.exit(Claude.query("Who?", { outputFormat: Person, errorResults: "return" }).pipe(Effect.provide(layer)))
      )
      assert.strictEqual(reason._tag, "LimitReached")
      const result = (reason as ClaudeError.LimitReached).result as Claude.TurnResult
      assert.strictEqual(result.subtype, "error_max_structured_output_retries")
    }))

  describe("bad options are refused before spawn (InvalidInput)", () => {
    const refused = (options: Claude.SessionOptions) =>
      Effect.gen(function*() {
        const { launches, layer } = cliAnswering({})
        const reason = reasonOf(yield* Effect.exit(Claude.query("Who?", options).pipe(Effect.provide(layer))))
        assert.strictEqual(reason._tag, "InvalidInput")
        assert.lengthOf(launches, 0)
        return (reason as ClaudeError.InvalidInput).description
      })

    it.effect("an outputFormat that is not a Schema", () =>
      Effect.gen(function*() {
        const notASchema = { type: "object" } as unknown as Claude.OutputFormat
        assert.include(yield* refused({ outputFormat: notASchema }), "outputFormat")
      }))

    it.effect("an outputFormat whose JSON Schema cannot be made, with the generator's reason", () =>
      Effect.gen(function*() {
        // Effect's JSON Schema generator throws on a symbol property name.
        const symbolKeyed = Schema.Struct({ [Symbol.for("key")]: Schema.String })
        assert.strictEqual(
          yield* refused({ outputFormat: symbolKeyed }),
          "Invalid outputFormat: its JSON Schema could not be made: Objects property names must be strings"
        )
      }))

    it.effect("outputFormat together with jsonSchema", () =>
      Effect.gen(function*() {
        assert.include(yield* refused({ outputFormat: Person, jsonSchema: { type: "object" } }), "not both")
      }))

    it.effect("a jsonSchema that is not an object, or not JSON", () =>
      Effect.gen(function*() {
        const array = [] as unknown as Record<string, unknown>
        assert.include(yield* refused({ jsonSchema: array }), "jsonSchema must be a JSON Schema object")
        const cyclic: Record<string, unknown> = { type: "object" }
        cyclic.self = cyclic
        assert.include(yield* refused({ jsonSchema: cyclic }), "jsonSchema must be JSON")
      }))
  })
})

describe("jsonSchema (the raw form)", () => {
  it("buildCommand passes it as --json-schema <json>, before extraArgs", () => {
    const { args } = Launch.buildCommand(
      { jsonSchema: { type: "object" }, extraArgs: ["--debug"] },
      { mcpServers: [], permissionPromptTool: false }
    )
    assert.deepStrictEqual(args.slice(-3), ["--json-schema", "{\"type\":\"object\"}", "--debug"])
  })

  it.effect("the raw form is sent in initialize too; the result is not decoded", () =>
    Effect.gen(function*() {
      const { launches, layer } = cliAnswering({ structuredOutput: { anything: 1 } })
      const result = yield* Claude.query("Who?", { jsonSchema: { type: "object" } }).pipe(Effect.provide(layer))
      assert.isFalse("structured" in result)
      assert.deepStrictEqual(result.structured_output, { anything: 1 })
      const initialize = launches[0]!.received.find((m) => m.type === "control_request")
      assert.deepStrictEqual((initialize?.request as { jsonSchema?: unknown }).jsonSchema, { type: "object" })
    }))
})
