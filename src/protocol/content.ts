/**
 * Anthropic Messages API content blocks and message objects, as the CLI forwards them inside
 * `assistant`, `user` and `stream_event` lines.
 *
 * Every schema here is structural (its `Encoded` type is its `Type`, no transformations), so a
 * line that passes its guard is its own decoded value, extra fields included.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject, OpenUnion, Rest, StringOtherThan } from "./internal.ts"

const opt = Schema.optionalKey

// ---------------------------------------------------------------------------------------------
// Content blocks
// ---------------------------------------------------------------------------------------------

/**
 * `{"type":"text","text":…}`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: opt(Schema.NullOr(Schema.Array(Schema.Unknown)))
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * `{"type":"thinking","thinking":…,"signature":…}` (empty strings in `content_block_start`).
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface ThinkingBlock extends Schema.Schema.Type<typeof ThinkingBlock> {}

/**
 * `{"type":"redacted_thinking","data":…}`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const RedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface RedactedThinkingBlock extends Schema.Schema.Type<typeof RedactedThinkingBlock> {}

/**
 * `{"type":"tool_use","id":…,"name":…,"input":{…}}`; `input` is `{}` in `content_block_start`.
 * MCP tools are named `mcp__<server>__<tool>`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: JsonObject
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface ToolUseBlock extends Schema.Schema.Type<typeof ToolUseBlock> {}

/**
 * A base64 image source. `media_type` is one of `image/png`, `image/jpeg`, `image/gif`,
 * `image/webp` for the API; any string is accepted here.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const Base64ImageSource = Schema.Struct({
  type: Schema.Literal("base64"),
  media_type: Schema.String,
  data: Schema.String
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface Base64ImageSource extends Schema.Schema.Type<typeof Base64ImageSource> {}

/**
 * A URL image source.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const UrlImageSource = Schema.Struct({
  type: Schema.Literal("url"),
  url: Schema.String
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface UrlImageSource extends Schema.Schema.Type<typeof UrlImageSource> {}

/**
 * Any other image source (`file`, …), kept as is. Its `type` is an `UnknownType`, never `base64`
 * or `url`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const UnknownImageSource = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(["base64", "url"], "image source type") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface UnknownImageSource extends Schema.Schema.Type<typeof UnknownImageSource> {}

/**
 * @since 0.1.0
 * @category content blocks
 */
export const ImageSource = OpenUnion([Base64ImageSource, UrlImageSource], UnknownImageSource)

/**
 * @since 0.1.0
 * @category content blocks
 */
export type ImageSource = typeof ImageSource.Type

/**
 * `{"type":"image","source":{…}}`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: ImageSource
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface ImageBlock extends Schema.Schema.Type<typeof ImageBlock> {}

/**
 * `{"type":"tool_reference","tool_name":…}`: what `ToolSearch` returns for a deferred tool.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ToolReferenceBlock = Schema.Struct({
  type: Schema.Literal("tool_reference"),
  tool_name: Schema.String
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface ToolReferenceBlock extends Schema.Schema.Type<typeof ToolReferenceBlock> {}

/**
 * The block types with a schema of their own. A block whose `type` is one of these must match
 * that schema; any other `type` is an {@link UnknownContentBlock}.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const knownContentBlockTypes = [
  "text",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "image",
  "tool_reference"
] as const

/**
 * A block of a type this library does not model (`document`, `server_tool_use`,
 * `web_search_tool_result`, …), kept as it came. Its `type` is never a known block type, and is
 * typed so (`Protocol.UnknownType`): `block.type === "text"` narrows a {@link ContentBlock} to
 * {@link TextBlock}, and a `switch` on `block.type` reaches this member in `default` only.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const UnknownContentBlock = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(knownContentBlockTypes, "content block type") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface UnknownContentBlock extends Schema.Schema.Type<typeof UnknownContentBlock> {}

/**
 * What a `tool_result` block's `content` array may hold.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ToolResultContentBlock = OpenUnion([TextBlock, ImageBlock, ToolReferenceBlock], UnknownContentBlock)

/**
 * @since 0.1.0
 * @category content blocks
 */
export type ToolResultContentBlock = typeof ToolResultContentBlock.Type

/**
 * `{"type":"tool_result","tool_use_id":…,"content":string|[…],"is_error":…}`.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: opt(Schema.Union([Schema.String, Schema.Array(ToolResultContentBlock)])),
  is_error: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category content blocks
 */
export interface ToolResultBlock extends Schema.Schema.Type<typeof ToolResultBlock> {}

/**
 * Any content block of an `assistant` or `user` message.
 *
 * @since 0.1.0
 * @category content blocks
 */
