/**
 * Decoding of protocol lines (and `encodeMessage`, for a fake CLI); the lines the host writes are
 * built in `lines.ts`, which needs none of the schemas.
 *
 * Every wire schema is structural (`Encoded` is `Type`, no transformations), so a value that
 * passes a schema's guard IS its decoded value: the decoders below validate with a precompiled
 * guard and return the ORIGINAL object, unchanged, with every unmodelled field still there. A full
 * `Schema.decodeUnknownResult` runs only on the failure path, to say what broke.
 *
 * Dispatch is by hand on `type` (then `subtype` for `system`, `event.type` for `stream_event`,
 * `request.subtype` for `control_request`) to one guard per member: a line is checked against
 * exactly one schema, never walked through a union.
 *
 * Guards are compiled with Effect's schema JIT compiler (`effect/schema/SchemaJITCompiler`, an
 * unstable API) on first use, which makes them about ten times faster than the interpreter; where
 * dynamic code generation is unavailable they fall back to the interpreter, with the same results.
 * The compiler is loaded apart (`internal/schemaJit.ts`), so importing the library does not load
 * it: the first guard that finds it missing starts loading it and is interpreted meanwhile, and a
 * session loads it while the CLI starts.
 * Measured (Node 24, `bench/decode.micro.ts`): a text delta decodes in ~30–40 ns (its
 * `JSON.parse` takes ~650 ns), an `assistant` line in ~0.5 µs, a `result` in ~0.8 µs.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as SchemaJIT from "effect/schema/SchemaJITCompiler"
import * as SchemaJit from "../internal/schemaJit.ts"
import {
  ControlCancelRequest,
  ControlResponse,
  GetContextUsageRequest,
  HookCallbackRequest,
  InitializeRequest,
  InterruptRequest,
  McpMessageRequest,
  McpStatusRequest,
  OtherIncomingRequest,
  OtherOutgoingRequest,
  RewindFilesRequest,
  SetModelRequest,
  SetPermissionModeRequest,
  StopTaskRequest
} from "./control.ts"
import { CanUseToolRequest } from "./permissions.ts"
import {
  AssistantMessage,
  AuthStatus,
  CommandLifecycle,
  ConversationReset,
  KeepAlive,
  TranscriptMirror,
  type Message,
  PromptSuggestion,
  RateLimitEvent,
  ResultMessage,
  type StdinMessage,
  StdinUserMessage,
  ToolProgress,
  ToolUseSummary,
  type UnknownMessage,
  UserMessage
} from "./messages.ts"
import {
  ContentBlockDeltaEvent,
  ContentBlockStartEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStartEvent,
  MessageStopEvent,
  PingEvent,
  streamEventEnvelopeFields,
  type TextDeltaStreamEvent,
  UnknownApiStreamEvent
} from "./stream.ts"
import {
  SystemApiRetry,
  SystemBackgroundTasksChanged,
  SystemCommandsChanged,
  SystemCompactBoundary,
  SystemControlRequestProgress,
  SystemElicitationComplete,
  SystemFilesPersisted,
  SystemHookProgress,
  SystemHookResponse,
  SystemHookStarted,
  SystemInformational,
  SystemInit,
  SystemLocalCommandOutput,
  SystemMemoryRecall,
  SystemMirrorError,
  SystemModelRefusalFallback,
  SystemModelRefusalNoFallback,
  SystemNotification,
  SystemPermissionDenied,
  SystemPluginInstall,
  SystemSessionStateChanged,
  SystemSessionWritesLost,
  SystemStatus,
  SystemTaskNotification,
  SystemTaskProgress,
  SystemTaskStarted,
  SystemTaskUpdated,
  SystemThinkingTokens,
  SystemWorkerShuttingDown
} from "./system.ts"

// ---------------------------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------------------------

const compileGuard = <S extends Schema.Top>(jit: typeof SchemaJIT, schema: S): (u: unknown) => boolean => {
  try {
    jit.enable(schema.ast)
    const typeAst = SchemaAST.toType(schema.ast)
    if (typeAst !== schema.ast) jit.enable(typeAst)
  } catch {
    // The JIT is an optimisation: the interpreter gives the same answers.
  }
  return Schema.is(schema)
}

// One line per issue. A malformed known member of an open union also fails the union's catch-all
// member ("Expected a … other than …"); that issue is noise when another one says what broke.
const formatIssue = (message: string): string => {
  const issues = message.replace(/\n\s+at /g, " at ").split("\n")
  const useful = issues.filter((issue) => !issue.includes(" other than \""))
  return (useful.length > 0 ? useful : issues).join("; ")
}

interface Checker {
  /** Validates and returns the input itself, or says what broke. */
  readonly check: (u: unknown) => Result.Result<unknown, string>
  /** Compiles the guard now rather than at the first check. */
  readonly prepare: () => void
}

