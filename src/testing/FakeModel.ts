/**
 * A fake Anthropic Messages API on 127.0.0.1, so that the real `claude` CLI can run whole turns
 * in tests with no network and no model.
 *
 * The server answers `POST /v1/messages` (streaming SSE when the request says `stream: true`, a
 * plain JSON message otherwise) from a script, answers `POST /v1/messages/count_tokens`, and
 * records every request it gets. Point the CLI at it with {@link cliEnvironment}.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FakeModel } from "effect-claude-code/testing"
 *
 * const program = Effect.gen(function*() {
 *   const fake = yield* FakeModel.make([
 *     FakeModel.toolUse("Bash", { command: "echo hi" }),
 *     FakeModel.text("It printed hi.")
 *   ])
 *   // spawn claude with env = { ...process.env, ...fake.cliEnvironment(home) }
 *   const [, second] = yield* fake.awaitRequests(2)
 *   if (second !== undefined) {
 *     FakeModel.toolResults(second) // [{ toolUseId: "toolu_fake…", content: "hi", isError: false }]
 *   }
 * })
 * ```
 *
 * The event shapes, ids (`msg_fake…`, `toolu_fake…`, `req_fake…`) and usage numbers are the ones
 * the CLI 2.1.332 accepted when the protocol transcripts were recorded (`message_start`,
 * `content_block_start`, deltas, `content_block_stop`, `message_delta`, `message_stop`; no
 * `ping`). The CLI passes them through unchanged into its `assistant` and `stream_event` lines.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Sse from "../internal/sse.ts"
import { splitText } from "../internal/textChunks.ts"

// ---------------------------------------------------------------------------------------------
// Replies
// ---------------------------------------------------------------------------------------------

/**
 * Why the fake model stopped. By default `tool_use` when the message has a tool call, else
 * `end_turn`.
 *
 * @since 0.1.0
 * @category models
 */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded"

/**
 * Usage numbers the fake reports. Defaults: `inputTokens` 100, `outputTokens` about a quarter of
 * the characters of the content (at least 1), cache numbers 0.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  /** Tokens of the prompt (default 100). */
  readonly inputTokens?: number | undefined
  /** Tokens of the answer (default: about a quarter of its characters). */
  readonly outputTokens?: number | undefined
  /** Tokens written to the prompt cache (default 0). */
  readonly cacheCreationInputTokens?: number | undefined
  /** Tokens read from the prompt cache (default 0). */
  readonly cacheReadInputTokens?: number | undefined
}

/**
 * A text content block.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextBlock {
  /** The block's kind. */
  readonly type: "text"
  /** The text. */
  readonly text: string
}

/**
 * A tool call. `id` is generated (`toolu_fake…`) when not given.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolUseBlock {
  /** The block's kind. */
  readonly type: "tool_use"
  /** The tool's name (`mcp__<server>__<tool>` for an MCP tool). */
  readonly name: string
  /** The tool input, sent as JSON. */
  readonly input: unknown
  /** The tool call's id; generated when `undefined`. */
  readonly id: string | undefined
}

/**
 * A thinking block (streamed as `thinking_delta`s then one `signature_delta`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ThinkingBlock {
  /** The block's kind. */
  readonly type: "thinking"
  /** The thinking text. */
  readonly thinking: string
  /** The signature sent in the `signature_delta`. */
  readonly signature: string
}

/**
 * One content block of a fake assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export type Block = TextBlock | ToolUseBlock | ThinkingBlock

/**
 * How a message is delivered.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageOptions {
  /** Deltas per text or thinking block, and per tool input JSON (default 2, as recorded). */
  readonly chunks?: number | undefined
  /**
   * Milliseconds to wait before each delta (default 0), in real time even under `TestClock`.
   * Use it to keep a turn streaming long enough to interrupt it. A non-streaming answer waits
   * once.
   */
  readonly delayMs?: number | undefined
  /** The usage reported (see {@link Usage} for the defaults). */
  readonly usage?: Usage | undefined
  /** Overrides the derived stop reason. */
  readonly stopReason?: StopReason | undefined
  /** Overrides the model reported back (default: the request's `model`). */
  readonly model?: string | undefined
}

/**
 * A successful assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageReply {
  /** The kind of reply. */
  readonly _tag: "Message"
  /** The message's content blocks. */
  readonly content: ReadonlyArray<Block>
  /** How the message is delivered. */
  readonly options: MessageOptions
}

/**
 * An HTTP error answer: `status` with the Anthropic error body
 * `{"type":"error","error":{"type":…,"message":…},"request_id":…}`.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpErrorReply {
  /** The kind of reply. */
  readonly _tag: "HttpError"
  /** The HTTP status. */
  readonly status: number
  /** The error body's `error.type` (`overloaded_error`, …). */
  readonly errorType: string
  /** The error body's `error.message`. */
  readonly message: string
  /** Extra response headers (`retry-after`, …). */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A stream that starts well (HTTP 200, `message_start`, a partial text block) and then sends an
 * SSE `error` event and ends. Asked without streaming, it answers the HTTP error that matches
 * `errorType` (`overloaded_error` → 529, `api_error` → 500, …).
 *
 * @since 0.1.0
 * @category models
 */
