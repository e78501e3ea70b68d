/**
 * MCP elicitations: an MCP server of the CLI asks the user for input (`elicitation/create`), the
 * CLI forwards it to the host as an `elicitation` control request, and a handler of yours
 * answers it: accept (with the form's content), decline or cancel.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Elicitation } from "effect-claude-code"
 *
 * const layer = Elicitation.layer((request) =>
 *   Effect.succeed(
 *     request.mcp_server_name === "deploy"
 *       ? Elicitation.accept({ environment: "staging", confirm: true })
 *       : Elicitation.decline()
 *   )
 * )
 * ```
 *
 * The handler receives the request as the CLI sent it ({@link ElicitationRequest}, snake_case
 * keys: `mcp_server_name`, `message`, `mode`, `requested_schema`, `url`, …). An `accept`'s
 * content is decoded by the request's `requested_schema` (MCP's form schema: a flat object of
 * strings, numbers, integers, booleans and enum arrays, with `required`) before it is sent; see
 * {@link bind}.
 *
 * Without an `Elicitation` layer the library answers the request with an error
 * (`unsupported_request`), which CLI 2.1.332 passes to the server as `cancel` (the official SDK
 * answers `decline` when it has no `onElicitation`). The CLI announces the `elicitation`
 * capability to its MCP servers either way; nothing about it goes in `initialize`.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ClaudeError from "./ClaudeError.ts"
import * as HandlerFailure from "./HandlerFailure.ts"
import {
  type CallFailure as HandlerCallFailure,
  captureHandler,
  guard,
  readAnswer,
  type Redact,
  redactFailure,
  warnFailure,
  writable
} from "./internal/handlerCall.ts"
import { Elicitation } from "./internal/services.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { formatCheck } from "./internal/stringFormats.ts"

// -----------------------------------------------------------------------------
// schemas
// -----------------------------------------------------------------------------

/**
 * The `elicitation` control request (the `request` object of the envelope), as CLI 2.1.332 and
 * the official SDK's `SDKControlElicitationRequest` have it. Decoding validates the listed
 * fields; the handler gets the CLI's original object, so fields a later CLI adds are kept.
 *
 * @since 0.2.0
 * @category schemas
 */
