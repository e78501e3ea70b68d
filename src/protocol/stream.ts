/**
 * Raw Anthropic Messages API stream events, as the CLI forwards them in `stream_event` lines
 * (with `--include-partial-messages`), and the `stream_event` envelope itself.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ApiAssistantMessage, ContentBlock, MessageDeltaUsage } from "./content.ts"
import { OpenUnion, Rest, StringOtherThan } from "./internal.ts"

const opt = Schema.optionalKey

// ---------------------------------------------------------------------------------------------
// Deltas
// ---------------------------------------------------------------------------------------------

/**
 * `{"type":"text_delta","text":…}`.
 *
 * @since 0.1.0
 * @category deltas
 */
export const TextDelta = Schema.Struct({
  type: Schema.Literal("text_delta"),
  text: Schema.String
})

/**
 * @since 0.1.0
 * @category deltas
 */
export interface TextDelta extends Schema.Schema.Type<typeof TextDelta> {}

/**
 * `{"type":"input_json_delta","partial_json":…}`: a piece of a `tool_use` block's input JSON.
 *
 * @since 0.1.0
 * @category deltas
 */
export const InputJsonDelta = Schema.Struct({
  type: Schema.Literal("input_json_delta"),
  partial_json: Schema.String
})

/**
 * @since 0.1.0
 * @category deltas
 */
export interface InputJsonDelta extends Schema.Schema.Type<typeof InputJsonDelta> {}

/**
 * `{"type":"thinking_delta","thinking":…}`.
 *
 * @since 0.1.0
 * @category deltas
 */
export const ThinkingDelta = Schema.Struct({
  type: Schema.Literal("thinking_delta"),
  thinking: Schema.String
})

/**
 * @since 0.1.0
 * @category deltas
 */
export interface ThinkingDelta extends Schema.Schema.Type<typeof ThinkingDelta> {}

/**
 * `{"type":"signature_delta","signature":…}`.
 *
 * @since 0.1.0
 * @category deltas
 */
export const SignatureDelta = Schema.Struct({
  type: Schema.Literal("signature_delta"),
  signature: Schema.String
})

/**
 * @since 0.1.0
 * @category deltas
 */
export interface SignatureDelta extends Schema.Schema.Type<typeof SignatureDelta> {}

/**
 * The delta types with a schema of their own.
 *
 * @since 0.1.0
 * @category deltas
 */
export const knownDeltaTypes = ["text_delta", "input_json_delta", "thinking_delta", "signature_delta"] as const

/**
 * A delta of another type (`citations_delta`, …), kept as is. Its `type` is never a known one,
 * and is typed so (`Protocol.UnknownType`): `delta.type === "text_delta"` narrows a
 * {@link ContentBlockDeltaPayload} to {@link TextDelta}.
 *
 * @since 0.1.0
 * @category deltas
 */
export const UnknownDelta = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(knownDeltaTypes, "delta type") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category deltas
 */
export interface UnknownDelta extends Schema.Schema.Type<typeof UnknownDelta> {}

/**
 * @since 0.1.0
 * @category deltas
 */
export const ContentBlockDeltaPayload = OpenUnion([TextDelta, InputJsonDelta, ThinkingDelta, SignatureDelta], UnknownDelta)

/**
 * @since 0.1.0
 * @category deltas
 */
export type ContentBlockDeltaPayload = typeof ContentBlockDeltaPayload.Type

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/**
 * `message_start`: the API message with empty `content`.
 *
 * @since 0.1.0
 * @category events
 */
export const MessageStartEvent = Schema.Struct({
  type: Schema.Literal("message_start"),
  message: ApiAssistantMessage
})

/**
 * @since 0.1.0
 * @category events
 */
export interface MessageStartEvent extends Schema.Schema.Type<typeof MessageStartEvent> {}

/**
 * `content_block_start` with the block's initial state (`text: ""`, `input: {}`, …).
 *
 * @since 0.1.0
 * @category events
 */
export const ContentBlockStartEvent = Schema.Struct({
  type: Schema.Literal("content_block_start"),
  index: Schema.Number,
  content_block: ContentBlock
})

/**
 * @since 0.1.0
 * @category events
 */
export interface ContentBlockStartEvent extends Schema.Schema.Type<typeof ContentBlockStartEvent> {}

/**
 * `content_block_delta`.
 *
 * @since 0.1.0
 * @category events
 */
export const ContentBlockDeltaEvent = Schema.Struct({
  type: Schema.Literal("content_block_delta"),
  index: Schema.Number,
  delta: ContentBlockDeltaPayload
})

/**
 * @since 0.1.0
 * @category events
 */
export interface ContentBlockDeltaEvent extends Schema.Schema.Type<typeof ContentBlockDeltaEvent> {}

/**
 * `content_block_stop`.
 *
 * @since 0.1.0
 * @category events
 */
export const ContentBlockStopEvent = Schema.Struct({
  type: Schema.Literal("content_block_stop"),
  index: Schema.Number
})

/**
 * @since 0.1.0
 * @category events
 */
export interface ContentBlockStopEvent extends Schema.Schema.Type<typeof ContentBlockStopEvent> {}

/**
 * `message_delta`: the final `stop_reason` and cumulative usage. After an interrupt the CLI
 * synthesizes one with `stop_reason: null` and extra keys (`container`, `stop_details`,
 * `context_management`).
 *
 * @since 0.1.0
 * @category events
 */
