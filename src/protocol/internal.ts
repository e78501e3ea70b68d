/**
 * Helpers shared by the protocol schemas. Not part of the public API.
 *
 * @since 0.1.0
 * @internal
 */
import * as Schema from "effect/Schema"
import type { UnknownType } from "./unknown.ts"

/**
 * A string that is none of `known`. Used as the discriminant of the catch-all member of an open
 * union (an unknown content block, stream event, delta, control subtype): a malformed known member
 * can then never be accepted as the catch-all, and the catch-all keeps the line as it is.
 *
 * Its type (`Type` and `Encoded` alike, as for every wire schema) is {@link UnknownType}, the
 * branded string that the filter proves: that is what lets `block.type === "text"` exclude the
 * catch-all. The AST is the filtered `String` itself: the brand changes no runtime behaviour.
 *
 * @since 0.1.0
 * @internal
 */
export const StringOtherThan = (known: ReadonlyArray<string>, what: string): Schema.Codec<UnknownType> => {
  const set = new Set(known)
  const checked = Schema.String.check(
    Schema.makeFilter((s: string) => !set.has(s), {
      expected: `a ${what} other than ${known.map((k) => JSON.stringify(k)).join(", ")}`
    })
  )
  // The filter above is the proof of the brand; `make` only gives the same AST that type.
  return Schema.make<Schema.Codec<UnknownType>>(checked.ast)
}

/**
 * A JSON object whose keys are not modelled.
 *
 * @since 0.1.0
 * @internal
 */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/**
 * Every other key of an object, kept as `unknown` (for `Schema.StructWithRest`): a JSON object.
 *
 * @since 0.1.0
 * @internal
 */
export const Rest = JsonObject

/**
 * An open union: the known members, discriminated by a literal, then a catch-all. Nested on
 * purpose: a flat union mixing literal-discriminated members with a catch-all makes Effect's
 * candidate selection allocate on every check (about 140 ns per value, measured); the nested
 * form keeps the literal lookup for the known members.
 *
 * @since 0.1.0
 * @internal
 */
export const OpenUnion = <const Known extends ReadonlyArray<Schema.Top>, CatchAll extends Schema.Top>(
  known: Known,
  catchAll: CatchAll
) => Schema.Union([Schema.Union(known), catchAll])

/**
 * A string with known values that accepts any other string too, so a value added by a later
 * CLI is not a decode failure. The type keeps the known values (for completion) and `string`.
 *
 * @since 0.1.0
 * @internal
 */
export const openLiterals = <const Known extends ReadonlyArray<string>>(
  known: Known
): Schema.Codec<Known[number] | (string & {})> => Schema.Union([Schema.Literals(known), Schema.String])
