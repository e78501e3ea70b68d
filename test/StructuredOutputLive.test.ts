/**
 * Structured output as a Schema (`outputFormat`) against the real CLI 2.1.332 and the fake model:
 * the CLI offers the model a `StructuredOutput` tool whose input schema is the Schema's JSON
 * Schema; the model's call comes back decoded and typed as `structured`; a value the CLI accepts
 * but the Schema refuses is `StructuredOutputInvalid`; a model that answers in text (twice: the
 * CLI asks once more) is `StructuredOutputMissing`; one that keeps breaking the JSON Schema makes
 * the CLI give up (`LimitReached`, `error_max_structured_output_retries`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const Person = Schema.Struct({
  name: Schema.String,
  age: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/** A Schema with a check JSON Schema cannot carry: the CLI accepts any string, the Schema only upper case. */
const Shout = Schema.Struct({
  word: Schema.String.check(Schema.makeFilter((s: string) => s === s.toUpperCase() || "must be upper case"))
})

/** The tools of a Messages API request, with their input schemas. */
const RequestTools = Schema.Struct({
  tools: Schema.Array(Schema.Struct({ name: Schema.String, input_schema: Schema.optional(Schema.Unknown) }))
})

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  assert.isTrue(ClaudeError.isClaudeError(error))
  return error!.reason
}

describe("structured output with the real CLI", () => {
  it.live("the model's StructuredOutput call comes back decoded by the Schema, typed, as `structured`", () =>
    Effect.gen(function*() {
      const { model, session } = yield* Offline.open([FakeModel.toolUse("StructuredOutput", { name: "Ada", age: 36 })], {
        executable: cliPath,
        outputFormat: Person
      })
      const result = yield* session.run("Who wrote the first program?")
      const person: { readonly name: string; readonly age: number } = result.structured
      assert.deepStrictEqual(person, { name: "Ada", age: 36 })
      assert.strictEqual(result.subtype, "success")

      // What the CLI asked the model: a StructuredOutput tool whose input schema is the Schema's.
      const [request] = yield* model.messageRequests
      assert.isTrue(FakeModel.hasTool(request!, "StructuredOutput"))
      const tool = Schema.decodeUnknownSync(RequestTools)(request!.body).tools.find((t) => t.name === "StructuredOutput")
      assert.deepStrictEqual(tool?.input_schema, Schema.toJsonSchemaDocument(Person).schema)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a Schema with named parts goes as a JSON Schema with $defs, which the CLI resolves", () =>
    Effect.gen(function*() {
      const Address = Schema.Struct({ city: Schema.String }).annotate({ identifier: "Address" })
      const Contact = Schema.Struct({ home: Address, work: Address })
      const wrongThenRight = [
        FakeModel.toolUse("StructuredOutput", { home: { city: "Paris" }, work: { town: "Lyon" } }),
        FakeModel.toolUse("StructuredOutput", { home: { city: "Paris" }, work: { city: "Lyon" } })
      ]
      const setup = yield* Offline.make(wrongThenRight)
      const session = yield* Claude.open({ ...setup.options, executable: cliPath, outputFormat: Contact })
      const result = yield* session.run("Where?")
      assert.deepStrictEqual(result.structured, { home: { city: "Paris" }, work: { city: "Lyon" } })
      const requests = yield* setup.model.messageRequests
      const tool = Schema.decodeUnknownSync(RequestTools)(requests[0]!.body).tools.find((t) => t.name === "StructuredOutput")
      assert.include(JSON.stringify(tool?.input_schema), "\"$defs\":{\"Address\"")
      // The first call broke the referenced definition: the CLI told the model, which tried again.
      assert.lengthOf(requests, 2)
      assert.include(JSON.stringify(requests[1]!.messages.at(-1)), "city")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("Claude.query with outputFormat returns the decoded value", () =>
    Effect.gen(function*() {
      const setup = yield* Offline.make([FakeModel.toolUse("StructuredOutput", { name: "Grace", age: 85 })])
      const result = yield* Claude.query("Who?", { ...setup.options, executable: cliPath, outputFormat: Person })
      assert.strictEqual(result.structured.name, "Grace")
      assert.strictEqual(result.structured.age, 85)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a value the CLI accepts but the Schema refuses fails with StructuredOutputInvalid, carrying it", () =>
    Effect.gen(function*() {
      const setup = yield* Offline.make([FakeModel.toolUse("StructuredOutput", { word: "quiet" })])
      const session = yield* Claude.open({ ...setup.options, executable: cliPath, outputFormat: Shout })
      const reason = reasonOf(yield* Effect.exit(session.run("Shout a word")))
      assert.strictEqual(reason._tag, "StructuredOutputInvalid")
      const invalid = reason as ClaudeError.StructuredOutputInvalid
      assert.deepStrictEqual(invalid.value, { word: "quiet" })
      assert.include(invalid.issue, "must be upper case")
      // The session goes on: the next turn decodes.
      yield* setup.model.setScript([FakeModel.toolUse("StructuredOutput", { word: "LOUD" })])
      const next = yield* session.run("Again, louder")
      assert.strictEqual(next.structured.word, "LOUD")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a model that answers in text, even when asked again, gives StructuredOutputMissing", () =>
    Effect.gen(function*() {
      const setup = yield* Offline.make([FakeModel.text("Ada, 36"), FakeModel.text("Still Ada, 36")])
      const session = yield* Claude.open({ ...setup.options, executable: cliPath, outputFormat: Person })
      const reason = reasonOf(yield* Effect.exit(session.run("Who?")))
      assert.strictEqual(reason._tag, "StructuredOutputMissing")
      assert.strictEqual(((reason as ClaudeError.StructuredOutputMissing).result as Claude.TurnResult).result, "Still Ada, 36")
      // The CLI asked once more for the tool call before it gave up.
      const requests = yield* setup.model.messageRequests
      assert.lengthOf(requests, 2)
      assert.include(JSON.stringify(requests[1]!.messages.at(-1)), "StructuredOutput")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a model that keeps breaking the JSON Schema makes the CLI give up: LimitReached", () =>
    Effect.gen(function*() {
      const wrong = FakeModel.toolUse("StructuredOutput", { nom: "Ada" })
      const setup = yield* Offline.make([wrong, wrong, wrong, wrong, wrong, wrong])
      const session = yield* Claude.open({ ...setup.options, executable: cliPath, outputFormat: Person })
      const reason = reasonOf(yield* Effect.exit(session.run("Who?")))
      assert.strictEqual(reason._tag, "LimitReached")
      const limit = reason as ClaudeError.LimitReached
      assert.strictEqual(limit.limit, "error_max_structured_output_retries")
      assert.include(JSON.stringify((limit.result as Claude.TurnResult).errors), "must have required property 'name'")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
