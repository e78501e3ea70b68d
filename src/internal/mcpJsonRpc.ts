/**
 * The JSON-RPC 2.0 wire shapes of the MCP messages the `claude` CLI exchanges with an in-process
 * (`sdk`) MCP server over `mcp_message` control requests, and the pure helpers around them:
 * classifying an incoming message, building responses, negotiating the protocol version and
 * turning a tool's input `Schema` into the JSON Schema `tools/list` advertises.
 *
 * Observed from CLI 2.1.332 (transcripts d1–d6, l2): `initialize` (protocolVersion
 * `"2025-11-25"`), `notifications/initialized`, `tools/list`, `tools/call` (with
 * `_meta.progressToken` and `_meta["claudecode/toolUseId"]`), `notifications/cancelled`
 * (`params.requestId`). JSON-RPC ids start at 0 and increase per server; a reconnect starts again
 * at 0.
 *
 * @internal
 */
import type * as JsonSchema from "effect/JsonSchema"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { describeError } from "./describeCause.ts"

// -----------------------------------------------------------------------------
// Protocol constants
// -----------------------------------------------------------------------------

/** @internal */
export const LATEST_PROTOCOL_VERSION = "2025-11-25"

/**
 * The versions whose tool surface this server implements (it is the same in all of them).
 *
 * @internal
 */
export const SUPPORTED_PROTOCOL_VERSIONS: ReadonlyArray<string> = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05"
]

/** @internal */
export const INVALID_REQUEST = -32600
/** @internal */
export const METHOD_NOT_FOUND = -32601
/** @internal */
export const INVALID_PARAMS = -32602

/**
 * Echo the client's version when it is one we speak, else offer our latest (the client then
 * decides whether it can go on), as the MCP lifecycle asks.
 *
 * @internal
 */
export const negotiateProtocolVersion = (requested: string | undefined): string =>
  requested !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION

// -----------------------------------------------------------------------------
// Incoming messages
// -----------------------------------------------------------------------------

/** @internal */
export const RequestId = Schema.Union([Schema.String, Schema.Finite])

/** @internal */
export type RequestId = typeof RequestId.Type

const Request = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  method: Schema.String,
  params: Schema.optional(Schema.Unknown)
})

/** A message without an `id` member (JSON-RPC 2.0); one with `"id": null` is no notification. */
const Notification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optional(Schema.Unknown)
})

const ResponseMessage = Schema.Union([
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: Schema.NullOr(RequestId), result: Schema.Unknown }),
  Schema.Struct({
    jsonrpc: Schema.Literal("2.0"),
    id: Schema.optional(Schema.NullOr(RequestId)),
    error: Schema.Struct({ code: Schema.Finite, message: Schema.String, data: Schema.optional(Schema.Unknown) })
  })
])

const decodeRequest = Schema.decodeUnknownOption(Request)
const decodeNotification = Schema.decodeUnknownOption(Notification)
const isResponseMessage = Schema.is(ResponseMessage)
const isRequestId = Schema.is(RequestId)

/**
 * What an incoming `mcp_message` payload is.
 *
 * @internal
 */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: RequestId; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Response" }
  | { readonly _tag: "Invalid"; readonly id: RequestId | null | undefined; readonly description: string }

/** @internal */
export const classify = (message: unknown): Incoming => {
  const request = decodeRequest(message)
  if (Option.isSome(request)) {
    return { _tag: "Request", id: request.value.id, method: request.value.method, params: request.value.params }
  }
  const notification = Predicate.hasProperty(message, "id") ? Option.none() : decodeNotification(message)
  if (Option.isSome(notification)) {
    return { _tag: "Notification", method: notification.value.method, params: notification.value.params }
  }
  // A response to a request of ours. This server never sends requests, but a response needs no
  // answer, so it is acknowledged like a notification.
  if (isResponseMessage(message)) return { _tag: "Response" }
  if (Predicate.hasProperty(message, "id") && message.id === null && Predicate.hasProperty(message, "method")) {
    // Answered as JSON-RPC answers a request it cannot read: an error with id null.
    return { _tag: "Invalid", id: null, description: "Invalid request: a request id is a string or a number, never null" }
  }
  const id = Predicate.hasProperty(message, "id") && isRequestId(message.id) ? message.id : undefined
  return { _tag: "Invalid", id, description: `Not a JSON-RPC 2.0 message: ${preview(message)}` }
}

const preview = (value: unknown): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** @internal */
export const InitializeParams = Schema.Struct({ protocolVersion: Schema.String })

/** @internal */
export const CallToolParams = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optional(Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown))),
  _meta: Schema.optional(Schema.Unknown)
})

/**
 * The model's `tool_use` id the CLI puts in a `tools/call`'s `_meta`, when there is one.
 *
 * @internal
 */
export const toolUseIdOf = (meta: unknown): string | undefined =>
  Predicate.hasProperty(meta, "claudecode/toolUseId") && Predicate.isString(meta["claudecode/toolUseId"])
    ? meta["claudecode/toolUseId"]
    : undefined

/** @internal */
export const CancelledParams = Schema.Struct({
  requestId: RequestId,
  reason: Schema.optional(Schema.String)
})

// -----------------------------------------------------------------------------
// Responses
// -----------------------------------------------------------------------------

