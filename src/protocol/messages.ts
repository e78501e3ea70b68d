/**
 * The top-level lines: everything the CLI writes on stdout ({@link Message}) and everything the
 * host writes on stdin ({@link StdinMessage}).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ApiAssistantMessage, ApiUserMessage, ContentBlock, Usage } from "./content.ts"
import { ControlCancelRequest, ControlResponse, IncomingControlRequest, OutgoingControlRequest } from "./control.ts"
import { JsonObject, openLiterals } from "./internal.ts"
import { StreamEvent } from "./stream.ts"
import { SystemMessage } from "./system.ts"

const opt = Schema.optionalKey

// ---------------------------------------------------------------------------------------------
// assistant / user
// ---------------------------------------------------------------------------------------------

/**
 * `tool_use_meta` entry of an `assistant` line that calls an MCP tool.
 *
 * @since 0.1.0
 * @category assistant
 */
export const ToolUseMeta = Schema.Struct({
  id: Schema.String,
  display_name: opt(Schema.String),
  server_display_name: opt(Schema.String),
  tool_name: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category assistant
 */
export interface ToolUseMeta extends Schema.Schema.Type<typeof ToolUseMeta> {}

/**
 * An `assistant` line: one per completed content block (several lines share `message.id`),
 * written just before that block's `content_block_stop`. `parent_tool_use_id`, `agent_id`,
 * `subagent_type`, `task_description` are set for subagent output. `aborted: true` marks a block
 * cut by an interrupt. A synthetic API-error message has `message.model: "<synthetic>"`,
 * `is_api_error_message: true`, `error` (`authentication_failed`, `server_error`, `rate_limit`,
 * …), `api_error_status`, `api_error_type`. A local slash command's output (`/cost`, `/status`)
 * is of model `<synthetic>` too, with `local_command_source` (and `local_command_run` or
 * `local_command_outcome`), fields kept as the CLI writes them.
 *
 * @since 0.1.0
 * @category assistant
 */
export const AssistantMessage = Schema.Struct({
  type: Schema.Literal("assistant"),
  message: ApiAssistantMessage,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  session_id: Schema.String,
  uuid: Schema.String,
  timestamp: opt(Schema.String),
  request_id: opt(Schema.String),
  error: opt(Schema.String),
  is_api_error_message: opt(Schema.Boolean),
  api_error_status: opt(Schema.NullOr(Schema.Number)),
  api_error_type: opt(Schema.String),
  aborted: opt(Schema.Boolean),
  agent_id: opt(Schema.String),
  subagent_type: opt(Schema.String),
  task_description: opt(Schema.String),
  tool_use_meta: opt(Schema.Array(ToolUseMeta)),
  thinking_duration_ms: opt(Schema.Number),
  thinking_display: opt(Schema.String),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Schema.Array(Schema.String)),
  resume_reason: opt(Schema.String),
  supersedes: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category assistant
 */
export interface AssistantMessage extends Schema.Schema.Type<typeof AssistantMessage> {}

/**
 * How a tool call was permitted (`decision` `accept`/`reject`; `source` `config`, `hook`,
 * `user_temporary`, `user_reject`, …).
 *
 * @since 0.1.0
 * @category user
 */
export const ToolResultMeta = Schema.Struct({
  id: Schema.String,
  permission_decision: opt(Schema.Struct({
    decision: Schema.String,
    source: Schema.String,
    reason_type: opt(Schema.String)
  })),
  non_execution_kind: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category user
 */
export interface ToolResultMeta extends Schema.Schema.Type<typeof ToolResultMeta> {}

/**
 * The origin of an automatic turn, e.g.
 * `{"kind":"task-notification","producer":"session-task","runId":…}` after a background
 * subagent finished. Other kinds: `human`, `channel`, `peer`, `coordinator`, ….
 *
 * @since 0.1.0
 * @category result
 */
export const MessageOrigin = Schema.Struct({
  kind: Schema.String,
  producer: opt(Schema.String),
  runId: opt(Schema.String),
  subkind: opt(Schema.String),
  server: opt(Schema.String),
  from: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category result
 */
export interface MessageOrigin extends Schema.Schema.Type<typeof MessageOrigin> {}

/**
 * A `user` line from the CLI: a tool result (one line per result, with the tool's structured
 * output in `tool_use_result`), an interrupt marker (`[Request interrupted by user…]`), a
 * synthetic hook feedback (`isSynthetic: true`), a subagent prompt, or a replay of the host's own
 * message (`isReplay: true`, with `--replay-user-messages`).
 *
 * @since 0.1.0
 * @category user
 */
export const UserMessage = Schema.Struct({
  type: Schema.Literal("user"),
  message: ApiUserMessage,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  session_id: opt(Schema.String),
  uuid: opt(Schema.String),
  timestamp: opt(Schema.String),
  tool_use_result: opt(Schema.Unknown),
  tool_result_meta: opt(Schema.Array(ToolResultMeta)),
  isSynthetic: opt(Schema.Boolean),
  isReplay: opt(Schema.Boolean),
  agent_id: opt(Schema.String),
  subagent_type: opt(Schema.String),
  task_description: opt(Schema.String),
  priority: opt(Schema.String),
  origin: opt(MessageOrigin)
})

/**
 * @since 0.1.0
 * @category user
 */
export interface UserMessage extends Schema.Schema.Type<typeof UserMessage> {}

// ---------------------------------------------------------------------------------------------
// result
// ---------------------------------------------------------------------------------------------

/**
 * Per-model usage and cost (`result.modelUsage`, cumulative over the process).
 *
 * @since 0.1.0
 * @category result
 */
export const ModelUsage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  cacheReadInputTokens: Schema.Number,
  cacheCreationInputTokens: Schema.Number,
  webSearchRequests: Schema.Number,
  costUSD: Schema.Number,
  contextWindow: Schema.Number,
  maxOutputTokens: opt(Schema.Number),
  thinkingTokens: opt(Schema.Number),
  cacheCreationEphemeral5mInputTokens: opt(Schema.Number),
  cacheCreationEphemeral1hInputTokens: opt(Schema.Number),
  canonicalModel: opt(Schema.String),
  provider: opt(Schema.String),
  /** `list`, `managed`, `unknown`. */
  costBasis: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category result
 */
export interface ModelUsage extends Schema.Schema.Type<typeof ModelUsage> {}

/**
 * A denied tool call, listed in `result.permission_denials`.
 *
 * @since 0.1.0
 * @category result
 */
export const PermissionDenial = Schema.Struct({
  tool_name: Schema.String,
  tool_use_id: Schema.String,
  tool_input: JsonObject
})

/**
 * @since 0.1.0
 * @category result
 */
export interface PermissionDenial extends Schema.Schema.Type<typeof PermissionDenial> {}

/**
 * The known `result` subtypes; {@link ResultMessage} accepts any string.
 *
 * @since 0.1.0
 * @category result
 */
export const knownResultSubtypes = [
  "success",
  "error_during_execution",
  "error_max_turns",
  "error_max_budget_usd",
  "error_max_structured_output_retries"
] as const

/**
 * The known `terminal_reason` values; {@link ResultMessage} accepts any string.
 *
 * @since 0.1.0
 * @category result
 */
export const knownTerminalReasons = [
  "completed",
  "aborted_streaming",
  "aborted_tools",
  "api_error",
  "hook_stopped",
  "stop_hook_prevented",
  "max_turns",
  "prompt_too_long",
  "blocking_limit",
  "rapid_refill_breaker",
  "image_error",
  "model_error",
  "malformed_tool_use_exhausted",
  "tool_deferred",
  "background_requested",
  "budget_exhausted",
  "structured_output_retry_exhausted",
  "tool_deferred_unavailable",
  "turn_setup_failed"
] as const

/**
 * A `result` line: the end of a turn.
 *
 * - `subtype` is `success` (also for API errors, with `is_error: true`,
 *   `terminal_reason: "api_error"`, `api_error_status`) or an error subtype
 *   (`error_during_execution` after an interrupt or an unknown `--resume` id, with `errors`);
 *   unknown subtypes are accepted (see {@link knownResultSubtypes}).
 * - `result` (the last assistant text) is there on `success`; `errors` on error subtypes.
 * - `terminal_reason` (see {@link knownTerminalReasons}) is absent for `/compact`, a blocked
 *   prompt, an unknown `--resume` id.
 * - `modelUsage` and `total_cost_usd` are cumulative over the process; `usage` is the turn's.
 * - `origin` is set on automatic turns (a finished background task).
 *
 * @since 0.1.0
 * @category result
 */
export const ResultMessage = Schema.Struct({
  type: Schema.Literal("result"),
  subtype: Schema.String,
  is_error: Schema.Boolean,
  session_id: Schema.String,
  uuid: Schema.String,
  num_turns: Schema.Number,
  duration_ms: Schema.Number,
  duration_api_ms: Schema.Number,
  stop_reason: opt(Schema.NullOr(Schema.String)),
  total_cost_usd: Schema.Number,
  usage: Usage,
  modelUsage: Schema.Record(Schema.String, ModelUsage),
  permission_denials: Schema.Array(PermissionDenial),
  result: opt(Schema.String),
  errors: opt(Schema.Array(Schema.String)),
  terminal_reason: opt(Schema.String),
  api_error_status: opt(Schema.NullOr(Schema.Number)),
  api_error_type: opt(Schema.String),
  /** What the CLI gave up on when there is no HTTP error: `max_output_tokens` (CLI 2.1.332). */
  api_error: opt(Schema.String),
  ttft_ms: opt(Schema.Number),
  ttft_stream_ms: opt(Schema.Number),
  time_to_request_ms: opt(Schema.Number),
  first_content_frame_ms: opt(Schema.Number),
  request_sent_wall_ms: opt(Schema.Number),
  first_request_input_tokens: opt(Schema.Number),
  first_request_cache_read_input_tokens: opt(Schema.Number),
  fast_mode_state: opt(Schema.String),
  fast_mode_disabled_reason: opt(Schema.String),
  subagent_stats: opt(JsonObject),
  safety_stops: opt(Schema.Number),
  begun_message_ids: opt(Schema.Array(Schema.String)),
  queued_turn_count: opt(Schema.Number),
  result_index: opt(Schema.Number),
  model_usage_since_last_result: opt(Schema.Record(Schema.String, ModelUsage)),
  origin: opt(MessageOrigin),
  local_command: opt(Schema.String),
  user_message_uuid: opt(Schema.String),
  user_message_uuids: opt(Schema.Array(Schema.String)),
  structured_output: opt(Schema.Unknown),
  resume_reason: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category result
 */
export interface ResultMessage extends Schema.Schema.Type<typeof ResultMessage> {}

// ---------------------------------------------------------------------------------------------
// Other stdout lines
// ---------------------------------------------------------------------------------------------

/**
 * `command_lifecycle`: the progress of a host user message that carried a `uuid`
 * (`state` `queued` → `started` → `completed`; also `cancelled`, and `discarded` or `refused` of
 * one that will not run).
 *
 * @since 0.1.0
 * @category other
 */
export const CommandLifecycle = Schema.Struct({
  type: Schema.Literal("command_lifecycle"),
  command_uuid: Schema.String,
  state: Schema.String,
  uuid: Schema.String,
  session_id: Schema.String
})

/**
 * @since 0.1.0
 * @category other
 */
export interface CommandLifecycle extends Schema.Schema.Type<typeof CommandLifecycle> {}

/**
 * `keep_alive` (either direction): a heartbeat, to be ignored.
 *
 * @since 0.1.0
 * @category other
 */
export const KeepAlive = Schema.Struct({
  type: Schema.Literal("keep_alive"),
  startup_mark: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category other
 */
export interface KeepAlive extends Schema.Schema.Type<typeof KeepAlive> {}

/**
 * `tool_progress`: a tool (or a hook, `tool_name` its event) is still running after
 * `elapsed_time_seconds`; `heartbeat: true` for the periodic ones. `subagent_retry` while a
 * subagent's API call is retried.
 *
 * @since 0.2.0
 * @category other
 */
export const ToolProgress = Schema.Struct({
  type: Schema.Literal("tool_progress"),
  tool_use_id: Schema.String,
  tool_name: Schema.String,
  parent_tool_use_id: Schema.NullOr(Schema.String),
  elapsed_time_seconds: Schema.Number,
  task_id: opt(Schema.String),
  uuid: Schema.String,
  session_id: Schema.String,
  heartbeat: opt(Schema.Boolean),
  subagent_type: opt(Schema.String),
  subagent_retry: opt(Schema.Struct({
    agent_id: Schema.String,
    attempt: Schema.Number,
    max_retries: Schema.Number,
    retry_delay_ms: Schema.Number,
    error_status: Schema.NullOr(Schema.Number),
    error_category: Schema.String
  }))
})

/**
 * @since 0.2.0
 * @category other
 */
export interface ToolProgress extends Schema.Schema.Type<typeof ToolProgress> {}

/**
 * `tool_use_summary`: a one-line summary of the tool calls listed in `preceding_tool_use_ids`.
 *
 * @since 0.2.0
 * @category other
 */
export const ToolUseSummary = Schema.Struct({
  type: Schema.Literal("tool_use_summary"),
  summary: Schema.String,
  preceding_tool_use_ids: Schema.Array(Schema.String),
  uuid: Schema.String,
  session_id: Schema.String
})

/**
 * @since 0.2.0
 * @category other
 */
export interface ToolUseSummary extends Schema.Schema.Type<typeof ToolUseSummary> {}

/**
 * `auth_status`: the progress of a login the CLI runs (`output` lines to show, `error`).
 *
 * @since 0.2.0
 * @category other
 */
export const AuthStatus = Schema.Struct({
  type: Schema.Literal("auth_status"),
  isAuthenticating: Schema.Boolean,
  output: Schema.Array(Schema.String),
  error: opt(Schema.String),
  uuid: Schema.String,
  session_id: Schema.String
})

/**
 * @since 0.2.0
 * @category other
 */
export interface AuthStatus extends Schema.Schema.Type<typeof AuthStatus> {}

/**
 * The subscription's rate limit, as `rate_limit_event` reports it (`status` `allowed`,
 * `allowed_warning`, `rejected`; `resetsAt` in epoch seconds; `utilization` from 0 to 1). The
 * other fields of the TypeScript SDK's `SDKRateLimitInfo` are checked when present.
 *
 * @since 0.2.0
 * @category other
 */
export const RateLimitInfo = Schema.Struct({
  status: openLiterals(["allowed", "allowed_warning", "rejected"]),
  resetsAt: opt(Schema.NullOr(Schema.Number)),
  rateLimitType: opt(Schema.NullOr(Schema.String)),
  utilization: opt(Schema.Number),
  overageStatus: opt(Schema.String),
  overageResetsAt: opt(Schema.Number),
  overageDisabledReason: opt(Schema.String),
  isUsingOverage: opt(Schema.Boolean),
  overageInUse: opt(Schema.Boolean),
  overageEnabled: opt(Schema.Boolean),
  surpassedThreshold: opt(Schema.Number),
  limitScope: opt(Schema.String),
  errorCode: opt(Schema.String),
  canUserPurchaseCredits: opt(Schema.Boolean),
  hasChargeableSavedPaymentMethod: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category other
 */
export interface RateLimitInfo extends Schema.Schema.Type<typeof RateLimitInfo> {}

/**
 * `rate_limit_event`: the subscription's rate limit changed (from the API's answers).
 *
 * @since 0.2.0
 * @category other
 */
export const RateLimitEvent = Schema.Struct({
  type: Schema.Literal("rate_limit_event"),
  rate_limit_info: RateLimitInfo,
  uuid: Schema.String,
  session_id: Schema.String
})

/**
 * @since 0.2.0
 * @category other
 */
export interface RateLimitEvent extends Schema.Schema.Type<typeof RateLimitEvent> {}

/**
 * `prompt_suggestion`: a suggested next prompt, after a turn (when the host asked for
 * `promptSuggestions` in `initialize`).
 *
 * @since 0.2.0
 * @category other
 */
export const PromptSuggestion = Schema.Struct({
  type: Schema.Literal("prompt_suggestion"),
  suggestion: Schema.String,
  uuid: Schema.String,
  session_id: Schema.String
})

/**
 * @since 0.2.0
 * @category other
 */
export interface PromptSuggestion extends Schema.Schema.Type<typeof PromptSuggestion> {}

/**
 * `conversation_reset`: the conversation was cleared and goes on as `new_conversation_id`
 * (`trigger` `clear` after `/clear`, `plan_mode_exit`, `fresh_session`, `onboarding`).
 *
 * @since 0.2.0
 * @category other
 */
export const ConversationReset = Schema.Struct({
  type: Schema.Literal("conversation_reset"),
  new_conversation_id: Schema.String,
  uuid: Schema.String,
  session_id: Schema.String,
  trigger: opt(openLiterals(["clear", "plan_mode_exit", "fresh_session", "onboarding"])),
  user_message_uuid: opt(Schema.String),
  user_message_from_human: opt(Schema.Boolean),
  timestamp: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category other
 */
export interface ConversationReset extends Schema.Schema.Type<typeof ConversationReset> {}

/**
 * `transcript_mirror` (with `--session-mirror`): the entries the CLI just wrote to the transcript
 * file `filePath` (under its config directory's `projects/`), for the host to append to a
 * `SessionStore`. Not an event: the session takes it off the stream.
 *
 * @since 0.2.0
 * @category other
 */
export const TranscriptMirror = Schema.Struct({
  type: Schema.Literal("transcript_mirror"),
  filePath: Schema.String,
  entries: Schema.Array(JsonObject)
})

/**
 * @since 0.2.0
 * @category other
 */
export interface TranscriptMirror extends Schema.Schema.Type<typeof TranscriptMirror> {}

/**
 * A line of a type (or a `system` subtype) this library does not model: not an error. `raw` is
 * the line's object, unchanged. Unlike every other member this is a wrapper, not the line itself:
 * `encodeMessage` writes `raw` back.
 *
 * @since 0.1.0
 * @category other
 */
export const UnknownMessage = Schema.Struct({
  type: Schema.Literal("unknown"),
  raw: JsonObject
})

/**
 * @since 0.1.0
 * @category other
 */
export interface UnknownMessage extends Schema.Schema.Type<typeof UnknownMessage> {}

// ---------------------------------------------------------------------------------------------
// Unions
// ---------------------------------------------------------------------------------------------

/**
 * Every line the CLI writes on stdout. Decode with `Protocol.decodeMessage` (fast, keeps extra
 * fields, maps unknown types to {@link UnknownMessage}), not with this union.
 *
 * @since 0.1.0
 * @category unions
 */
export const Message = Schema.Union([
  SystemMessage,
  AssistantMessage,
  UserMessage,
  ResultMessage,
  StreamEvent,
  IncomingControlRequest,
  ControlResponse,
  ControlCancelRequest,
  KeepAlive,
  CommandLifecycle,
  ToolProgress,
  ToolUseSummary,
  AuthStatus,
  RateLimitEvent,
  PromptSuggestion,
  ConversationReset,
  TranscriptMirror,
  UnknownMessage
])

/**
 * @since 0.1.0
 * @category unions
 */
export type Message = typeof Message.Type

/**
 * A user turn written by the host. `content` is a string, or blocks (images first, then the
 * text). `session_id` and `parent_tool_use_id` are optional and ignored by the CLI; `uuid`
 * (host-chosen) turns on `command_lifecycle` lines, is echoed as `user_message_uuid(s)` and is
 * the id for `rewind_files`.
 *
 * @since 0.1.0
 * @category stdin
 */
export const StdinUserMessage = Schema.Struct({
  type: Schema.Literal("user"),
  message: Schema.Struct({
    role: Schema.Literal("user"),
    content: Schema.Union([Schema.String, Schema.Array(ContentBlock)])
  }),
  parent_tool_use_id: opt(Schema.NullOr(Schema.String)),
  session_id: opt(Schema.String),
  uuid: opt(Schema.String),
  priority: opt(Schema.String),
  isSynthetic: opt(Schema.Boolean),
  /** The text as written: no `@path` mention read in, no slash command run (CLI 2.1.248 and later). */
  client_composed: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category stdin
 */
export interface StdinUserMessage extends Schema.Schema.Type<typeof StdinUserMessage> {}

/**
 * Every line the host writes on stdin.
 *
 * @since 0.1.0
 * @category unions
 */
export const StdinMessage = Schema.Union([
  StdinUserMessage,
  OutgoingControlRequest,
  ControlResponse,
  ControlCancelRequest,
  KeepAlive
])

/**
 * @since 0.1.0
 * @category unions
 */
export type StdinMessage = typeof StdinMessage.Type