export const MessageDeltaEvent = Schema.Struct({
  type: Schema.Literal("message_delta"),
  delta: Schema.Struct({
    stop_reason: Schema.NullOr(Schema.String),
    stop_sequence: opt(Schema.NullOr(Schema.String)),
    container: opt(Schema.Unknown),
    stop_details: opt(Schema.Unknown)
  }),
  usage: MessageDeltaUsage,
  context_management: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category events
 */
export interface MessageDeltaEvent extends Schema.Schema.Type<typeof MessageDeltaEvent> {}

/**
 * `message_stop`.
 *
 * @since 0.1.0
 * @category events
 */
export const MessageStopEvent = Schema.Struct({
  type: Schema.Literal("message_stop")
})

/**
 * @since 0.1.0
 * @category events
 */
export interface MessageStopEvent extends Schema.Schema.Type<typeof MessageStopEvent> {}

/**
 * `ping` (not forwarded by CLI 2.1.332 in any recorded run; modelled because it is trivial).
 *
 * @since 0.1.0
 * @category events
 */
export const PingEvent = Schema.Struct({
  type: Schema.Literal("ping")
})

/**
 * @since 0.1.0
 * @category events
 */
export interface PingEvent extends Schema.Schema.Type<typeof PingEvent> {}

/**
 * The stream event types with a schema of their own.
 *
 * @since 0.1.0
 * @category events
 */
export const knownStreamEventTypes = [
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping"
] as const

/**
 * A stream event of another type (`error`, …), kept as is. Its `type` is never a known one, and
 * is typed so (`Protocol.UnknownType`): `event.type === "content_block_delta"` narrows an
 * {@link ApiStreamEvent} to {@link ContentBlockDeltaEvent}.
 *
 * @since 0.1.0
 * @category events
 */
export const UnknownApiStreamEvent = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(knownStreamEventTypes, "stream event type") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category events
 */
export interface UnknownApiStreamEvent extends Schema.Schema.Type<typeof UnknownApiStreamEvent> {}

/**
 * One raw API stream event.
 *
 * @since 0.1.0
 * @category events
 */
export const ApiStreamEvent = OpenUnion([
  MessageStartEvent,
  ContentBlockStartEvent,
  ContentBlockDeltaEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStopEvent,
  PingEvent
], UnknownApiStreamEvent)

/**
 * @since 0.1.0
 * @category events
 */
export type ApiStreamEvent = typeof ApiStreamEvent.Type

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

/**
 * `message_stop.abandoned_blocks` (envelope field): after an interrupt or an SSE error the CLI
 * closes the stream itself and names the first block that never completed.
 *
 * @since 0.1.0
 * @category stream_event
 */
export const AbandonedBlocks = Schema.Struct({
  api_message_id: Schema.String,
  from_block_index: Schema.Number
})

/**
 * @since 0.1.0
 * @category stream_event
 */
export interface AbandonedBlocks extends Schema.Schema.Type<typeof AbandonedBlocks> {}

/**
 * The fields of a `stream_event` line besides `event`. Every line has `session_id`, `uuid`,
 * `parent_tool_use_id` (non-null inside subagents) and, in practice, `api_message_id`;
 * `message_start` adds `ttft_ms`, `thinking_display` and, when the host put a `uuid` on its user
 * message, `user_message_uuid(s)` and `owed_rows`; a synthesized `message_stop` adds
 * `abandoned_blocks`.
 *
 * Invariant: the hand-written fast path in `Protocol.decodeMessage` for text deltas checks
 * exactly these fields; change both together (a test compares them).
 *
 * @since 0.1.0
 * @category stream_event
 */
export const streamEventEnvelopeFields = {
  type: Schema.Literal("stream_event"),
  session_id: Schema.String,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  uuid: Schema.String,
  api_message_id: opt(Schema.String),
  ttft_ms: opt(Schema.Number),
  thinking_display: opt(Schema.String),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Schema.Array(Schema.String)),
  owed_rows: opt(Schema.Array(Schema.Unknown)),
  abandoned_blocks: opt(AbandonedBlocks),
  resume_reason: opt(Schema.String)
}

/**
 * A `stream_event` line: one raw API stream event.
 *
 * @since 0.1.0
 * @category stream_event
 */
export const StreamEvent = Schema.Struct({
  ...streamEventEnvelopeFields,
  event: ApiStreamEvent
})

/**
 * @since 0.1.0
 * @category stream_event
 */
export interface StreamEvent extends Schema.Schema.Type<typeof StreamEvent> {}

/**
 * A `stream_event` line carrying a `content_block_delta` with a `text_delta`: the hottest line
 * of the protocol. A specialisation of {@link StreamEvent} (every value of this schema is a
 * `StreamEvent`).
 *
 * @since 0.1.0
 * @category stream_event
 */
export const TextDeltaStreamEvent = Schema.Struct({
  ...streamEventEnvelopeFields,
  event: Schema.Struct({
    type: Schema.Literal("content_block_delta"),
    index: Schema.Number,
    delta: TextDelta
  })
})

/**
 * @since 0.1.0
 * @category stream_event
 */
export interface TextDeltaStreamEvent extends Schema.Schema.Type<typeof TextDeltaStreamEvent> {}