export interface SseErrorReply {
  /** The kind of reply. */
  readonly _tag: "SseError"
  /** The SSE error's `error.type`. */
  readonly errorType: string
  /** The SSE error's `error.message`. */
  readonly message: string
  /** Text streamed before the error (`""`: no text block). */
  readonly partialText: string
}

/**
 * No answer at all: the request is read and then left open until the client goes away or the
 * server closes (an API that never answers).
 *
 * @since 0.1.0
 * @category models
 */
export interface HangReply {
  /** The kind of reply. */
  readonly _tag: "Hang"
}

/**
 * Everything the fake model can answer to one `POST /v1/messages`.
 *
 * @since 0.1.0
 * @category models
 */
export type Reply = MessageReply | HttpErrorReply | SseErrorReply | HangReply

/**
 * What the fake answers:
 * - a list of replies, consumed one per `POST /v1/messages` in arrival order; when it runs out,
 *   every further request gets `whenExhausted` (see {@link MakeOptions}), by default an HTTP 500
 *   whose message says `FakeModel: script exhausted`;
 * - or a function of the request, for conversations that depend on what the CLI sent.
 *
 * `count_tokens` and unknown paths never consume the script.
 *
 * @since 0.1.0
 * @category models
 */
export type Script = ReadonlyArray<Reply> | ((request: RecordedRequest) => Reply)

/**
 * A text block, for {@link blocks}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const textBlock = (text: string): TextBlock => ({ type: "text", text })

/**
 * A tool call block, for {@link blocks}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolUseBlock = (
  name: string,
  input: unknown,
  options?: {
    /** The tool call's id (default: generated, `toolu_fake…`). */
    readonly id?: string | undefined
  }
): ToolUseBlock => ({
  type: "tool_use",
  name,
  input,
  id: options?.id
})

/**
 * A thinking block, for {@link blocks}. The signature defaults to `"fakesig"`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const thinkingBlock = (
  thinking: string,
  options?: {
    /** The signature (default `"fakesig"`). */
    readonly signature?: string | undefined
  }
): ThinkingBlock => ({
  type: "thinking",
  thinking,
  signature: options?.signature ?? "fakesig"
})

/**
 * A message of several blocks, in order. Messages given here are flattened into their blocks, so
 * `blocks([text("Let me look."), toolUse("Bash", { command: "ls" })])` is one message with a text
 * block and a tool call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const blocks = (content: ReadonlyArray<Block | MessageReply>, options?: MessageOptions): MessageReply => ({
  _tag: "Message",
  content: content.flatMap((item) => "_tag" in item ? item.content : [item]),
  options: options ?? {}
})

/**
 * A text answer, streamed in `options.chunks` deltas (default 2).
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string, options?: MessageOptions): MessageReply => blocks([textBlock(text)], options)

/**
 * A tool call (`stop_reason: "tool_use"`), its input streamed as `input_json_delta`s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolUse = (
  name: string,
  input: unknown,
  options?: MessageOptions & {
    /** The tool call's id (default: generated, `toolu_fake…`). */
    readonly id?: string | undefined
  }
): MessageReply => blocks([toolUseBlock(name, input, { id: options?.id })], options)

/**
 * A thinking block followed by a text answer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const thinking = (thought: string, answer: string, options?: MessageOptions): MessageReply =>
  blocks([thinkingBlock(thought), textBlock(answer)], options)

const errorTypeByStatus: Readonly<Record<number, readonly [type: string, message: string]>> = {
  400: ["invalid_request_error", "Bad request"],
  401: ["authentication_error", "invalid x-api-key"],
  403: ["permission_error", "Permission denied"],
  404: ["not_found_error", "Not found"],
  413: ["request_too_large", "Request too large"],
  429: ["rate_limit_error", "Rate limited"],
  500: ["api_error", "Internal server error"],
  529: ["overloaded_error", "Overloaded"]
}

const statusByErrorType: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(errorTypeByStatus).map(([status, [type]]) => [type, Number(status)])
)

/**
 * An HTTP error. The error `type` follows the status (400 `invalid_request_error`, 401
 * `authentication_error`, 429 `rate_limit_error`, 500 `api_error`, 529 `overloaded_error`, …);
 * `headers` are added to the response (for example `{ "retry-after": "1" }` with a 429).
 *
 * **Gotchas**
 * - The CLI retries 401, 408, 429 and 5xx answers (`CLAUDE_CODE_MAX_RETRIES` times, with
 *   backoff), so one failed turn consumes `1 + retries` replies. A 400 is not retried but makes
 *   the CLI try again with fewer betas (several requests within milliseconds).
 *
 * @since 0.1.0
 * @category constructors
 */