// The schema is made at the checker's first use (`schemaOf`), not when this module loads: most
// checkers are of lines a session may never see, and building their schemas is start-up work.
const checker = <S extends Schema.Top>(label: string, schemaOf: () => S): Checker => {
  let made: S | undefined
  const schema = () => (made ??= schemaOf())
  // The compiled guard, once the JIT is loaded; the interpreter's until then.
  let is: ((u: unknown) => boolean) | undefined
  let interpreted: ((u: unknown) => boolean) | undefined
  let decode: ((u: unknown) => Result.Result<unknown, Schema.SchemaError>) | undefined
  const guard = (): (u: unknown) => boolean => {
    if (is !== undefined) return is
    const jit = SchemaJit.get()
    return jit === undefined ? (interpreted ??= Schema.is(schema())) : (is = compileGuard(jit, schema()))
  }
  return {
    prepare: () => {
      // The JIT generates the guard's code at its first call: one call on a non-match does it.
      guard()(undefined)
    },
    check: (u) => {
      if (guard()(u)) return Result.succeed(u)
      // Failure path only: a full decode for a readable description.
      const decoded = (decode ??= Schema.decodeUnknownResult(schema() as unknown as Schema.Decoder<unknown>))(u)
      return Result.isSuccess(decoded)
        // The guard and the decoder disagree (they should not): the decoder wins, the line is kept whole.
        ? Result.succeed(u)
        : Result.fail(`${label}: ${formatIssue(decoded.failure.message)}`)
    }
  }
}

/**
 * `unknown` when `S` is structural (its `Encoded` type is its `Type` and it needs no services),
 * `never` otherwise: {@link makeDecoder} returns its input, which is only right for such schemas.
 *
 * @since 0.1.0
 * @category decoding
 */
export type Structural<S extends Schema.Top> = [S["DecodingServices"]] extends [never]
  ? [S["Type"]] extends [S["Encoded"]] ? [S["Encoded"]] extends [S["Type"]] ? unknown : never : never
  : never

/**
 * A decoder for any structural schema (one whose `Encoded` type is its `Type`, with no
 * transformations): validates with a precompiled guard and returns the input itself, extra fields
 * included; on failure, a readable description of what broke. Use it for the response bodies
 * (`Protocol.InitializeResponse`, …) once a `control_response` is matched to its request.
 *
 * @since 0.1.0
 * @category decoding
 */
