/**
 * Structured output: a session's `outputFormat` (a Schema) as the JSON Schema the CLI 2.1.332
 * takes (`--json-schema` and `initialize.jsonSchema`, as the official SDK sends it), and a turn's
 * `structured_output` decoded with that Schema.
 *
 * The CLI gives the model a `StructuredOutput` tool whose `input_schema` is the JSON Schema, checks
 * the model's call against it (telling the model what is wrong and letting it try again, up to 5
 * times, then ending with `error_max_structured_output_retries`), asks once more when the model
 * answers in text, and writes the accepted value as the result's `structured_output`. The schema
 * is the session's: the protocol has no per-turn one.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as ClaudeError from "../ClaudeError.ts"
import type { TurnResult } from "../Events.ts"
import { describeError } from "./describeCause.ts"
import { objectSchemaOf } from "./json.ts"
import * as ResultRedaction from "./resultRedaction.ts"
import type { RedactValue } from "./resultRedaction.ts"
import { failureOf } from "./turnOutcome.ts"

/** A Schema the library can send and decode: no services needed to decode it. */
export type Format = Schema.Constraint & {
  /** Decoding needs no services. */
  readonly DecodingServices: never
}

/** Why a structured output's JSON Schema that describes no object cannot be (`objectSchemaOf`). */
export const notAnObjectSchema = "its JSON Schema must describe an object (\"type\": \"object\" at its top): the CLI hands it to the " +
  "model as a tool's input, which is an object; wrap the value, e.g. Schema.Struct({ value: ... })"

const invalid = (description: string) =>
  ClaudeError.make(new ClaudeError.InvalidInput({ description: `Invalid outputFormat: ${description}` }))

/**
 * The JSON Schema of `format` (draft 2020-12, its definitions under `$defs`), as a plain JSON
 * object; fails with `InvalidInput` when `format` is not a Schema or gives no object-free JSON.
 */
export const jsonSchemaOf = (format: unknown): Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    if (!Schema.isSchema(format)) return Effect.fail(invalid("it must be an Effect Schema (e.g. Schema.Struct({...}))"))
    let json: unknown
    try {
      const document = Schema.toJsonSchemaDocument(format)
      const schema: Record<string, unknown> = { ...document.schema }
      if (Object.keys(document.definitions).length > 0) schema.$defs = document.definitions
      json = JSON.parse(JSON.stringify(schema))
    } catch (error) {
      return Effect.fail(invalid(`its JSON Schema could not be made: ${describeError(error)}`))
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      return Effect.fail(invalid("its JSON Schema is not an object"))
    }
    const object = objectSchemaOf(json as Record<string, unknown>)
    if (object === undefined) return Effect.fail(invalid(notAnObjectSchema))
    return Effect.succeed(object as Record<string, unknown>)
  })

/**
 * Decodes a turn's `structured_output` with `format` (through its JSON codec, so what JSON
 * carries decodes as the Schema's Type), adding it as `structured`. A failed result fails with its
 * own reason (`LimitReached`, `ApiError`, …), which says why there is no value; a successful result
 * without one fails with `StructuredOutputMissing`, a value the Schema refuses with
 * `StructuredOutputInvalid`.
 */
export const decode = <A>(format: Schema.ConstraintDecoder<A>) => {
  const decodeValue = Schema.decodeUnknownResult(Schema.toCodecJson(format))
  return (
    result: TurnResult,
    redact?: RedactValue
  ): Result.Result<TurnResult & { readonly structured: A }, ClaudeError.ClaudeError> => {
    const value = result.structured_output
    // The error's copy of the result, without the session's secrets (as `failureOf`'s).
    const shown = (): TurnResult => redact === undefined ? result : redact(result)
    if (value === undefined) {
      return Result.fail(failureOf(result, redact) ?? ClaudeError.make(new ClaudeError.StructuredOutputMissing({ result: shown() })))
    }
    const decoded = decodeValue(value)
    return Result.isSuccess(decoded)
      ? Result.succeed((redact === undefined
        ? { ...result, structured: decoded.success }
        : ResultRedaction.remember({ ...result, structured: decoded.success }, redact)))
      : Result.fail(
        ClaudeError.make(new ClaudeError.StructuredOutputInvalid({
          value: redact === undefined ? value : redact(value),
          issue: decoded.failure.message,
          result: shown()
        }))
      )
  }
}