export const httpError = (status: number, options?: {
  /** The error body's `error.type` (default: the status's, e.g. `rate_limit_error` for 429). */
  readonly type?: string | undefined
  /** The error body's `error.message` (default: the status's). */
  readonly message?: string | undefined
  /** Extra response headers (`retry-after`, …). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}): HttpErrorReply => {
  const [defaultType, defaultMessage] = errorTypeByStatus[status] ??
    (status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", `HTTP ${status}`])
  return {
    _tag: "HttpError",
    status,
    errorType: options?.type ?? defaultType,
    message: options?.message ?? defaultMessage,
    headers: options?.headers ?? {}
  }
}

/**
 * An SSE `error` event in the middle of a stream. The CLI answers it with an immediate
 * non-streaming retry (`stream: false`), which consumes the next reply.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sseError = (options?: {
  /** The SSE error's `error.type` (default `overloaded_error`). */
  readonly type?: string | undefined
  /** The SSE error's `error.message` (default `Overloaded`). */
  readonly message?: string | undefined
  /** Text streamed before the error (default `"partial "`; `""` sends no text block). */
  readonly partialText?: string | undefined
}): SseErrorReply => ({
  _tag: "SseError",
  errorType: options?.type ?? "overloaded_error",
  message: options?.message ?? "Overloaded",
  partialText: options?.partialText ?? "partial "
})

/**
 * An API that never answers this request (no status, no headers): for turn deadlines. The
 * connection stays open until the CLI gives up on it or the server closes. In a list script it
 * answers the request that arrives in its place: a turn interrupted before its request was sent
 * leaves it to the next turn's (wait for `awaitRequests` first, or choose by the request's text).
 *
 * @since 0.1.0
 * @category constructors
 */
export const hang: HangReply = { _tag: "Hang" }

// ---------------------------------------------------------------------------------------------
// Recorded requests
// ---------------------------------------------------------------------------------------------

/**
 * A content block as the CLI sent it (only `type` is known for sure).
 *
 * @since 0.1.0
 * @category models
 */
export interface ContentBlockJson {
  /** The block's `type`. */
  readonly type: string
  readonly [key: string]: unknown
}

/**
 * One entry of the request's `messages`. Besides `user` and `assistant`, the CLI 2.1.332 sends
 * `system` entries (the environment after the first user message, hook contexts).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestMessage {
  /** `user`, `assistant` or `system`. */
  readonly role: string
  /** A string, or content blocks. */
  readonly content: string | ReadonlyArray<ContentBlockJson>
}

/**
 * Which endpoint a request hit.
 *
 * @since 0.1.0
 * @category models
 */
export type Endpoint = "messages" | "count_tokens" | "other"

/**
 * One HTTP request the fake received, with typed views of the Messages API body.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecordedRequest {
  /** 0-based, in arrival order (counting every request, whatever its endpoint). */
  readonly index: number
  /** Wall-clock time the body was complete, in ms since the epoch. */
  readonly receivedAtMillis: number
  /** The HTTP method. */
  readonly method: string
  /** With the query string, e.g. `/v1/messages?beta=true`. */
  readonly path: string
  /** Which endpoint the request hit. */
  readonly endpoint: Endpoint
  /** Lower-case names; repeated headers joined with `", "`. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; the raw text when it is not JSON; `undefined` when empty. */
  readonly body: unknown
  /** The body's `model`. */
  readonly model: string | undefined
  /** `true` only when the body says `stream: true`. */
  readonly stream: boolean
  /** The body's `messages` (empty when there are none). */
  readonly messages: ReadonlyArray<RequestMessage>
  /** The body's `system` prompt. */
  readonly system: string | ReadonlyArray<ContentBlockJson> | undefined
  /** The names of the tools offered. */
  readonly tools: ReadonlyArray<string>
}

const ContentBlockJsonSchema = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [
  Schema.Record(Schema.String, Schema.Unknown)
])
const ContentSchema = Schema.Union([Schema.String, Schema.Array(ContentBlockJsonSchema)])
const RequestMessageSchema = Schema.Struct({ role: Schema.String, content: ContentSchema })
const NamedSchema = Schema.Struct({ name: Schema.String })
const TextBlockJson = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const ToolResultJson = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.optionalKey(ContentSchema),
  is_error: Schema.optionalKey(Schema.Boolean)
})
const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const decodeJsonText = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Unknown))
const decodeObject = Schema.decodeUnknownOption(JsonObject)
const decodeString = Schema.decodeUnknownOption(Schema.String)
const decodeBoolean = Schema.decodeUnknownOption(Schema.Boolean)
const decodeArray = Schema.decodeUnknownOption(Schema.Array(Schema.Unknown))
const decodeMessage = Schema.decodeUnknownOption(RequestMessageSchema)
const decodeContent = Schema.decodeUnknownOption(ContentSchema)
const decodeNamed = Schema.decodeUnknownOption(NamedSchema)
const decodeTextBlock = Schema.decodeUnknownOption(TextBlockJson)
const decodeToolResult = Schema.decodeUnknownOption(ToolResultJson)

const arrayOf = <A>(u: unknown, decode: (u: unknown) => Option.Option<A>): ReadonlyArray<A> =>
  Option.match(decodeArray(u), {
    onNone: () => [],
    onSome: (items) => items.flatMap((item) => Option.toArray(decode(item)))
  })