/** @internal */
export const SuccessResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  result: Schema.Unknown
})

/** @internal */
export const ErrorResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(RequestId),
  error: Schema.Struct({ code: Schema.Finite, message: Schema.String })
})

/** @internal */
export type Response = typeof SuccessResponse.Type | typeof ErrorResponse.Type

/** @internal */
export const success = (id: RequestId, result: unknown): typeof SuccessResponse.Type => ({
  jsonrpc: "2.0",
  id,
  result
})

/** @internal */
export const failure = (id: RequestId | null, code: number, message: string): typeof ErrorResponse.Type => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

/**
 * The answer to a notification, as the official TypeScript SDK writes it (`d1`). The CLI does not
 * read it, but it must get an answer: an unanswered notification stalls it for 30 s, twice (`d5`).
 *
 * @internal
 */
export const notificationAck = (): typeof SuccessResponse.Type => ({ jsonrpc: "2.0", result: {}, id: 0 })

// -----------------------------------------------------------------------------
// Tool results
// -----------------------------------------------------------------------------

/** @internal */
export const TextContent = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

/** @internal */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String
})

/** @internal */
export const ContentBlock = Schema.Union([TextContent, ImageContent])

/** @internal */
export const CallToolResult = Schema.Struct({
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
  isError: Schema.optional(Schema.Boolean)
})

/** @internal */
export type CallToolResult = typeof CallToolResult.Type

/** @internal */
export const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true })

/**
 * Whether the CLI's MCP client reads `data` as base64: it checks an image block's `data` with
 * `atob` (WHATWG forgiving-base64: ASCII whitespace skipped, padding optional) and refuses the
 * whole result when one fails ("Invalid Base64 string", CLI 2.1.332).
 */
const isBase64 = (data: string): boolean => {
  try {
    atob(data)
    return true
  } catch {
    return false
  }
}

/**
 * What makes the CLI refuse these blocks, or undefined: an image whose `data` is not base64
 * (a `data:` URL is the usual slip).
 *
 * @internal
 */
export const contentProblem = (content: ReadonlyArray<typeof ContentBlock.Type>): string | undefined => {
  const index = content.findIndex((block) => block.type === "image" && !isBase64(block.data))
  if (index === -1) return undefined
  const data = (content[index] as typeof ImageContent.Type).data
  return `the data of its image block ${index + 1} is not base64, and the CLI refuses such a result whole ` +
    `(a data: URL? give its base64 part): ${JSON.stringify(data.slice(0, 40))}${data.length > 40 ? "…" : ""}`
}

// -----------------------------------------------------------------------------
// Tool input JSON Schema
// -----------------------------------------------------------------------------

/**
 * The JSON Schema (draft 2020-12) of the JSON form of a tool's input schema, with an object at
 * the root as MCP requires. A root reference (a schema with an `identifier`, or a recursive one) is
 * inlined; shared definitions go under `$defs`. Fails with a description when the root is not an
 * object (e.g. `Schema.String`, or a union of structs).
 *
 * The schema describes `Schema.toCodecJson(input)`, which is what decodes the arguments.
 *
 * @internal
 */
export const inputJsonSchema = (input: Schema.Constraint): Result.Result<JsonSchema.JsonSchema, string> => {
  let document: JsonSchema.Document<"draft-2020-12">
  try {
    document = Schema.toJsonSchemaDocument(input)
  } catch (error) {
    return Result.fail(`its input schema has no JSON Schema: ${describeError(error)}`)
  }
  let root: JsonSchema.JsonSchema = document.schema
  if (Predicate.isString(root.$ref)) {
    const resolved = root.$ref.startsWith("#/$defs/")
      ? document.definitions[
        decodeURIComponent(root.$ref.slice("#/$defs/".length)).replace(/~1/g, "/").replace(/~0/g, "~")
      ]
      : undefined
    if (resolved === undefined) return Result.fail(`its input JSON Schema has an unresolved root ${root.$ref}`)
    root = resolved
  }
  if (isEmptyStruct(input) && root.type === undefined) {
    // `Schema.Struct({})` accepts any non-nullish value, so its JSON Schema is `{"not":{"type":"null"}}`.
    // As a tool input it means "no parameters": the model sends `{}`.
    const { not: _not, ...rest } = root
    root = { ...rest, type: "object", properties: {} }
  }
  if (root.type !== "object") {
    return Result.fail(
      `its input must be an object schema such as Schema.Struct (MCP requires "type": "object" at the root), ` +
        `got ${preview(root)}`
    )
  }
  return Result.succeed(
    Object.keys(document.definitions).length === 0 ? root : { ...root, $defs: document.definitions }
  )
}

/**
 * A JSON Schema given as such (an `effect/ai` dynamic tool's), checked to have an object at the
 * root as MCP requires.
 *
 * @internal
 */
export const objectJsonSchema = (schema: JsonSchema.JsonSchema): Result.Result<JsonSchema.JsonSchema, string> =>
  schema.type === "object"
    ? Result.succeed(schema)
    : Result.fail(
      `its input must be an object schema (MCP requires "type": "object" at the root), got ${preview(schema)}`
    )

const isEmptyStruct = (input: Schema.Constraint): boolean =>
  SchemaAST.isObjects(input.ast) && input.ast.propertySignatures.length === 0 && input.ast.indexSignatures.length === 0