export const makeDecoder = <S extends Schema.Top>(
  schema: S & Structural<S>,
  label = "value"
): (u: unknown) => Result.Result<S["Type"], string> => {
  const c = checker(label, () => schema)
  return c.check as (u: unknown) => Result.Result<S["Type"], string>
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type JsonRecord = Record<string, unknown>

const isRecord = (u: unknown): u is JsonRecord => typeof u === "object" && u !== null && !Array.isArray(u)

const describe = (u: unknown): string => {
  if (u === null) return "null"
  if (u === undefined) return "nothing"
  if (Array.isArray(u)) return "an array"
  switch (typeof u) {
    case "string":
      return `string ${JSON.stringify(u.length > 40 ? `${u.slice(0, 40)}…` : u)}`
    case "number":
    case "boolean":
      return `${typeof u} ${u}`
    case "object":
      return "an object"
    default:
      return typeof u
  }
}

const unknownMessage = (raw: JsonRecord): Result.Result<UnknownMessage, string> =>
  Result.succeed({ type: "unknown", raw })

const notAnObject = (u: unknown): Result.Result<never, string> =>
  Result.fail(`expected a JSON object, got ${describe(u)}`)

const byKey = (entries: ReadonlyArray<readonly [string, Checker]>): ReadonlyMap<string, Checker> => new Map(entries)

// ---------------------------------------------------------------------------------------------
// The text_delta fast path
// ---------------------------------------------------------------------------------------------

/**
 * A hand-written guard equivalent to `Schema.is(Protocol.TextDeltaStreamEvent)`: a
 * `stream_event` line carrying a `content_block_delta` with a `text_delta`, the hottest line of
 * the protocol. It checks every field of the envelope schema (`streamEventEnvelopeFields`) and
 * of the event; a test compares it with the schema on every transcript line and on mutations of
 * them.
 *
 * @since 0.1.0
 * @category decoding
 */
export const isTextDeltaStreamEvent = (u: unknown): u is TextDeltaStreamEvent => {
  // Property names are literals on purpose: a shared helper with a variable key makes every
  // lookup megamorphic, and the check slower than the JIT-compiled schema guard.
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const o = u as JsonRecord
  if (o.type !== "stream_event" || typeof o.session_id !== "string" || typeof o.uuid !== "string") return false
  const parent = o.parent_tool_use_id
  if (parent !== null && typeof parent !== "string") return false
  const event = o.event
  if (typeof event !== "object" || event === null || Array.isArray(event)) return false
  const ev = event as JsonRecord
  if (ev.type !== "content_block_delta" || typeof ev.index !== "number") return false
  const delta = ev.delta
  if (typeof delta !== "object" || delta === null || Array.isArray(delta)) return false
  const d = delta as JsonRecord
  if (d.type !== "text_delta" || typeof d.text !== "string") return false
  // Optional keys: absent, or present with the right type (a present `undefined` is invalid).
  if ("api_message_id" in o && typeof o.api_message_id !== "string") return false
  if ("ttft_ms" in o && typeof o.ttft_ms !== "number") return false
  if ("thinking_display" in o && typeof o.thinking_display !== "string") return false
  if ("user_message_uuid" in o && typeof o.user_message_uuid !== "string") return false
  if ("resume_reason" in o && typeof o.resume_reason !== "string") return false
  if ("owed_rows" in o && !Array.isArray(o.owed_rows)) return false
  if ("user_message_uuids" in o) {
    const uuids = o.user_message_uuids
    if (!Array.isArray(uuids)) return false
    for (let i = 0; i < uuids.length; i++) if (typeof uuids[i] !== "string") return false
  }
  if ("abandoned_blocks" in o) {
    const a = o.abandoned_blocks
    if (typeof a !== "object" || a === null || Array.isArray(a)) return false
    const b = a as JsonRecord
    if (typeof b.api_message_id !== "string" || typeof b.from_block_index !== "number") return false
  }
  return true
}

// Invariant: the fast path above checks exactly these envelope keys. Adding a key to
// `streamEventEnvelopeFields` without adding it above breaks this assignment at compile time.
const fastPathKeys: Record<keyof typeof streamEventEnvelopeFields, true> = {
  type: true,
  session_id: true,
  parent_tool_use_id: true,
  uuid: true,
  api_message_id: true,
  ttft_ms: true,
  thinking_display: true,
  user_message_uuid: true,
  user_message_uuids: true,
  owed_rows: true,
  abandoned_blocks: true,
  resume_reason: true
}
void fastPathKeys

// ---------------------------------------------------------------------------------------------
// stdout
// ---------------------------------------------------------------------------------------------

const streamEventOf = <S extends Schema.Top>(event: S) => Schema.Struct({ ...streamEventEnvelopeFields, event })

const assistantChecker = checker("assistant", () => AssistantMessage)
const userChecker = checker("user", () => UserMessage)
const resultChecker = checker("result", () => ResultMessage)
const controlResponseChecker = checker("control_response", () => ControlResponse)
const controlCancelChecker = checker("control_cancel_request", () => ControlCancelRequest)
const keepAliveChecker = checker("keep_alive", () => KeepAlive)
const commandLifecycleChecker = checker("command_lifecycle", () => CommandLifecycle)
const transcriptMirrorChecker = checker("transcript_mirror", () => TranscriptMirror)

const systemCheckers = byKey([
  ["init", checker("system/init", () => SystemInit)],
  ["status", checker("system/status", () => SystemStatus)],
  ["api_retry", checker("system/api_retry", () => SystemApiRetry)],
  ["task_started", checker("system/task_started", () => SystemTaskStarted)],
  ["task_updated", checker("system/task_updated", () => SystemTaskUpdated)],
  ["task_notification", checker("system/task_notification", () => SystemTaskNotification)],
  ["background_tasks_changed", checker("system/background_tasks_changed", () => SystemBackgroundTasksChanged)],
  ["compact_boundary", checker("system/compact_boundary", () => SystemCompactBoundary)],
  ["informational", checker("system/informational", () => SystemInformational)],
  ["notification", checker("system/notification", () => SystemNotification)],
  ["permission_denied", checker("system/permission_denied", () => SystemPermissionDenied)],
  ["thinking_tokens", checker("system/thinking_tokens", () => SystemThinkingTokens)],
  ["hook_started", checker("system/hook_started", () => SystemHookStarted)],
  ["hook_progress", checker("system/hook_progress", () => SystemHookProgress)],
  ["hook_response", checker("system/hook_response", () => SystemHookResponse)],
  ["task_progress", checker("system/task_progress", () => SystemTaskProgress)],
  ["session_state_changed", checker("system/session_state_changed", () => SystemSessionStateChanged)],
  ["local_command_output", checker("system/local_command_output", () => SystemLocalCommandOutput)],
  ["control_request_progress", checker("system/control_request_progress", () => SystemControlRequestProgress)],
  ["model_refusal_fallback", checker("system/model_refusal_fallback", () => SystemModelRefusalFallback)],
  ["model_refusal_no_fallback", checker("system/model_refusal_no_fallback", () => SystemModelRefusalNoFallback)],
  ["plugin_install", checker("system/plugin_install", () => SystemPluginInstall)],
  ["worker_shutting_down", checker("system/worker_shutting_down", () => SystemWorkerShuttingDown)],
  ["commands_changed", checker("system/commands_changed", () => SystemCommandsChanged)],
  ["files_persisted", checker("system/files_persisted", () => SystemFilesPersisted)],
  ["memory_recall", checker("system/memory_recall", () => SystemMemoryRecall)],
  ["elicitation_complete", checker("system/elicitation_complete", () => SystemElicitationComplete)],
  ["mirror_error", checker("system/mirror_error", () => SystemMirrorError)],
  ["session_writes_lost", checker("system/session_writes_lost", () => SystemSessionWritesLost)]
])

// The top-level types beside the ones `decodeRecord` switches on by name.
const otherCheckers = byKey([
  ["tool_progress", checker("tool_progress", () => ToolProgress)],
  ["tool_use_summary", checker("tool_use_summary", () => ToolUseSummary)],
  ["auth_status", checker("auth_status", () => AuthStatus)],
  ["rate_limit_event", checker("rate_limit_event", () => RateLimitEvent)],
  ["prompt_suggestion", checker("prompt_suggestion", () => PromptSuggestion)],
  ["conversation_reset", checker("conversation_reset", () => ConversationReset)]
])

const streamCheckers = byKey([
  ["message_start", checker("stream_event/message_start", () => streamEventOf(MessageStartEvent))],
  ["content_block_start", checker("stream_event/content_block_start", () => streamEventOf(ContentBlockStartEvent))],
  ["content_block_delta", checker("stream_event/content_block_delta", () => streamEventOf(ContentBlockDeltaEvent))],
  ["content_block_stop", checker("stream_event/content_block_stop", () => streamEventOf(ContentBlockStopEvent))],
  ["message_delta", checker("stream_event/message_delta", () => streamEventOf(MessageDeltaEvent))],
  ["message_stop", checker("stream_event/message_stop", () => streamEventOf(MessageStopEvent))],
  ["ping", checker("stream_event/ping", () => streamEventOf(PingEvent))]
])
const unknownStreamEventChecker = checker("stream_event", () => streamEventOf(UnknownApiStreamEvent))

const controlRequestOf = <S extends Schema.Top>(request: S) =>
  Schema.Struct({ type: Schema.Literal("control_request"), request_id: Schema.String, request })

const incomingRequestCheckers = byKey([
  ["hook_callback", checker("control_request/hook_callback", () => controlRequestOf(HookCallbackRequest))],
  ["mcp_message", checker("control_request/mcp_message", () => controlRequestOf(McpMessageRequest))],
  ["can_use_tool", checker("control_request/can_use_tool", () => controlRequestOf(CanUseToolRequest))]
])
const otherIncomingRequestChecker = checker("control_request", () => controlRequestOf(OtherIncomingRequest))

// The discriminant itself is missing or mistyped: no member applies, say so directly.
const badDiscriminant = (label: string, path: string, expected: string, got: unknown) =>
  Result.fail(`${label}: expected ${expected} at ${path}, got ${describe(got)}`)

const decodeStreamEvent = (o: JsonRecord): Result.Result<unknown, string> => {
  const event = o.event
  if (!isRecord(event)) return badDiscriminant("stream_event", `["event"]`, "an object", event)
  const type = event.type
  if (type === "content_block_delta" && isTextDeltaStreamEvent(o)) return Result.succeed(o)
  if (typeof type !== "string") return badDiscriminant("stream_event", `["event"]["type"]`, "a string", type)
  return (streamCheckers.get(type) ?? unknownStreamEventChecker).check(o)
}

const decodeControlRequest = (
  o: JsonRecord,
  known: ReadonlyMap<string, Checker>,
  other: Checker
): Result.Result<unknown, string> => {
  const request = o.request
  if (!isRecord(request)) return badDiscriminant("control_request", `["request"]`, "an object", request)
  const subtype = request.subtype
  if (typeof subtype !== "string") {
    return badDiscriminant("control_request", `["request"]["subtype"]`, "a string", subtype)
  }
  return (known.get(subtype) ?? other).check(o)
}

/**
 * Decodes one parsed stdout line (the value of `JSON.parse(line)`).
 *
 * - A line of a modelled type (and subtype) is validated against that member's schema and
 *   returned AS IS (the same object, every extra field kept), or fails with a description of
 *   what broke (`"result: Expected number at [\"num_turns\"]"`).
 * - A line whose `type` (or, for `system`, `subtype`) is not modelled decodes to
 *   `{ type: "unknown", raw }`: not an error.
 * - Anything but an object with a string `type` is an error.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeMessage = (json: unknown): Result.Result<Message, string> => {
  if (!isRecord(json)) return notAnObject(json)
  return decodeRecord(json) as Result.Result<Message, string>
}

const decodeRecord = (o: JsonRecord): Result.Result<unknown, string> => {
  const type = o.type
  switch (type) {
    case "stream_event":
      return decodeStreamEvent(o)
    case "assistant":
      return assistantChecker.check(o)
    case "user":
      return userChecker.check(o)
    case "system": {
      const subtype = o.subtype
      if (typeof subtype !== "string") return badDiscriminant("system", `["subtype"]`, "a string", subtype)
      const c = systemCheckers.get(subtype)
      return c === undefined ? unknownMessage(o) : c.check(o)
    }
    case "result":
      return resultChecker.check(o)
    case "control_request":
      return decodeControlRequest(o, incomingRequestCheckers, otherIncomingRequestChecker)
    case "control_response":
      return controlResponseChecker.check(o)
    case "control_cancel_request":
      return controlCancelChecker.check(o)
    case "keep_alive":
      return keepAliveChecker.check(o)
    case "command_lifecycle":
      return commandLifecycleChecker.check(o)
    case "transcript_mirror":
      return transcriptMirrorChecker.check(o)
    default: {
      if (typeof type !== "string") return Result.fail(`expected a string "type", got ${describe(type)}`)
      const c = otherCheckers.get(type)
      return c === undefined ? unknownMessage(o) : c.check(o)
    }
  }
}

/**
 * The stdout lines {@link decodeMessage} checks against a schema of their own, as `type` or
 * `system/<subtype>` (`stream_event`, `control_request` and `control_response` once each: their
 * members are one level down). Any other line decodes to `{ type: "unknown", raw }`.
 *
 * @since 0.2.0
 * @category decoding
 */
export const modelledMessageKinds: ReadonlyArray<string> = [
  "assistant",
  "user",
  "result",
  "stream_event",
  "control_request",
  "control_response",
  "control_cancel_request",
  "keep_alive",
  "command_lifecycle",
  "transcript_mirror",
  ...Array.from(otherCheckers.keys()),
  ...Array.from(systemCheckers.keys(), (subtype) => `system/${subtype}`)
]

/**
 * Compiles the guards of the lines every turn begins with (the answer to `initialize`,
 * `system/init` and `status`, the stream events of a message, `assistant`, `user`, `result`)
 * now, instead of at each one's first line. A session calls it while the CLI starts, when it
 * would otherwise wait idle, so that the first events do not wait for it (about 10 ms), once it has
 * loaded Effect's schema JIT compiler; before that, the guards prepared are the interpreter's.
 *
 * @since 0.1.0
 * @category decoding
 */
export const prepareDecoders = (): void => {
  controlResponseChecker.prepare()
  systemCheckers.get("init")?.prepare()
  systemCheckers.get("status")?.prepare()
  for (const checker of streamCheckers.values()) checker.prepare()
  assistantChecker.prepare()
  userChecker.prepare()
  resultChecker.prepare()
}

/**
 * Writes a stdout message as one JSON line (no trailing newline). An {@link UnknownMessage} is
 * written as its `raw` object, so `decodeMessage(JSON.parse(encodeMessage(m)))` gives `m` back.
 * For a fake CLI.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeMessage = (message: Message): string =>
  JSON.stringify(message.type === "unknown" ? message.raw : message)

// ---------------------------------------------------------------------------------------------
// stdin
// ---------------------------------------------------------------------------------------------

const stdinUserChecker = checker("user", () => StdinUserMessage)

const outgoingRequestCheckers = byKey([
  ["initialize", checker("control_request/initialize", () => controlRequestOf(InitializeRequest))],
  ["interrupt", checker("control_request/interrupt", () => controlRequestOf(InterruptRequest))],
  ["set_model", checker("control_request/set_model", () => controlRequestOf(SetModelRequest))],
  ["set_permission_mode", checker("control_request/set_permission_mode", () => controlRequestOf(SetPermissionModeRequest))],
  ["mcp_status", checker("control_request/mcp_status", () => controlRequestOf(McpStatusRequest))],
  ["get_context_usage", checker("control_request/get_context_usage", () => controlRequestOf(GetContextUsageRequest))],
  ["rewind_files", checker("control_request/rewind_files", () => controlRequestOf(RewindFilesRequest))],
  ["stop_task", checker("control_request/stop_task", () => controlRequestOf(StopTaskRequest))]
])
const otherOutgoingRequestChecker = checker("control_request", () => controlRequestOf(OtherOutgoingRequest))

/**
 * Decodes one parsed stdin line (what the host writes; for a fake CLI and for transcripts), with
 * the same rules as {@link decodeMessage}: modelled lines are validated and returned as is, an
 * unmodelled `type` decodes to `{ type: "unknown", raw }`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeStdin = (json: unknown): Result.Result<StdinMessage | UnknownMessage, string> => {
  if (!isRecord(json)) return notAnObject(json)
  const o = json
  const type = o.type
  switch (type) {
    case "user":
      return stdinUserChecker.check(o) as Result.Result<StdinMessage, string>
    case "control_request":
      return decodeControlRequest(o, outgoingRequestCheckers, otherOutgoingRequestChecker) as Result.Result<
        StdinMessage,
        string
      >
    case "control_response":
      return controlResponseChecker.check(o) as Result.Result<StdinMessage, string>
    case "control_cancel_request":
      return controlCancelChecker.check(o) as Result.Result<StdinMessage, string>
    case "keep_alive":
      return keepAliveChecker.check(o) as Result.Result<StdinMessage, string>
    default:
      return typeof type === "string"
        ? unknownMessage(o)
        : Result.fail(`expected a string "type", got ${describe(type)}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Narrowing
// ---------------------------------------------------------------------------------------------

/**
 * Narrows a member of an open union by its `type`, as `a.type === type` does: the catch-all
 * member of an open union (content blocks, stream events, deltas) has an `UnknownType`
 * discriminant that no known literal matches, so plain `===` narrows too. Kept for callbacks
 * (`blocks.filter((b) => Protocol.isType(b, "text"))` reads the same as the `===` form).
 *
 * @since 0.1.0
 * @category guards
 */
export const isType = <A extends { readonly type: string }, const T extends string>(
  a: A,
  type: T
): a is Extract<A, { readonly type: T }> => a.type === type

/**
 * Narrows a member of an open union by its `subtype` (control request bodies).
 *
 * @since 0.1.0
 * @category guards
 */
export const isSubtype = <A extends { readonly subtype: string }, const T extends string>(
  a: A,
  subtype: T
): a is Extract<A, { readonly subtype: T }> => a.subtype === subtype