const endpointOf = (method: string, pathname: string): Endpoint =>
  method !== "POST"
    ? "other"
    : pathname === "/v1/messages"
    ? "messages"
    : pathname === "/v1/messages/count_tokens"
    ? "count_tokens"
    : "other"

const recordRequest = (options: {
  readonly index: number
  readonly receivedAtMillis: number
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
}): RecordedRequest => {
  const pathname = new URL(options.path, "http://127.0.0.1").pathname
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(options.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  const body: unknown = options.text === ""
    ? undefined
    : Option.getOrElse(decodeJsonText(options.text), () => options.text)
  const fields = Option.getOrElse(decodeObject(body), (): Readonly<Record<string, unknown>> => ({}))
  return {
    index: options.index,
    receivedAtMillis: options.receivedAtMillis,
    method: options.method,
    path: options.path,
    endpoint: endpointOf(options.method, pathname),
    headers,
    body,
    model: Option.getOrUndefined(decodeString(fields.model)),
    stream: Option.getOrElse(decodeBoolean(fields.stream), () => false),
    messages: arrayOf(fields.messages, decodeMessage),
    system: Option.getOrUndefined(decodeContent(fields.system)),
    tools: arrayOf(fields.tools, decodeNamed).map((tool) => tool.name)
  }
}

// ---------------------------------------------------------------------------------------------
// Predicates over requests
// ---------------------------------------------------------------------------------------------

const textsOf = (content: string | ReadonlyArray<unknown>): ReadonlyArray<string> =>
  typeof content === "string"
    ? [content]
    : content.flatMap((block) => Option.toArray(decodeTextBlock(block)).map((b) => b.text))

/**
 * The last message with role `user` (it may be a message of tool results). The CLI puts a
 * `system` entry after the first user message, so the last message of a request is not always
 * the user's.
 *
 * @since 0.1.0
 * @category predicates
 */
export const lastUserMessage = (request: RecordedRequest): RequestMessage | undefined =>
  request.messages.findLast((message) => message.role === "user")

const isSystemReminder = (text: string): boolean => text.trimStart().startsWith("<system-reminder>")

/**
 * The text of the last `user` message (its text blocks joined with `"\n"`), or `undefined` when
 * that message has no text (for example when it only carries tool results).
 *
 * **Gotchas**
 * - The CLI adds `<system-reminder>…</system-reminder>` text blocks to user messages (2.1.332
 *   puts a git attribution reminder before the first prompt unless `--settings` sets
 *   `attribution` to empty strings). Those blocks are left out, so this is what the user typed.
 *
 * @since 0.1.0
 * @category predicates
 */
export const lastUserText = (request: RecordedRequest): string | undefined => {
  const message = lastUserMessage(request)
  if (message === undefined) return undefined
  const texts = textsOf(message.content).filter((text) => !isSystemReminder(text))
  return texts.length === 0 ? undefined : texts.join("\n")
}

/**
 * A tool result the CLI sent back, its content flattened to text.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  /** The `tool_use_id` it answers. */
  readonly toolUseId: string
  /** The result's content, as text. */
  readonly content: string
  /** Whether the CLI marked it as an error. */
  readonly isError: boolean
}

/**
 * The tool results of the last `user` message (empty when it has none, e.g. on the first
 * request of a turn).
 *
 * @since 0.1.0
 * @category predicates
 */
export const toolResults = (request: RecordedRequest): ReadonlyArray<ToolResult> => {
  const message = lastUserMessage(request)
  if (message === undefined || typeof message.content === "string") return []
  return message.content.flatMap((block) =>
    Option.toArray(decodeToolResult(block)).map((result) => ({
      toolUseId: result.tool_use_id,
      content: result.content === undefined ? "" : textsOf(result.content).join("\n"),
      isError: result.is_error ?? false
    }))
  )
}

/**
 * Whether the request offers a tool of that name (`Bash`, `mcp__server__tool`, …).
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasTool = (request: RecordedRequest, name: string): boolean => request.tools.includes(name)

/**
 * The system prompt (the `system` parameter, text blocks joined with `"\n"`; `""` when absent).
 * The CLI's `role: "system"` messages are not part of it: read `request.messages` for those.
 *
 * @since 0.1.0
 * @category predicates
 */
export const systemText = (request: RecordedRequest): string =>
  request.system === undefined ? "" : textsOf(request.system).join("\n")

// ---------------------------------------------------------------------------------------------
// Wire shapes of the answers
// ---------------------------------------------------------------------------------------------

/** `s` in `parts` pieces of whole characters (code points): the API never sends half of one. */
interface Resolved {
  readonly id: string
  readonly model: string
  readonly content: ReadonlyArray<
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
    | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  >
  readonly stopReason: StopReason
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheCreationInputTokens: number
  readonly cacheReadInputTokens: number
}

const blockSize = (block: Block): number =>
  block.type === "text"
    ? block.text.length
    : block.type === "thinking"
    ? block.thinking.length
    : JSON.stringify(block.input ?? {}).length

