/**
 * Type tests of structured output, compiled by `npm run typecheck` (tsconfig.json includes
 * `test/`) and never run: `expect<T>()(value)` compiles only when `value`'s type is exactly `T`,
 * and a `// @ts-expect-error` line must not compile.
 *
 * What they pin: a session's `outputFormat` types `run`'s (and `query`'s) `structured` as the
 * Schema's Type, without casts; a session without one returns a plain `TurnResult`; a structured
 * session still fits where a `Session` is expected.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Claude from "../../src/Claude.ts"
import * as Offline from "../../src/testing/Offline.ts"

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** Compiles only when the argument's type is exactly `Expected`. */
const expect = <Expected>() =>
<Actual>(_actual: Actual, ..._exact: Equals<Actual, Expected> extends true ? [] : [never]): void => {}

const Person = Schema.Struct({ name: Schema.String, age: Schema.Number })
type Person = typeof Person.Type

// A Schema whose Type differs from its JSON form: `structured` is the Type (a Date).
const Meeting = Schema.Struct({ at: Schema.Date })

export const openTyped = Effect.gen(function*() {
  const session = yield* Claude.open({ outputFormat: Person, model: "haiku" })
  const result = yield* session.run("Who?")
  expect<Person>()(result.structured)
  expect<string>()(result.structured.name)
  expect<Claude.StructuredResult<Person>>()(result)
  // Still a TurnResult: its fields are there.
  expect<string>()(result.subtype)
  // A structured session fits where a plain Session is expected.
  const plain: Claude.Session = session
  return plain
})

export const queryTyped = Effect.gen(function*() {
  const person = yield* Claude.query("Who?", { outputFormat: Person })
  expect<Person>()(person.structured)
  const meeting = yield* Claude.query("When?", { outputFormat: Meeting })
  expect<Date>()(meeting.structured.at)
})

export const offlineTyped = Effect.gen(function*() {
  const { session } = yield* Offline.open([], { outputFormat: Person })
  expect<Person>()((yield* session.run("Who?")).structured)
  const plain = yield* Offline.open([])
  expect<Claude.TurnResult>()(yield* plain.session.run("Hi"))
})

export const untyped = Effect.gen(function*() {
  const session = yield* Claude.open({ model: "haiku" })
  const result = yield* session.run("Hi")
  expect<Claude.TurnResult>()(result)
  // @ts-expect-error: no outputFormat, no `structured`
  result.structured
  const once = yield* Claude.query("Hi")
  expect<Claude.TurnResult>()(once)
})

export const wideOptions = (options: Claude.SessionOptions) =>
  Effect.gen(function*() {
    // Options whose Schema the compiler does not know: a plain TurnResult (`structured_output` stays unknown).
    const result = yield* Claude.query("Hi", options)
    expect<Claude.TurnResult>()(result)
    expect<unknown>()(result.structured_output)
  })

// @ts-expect-error: an outputFormat must be a Schema
export const notASchema = Claude.query("Hi", { outputFormat: { type: "object" } })
