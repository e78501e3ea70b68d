/**
 * `system` lines (CLI → host), one schema per subtype. A `system` line with a subtype not listed
 * here decodes to `UnknownMessage`.
 *
 * Every member but the background-task ones has `session_id` and `uuid`. Fields present on every
 * recorded line and required by the Agent SDK's published types are required; all others are
 * optional keys. The supported CLIs (see `CliVersion`) may write the background-task lines
 * (`task_started`, `task_updated`, `task_notification`, `background_tasks_changed`) without
 * `session_id` and `uuid`, e.g. a `task_updated` when a background Bash task ends by itself: there
 * they are optional, and such a line is the session's all the same (it came on its stdout).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { openLiterals } from "./internal.ts"

const opt = Schema.optionalKey

const base = {
  type: Schema.Literal("system"),
  session_id: Schema.String,
  uuid: Schema.String
}

/** The envelope of the background-task lines, which some supported CLIs write without ids. */
const taskBase = {
  type: Schema.Literal("system"),
  session_id: opt(Schema.String),
  uuid: opt(Schema.String)
}

/**
 * An MCP server as listed in `system/init`.
 *
 * @since 0.1.0
 * @category system
 */
export const InitMcpServer = Schema.Struct({
  name: Schema.String,
  /** `connected`, `failed`, `needs-auth`, `pending`, `disabled`. */
  status: Schema.String,
  source: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface InitMcpServer extends Schema.Schema.Type<typeof InitMcpServer> {}

/**
 * A plugin as listed in `system/init`.
 *
 * @since 0.1.0
 * @category system
 */
export const InitPlugin = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  source: opt(Schema.String),
  version: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface InitPlugin extends Schema.Schema.Type<typeof InitPlugin> {}

/**
 * `system/init`: emitted at the start of every turn (not at launch, not in reply to `initialize`).
 * `tools` lists `Task` where the API sees `Agent`. `user_message_uuids` is there when the turn's
 * user message(s) carried a `uuid`.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemInit = Schema.Struct({
  ...base,
  subtype: Schema.Literal("init"),
  cwd: Schema.String,
  tools: Schema.Array(Schema.String),
  mcp_servers: Schema.Array(InitMcpServer),
  model: Schema.String,
  /** `default`, `acceptEdits`, `bypassPermissions`, `plan`, `dontAsk`, `auto`. */
  permissionMode: Schema.String,
  slash_commands: Schema.Array(Schema.String),
  terminal_slash_commands: opt(Schema.Array(Schema.String)),
  apiKeySource: Schema.String,
  claude_code_version: Schema.String,
  output_style: Schema.String,
  agents: opt(Schema.Array(Schema.String)),
  skills: Schema.Array(Schema.String),
  plugins: Schema.Array(InitPlugin),
  plugin_errors: opt(Schema.Array(Schema.Unknown)),
  betas: opt(Schema.Array(Schema.String)),
  capabilities: opt(Schema.Array(Schema.String)),
  analytics_disabled: opt(Schema.Boolean),
  product_feedback_disabled: opt(Schema.Boolean),
  served_by_anthropic: opt(Schema.Boolean),
  sandbox_enabled: opt(Schema.Boolean),
  memory_paths: opt(Schema.Record(Schema.String, Schema.String)),
  original_cwd: opt(Schema.String),
  additional_directories: opt(Schema.Array(Schema.String)),
  messaging_socket_path: opt(Schema.String),
  /** `off`, `cooldown`, `on`. */
  fast_mode_state: opt(Schema.String),
  fast_mode_disabled_reason: opt(Schema.String),
  effort: opt(Schema.NullOr(Schema.String)),
  per_turn_effort_active: opt(Schema.Boolean),
  ultrathink_available: opt(Schema.Boolean),
  ultrathink_typed_raises: opt(Schema.Boolean),
  /** `default`, `focus`. */
  view_mode: opt(Schema.String),
  user_message_uuids: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemInit extends Schema.Schema.Type<typeof SystemInit> {}

/**
 * `system/status`: `status` is `requesting` before each API request, `compacting` during
 * `/compact`, and `null` with `compact_result` after it or with `permissionMode` after a
 * `set_permission_mode`.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemStatus = Schema.Struct({
  ...base,
  subtype: Schema.Literal("status"),
  status: Schema.NullOr(Schema.String),
  permissionMode: opt(Schema.String),
  compact_result: opt(Schema.String),
  compact_error: opt(Schema.String),
  user_message_uuids: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemStatus extends Schema.Schema.Type<typeof SystemStatus> {}

/**
 * `system/api_retry`: an API request failed and will be retried after `retry_delay_ms`.
 * `error` is `server_error`, `overloaded`, `rate_limit`, `authentication_failed`, …;
 * `error_status` is `null` for connection errors.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemApiRetry = Schema.Struct({
  ...base,
  subtype: Schema.Literal("api_retry"),
  attempt: Schema.Number,
  max_retries: Schema.Number,
  retry_delay_ms: Schema.Number,
  error_status: Schema.NullOr(Schema.Number),
  error: Schema.String,
  no_response: opt(Schema.Struct({ waited_ms: Schema.Number, retry_wait_ms: Schema.Number }))
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemApiRetry extends Schema.Schema.Type<typeof SystemApiRetry> {}

/**
 * `system/task_started`: a subagent or background Bash task started.
 * `task_type` is `local_agent`, `local_bash`, ….
 *
 * @since 0.1.0
 * @category system
 */
export const SystemTaskStarted = Schema.Struct({
  ...taskBase,
  subtype: Schema.Literal("task_started"),
  task_id: Schema.String,
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  description: Schema.String,
  subagent_type: opt(Schema.String),
  is_backgrounded: opt(Schema.Boolean),
  spawn_depth: opt(Schema.Number),
  parent_task_id: opt(Schema.String),
  task_type: opt(Schema.String),
  workflow_name: opt(Schema.String),
  prompt: opt(Schema.String),
  skip_transcript: opt(Schema.Boolean),
  ambient: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemTaskStarted extends Schema.Schema.Type<typeof SystemTaskStarted> {}

/**
 * `system/task_updated`: the fields of a task that changed (`patch.status` `completed`,
 * `killed`, …).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemTaskUpdated = Schema.Struct({
  ...taskBase,
  subtype: Schema.Literal("task_updated"),
  task_id: Schema.String,
  run_id: opt(Schema.String),
  patch: Schema.Struct({
    status: opt(Schema.String),
    description: opt(Schema.String),
    end_time: opt(Schema.Number),
    total_paused_ms: opt(Schema.Number),
    error: opt(Schema.String),
    is_backgrounded: opt(Schema.Boolean)
  })
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemTaskUpdated extends Schema.Schema.Type<typeof SystemTaskUpdated> {}

/**
 * `system/task_notification`: a task ended (`status` `completed`, `failed`, `stopped`).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemTaskNotification = Schema.Struct({
  ...taskBase,
  subtype: Schema.Literal("task_notification"),
  task_id: Schema.String,
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  status: Schema.String,
  reason: opt(Schema.String),
  output_file: Schema.String,
  summary: Schema.String,
  summary_is_report: opt(Schema.Boolean),
  usage: opt(Schema.Struct({
    total_tokens: Schema.Number,
    tool_uses: Schema.Number,
    duration_ms: Schema.Number
  })),
  skip_transcript: opt(Schema.Boolean),
  ambient: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemTaskNotification extends Schema.Schema.Type<typeof SystemTaskNotification> {}

/**
 * One live background task.
 *
 * @since 0.1.0
 * @category system
 */
export const BackgroundTask = Schema.Struct({
  task_id: Schema.String,
  run_id: opt(Schema.String),
  task_type: Schema.String,
  subagent_type: opt(Schema.String),
  description: Schema.String,
  parent_task_id: opt(Schema.String),
  ambient: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface BackgroundTask extends Schema.Schema.Type<typeof BackgroundTask> {}

/**
 * `system/background_tasks_changed`: the full set of live background tasks (replace, don't merge).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemBackgroundTasksChanged = Schema.Struct({
  ...taskBase,
  subtype: Schema.Literal("background_tasks_changed"),
  tasks: Schema.Array(BackgroundTask)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemBackgroundTasksChanged extends Schema.Schema.Type<typeof SystemBackgroundTasksChanged> {}

/**
 * `system/compact_boundary`: the conversation was compacted (`trigger` `manual` or `auto`).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemCompactBoundary = Schema.Struct({
  ...base,
  subtype: Schema.Literal("compact_boundary"),
  compact_metadata: Schema.Struct({
    trigger: Schema.String,
    pre_tokens: Schema.Number,
    post_tokens: opt(Schema.Number),
    cumulative_dropped_tokens: opt(Schema.Number),
    duration_ms: opt(Schema.Number),
    preserved_segment: opt(Schema.Unknown),
    preserved_messages: opt(Schema.Unknown)
  }),
  logical_parent_uuid: opt(Schema.NullOr(Schema.String))
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemCompactBoundary extends Schema.Schema.Type<typeof SystemCompactBoundary> {}

/**
 * `system/informational`: a line for the user (`level` `info`, `notice`, `suggestion`,
 * `warning`), e.g. `tag: "hook_callback_failed"` when the host answered a hook with an error, or
 * `prompt_submit_outcome` when a UserPromptSubmit hook blocked the prompt.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemInformational = Schema.Struct({
  ...base,
  subtype: Schema.Literal("informational"),
  content: Schema.String,
  level: Schema.String,
  tool_use_id: opt(Schema.String),
  prevent_continuation: opt(Schema.Boolean),
  tag: opt(Schema.String),
  prompt_submit_outcome: opt(Schema.Struct({
    kind: Schema.String,
    prompt_kept: opt(Schema.Boolean),
    reason: opt(Schema.String)
  }))
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemInformational extends Schema.Schema.Type<typeof SystemInformational> {}

/**
 * `system/notification`: a UI notification (`priority` `low`, `medium`, `high`, `immediate`).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemNotification = Schema.Struct({
  ...base,
  subtype: Schema.Literal("notification"),
  key: Schema.String,
  text: Schema.String,
  priority: Schema.String,
  color: opt(Schema.String),
  timeout_ms: opt(Schema.Number)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemNotification extends Schema.Schema.Type<typeof SystemNotification> {}

/**
 * `system/permission_denied`: a tool call was denied without asking (no permission prompt tool).
 *
 * @since 0.1.0
 * @category system
 */
export const SystemPermissionDenied = Schema.Struct({
  ...base,
  subtype: Schema.Literal("permission_denied"),
  tool_name: Schema.String,
  tool_use_id: Schema.String,
  message: Schema.String,
  agent_id: opt(Schema.String),
  decision_reason_type: opt(Schema.String),
  decision_reason: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemPermissionDenied extends Schema.Schema.Type<typeof SystemPermissionDenied> {}

/**
 * `system/thinking_tokens`: an estimate of the thinking tokens so far, during a thinking block.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemThinkingTokens = Schema.Struct({
  ...base,
  subtype: Schema.Literal("thinking_tokens"),
  estimated_tokens: Schema.Number,
  estimated_tokens_delta: Schema.Number,
  user_message_uuid: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category system
 */
export interface SystemThinkingTokens extends Schema.Schema.Type<typeof SystemThinkingTokens> {}

/**
 * The fields of the three `system/hook_*` lines: which hook run (`hook_id`, the same on its
 * started, progress and response lines), its name (`PreToolUse:Bash`, `SessionStart:startup`, …)
 * and its event.
 */
const hookRunFields = {
  hook_id: Schema.String,
  hook_name: Schema.String,
  hook_event: Schema.String
} as const

/**
 * `system/hook_started` (with `includeHookEvents`): a hook command of the settings (or a plugin)
 * started. The CLI writes it for command hooks, not for the host's own callbacks.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemHookStarted = Schema.Struct({
  ...base,
  subtype: Schema.Literal("hook_started"),
  ...hookRunFields
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemHookStarted extends Schema.Schema.Type<typeof SystemHookStarted> {}

/**
 * `system/hook_progress` (with `includeHookEvents`): what a running hook wrote so far (`stdout`,
 * `stderr`, and `output`, both interleaved), about once a second while it runs.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemHookProgress = Schema.Struct({
  ...base,
  subtype: Schema.Literal("hook_progress"),
  ...hookRunFields,
  stdout: Schema.String,
  stderr: Schema.String,
  output: Schema.String,
  backgrounded: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemHookProgress extends Schema.Schema.Type<typeof SystemHookProgress> {}

/**
 * `system/hook_response` (with `includeHookEvents`): a hook ended. `outcome` is `success`,
 * `error` or `cancelled`; `exit_code` is the command's.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemHookResponse = Schema.Struct({
  ...base,
  subtype: Schema.Literal("hook_response"),
  ...hookRunFields,
  output: Schema.String,
  stdout: Schema.String,
  stderr: Schema.String,
  exit_code: opt(Schema.Number),
  outcome: openLiterals(["success", "error", "cancelled"])
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemHookResponse extends Schema.Schema.Type<typeof SystemHookResponse> {}

/**
 * `system/task_progress`: a running subagent's progress (tokens, tool uses, time so far; the last
 * tool it called; a summary when `agentProgressSummaries` is on).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemTaskProgress = Schema.Struct({
  ...taskBase,
  subtype: Schema.Literal("task_progress"),
  task_id: Schema.String,
  run_id: opt(Schema.String),
  tool_use_id: opt(Schema.String),
  description: Schema.String,
  subagent_type: opt(Schema.String),
  usage: Schema.Struct({
    total_tokens: Schema.Number,
    tool_uses: Schema.Number,
    duration_ms: Schema.Number
  }),
  last_tool_name: opt(Schema.String),
  summary: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemTaskProgress extends Schema.Schema.Type<typeof SystemTaskProgress> {}

/**
 * `system/session_state_changed`: the session went `idle`, `running` or `requires_action`
 * (written when `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS` is set in the CLI's environment).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemSessionStateChanged = Schema.Struct({
  ...base,
  subtype: Schema.Literal("session_state_changed"),
  state: openLiterals(["idle", "running", "requires_action"])
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemSessionStateChanged extends Schema.Schema.Type<typeof SystemSessionStateChanged> {}

/**
 * `system/local_command_output`: the output of a local slash command (one that runs without the
 * model, such as `/cost`).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemLocalCommandOutput = Schema.Struct({
  ...base,
  subtype: Schema.Literal("local_command_output"),
  content: Schema.String
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemLocalCommandOutput extends Schema.Schema.Type<typeof SystemLocalCommandOutput> {}

/**
 * `system/control_request_progress`: the progress of a host control request that calls the
 * model (`status` `started`, or `api_retry` with the retry's figures).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemControlRequestProgress = Schema.Struct({
  ...base,
  subtype: Schema.Literal("control_request_progress"),
  request_id: Schema.String,
  status: openLiterals(["started", "api_retry"]),
  attempt: opt(Schema.Number),
  max_retries: opt(Schema.Number),
  retry_delay_ms: opt(Schema.Number),
  error_status: opt(Schema.NullOr(Schema.Number))
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemControlRequestProgress extends Schema.Schema.Type<typeof SystemControlRequestProgress> {}

const refusalFields = {
  original_model: Schema.String,
  request_id: Schema.NullOr(Schema.String),
  api_refusal_category: opt(Schema.NullOr(Schema.String)),
  api_refusal_explanation: opt(Schema.NullOr(Schema.String)),
  refused_user_message_uuid: opt(Schema.NullOr(Schema.String)),
  content: Schema.String
} as const

/**
 * `system/model_refusal_fallback`: the model refused and the CLI switched to `fallback_model`
 * (`direction` `retry`, `revert` or `sticky`).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemModelRefusalFallback = Schema.Struct({
  ...base,
  subtype: Schema.Literal("model_refusal_fallback"),
  trigger: openLiterals(["refusal"]),
  direction: openLiterals(["retry", "revert", "sticky"]),
  scope: opt(openLiterals(["session", "local"])),
  fallback_model: Schema.String,
  retracted_message_uuids: opt(Schema.Array(Schema.String)),
  ...refusalFields
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemModelRefusalFallback extends Schema.Schema.Type<typeof SystemModelRefusalFallback> {}

/**
 * `system/model_refusal_no_fallback`: the model refused and there is no fallback model.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemModelRefusalNoFallback = Schema.Struct({
  ...base,
  subtype: Schema.Literal("model_refusal_no_fallback"),
  ...refusalFields
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemModelRefusalNoFallback extends Schema.Schema.Type<typeof SystemModelRefusalNoFallback> {}

/**
 * `system/plugin_install`: the progress of installing the session's plugins (`status`
 * `started`, `installed`, `failed`, `completed`).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemPluginInstall = Schema.Struct({
  ...base,
  subtype: Schema.Literal("plugin_install"),
  status: openLiterals(["started", "installed", "failed", "completed"]),
  name: opt(Schema.String),
  error: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemPluginInstall extends Schema.Schema.Type<typeof SystemPluginInstall> {}

/**
 * `system/worker_shutting_down`: the CLI is shutting down (`reason`).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemWorkerShuttingDown = Schema.Struct({
  ...base,
  subtype: Schema.Literal("worker_shutting_down"),
  reason: Schema.String
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemWorkerShuttingDown extends Schema.Schema.Type<typeof SystemWorkerShuttingDown> {}

/**
 * A slash command as listed in `system/commands_changed`.
 *
 * @since 0.2.0
 * @category system
 */
export const SlashCommandInfo = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  argumentHint: Schema.String,
  aliases: opt(Schema.Array(Schema.String)),
  builtin: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SlashCommandInfo extends Schema.Schema.Type<typeof SlashCommandInfo> {}

/**
 * `system/commands_changed`: the full list of slash commands after it changed (replace, don't
 * merge).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemCommandsChanged = Schema.Struct({
  ...base,
  subtype: Schema.Literal("commands_changed"),
  commands: Schema.Array(SlashCommandInfo)
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemCommandsChanged extends Schema.Schema.Type<typeof SystemCommandsChanged> {}

/**
 * `system/files_persisted`: files the session uploaded (`file_id` each) and those that failed.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemFilesPersisted = Schema.Struct({
  ...base,
  subtype: Schema.Literal("files_persisted"),
  files: Schema.Array(Schema.Struct({ filename: Schema.String, file_id: Schema.String })),
  failed: Schema.Array(Schema.Struct({ filename: Schema.String, error: Schema.String })),
  processed_at: Schema.String
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemFilesPersisted extends Schema.Schema.Type<typeof SystemFilesPersisted> {}

/**
 * `system/memory_recall`: memories recalled for the turn (`mode` `select` or `synthesize`).
 *
 * @since 0.2.0
 * @category system
 */
export const SystemMemoryRecall = Schema.Struct({
  ...base,
  subtype: Schema.Literal("memory_recall"),
  mode: openLiterals(["select", "synthesize"]),
  memories: Schema.Array(Schema.Struct({
    path: Schema.String,
    scope: openLiterals(["personal", "team", "organization"]),
    content: opt(Schema.String)
  }))
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemMemoryRecall extends Schema.Schema.Type<typeof SystemMemoryRecall> {}

/**
 * `system/elicitation_complete`: an MCP server's URL elicitation finished.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemElicitationComplete = Schema.Struct({
  ...base,
  subtype: Schema.Literal("elicitation_complete"),
  mcp_server_name: Schema.String,
  elicitation_id: Schema.String
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemElicitationComplete extends Schema.Schema.Type<typeof SystemElicitationComplete> {}

/**
 * `system/mirror_error`: a session store failed to mirror a transcript entry (the key it was
 * writing). The TypeScript SDK writes it into its own stream; the CLI does not.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemMirrorError = Schema.Struct({
  ...base,
  subtype: Schema.Literal("mirror_error"),
  error: Schema.String,
  key: Schema.Struct({
    projectKey: Schema.String,
    sessionId: Schema.String,
    subpath: opt(Schema.String)
  })
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemMirrorError extends Schema.Schema.Type<typeof SystemMirrorError> {}

/**
 * `system/session_writes_lost`: the disk is full (`error_code` `ENOSPC` or `EDQUOT`), so the
 * transcript and/or the global config could not be written.
 *
 * @since 0.2.0
 * @category system
 */
export const SystemSessionWritesLost = Schema.Struct({
  ...base,
  subtype: Schema.Literal("session_writes_lost"),
  error_code: openLiterals(["ENOSPC", "EDQUOT"]),
  lost: Schema.Array(openLiterals(["transcript", "global_config"])),
  transcript_session_ids: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.2.0
 * @category system
 */
export interface SystemSessionWritesLost extends Schema.Schema.Type<typeof SystemSessionWritesLost> {}

/**
 * Every modelled `system` line.
 *
 * @since 0.1.0
 * @category system
 */
export const SystemMessage = Schema.Union([
  SystemInit,
  SystemStatus,
  SystemApiRetry,
  SystemTaskStarted,
  SystemTaskUpdated,
  SystemTaskNotification,
  SystemBackgroundTasksChanged,
  SystemCompactBoundary,
  SystemInformational,
  SystemNotification,
  SystemPermissionDenied,
  SystemThinkingTokens,
  SystemHookStarted,
  SystemHookProgress,
  SystemHookResponse,
  SystemTaskProgress,
  SystemSessionStateChanged,
  SystemLocalCommandOutput,
  SystemControlRequestProgress,
  SystemModelRefusalFallback,
  SystemModelRefusalNoFallback,
  SystemPluginInstall,
  SystemWorkerShuttingDown,
  SystemCommandsChanged,
  SystemFilesPersisted,
  SystemMemoryRecall,
  SystemElicitationComplete,
  SystemMirrorError,
  SystemSessionWritesLost
])

/**
 * @since 0.1.0
 * @category system
 */
export type SystemMessage = typeof SystemMessage.Type