const startUsage = (m: Resolved) => ({
  input_tokens: m.inputTokens,
  cache_creation_input_tokens: m.cacheCreationInputTokens,
  cache_read_input_tokens: m.cacheReadInputTokens,
  output_tokens: 1,
  service_tier: "standard"
})

const messageJson = (m: Resolved) => ({
  id: m.id,
  type: "message",
  role: "assistant",
  model: m.model,
  content: m.content,
  stop_reason: m.stopReason,
  stop_sequence: null,
  usage: { ...startUsage(m), output_tokens: m.outputTokens }
})

const errorJson = (errorType: string, message: string, requestId: string) => ({
  type: "error",
  error: { type: errorType, message },
  request_id: requestId
})

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 * @category models
 */
export interface MakeOptions {
  /**
   * The answer once a list script is used up. Default: `httpError(500)` with the message
   * `FakeModel: script exhausted after N replies` (the CLI retries it, then ends the turn with
   * an `api_error` result), so a test that scripted too few replies fails visibly.
   */
  readonly whenExhausted?: Reply | undefined
  /**
   * The model ids the fake accepts, as the API has them (e.g. {@link knownModels}). A request
   * for any other model is answered as the API answers an unknown model, 404 `not_found_error`
   * with the message `model: <id>`, and uses no reply of the script; the CLI then ends the turn
   * with an `api_error` result, which the session fails with an `ApiError` of status 404.
   * Default: any model is accepted.
   *
   * @since 0.2.0
   */
  readonly models?: ReadonlyArray<string> | undefined
}

/**
 * Model ids the Messages API accepts: the ones the pinned CLI (2.1.332) resolves its aliases to
 * (`default`, `opus`, `sonnet`, `haiku`, `fable`) and earlier Claude models with their short
 * aliases. For `MakeOptions.models`: `FakeModel.make(script, { models: FakeModel.knownModels })`
 * makes a program that asks for a misspelled model fail as it would in production.
 *
 * @since 0.2.0
 * @category models
 */
export const knownModels: ReadonlyArray<string> = [
  "claude-opus-5-5",
  "claude-sonnet-5-5",
  "claude-haiku-5-5",
  "claude-fable-5-2",
  "claude-opus-4-1",
  "claude-opus-4-1-20250805",
  "claude-opus-4-0",
  "claude-opus-4-20250514",
  "claude-sonnet-4-5",
  "claude-sonnet-4-5-20250929",
  "claude-sonnet-4-0",
  "claude-sonnet-4-20250514",
  "claude-haiku-4-5",
  "claude-haiku-4-5-20251001",
  "claude-3-7-sonnet-latest",
  "claude-3-7-sonnet-20250219",
  "claude-3-5-haiku-latest",
  "claude-3-5-haiku-20241022"
]

/**
 * Options of `awaitRequests`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AwaitOptions {
  /** Deadline, in real time even under `TestClock` (default 10 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** Count only the requests that pass (default: every request). */
  readonly filter?: ((request: RecordedRequest) => boolean) | undefined
}

/**
 * Options of `cliEnvironment`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CliEnvironmentOptions {
  /** `CLAUDE_CODE_MAX_RETRIES` (default 1: an API error ends the turn in about 0.7 s, not 3 min). */
  readonly maxRetries?: number | undefined
}

/**
 * A running fake Messages API.
 *
 * @since 0.1.0
 * @category models
 */
export interface Server {
  /** `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`. */
  readonly url: string
  /** The port the server listens on. */
  readonly port: number
  /** Every request so far, in arrival order. */
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** The `POST /v1/messages` requests so far. */
  readonly messageRequests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /**
   * Waits until at least `n` requests (passing `options.filter`) have arrived and returns all of
   * them. Dies with a message listing what did arrive when the deadline passes, so a test
   * never hangs.
   */
  readonly awaitRequests: (n: number, options?: AwaitOptions) => Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** Replaces the script; a list starts again from its first reply. */
  readonly setScript: (script: Script) => Effect.Effect<void>
  /** {@link cliEnvironment} for this server's url. */
  readonly cliEnvironment: (
    home: string,
    options?: CliEnvironmentOptions
  ) => Readonly<Record<string, string | undefined>>
}

const liveClock = Clock.Clock.defaultValue()
const withLiveClock = Effect.provideService(Clock.Clock, liveClock)
const liveSleep = (millis: number): Effect.Effect<void> => withLiveClock(Effect.sleep(Duration.millis(millis)))

interface ScriptState {
  readonly script: Script
  readonly next: number
}

const describeRequests = (requests: ReadonlyArray<RecordedRequest>): string =>
  requests.length === 0
    ? "none"
    : requests.map((r) => `#${r.index} ${r.method} ${r.path}`).join(", ")