export const ContentBlock = OpenUnion([
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  ImageBlock,
  ToolReferenceBlock
], UnknownContentBlock)

/**
 * @since 0.1.0
 * @category content blocks
 */
export type ContentBlock = typeof ContentBlock.Type

// ---------------------------------------------------------------------------------------------
// Usage
// ---------------------------------------------------------------------------------------------

/**
 * `usage.cache_creation`.
 *
 * @since 0.1.0
 * @category usage
 */
export const CacheCreation = Schema.Struct({
  ephemeral_1h_input_tokens: Schema.Number,
  ephemeral_5m_input_tokens: Schema.Number
})

/**
 * @since 0.1.0
 * @category usage
 */
export interface CacheCreation extends Schema.Schema.Type<typeof CacheCreation> {}

/**
 * `usage.server_tool_use`.
 *
 * @since 0.1.0
 * @category usage
 */
export const ServerToolUse = Schema.Struct({
  web_search_requests: opt(Schema.Number),
  web_fetch_requests: opt(Schema.Number)
})

/**
 * @since 0.1.0
 * @category usage
 */
export interface ServerToolUse extends Schema.Schema.Type<typeof ServerToolUse> {}

/**
 * `usage.output_tokens_details`.
 *
 * @since 0.1.0
 * @category usage
 */
export const OutputTokensDetails = Schema.Struct({
  thinking_tokens: opt(Schema.Number)
})

/**
 * @since 0.1.0
 * @category usage
 */
export interface OutputTokensDetails extends Schema.Schema.Type<typeof OutputTokensDetails> {}

const usageFields = {
  cache_creation_input_tokens: opt(Schema.NullOr(Schema.Number)),
  cache_read_input_tokens: opt(Schema.NullOr(Schema.Number)),
  cache_creation: opt(Schema.NullOr(CacheCreation)),
  server_tool_use: opt(Schema.NullOr(ServerToolUse)),
  service_tier: opt(Schema.NullOr(Schema.String)),
  output_tokens_details: opt(Schema.NullOr(OutputTokensDetails)),
  inference_geo: opt(Schema.NullOr(Schema.String)),
  iterations: opt(Schema.NullOr(Schema.Array(Schema.Unknown))),
  speed: opt(Schema.NullOr(Schema.String)),
  fallback_credit: opt(Schema.Unknown)
}

/**
 * API token usage (`message.usage`, `result.usage`). Only `input_tokens` and `output_tokens` are
 * always there.
 *
 * @since 0.1.0
 * @category usage
 */
export const Usage = Schema.Struct({
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  ...usageFields
})

/**
 * @since 0.1.0
 * @category usage
 */
export interface Usage extends Schema.Schema.Type<typeof Usage> {}

/**
 * The usage of a `message_delta` stream event: cumulative `output_tokens`, the rest optional.
 *
 * @since 0.1.0
 * @category usage
 */
export const MessageDeltaUsage = Schema.Struct({
  output_tokens: Schema.Number,
  input_tokens: opt(Schema.NullOr(Schema.Number)),
  ...usageFields
})

/**
 * @since 0.1.0
 * @category usage
 */
export interface MessageDeltaUsage extends Schema.Schema.Type<typeof MessageDeltaUsage> {}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/**
 * The API's assistant `Message` object (inside `assistant` lines and `message_start` events).
 * On `assistant` lines `content` holds one block, `stop_reason` is `null` and `usage` is the
 * `message_start` usage: the final usage is in `message_delta` and `result`.
 * `model` is `"<synthetic>"` on the CLI's synthetic API-error messages.
 *
 * @since 0.1.0
 * @category messages
 */
export const ApiAssistantMessage = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("message"),
  role: Schema.Literal("assistant"),
  model: Schema.String,
  content: Schema.Array(ContentBlock),
  stop_reason: Schema.NullOr(Schema.String),
  stop_sequence: opt(Schema.NullOr(Schema.String)),
  usage: Usage,
  context_management: opt(Schema.Unknown),
  container: opt(Schema.Unknown),
  diagnostics: opt(Schema.Unknown),
  stop_details: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category messages
 */
export interface ApiAssistantMessage extends Schema.Schema.Type<typeof ApiAssistantMessage> {}

/**
 * The API's user `MessageParam`: `content` is a string or an array of blocks.
 *
 * @since 0.1.0
 * @category messages
 */
export const ApiUserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Union([Schema.String, Schema.Array(ContentBlock)])
})

/**
 * @since 0.1.0
 * @category messages
 */
export interface ApiUserMessage extends Schema.Schema.Type<typeof ApiUserMessage> {}