export const ElicitationRequest = Schema.Struct({
  subtype: Schema.Literal("elicitation"),
  /** The MCP server that asks. */
  mcp_server_name: Schema.String,
  /** What to show the user. */
  message: Schema.String,
  /** `form` (structured input, `requested_schema`) or `url` (open `url`, e.g. to sign in). */
  mode: Schema.optionalKey(Schema.String),
  /** The URL to open (`url` mode). */
  url: Schema.optionalKey(Schema.String),
  /** Correlates a `url` elicitation with its completion notification. */
  elicitation_id: Schema.optionalKey(Schema.String),
  /** The JSON Schema of the content asked for (`form` mode). */
  requested_schema: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  /** `requested_schema.properties`' keys in the server's order. */
  property_order: Schema.optionalKey(Schema.Array(Schema.String)),
  /** Permission-display title from the server's `_meta`. */
  title: Schema.optionalKey(Schema.String),
  /** Short tool/server label from the server's `_meta`. */
  display_name: Schema.optionalKey(Schema.String),
  /** Permission-display subtitle from the server's `_meta`. */
  description: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export interface ElicitationRequest extends Schema.Schema.Type<typeof ElicitationRequest> {}

/**
 * What a form field may hold (MCP's elicitation content values).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ContentValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String)])

/**
 * @since 0.2.0
 * @category schemas
 */
export type ContentValue = typeof ContentValue.Type

/**
 * The answer to an `elicitation` request (MCP's `ElicitResult`, the control_response body):
 * `accept` with the form's `content`, `decline` (the user said no) or `cancel` (the user
 * dismissed it without choosing).
 *
 * @since 0.2.0
 * @category schemas
 */
export const ElicitationResult = Schema.Union([
  Schema.Struct({
    action: Schema.Literal("accept"),
    content: Schema.optionalKey(Schema.Record(Schema.String, ContentValue))
  }),
  Schema.Struct({ action: Schema.Literal("decline") }),
  Schema.Struct({ action: Schema.Literal("cancel") })
])

/**
 * @since 0.2.0
 * @category schemas
 */
export type ElicitationResult = typeof ElicitationResult.Type

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

/**
 * Accept the elicitation, with the form's content (none for a `url` elicitation). The content
 * is decoded by the request's `requested_schema` before it is sent.
 *
 * @since 0.2.0
 * @category constructors
 */
export const accept = (content?: Readonly<Record<string, ContentValue>>): ElicitationResult =>
  content === undefined ? { action: "accept" } : { action: "accept", content }

/**
 * Decline the elicitation: the user said no.
 *
 * @since 0.2.0
 * @category constructors
 */
export const decline = (): ElicitationResult => ({ action: "decline" })

/**
 * Cancel the elicitation: the user dismissed it without choosing.
 *
 * @since 0.2.0
 * @category constructors
 */
export const cancel = (): ElicitationResult => ({ action: "cancel" })

// -----------------------------------------------------------------------------
// the requested schema
// -----------------------------------------------------------------------------

type Field = Schema.Codec<unknown>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const enumOf = (definition: Record<string, unknown>): ReadonlyArray<string> | undefined => {
  if (Array.isArray(definition.enum)) return definition.enum.filter((v): v is string => typeof v === "string")
  const options = Array.isArray(definition.oneOf) ? definition.oneOf : Array.isArray(definition.anyOf) ? definition.anyOf : undefined
  if (options === undefined) return undefined
  return options.flatMap((o) => isRecord(o) && typeof o.const === "string" ? [o.const] : [])
}

/**
 * A string field's values: any string without an option list, else exactly the list's strings
 * (none when it has none: `"enum": []`, or only numbers, allows no string).
 */
const optionsSchema = (values: ReadonlyArray<string> | undefined): Schema.Codec<string> =>
  values === undefined
    ? Schema.String
    : values.length > 0
    ? Schema.Literals(values) as Schema.Codec<string>
    : Schema.Never as unknown as Schema.Codec<string>

const num = (value: unknown): number | undefined => typeof value === "number" ? value : undefined

/** How many characters (code points) `text` has. */
const codePoints = (text: string): number => {
  let count = 0
  for (const _ of text) count++
  return count
}

const fieldSchema = (definition: unknown): Field => {
  if (!isRecord(definition)) return Schema.Unknown as Field
  switch (definition.type) {
    case "string": {
      let schema = optionsSchema(enumOf(definition))
      const min = num(definition.minLength)
      const max = num(definition.maxLength)
      // JSON Schema counts a string's characters (code points), not its UTF-16 units: an emoji
      // is one (as the MCP SDK's validator counts it).
      if (min !== undefined) {
        schema = schema.check(Schema.makeFilter((s: string) => codePoints(s) >= min || `a string of at least ${min} characters`))
      }
      if (max !== undefined) {
        schema = schema.check(Schema.makeFilter((s: string) => codePoints(s) <= max || `a string of at most ${max} characters`))
      }
      // The server checks `format` (`email`, `uri`, `date`, `date-time`): content it would
      // refuse is declined here, never sent as accepted.
      const format = formatCheck(definition.format)
      if (format !== undefined) {
        schema = schema.check(Schema.makeFilter((s: string) => format(s) || `a string in the format ${String(definition.format)}`))
      }
      return schema as Field
    }
    case "number":
    case "integer": {
      let schema: Schema.Codec<number> = definition.type === "integer" ? Schema.Int : Schema.Finite
      const min = num(definition.minimum)
      const max = num(definition.maximum)
      if (min !== undefined) schema = schema.check(Schema.isGreaterThanOrEqualTo(min))
      if (max !== undefined) schema = schema.check(Schema.isLessThanOrEqualTo(max))
      return schema as Field
    }
    case "boolean":
      return Schema.Boolean as Field
    case "array": {
      const values = isRecord(definition.items) ? enumOf(definition.items) : undefined
      let schema: Schema.Codec<ReadonlyArray<string>> = Schema.Array(optionsSchema(values))
      const min = num(definition.minItems)
      const max = num(definition.maxItems)
      if (min !== undefined) schema = schema.check(Schema.isMinLength(min))
      if (max !== undefined) schema = schema.check(Schema.isMaxLength(max))
      return schema as Field
    }
    default:
      // A type a later MCP revision adds: any content value.
      return ContentValue as Field
  }
}

/**
 * The Schema of an elicitation's content, built from its `requested_schema` (MCP's form
 * schema): each property a field (`string` with `enum`/`oneOf`, `minLength`, `maxLength`;
 * `number` and `integer` with `minimum`, `maximum`; `boolean`; `array` of enum strings with
 * `minItems`, `maxItems`), optional unless listed in `required`; a key listed in `required`
 * without a property is required too, with any content value. An option list without a string
 * value allows none. Keys the schema does not name are refused when decoding with
 * {@link decodeContent}.
 *
 * @since 0.2.0
 * @category the requested schema
 */
export const contentSchema = (requestedSchema: Readonly<Record<string, unknown>>): Schema.Codec<Record<string, unknown>> => {
  const properties = isRecord(requestedSchema.properties) ? requestedSchema.properties : {}
  const required = new Set(
    Array.isArray(requestedSchema.required) ? requestedSchema.required.filter((k) => typeof k === "string") : []
  )
  const fields: Record<string, Schema.Top> = {}
  for (const [key, definition] of Object.entries(properties)) {
    const field = fieldSchema(definition)
    fields[key] = required.has(key) ? field : Schema.optionalKey(field)
  }
  // A required key `properties` does not describe is still required (JSON Schema, and so the
  // server's validator): any content value.
  for (const key of required) {
    if (!Object.hasOwn(fields, key)) fields[key] = ContentValue
  }
  return Schema.Struct(fields) as unknown as Schema.Codec<Record<string, unknown>>
}

/**
 * Decodes an `accept`'s content by the request's `requested_schema` ({@link contentSchema}):
 * fails with `InvalidInput` naming what broke it (a missing required field, a value of the wrong
 * type or out of range, a key the schema does not name). A request without a
 * `requested_schema` (a `url` elicitation) takes no content.
 *
 * @since 0.2.0
 * @category the requested schema
 */
export const decodeContent = (
  request: Pick<ElicitationRequest, "requested_schema" | "mcp_server_name">,
  content: unknown
): Effect.Effect<Record<string, unknown> | undefined, ClaudeError.ClaudeError> => {
  if (request.requested_schema === undefined) {
    return content === undefined
      ? Effect.succeed(undefined)
      : Effect.fail(invalid(`the elicitation of ${request.mcp_server_name} asked for no content, but the answer has some`))
  }
  return Schema.decodeUnknownEffect(contentSchema(request.requested_schema))(content ?? {}, {
    onExcessProperty: "error"
  }).pipe(
    Effect.mapError((error) =>
      invalid(`the content breaks the schema ${request.mcp_server_name} asked for: ${error.message}`)
    )
  )
}

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

/**
 * A handler for `elicitation` requests.
 *
 * @since 0.2.0
 * @category models
 */
export type Handler<E = never, R = never> = (request: ElicitationRequest) => Effect.Effect<ElicitationResult, E, R>

/**
 * Options of {@link layer}.
 *
 * @since 0.2.0
 * @category models
 */
export interface ElicitationOptions {
  /**
   * How long the handler may take for one request. Past it the handler is interrupted and the
   * elicitation is cancelled (a `timed_out` failure). Default: none. A positive duration:
   * anything else (`NaN`, `-1`, `{}`) fails building the service with `InvalidInput`.
   */
  readonly timeout?: Duration.Input | undefined
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

const serverOf = (request: unknown): string =>
  isRecord(request) && typeof request.mcp_server_name === "string" ? request.mcp_server_name : "an unknown server"

// The tag is declared (and documented) in `internal/services.ts`, which `Claude.ts` imports
// without this module.
export { Elicitation }

/**
 * Builds the service from a handler, capturing the handler's requirements `R` from the context
 * the effect runs in (leaving out the build's `Scope` and parent span).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromHandler = <E, R>(
  handler: Handler<E, R>,
  options?: ElicitationOptions
): Effect.Effect<Elicitation["Service"], ClaudeError.ClaudeError, R> =>
  Effect.map(
    captureHandler(handler, {
      subtype: "elicitation",
      timeout: options?.timeout,
      who: (request) => `elicitation handler for ${request.mcp_server_name}`
    }),
    (respond) => Elicitation.of({ respond })
  )

/**
 * A layer of the service. The handler's requirements `R` are taken from the context the layer is
 * built in.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <E, R>(
  handler: Handler<E, R>,
  options?: ElicitationOptions
): Layer.Layer<Elicitation, ClaudeError.ClaudeError, R> =>
  Layer.effect(Elicitation, fromHandler(handler, options))

const decodeRequest = Schema.decodeUnknownEffect(ElicitationRequest)
const decodeResult = Schema.decodeUnknownEffect(ElicitationResult)

interface CallFailure extends HandlerCallFailure {
  /** What the CLI is told: `decline` for content that breaks the schema, else `cancel`. */
  readonly action?: "decline" | undefined
}

/**
 * What the session calls for an `elicitation` request: decodes the raw request, asks the
 * service, checks the answer and returns the control_response body.
 *
 * **Fails closed: never accepts what the handler did not accept with valid content.**
 * - An `accept` whose content breaks the request's `requested_schema` ({@link decodeContent})
 *   is sent as `decline` (the user's content cannot be used, so the server is told no): outcome
 *   `declined`, failure `invalid_answer`.
 * - A request that breaks its schema, a handler that fails, dies, interrupts itself or times
 *   out, and an answer that is not an {@link ElicitationResult} are sent as `cancel` (nobody
 *   decided, as if the dialog were dismissed): outcome `cancelled`.
 *
 * Each such case is logged as a warning and passed to `report`
 * ({@link HandlerFailure.HandlerFailed}, handler `elicitation`). Interrupting `respond` (a
 * `control_cancel_request`) is no failure: the handler is interrupted, nothing is reported.
 * `redact` (a session passes its own) replaces the session's secrets in a failure's text before
 * it is logged or reported.
 *
 * @since 0.2.0
 * @category session
 */
export const bind = (
  service: Elicitation["Service"],
  report?: HandlerFailure.Report,
  redact?: (text: string) => string
): {
  /** Answers one `elicitation` request body with the JSON of the `control_response`. */
  readonly respond: (
    request: unknown,
    requestId?: string | undefined
  ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
} => ({ respond: (raw, requestId) => respondWire(service, raw, requestId, report, redact) })

// Its span ends without the answer (what the user filled in), its failure's texts left out
// without `TraceContent`.
const respondWire = Effect.fnUntraced(function*(
  service: Elicitation["Service"],
  raw: unknown,
  requestId: string | undefined,
  report: HandlerFailure.Report | undefined,
  redact: Redact | undefined
) {
  const server = serverOf(raw)
  const answered = yield* decodeRequest(raw).pipe(
    Effect.mapError((error): CallFailure => ({
      failure: "invalid_input",
      error: invalid(`Invalid elicitation request: ${error.message}`),
      cause: Cause.fail(error)
    })),
    Effect.andThen(
      guard(Effect.suspend(() => service.respond(raw as ElicitationRequest)), "elicitation", `elicitation handler for ${server}`)
    ),
    // JSON data as given, read as the CLI reads it: `content: undefined` is no content, not an
    // answer the schema refuses (an accept went out as cancel).
    Effect.flatMap((result) => writable(result, `elicitation handler for ${server}`)),
    Effect.flatMap((result) =>
      decodeResult(result).pipe(
        Effect.mapError((error): CallFailure => ({
          failure: "invalid_answer",
          error: invalid(`The elicitation handler for ${server} gave an invalid answer: ${error.message}`),
          cause: Cause.fail(error)
        }))
      )
    ),
    Effect.flatMap((result): Effect.Effect<Record<string, unknown>, CallFailure> =>
      result.action !== "accept" ? Effect.succeed({ action: result.action }) : decodeContent(raw as ElicitationRequest, result.content).pipe(
        Effect.map((content) => content === undefined ? { action: "accept" } : { action: "accept", content }),
        Effect.mapError((error): CallFailure => ({ action: "decline", failure: "invalid_answer", error, cause: Cause.fail(error) }))
      )
    ),
    (reading) => readAnswer(reading, `elicitation handler for ${server}`),
    Effect.result
  )
  if (answered._tag === "Success") return answered.success
  // What follows is logged, reported and ends this span: the secrets out first.
  const failed: CallFailure = redactFailure(answered.failure, redact)
  // Content that breaks the schema was an answer, just not a usable one: declined. Anything
  // else means nobody decided: cancelled.
  const action = failed.action ?? "cancel"
  const outcome: HandlerFailure.Outcome = action === "decline" ? "declined" : "cancelled"
  const message = `The elicitation handler for ${server} failed, so the elicitation was ${outcome}: ${failed.error.message}`
  yield* warnFailure(message, failed.cause).pipe(
    Effect.annotateLogs({ mcp_server_name: server, ...(requestId !== undefined ? { request_id: requestId } : {}) })
  )
  yield* HandlerFailure.callReport(report, {
    type: "handler_failed",
    handler: "elicitation",
    hookEvent: undefined,
    callbackId: undefined,
    toolName: undefined,
    toolUseId: undefined,
    requestId,
    failure: failed.failure,
    outcome,
    message,
    error: failed.error,
    cause: failed.cause
  })
  return { action }
}, SpanExits.withSpan("Elicitation.respond"))