/**
 * Starts a fake Messages API on 127.0.0.1 (a free port) answering from `script`. Closing the
 * scope interrupts the answers in progress, destroys every connection and closes the port.
 * The listening socket is unref'd: a forgotten server never keeps the process alive.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (script: Script, options?: MakeOptions) => Effect.Effect<Server, never, Scope.Scope> = Effect.fn(
  "FakeModel.make"
)(function*(script: Script, options?: MakeOptions) {
  const requestsRef = yield* SubscriptionRef.make<ReadonlyArray<RecordedRequest>>([])
  const scriptRef = yield* Ref.make<ScriptState>({ script, next: 0 })
  const idSuffix = (yield* withLiveClock(Clock.currentTimeMillis)).toString(36)
  let counter = 0
  const nextId = (prefix: string): string => `${prefix}_fake${String(++counter).padStart(6, "0")}${idSuffix}`

  const acceptedModels = options?.models === undefined ? undefined : new Set(options.models)

  const exhaustedReply = (count: number): Reply =>
    options?.whenExhausted ?? httpError(500, { message: `FakeModel: script exhausted after ${count} replies` })

  const nextReply = (request: RecordedRequest): Effect.Effect<Reply> =>
    Effect.flatMap(
      Ref.modify(scriptRef, (state): [Reply | ((request: RecordedRequest) => Reply), ScriptState] => {
        if (typeof state.script === "function") return [state.script, state]
        const reply = state.script[state.next]
        return reply === undefined
          ? [exhaustedReply(state.script.length), state]
          : [reply, { script: state.script, next: state.next + 1 }]
      }),
      (next) =>
        typeof next !== "function" ? Effect.succeed(next) : Effect.sync(() => {
          try {
            return next(request)
          } catch (error) {
            return httpError(500, { message: `FakeModel: the script function threw: ${String(error)}` })
          }
        })
    )

  const resolve = (reply: MessageReply, request: RecordedRequest): Resolved => {
    const { options: o } = reply
    const hasToolUse = reply.content.some((block) => block.type === "tool_use")
    const size = reply.content.reduce((n, block) => n + blockSize(block), 0)
    return {
      id: nextId("msg"),
      model: o.model ?? request.model ?? "claude-fake",
      content: reply.content.map((block) =>
        block.type === "tool_use"
          ? { type: "tool_use", id: block.id ?? nextId("toolu"), name: block.name, input: block.input ?? {} }
          : block
      ),
      stopReason: o.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"),
      inputTokens: o.usage?.inputTokens ?? 100,
      outputTokens: o.usage?.outputTokens ?? Math.max(1, Math.ceil(size / 4)),
      cacheCreationInputTokens: o.usage?.cacheCreationInputTokens ?? 0,
      cacheReadInputTokens: o.usage?.cacheReadInputTokens ?? 0
    }
  }

  /**
   * The whole body, or `None` when the client went away before sending all of it: such a
   * request is not recorded and takes no reply (a retry would otherwise get the next one).
   */
  const readBody = (req: Http.IncomingMessage): Effect.Effect<Option.Option<string>> =>
    Effect.callback<Option.Option<string>>((resume) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => resume(Effect.succeed(Option.some(Buffer.concat(chunks).toString("utf8")))))
      req.on("error", () => resume(Effect.succeed(Option.none())))
      req.on("close", () => {
        if (!req.complete) resume(Effect.succeed(Option.none()))
      })
    })

  /** Completes when the client goes away before the answer is complete. */
  const clientGone = (res: Http.ServerResponse): Effect.Effect<void> =>
    Effect.callback<void>((resume) => {
      const onClose = () => resume(Effect.void)
      if (res.destroyed) return resume(Effect.void)
      res.once("close", onClose)
      return Effect.sync(() => res.off("close", onClose))
    })

  const write = (res: Http.ServerResponse, event: string, data: unknown): Effect.Effect<void> =>
    Effect.sync(() => {
      if (!res.destroyed && !res.writableEnded) res.write(Sse.encode(event, data))
    })

  const sendJson = (res: Http.ServerResponse, status: number, headers: Record<string, string>, json: unknown) =>
    Effect.sync(() => {
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(JSON.stringify(json))
    })

  const streamMessage = Effect.fnUntraced(function*(res: Http.ServerResponse, m: Resolved, o: MessageOptions) {
    const chunks = o.chunks ?? 2
    const pause = (o.delayMs ?? 0) > 0 ? liveSleep(o.delayMs ?? 0) : Effect.void
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": nextId("req")
    })
    yield* write(res, "message_start", {
      type: "message_start",
      message: { ...messageJson(m), content: [], stop_reason: null, usage: startUsage(m) }
    })
    for (const [index, block] of m.content.entries()) {
      const start = block.type === "text"
        ? { type: "text", text: "" }
        : block.type === "thinking"
        ? { type: "thinking", thinking: "", signature: "" }
        : { type: "tool_use", id: block.id, name: block.name, input: {} }
      yield* write(res, "content_block_start", { type: "content_block_start", index, content_block: start })
      const deltas = block.type === "text"
        ? splitText(block.text, chunks).map((text) => ({ type: "text_delta", text }))
        : block.type === "thinking"
        ? [
          ...splitText(block.thinking, chunks).map((thinking) => ({ type: "thinking_delta", thinking })),
          { type: "signature_delta", signature: block.signature }
        ]
        : splitText(JSON.stringify(block.input), chunks).map((partial_json) => ({
          type: "input_json_delta",
          partial_json
        }))
      for (const delta of deltas) {
        yield* pause
        yield* write(res, "content_block_delta", { type: "content_block_delta", index, delta })
      }
      yield* write(res, "content_block_stop", { type: "content_block_stop", index })
    }
    yield* write(res, "message_delta", {
      type: "message_delta",
      delta: { stop_reason: m.stopReason, stop_sequence: null },
      usage: { output_tokens: m.outputTokens }
    })
    yield* write(res, "message_stop", { type: "message_stop" })
    res.end()
  })

  const streamSseError = Effect.fnUntraced(function*(res: Http.ServerResponse, m: Resolved, reply: SseErrorReply) {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": nextId("req")
    })
    yield* write(res, "message_start", {
      type: "message_start",
      message: { ...messageJson(m), content: [], stop_reason: null, usage: startUsage(m) }
    })
    if (reply.partialText !== "") {
      yield* write(res, "content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" }
      })
      yield* write(res, "content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: reply.partialText }
      })
    }
    yield* write(res, "error", { type: "error", error: { type: reply.errorType, message: reply.message } })
    res.end()
  })

  const answerMessages = Effect.fnUntraced(function*(res: Http.ServerResponse, request: RecordedRequest) {
    const reply = yield* nextReply(request)
    switch (reply._tag) {
      case "HttpError": {
        const requestId = nextId("req")
        return yield* sendJson(
          res,
          reply.status,
          { "request-id": requestId, ...reply.headers },
          errorJson(reply.errorType, reply.message, requestId)
        )
      }
      case "SseError": {
        if (!request.stream) {
          const requestId = nextId("req")
          return yield* sendJson(
            res,
            statusByErrorType[reply.errorType] ?? 500,
            { "request-id": requestId },
            errorJson(reply.errorType, reply.message, requestId)
          )
        }
        return yield* streamSseError(res, resolve(text(reply.partialText), request), reply)
      }
      case "Hang":
        return yield* Effect.never
      case "Message": {
        const m = resolve(reply, request)
        if (request.stream) return yield* streamMessage(res, m, reply.options)
        if ((reply.options.delayMs ?? 0) > 0) yield* liveSleep(reply.options.delayMs ?? 0)
        return yield* sendJson(res, 200, { "request-id": nextId("req") }, messageJson(m))
      }
    }
  })

  const handle = (req: Http.IncomingMessage, res: Http.ServerResponse): Effect.Effect<void> =>
    Effect.gen(function*() {
      const body = yield* readBody(req)
      if (Option.isNone(body)) return yield* Effect.sync(() => res.destroy())
      const text = body.value
      const receivedAtMillis = yield* withLiveClock(Clock.currentTimeMillis)
      type Recorded = [RecordedRequest, ReadonlyArray<RecordedRequest>]
      const request = yield* SubscriptionRef.modify(requestsRef, (requests): Recorded => {
        const recorded = recordRequest({
          index: requests.length,
          receivedAtMillis,
          method: req.method ?? "GET",
          path: req.url ?? "/",
          headers: req.headers,
          text
        })
        return [recorded, [...requests, recorded]]
      })
      if (
        request.endpoint !== "other" && acceptedModels !== undefined &&
        (request.model === undefined || !acceptedModels.has(request.model))
      ) {
        const requestId = nextId("req")
        return yield* sendJson(
          res,
          404,
          { "request-id": requestId },
          errorJson("not_found_error", `model: ${request.model ?? ""}`, requestId)
        )
      }
      switch (request.endpoint) {
        case "messages":
          return yield* Effect.raceFirst(answerMessages(res, request), clientGone(res))
        case "count_tokens":
          return yield* sendJson(res, 200, { "request-id": nextId("req") }, {
            input_tokens: Math.max(1, Math.ceil(Buffer.byteLength(text) / 4))
          })
        case "other": {
          const requestId = nextId("req")
          return yield* sendJson(
            res,
            404,
            { "request-id": requestId },
            errorJson("not_found_error", `FakeModel: no route for ${request.method} ${request.path}`, requestId)
          )
        }
      }
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.sync(() => {
          if (res.headersSent) {
            res.destroy()
            return
          }
          res.writeHead(500, { "content-type": "application/json" })
          res.end(JSON.stringify(errorJson("api_error", `FakeModel failed: ${String(cause)}`, nextId("req"))))
        })
      ),
      Effect.onInterrupt(() => Effect.sync(() => res.destroy()))
    )

  // Created before the server, so released after it: connections are gone before the
  // in-flight answers are interrupted.
  const runFork = yield* FiberSet.makeRuntime<never, void, never>()
  const sockets = new Set<Net.Socket>()

  const server = yield* Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((req, res) => {
        runFork(handle(req, res))
      })
      server.on("connection", (socket) => {
        sockets.add(socket)
        socket.once("close", () => sockets.delete(socket))
      })
      server.once("error", (error) => resume(Effect.die(error)))
      server.listen(0, "127.0.0.1", () => {
        server.unref()
        resume(Effect.succeed(server))
      })
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
        sockets.clear()
      })
  )

  const address = server.address() as Net.AddressInfo
  const url = `http://127.0.0.1:${address.port}`

  const requests = SubscriptionRef.get(requestsRef)

  const awaitRequests = (n: number, awaitOptions?: AwaitOptions): Effect.Effect<ReadonlyArray<RecordedRequest>> => {
    const filter = awaitOptions?.filter ?? (() => true)
    const timeout = awaitOptions?.timeout ?? Duration.seconds(10)
    return SubscriptionRef.changes(requestsRef).pipe(
      Stream.map((all) => all.filter(filter)),
      Stream.filter((matching) => matching.length >= n),
      Stream.runHead,
      Effect.timeoutOption(timeout),
      withLiveClock,
      Effect.map(Option.flatten),
      Effect.flatMap(Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          Effect.flatMap(requests, (all) =>
            Effect.die(
              new Error(
                `FakeModel.awaitRequests: expected ${n} matching request(s) within ${
                  Duration.format(Duration.fromInputUnsafe(timeout))
                }, got ${all.filter(filter).length} (all requests: ${describeRequests(all)})`
              )
            ))
      }))
    )
  }

  return {
    url,
    port: address.port,
    requests,
    messageRequests: Effect.map(requests, (all) => all.filter((r) => r.endpoint === "messages")),
    awaitRequests,
    setScript: (next: Script) => Ref.set(scriptRef, { script: next, next: 0 }),
    cliEnvironment: (home: string, envOptions?: CliEnvironmentOptions) => cliEnvironment(url, home, envOptions)
  } satisfies Server
})

/** The loopback hosts, which no proxy is asked for (`NO_PROXY`). */
const loopback = "127.0.0.1,localhost,::1"

/**
 * The environment that points the real CLI at a fake model, to merge over `process.env`:
 * `HOME` (the caller creates it, fresh per test), `IS_SANDBOX=1` (needed to run as root with
 * bypassPermissions), `ANTHROPIC_API_KEY=sk-test`, `ANTHROPIC_BASE_URL`,
 * `CLAUDE_CODE_MAX_RETRIES` (default 1), `DISABLE_TELEMETRY`,
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, `DISABLE_AUTOUPDATER`, and
 * `NO_PROXY=127.0.0.1,localhost,::1` (also lower-case), so that a proxy the host's environment
 * names is not asked for the fake (nor for a test's own servers on loopback).
 *
 * **Details**
 *
 * Variables that would send the CLI elsewhere or make it a nested session are `undefined`, which
 * means "remove": `CLAUDECODE`, `CLAUDE_CONFIG_DIR`, `ANTHROPIC_AUTH_TOKEN`,
 * `CLAUDE_CODE_OAUTH_TOKEN`, `ANTHROPIC_UNIX_SOCKET`, and every provider switch of the CLI
 * 2.1.332 (`CLAUDE_CODE_USE_BEDROCK`, `_VERTEX`, `_FOUNDRY`, `_ANTHROPIC_AWS`,
 * `_ANTHROPIC_GOOGLE_CLOUD`, `_MANTLE`, `_GATEWAY`), so a shell set up for another provider
 * still reaches the fake. Node's
 * `child_process` and `effect/process` (with `extendEnv: true`) both drop `undefined` values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cliEnvironment = (
  url: string,
  home: string,
  options?: CliEnvironmentOptions
): Readonly<Record<string, string | undefined>> => ({
  HOME: home,
  IS_SANDBOX: "1",
  ANTHROPIC_API_KEY: "sk-test",
  ANTHROPIC_BASE_URL: url,
  CLAUDE_CODE_MAX_RETRIES: String(options?.maxRetries ?? 1),
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  // The fake is on loopback: a proxy of the host's (`HTTPS_PROXY`) cannot reach it.
  NO_PROXY: loopback,
  no_proxy: loopback,
  CLAUDECODE: undefined,
  CLAUDE_CONFIG_DIR: undefined,
  ANTHROPIC_AUTH_TOKEN: undefined,
  CLAUDE_CODE_OAUTH_TOKEN: undefined,
  ANTHROPIC_UNIX_SOCKET: undefined,
  CLAUDE_CODE_USE_BEDROCK: undefined,
  CLAUDE_CODE_USE_VERTEX: undefined,
  CLAUDE_CODE_USE_FOUNDRY: undefined,
  CLAUDE_CODE_USE_ANTHROPIC_AWS: undefined,
  CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD: undefined,
  CLAUDE_CODE_USE_MANTLE: undefined,
  CLAUDE_CODE_USE_GATEWAY: undefined
})

/**
 * The fake model as a service, for tests that build their program from layers.
 *
 * @since 0.1.0
 * @category services
 */
export class FakeModel extends Context.Service<FakeModel, Server>()("effect-claude-code/testing/FakeModel") {}

/**
 * A layer that starts a fake model for the layer's lifetime.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (script: Script, options?: MakeOptions): Layer.Layer<FakeModel> =>
  Layer.effect(FakeModel, make(script, options))
