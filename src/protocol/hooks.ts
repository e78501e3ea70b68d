/**
 * Hooks on the wire: the input of each hook event the `claude` CLI sends in `hook_callback`
 * control requests, and the answers a hook gives back. One definition each: the `Hooks` service
 * (through `HookEvents`) and the control channel both use these.
 *
 * Inputs are the wire objects as the CLI sends them (snake_case keys). The schemas are
 * structural: decoding validates the fields listed here and the handler receives the CLI's
 * original object, so fields a newer CLI adds are kept (read them with a cast or through
 * {@link UnknownHookInput}).
 *
 * Outputs are written in camelCase exactly as the CLI reads them (`continue`, `stopReason`,
 * `decision`, `hookSpecificOutput.permissionDecision`, ...). In the typed form
 * `hookSpecificOutput.hookEventName` may be left out: it is filled in from the event when the
 * answer is encoded.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { openLiterals, Rest } from "./internal.ts"
import { PermissionUpdate } from "./permissions.ts"

// -----------------------------------------------------------------------------
// inputs
// -----------------------------------------------------------------------------

/**
 * What started a compaction. Known values: `manual` (`/compact`), `auto`; any other string (from
 * a later CLI) is accepted as is.
 *
 * @since 0.1.0
 * @category inputs
 */
export const CompactTrigger = openLiterals(["manual", "auto"])

/**
 * @since 0.1.0
 * @category inputs
 */
export type CompactTrigger = typeof CompactTrigger.Type

/**
 * Why a session started. Known values: `startup`, `resume`, `clear`, `compact`, `fork`; any other
 * string (from a later CLI) is accepted as is.
 *
 * @since 0.1.0
 * @category inputs
 */
export const SessionStartSource = openLiterals(["startup", "resume", "clear", "compact", "fork"])

/**
 * @since 0.1.0
 * @category inputs
 */
export type SessionStartSource = typeof SessionStartSource.Type

/**
 * The fields every hook input carries. `permission_mode` is absent for SubagentStart,
 * PreCompact, PostCompact and SessionStart; `effort` only appears for events that fire inside a
 * turn (PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop); `agent_id` /
 * `agent_type` when the hook fires inside a subagent.
 *
 * @since 0.1.0
 * @category inputs
 */
export const BaseHookInputFields = {
  session_id: Schema.String,
  transcript_path: Schema.String,
  cwd: Schema.String,
  permission_mode: Schema.optionalKey(Schema.String),
  prompt_id: Schema.optionalKey(Schema.String),
  agent_id: Schema.optionalKey(Schema.String),
  agent_type: Schema.optionalKey(Schema.String),
  effort: Schema.optionalKey(Schema.Struct({ level: Schema.String }))
} as const

/**
 * Where an MCP tool's server was configured.
 *
 * @since 0.1.0
 * @category inputs
 */
export const McpServerProvenance = Schema.Struct({
  name: Schema.String,
  source: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface McpServerProvenance extends Schema.Schema.Type<typeof McpServerProvenance> {}

/**
 * A tool's input as the model wrote it (a JSON object).
 *
 * @since 0.1.0
 * @category inputs
 */
export const ToolInput = Schema.Record(Schema.String, Schema.Unknown)

/**
 * @since 0.1.0
 * @category inputs
 */
export type ToolInput = typeof ToolInput.Type

/**
 * A background task still in flight when a Stop / SubagentStop hook fires.
 *
 * @since 0.1.0
 * @category inputs
 */
export const BackgroundTaskSummary = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  status: Schema.String,
  description: Schema.optionalKey(Schema.String),
  command: Schema.optionalKey(Schema.String),
  agent_type: Schema.optionalKey(Schema.String),
  server: Schema.optionalKey(Schema.String),
  tool: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface BackgroundTaskSummary extends Schema.Schema.Type<typeof BackgroundTaskSummary> {}

/**
 * A session-scoped cron task that will wake the session later.
 *
 * @since 0.1.0
 * @category inputs
 */
export const SessionCronSummary = Schema.Struct({
  id: Schema.String,
  schedule: Schema.String,
  recurring: Schema.Boolean,
  prompt: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface SessionCronSummary extends Schema.Schema.Type<typeof SessionCronSummary> {}

/**
 * Before a tool runs. The answer can allow, deny or ask, and rewrite the input.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PreToolUseInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PreToolUse"),
  tool_name: Schema.String,
  tool_input: ToolInput,
  tool_use_id: Schema.String,
  mcp_server: Schema.optionalKey(McpServerProvenance)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PreToolUseInput extends Schema.Schema.Type<typeof PreToolUseInput> {}

/**
 * After a tool succeeded. `tool_response` is the tool's structured result.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PostToolUseInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PostToolUse"),
  tool_name: Schema.String,
  tool_input: ToolInput,
  tool_response: Schema.Unknown,
  tool_use_id: Schema.String,
  duration_ms: Schema.optionalKey(Schema.Number),
  mcp_server: Schema.optionalKey(McpServerProvenance)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PostToolUseInput extends Schema.Schema.Type<typeof PostToolUseInput> {}

/**
 * After a tool failed (`error` is e.g. `"Exit code 1"`).
 *
 * @since 0.1.0
 * @category inputs
 */
export const PostToolUseFailureInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PostToolUseFailure"),
  tool_name: Schema.String,
  tool_input: ToolInput,
  tool_use_id: Schema.String,
  error: Schema.String,
  is_interrupt: Schema.optionalKey(Schema.Boolean),
  duration_ms: Schema.optionalKey(Schema.Number),
  mcp_server: Schema.optionalKey(McpServerProvenance)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PostToolUseFailureInput extends Schema.Schema.Type<typeof PostToolUseFailureInput> {}

/**
 * A user message is about to start a turn.
 *
 * @since 0.1.0
 * @category inputs
 */
export const UserPromptSubmitInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("UserPromptSubmit"),
  prompt: Schema.String,
  source: Schema.optionalKey(Schema.String),
  session_title: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface UserPromptSubmitInput extends Schema.Schema.Type<typeof UserPromptSubmitInput> {}

/**
 * The main agent is about to end its turn. `stop_hook_active` is `true` on the call that
 * follows a `block`.
 *
 * @since 0.1.0
 * @category inputs
 */
export const StopInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("Stop"),
  stop_hook_active: Schema.Boolean,
  last_assistant_message: Schema.optionalKey(Schema.String),
  background_tasks: Schema.optionalKey(Schema.Array(BackgroundTaskSummary)),
  session_crons: Schema.optionalKey(Schema.Array(SessionCronSummary))
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface StopInput extends Schema.Schema.Type<typeof StopInput> {}

/**
 * The turn ended on an API error.
 *
 * @since 0.1.0
 * @category inputs
 */
export const StopFailureInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("StopFailure"),
  error: Schema.String,
  error_details: Schema.optionalKey(Schema.String),
  last_assistant_message: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface StopFailureInput extends Schema.Schema.Type<typeof StopFailureInput> {}

/**
 * A subagent (Agent tool) starts.
 *
 * @since 0.1.0
 * @category inputs
 */
export const SubagentStartInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("SubagentStart"),
  agent_id: Schema.String,
  agent_type: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface SubagentStartInput extends Schema.Schema.Type<typeof SubagentStartInput> {}

/**
 * A subagent is about to finish.
 *
 * @since 0.1.0
 * @category inputs
 */
export const SubagentStopInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("SubagentStop"),
  stop_hook_active: Schema.Boolean,
  agent_id: Schema.String,
  agent_type: Schema.String,
  agent_transcript_path: Schema.String,
  last_assistant_message: Schema.optionalKey(Schema.String),
  background_tasks: Schema.optionalKey(Schema.Array(BackgroundTaskSummary)),
  session_crons: Schema.optionalKey(Schema.Array(SessionCronSummary))
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface SubagentStopInput extends Schema.Schema.Type<typeof SubagentStopInput> {}

/**
 * Before compaction (`/compact` or automatic).
 *
 * @since 0.1.0
 * @category inputs
 */
export const PreCompactInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PreCompact"),
  trigger: CompactTrigger,
  custom_instructions: Schema.NullOr(Schema.String)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PreCompactInput extends Schema.Schema.Type<typeof PreCompactInput> {}

/**
 * After compaction, with the summary.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PostCompactInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PostCompact"),
  trigger: CompactTrigger,
  compact_summary: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PostCompactInput extends Schema.Schema.Type<typeof PostCompactInput> {}

/**
 * A session starts (CLI 2.1.332 only sent it after compaction, `source: "compact"`).
 *
 * @since 0.1.0
 * @category inputs
 */
export const SessionStartInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("SessionStart"),
  source: SessionStartSource,
  model: Schema.optionalKey(Schema.String),
  session_title: Schema.optionalKey(Schema.String),
  seconds_since_last_response: Schema.optionalKey(Schema.Number),
  context_tokens: Schema.optionalKey(Schema.Number),
  prompt_cache_likely_expired: Schema.optionalKey(Schema.Boolean),
  estimated_cache_write_usd: Schema.optionalKey(Schema.Number)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface SessionStartInput extends Schema.Schema.Type<typeof SessionStartInput> {}

/**
 * A session ends (not observed from CLI 2.1.332 over stream-json). `reason` is one of the TS
 * SDK's `clear`, `resume`, `logout`, `prompt_input_exit`, `other`, or any later value.
 *
 * @since 0.1.0
 * @category inputs
 */
export const SessionEndInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("SessionEnd"),
  reason: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface SessionEndInput extends Schema.Schema.Type<typeof SessionEndInput> {}

/**
 * The CLI shows a notification (not observed from CLI 2.1.332 over stream-json).
 *
 * @since 0.1.0
 * @category inputs
 */
export const NotificationInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("Notification"),
  message: Schema.String,
  title: Schema.optionalKey(Schema.String),
  notification_type: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface NotificationInput extends Schema.Schema.Type<typeof NotificationInput> {}

/**
 * The CLI is about to ask for a tool permission; the hook may answer instead of the user.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PermissionRequestInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PermissionRequest"),
  tool_name: Schema.String,
  tool_input: ToolInput,
  permission_suggestions: Schema.optionalKey(Schema.Array(PermissionUpdate)),
  mcp_server: Schema.optionalKey(McpServerProvenance)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PermissionRequestInput extends Schema.Schema.Type<typeof PermissionRequestInput> {}

/**
 * A tool call was denied by the permission system.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PermissionDeniedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PermissionDenied"),
  tool_name: Schema.String,
  tool_input: ToolInput,
  tool_use_id: Schema.String,
  reason: Schema.String,
  mcp_server: Schema.optionalKey(McpServerProvenance)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PermissionDeniedInput extends Schema.Schema.Type<typeof PermissionDeniedInput> {}

/**
 * One tool call of a {@link PostToolBatchInput}.
 *
 * @since 0.1.0
 * @category inputs
 */
export const PostToolBatchToolCall = Schema.Struct({
  tool_name: Schema.String,
  tool_input: Schema.Unknown,
  tool_use_id: Schema.String,
  tool_response: Schema.optionalKey(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PostToolBatchToolCall extends Schema.Schema.Type<typeof PostToolBatchToolCall> {}

/**
 * After a batch of tool calls (the tool uses of one assistant message) has run (TS SDK event;
 * not observed from CLI 2.1.332 over stream-json).
 *
 * @since 0.1.0
 * @category inputs
 */
export const PostToolBatchInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PostToolBatch"),
  tool_calls: Schema.Array(PostToolBatchToolCall)
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface PostToolBatchInput extends Schema.Schema.Type<typeof PostToolBatchInput> {}

/**
 * A slash command or MCP prompt is expanded into a prompt (TS SDK event; not observed from CLI
 * 2.1.332 over stream-json). `expansion_type` is `slash_command` or `mcp_prompt` (or a later
 * value).
 *
 * @since 0.1.0
 * @category inputs
 */
export const UserPromptExpansionInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("UserPromptExpansion"),
  expansion_type: openLiterals(["slash_command", "mcp_prompt"]),
  command_name: Schema.String,
  command_args: Schema.String,
  command_source: Schema.optionalKey(Schema.String),
  prompt: Schema.String
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface UserPromptExpansionInput extends Schema.Schema.Type<typeof UserPromptExpansionInput> {}

const ElicitationMode = openLiterals(["form", "url"])
const ElicitationAction = openLiterals(["accept", "decline", "cancel"])

/**
 * An MCP server asks for user input (`elicitation/create`), before the CLI asks the host (fired by
 * CLI 2.1.332: test/HookElicitationAnswersLive.test.ts). The answer may accept, decline or cancel it.
 *
 * @since 0.1.0
 * @category inputs
 */
export const ElicitationInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("Elicitation"),
  mcp_server_name: Schema.String,
  message: Schema.String,
  mode: Schema.optionalKey(ElicitationMode),
  url: Schema.optionalKey(Schema.String),
  elicitation_id: Schema.optionalKey(Schema.String),
  requested_schema: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface ElicitationInput extends Schema.Schema.Type<typeof ElicitationInput> {}

/**
 * The user (or the `Elicitation` handler) answered an MCP elicitation; the hook may override the
 * answer (fired by CLI 2.1.332: test/HookElicitationAnswersLive.test.ts).
 *
 * @since 0.1.0
 * @category inputs
 */
export const ElicitationResultInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("ElicitationResult"),
  mcp_server_name: Schema.String,
  elicitation_id: Schema.optionalKey(Schema.String),
  mode: Schema.optionalKey(ElicitationMode),
  action: ElicitationAction,
  content: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category inputs
 */
export interface ElicitationResultInput extends Schema.Schema.Type<typeof ElicitationResultInput> {}

/**
 * Where a model switch came from (`command`: `/model`; `picker`; `sdk`: `set_model`; for
 * PostModelSwitch also `auto` and `resume`), and the cache facts the CLI weighed.
 */
const modelSwitchFields = {
  from_model: Schema.String,
  to_model: Schema.String,
  requested_model: Schema.NullOr(Schema.String),
  source: openLiterals(["command", "picker", "sdk", "auto", "resume"]),
  context_tokens: Schema.Number,
  prompt_cache_warm: Schema.Boolean,
  cache_ttl: openLiterals(["5m", "1h"]),
  estimated_cache_write_usd: Schema.Number,
  pricing: openLiterals(["configured", "catalog", "default"])
} as const

/**
 * Before the session's model changes (`set_model`, `/model`). The answer can allow, deny or ask.
 * Fired by CLI 2.1.332 for a settings hook (test/HookEventsLive.test.ts).
 *
 * @since 0.2.0
 * @category inputs
 */
export const PreModelSwitchInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PreModelSwitch"),
  ...modelSwitchFields
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface PreModelSwitchInput extends Schema.Schema.Type<typeof PreModelSwitchInput> {}

/**
 * After the session's model changed. The answer can add context for the model.
 *
 * @since 0.2.0
 * @category inputs
 */
export const PostModelSwitchInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PostModelSwitch"),
  ...modelSwitchFields
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface PostModelSwitchInput extends Schema.Schema.Type<typeof PostModelSwitchInput> {}

/**
 * The repository setup (`--init`, `--maintenance`): `trigger` `init` or `maintenance`.
 *
 * @since 0.2.0
 * @category inputs
 */
export const SetupInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("Setup"),
  trigger: openLiterals(["init", "maintenance"])
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface SetupInput extends Schema.Schema.Type<typeof SetupInput> {}

/**
 * A teammate of an agent team is about to go idle.
 *
 * @since 0.2.0
 * @category inputs
 */
export const TeammateIdleInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("TeammateIdle"),
  teammate_name: Schema.String,
  team_name: Schema.String
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface TeammateIdleInput extends Schema.Schema.Type<typeof TeammateIdleInput> {}

const teamTaskFields = {
  task_id: Schema.String,
  task_subject: Schema.String,
  task_description: Schema.optionalKey(Schema.String),
  teammate_name: Schema.optionalKey(Schema.String),
  team_name: Schema.optionalKey(Schema.String)
} as const

/**
 * A task of the task list was created.
 *
 * @since 0.2.0
 * @category inputs
 */
export const TaskCreatedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("TaskCreated"),
  ...teamTaskFields
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface TaskCreatedInput extends Schema.Schema.Type<typeof TaskCreatedInput> {}

/**
 * A task of the task list is being marked completed.
 *
 * @since 0.2.0
 * @category inputs
 */
export const TaskCompletedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("TaskCompleted"),
  ...teamTaskFields
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface TaskCompletedInput extends Schema.Schema.Type<typeof TaskCompletedInput> {}

/**
 * A settings file changed while the session runs (`source` `user_settings`,
 * `project_settings`, `local_settings`, `policy_settings`, `skills`). A `block` decision keeps
 * the change out.
 *
 * @since 0.2.0
 * @category inputs
 */
export const ConfigChangeInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("ConfigChange"),
  source: openLiterals(["user_settings", "project_settings", "local_settings", "policy_settings", "skills"]),
  file_path: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface ConfigChangeInput extends Schema.Schema.Type<typeof ConfigChangeInput> {}

/**
 * A worktree is to be created (`name`); the answer gives its path (`worktreePath`).
 *
 * @since 0.2.0
 * @category inputs
 */
export const WorktreeCreateInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("WorktreeCreate"),
  name: Schema.String
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface WorktreeCreateInput extends Schema.Schema.Type<typeof WorktreeCreateInput> {}

/**
 * A worktree is to be removed.
 *
 * @since 0.2.0
 * @category inputs
 */
export const WorktreeRemoveInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("WorktreeRemove"),
  worktree_path: Schema.String
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface WorktreeRemoveInput extends Schema.Schema.Type<typeof WorktreeRemoveInput> {}

/**
 * A memory file (`CLAUDE.md`, a rule) was loaded into the context: its `memory_type` (`User`,
 * `Project`, `Local`, `Managed`) and why (`load_reason`).
 *
 * @since 0.2.0
 * @category inputs
 */
export const InstructionsLoadedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("InstructionsLoaded"),
  file_path: Schema.String,
  memory_type: openLiterals(["User", "Project", "Local", "Managed"]),
  load_reason: openLiterals(["session_start", "nested_traversal", "path_glob_match", "include", "compact"]),
  globs: Schema.optionalKey(Schema.Array(Schema.String)),
  trigger_file_path: Schema.optionalKey(Schema.String),
  parent_file_path: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface InstructionsLoadedInput extends Schema.Schema.Type<typeof InstructionsLoadedInput> {}

/**
 * The session's working directory changed. The answer can name paths to watch (FileChanged).
 *
 * @since 0.2.0
 * @category inputs
 */
export const CwdChangedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("CwdChanged"),
  old_cwd: Schema.String,
  new_cwd: Schema.String
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface CwdChangedInput extends Schema.Schema.Type<typeof CwdChangedInput> {}

/**
 * A watched file changed (`event` `change`, `add`, `unlink`).
 *
 * @since 0.2.0
 * @category inputs
 */
export const FileChangedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("FileChanged"),
  file_path: Schema.String,
  event: openLiterals(["change", "add", "unlink"])
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface FileChangedInput extends Schema.Schema.Type<typeof FileChangedInput> {}

/**
 * A directory was added to the session (`source` `slash_command` or `register_repo_root`).
 *
 * @since 0.2.0
 * @category inputs
 */
export const DirectoryAddedInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("DirectoryAdded"),
  directory: Schema.String,
  source: openLiterals(["slash_command", "register_repo_root"])
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface DirectoryAddedInput extends Schema.Schema.Type<typeof DirectoryAddedInput> {}

/**
 * A piece of the assistant's text is about to be displayed (`delta`, the `index`-th of message
 * `message_id`; `final` on the last). The answer can replace what is displayed. Fired by CLI
 * 2.1.332 for a settings hook (test/HookEventsLive.test.ts).
 *
 * @since 0.2.0
 * @category inputs
 */
export const MessageDisplayInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("MessageDisplay"),
  turn_id: Schema.String,
  message_id: Schema.String,
  index: Schema.Number,
  final: Schema.Boolean,
  delta: Schema.String
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface MessageDisplayInput extends Schema.Schema.Type<typeof MessageDisplayInput> {}

/**
 * A skill's (or slash command's) shell command is about to run (`!` lines): allow, deny or ask,
 * as for a tool call.
 *
 * @since 0.2.0
 * @category inputs
 */
export const PreSkillShellCommandInput = Schema.Struct({
  ...BaseHookInputFields,
  hook_event_name: Schema.Literal("PreSkillShellCommand"),
  tool_name: Schema.String,
  tool_input: Schema.StructWithRest(Schema.Struct({ command: Schema.String }), [Rest]),
  tool_use_id: Schema.String,
  command_name: Schema.String,
  command_source: Schema.optionalKey(Schema.String),
  invoked_by: openLiterals(["user", "claude", "other"])
})

/**
 * @since 0.2.0
 * @category inputs
 */
export interface PreSkillShellCommandInput extends Schema.Schema.Type<typeof PreSkillShellCommandInput> {}

/**
 * The input of an event this library has no schema for (events added by later CLIs, or the
 * other events of the TypeScript SDK's list). Only `hook_event_name` is checked; the handler
 * gets the CLI's object as is.
 *
 * @since 0.1.0
 * @category inputs
 */
export const UnknownHookInput = Schema.StructWithRest(
  Schema.Struct({ hook_event_name: Schema.String }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @since 0.1.0
 * @category inputs
 */
export interface UnknownHookInput extends Schema.Schema.Type<typeof UnknownHookInput> {}

// -----------------------------------------------------------------------------
// outputs
// -----------------------------------------------------------------------------

/**
 * The answer fields common to every event.
 *
 * - `continue: false` + `stopReason`: end the turn after this hook.
 * - `decision: "block"` + `reason`: block the action (Stop: keep going with `reason` as
 *   feedback; UserPromptSubmit: drop the prompt; PreToolUse: same as a deny; PermissionRequest:
 *   no decision for CLI 2.1.332, so `Hooks` sends it as `hookSpecificOutput.decision` deny).
 * - `systemMessage`, `suppressOutput`: shown to / hidden from the user.
 * - `terminalSequence`: a terminal escape sequence (a notification or title OSC, or BEL) the
 *   CLI emits for the hook.
 * - `async: true` (+ `asyncTimeout` in ms): the SDKs' "async" answer: no decision now. CLI 2.1.332
 *   ignores the other fields of such an answer (a Stop `block` with `async: true` ends the turn).
 *
 * @since 0.1.0
 * @category outputs
 */
export const HookOutputBaseFields = {
  continue: Schema.optionalKey(Schema.Boolean),
  stopReason: Schema.optionalKey(Schema.String),
  suppressOutput: Schema.optionalKey(Schema.Boolean),
  systemMessage: Schema.optionalKey(Schema.String),
  terminalSequence: Schema.optionalKey(Schema.String),
  decision: Schema.optionalKey(Schema.Literals(["approve", "block"])),
  reason: Schema.optionalKey(Schema.String),
  async: Schema.optionalKey(Schema.Literal(true)),
  asyncTimeout: Schema.optionalKey(Schema.Number)
} as const

/**
 * @since 0.1.0
 * @category outputs
 */
export const HookOutputBase = Schema.Struct(HookOutputBaseFields)

/**
 * @since 0.1.0
 * @category outputs
 */
export interface HookOutputBase extends Schema.Schema.Type<typeof HookOutputBase> {}

const specific = <const E extends string, const F extends Schema.Struct.Fields>(event: E, fields: F) =>
  Schema.Struct({ hookEventName: Schema.optionalKey(Schema.Literal(event)), ...fields })

const additionalContext = { additionalContext: Schema.optionalKey(Schema.String) } as const

/**
 * PreToolUse answer: `permissionDecision` (`allow` skips the permission prompt, `deny` blocks
 * the tool with `permissionDecisionReason` as the tool error, `ask` prompts), `updatedInput`
 * (replaces the tool input), `additionalContext`.
 *
 * @since 0.1.0
 * @category outputs
 */
export const PreToolUseSpecificOutput = specific("PreToolUse", {
  permissionDecision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask", "defer"])),
  permissionDecisionReason: Schema.optionalKey(Schema.String),
  updatedInput: Schema.optionalKey(ToolInput),
  ...additionalContext
})

/**
 * PostToolUse answer: `additionalContext` (a system message after the tool result),
 * `updatedToolOutput` / `updatedMCPToolOutput` (replace what the model sees).
 *
 * @since 0.1.0
 * @category outputs
 */
export const PostToolUseSpecificOutput = specific("PostToolUse", {
  ...additionalContext,
  classifierContext: Schema.optionalKey(Schema.String),
  updatedToolOutput: Schema.optionalKey(Schema.Unknown),
  updatedMCPToolOutput: Schema.optionalKey(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category outputs
 */
export const PostToolUseFailureSpecificOutput = specific("PostToolUseFailure", additionalContext)

/**
 * UserPromptSubmit answer: `additionalContext` (CLI 2.1.332 appends it to the `role: "system"`
 * environment entry of the turn's API request, not to the `system` parameter).
 *
 * @since 0.1.0
 * @category outputs
 */
export const UserPromptSubmitSpecificOutput = specific("UserPromptSubmit", {
  ...additionalContext,
  sessionTitle: Schema.optionalKey(Schema.String),
  suppressOriginalPrompt: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category outputs
 */
export const SessionStartSpecificOutput = specific("SessionStart", {
  ...additionalContext,
  initialUserMessage: Schema.optionalKey(Schema.String),
  sessionTitle: Schema.optionalKey(Schema.String),
  watchPaths: Schema.optionalKey(Schema.Array(Schema.String)),
  reloadSkills: Schema.optionalKey(Schema.Boolean)
})

/**
 * `additionalContext` on `Stop`: the CLI adds it and calls the model again (the conversation goes
 * on), at every stop answered so; check `stop_hook_active` in the input.
 *
 * @since 0.1.0
 * @category outputs
 */
export const StopSpecificOutput = specific("Stop", additionalContext)

/**
 * @since 0.1.0
 * @category outputs
 */
export const SubagentStartSpecificOutput = specific("SubagentStart", additionalContext)

/**
 * `additionalContext` on `SubagentStop`: the subagent goes on with it, as for `Stop`.
 *
 * @since 0.1.0
 * @category outputs
 */
export const SubagentStopSpecificOutput = specific("SubagentStop", additionalContext)

/**
 * @since 0.1.0
 * @category outputs
 */
export const NotificationSpecificOutput = specific("Notification", additionalContext)

/**
 * PermissionRequest answer: the decision the CLI takes instead of prompting.
 *
 * @since 0.1.0
 * @category outputs
 */
export const PermissionRequestSpecificOutput = specific("PermissionRequest", {
  decision: Schema.Union([
    Schema.Struct({
      behavior: Schema.Literal("allow"),
      updatedInput: Schema.optionalKey(ToolInput),
      updatedPermissions: Schema.optionalKey(Schema.Array(PermissionUpdate))
    }),
    Schema.Struct({
      behavior: Schema.Literal("deny"),
      message: Schema.optionalKey(Schema.String),
      interrupt: Schema.optionalKey(Schema.Boolean)
    })
  ])
})

/**
 * @since 0.1.0
 * @category outputs
 */
export const PermissionDeniedSpecificOutput = specific("PermissionDenied", {
  retry: Schema.optionalKey(Schema.Boolean)
})

/**
 * PostToolBatch answer: `additionalContext` for the model.
 *
 * @since 0.1.0
 * @category outputs
 */
export const PostToolBatchSpecificOutput = specific("PostToolBatch", additionalContext)

/**
 * UserPromptExpansion answer: `additionalContext`, and `suppressOriginalPrompt` (with a `block`
 * decision, leave the prompt out of the block message).
 *
 * @since 0.1.0
 * @category outputs
 */
export const UserPromptExpansionSpecificOutput = specific("UserPromptExpansion", {
  ...additionalContext,
  suppressOriginalPrompt: Schema.optionalKey(Schema.Boolean)
})

/**
 * Elicitation answer: accept (with `content`), decline or cancel the MCP server's request. CLI
 * 2.1.332 does not read it from an SDK host's answer: `Hooks` writes the action where it reads it
 * too (a decline as `decision: "block"`, an accept or cancel as JSON in `systemMessage`), and so
 * for `ElicitationResult`.
 *
 * @since 0.1.0
 * @category outputs
 */
export const ElicitationSpecificOutput = specific("Elicitation", {
  action: Schema.optionalKey(ElicitationAction),
  content: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * ElicitationResult answer: override the action or content sent to the MCP server.
 *
 * @since 0.1.0
 * @category outputs
 */
export const ElicitationResultSpecificOutput = specific("ElicitationResult", {
  action: Schema.optionalKey(ElicitationAction),
  content: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * PreModelSwitch answer: `permissionDecision` (`deny` keeps the current model).
 *
 * @since 0.2.0
 * @category outputs
 */
export const PreModelSwitchSpecificOutput = specific("PreModelSwitch", {
  permissionDecision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask"])),
  permissionDecisionReason: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category outputs
 */
export const PostModelSwitchSpecificOutput = specific("PostModelSwitch", additionalContext)

/**
 * @since 0.2.0
 * @category outputs
 */
export const SetupSpecificOutput = specific("Setup", additionalContext)

/**
 * WorktreeCreate answer: the path of the worktree the hook created.
 *
 * @since 0.2.0
 * @category outputs
 */
export const WorktreeCreateSpecificOutput = specific("WorktreeCreate", {
  worktreePath: Schema.String
})

/**
 * CwdChanged answer: paths to watch (their changes fire FileChanged).
 *
 * @since 0.2.0
 * @category outputs
 */
export const CwdChangedSpecificOutput = specific("CwdChanged", {
  watchPaths: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * FileChanged answer: paths to watch from now on.
 *
 * @since 0.2.0
 * @category outputs
 */
export const FileChangedSpecificOutput = specific("FileChanged", {
  watchPaths: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * MessageDisplay answer: the text to display instead of the delta.
 *
 * @since 0.2.0
 * @category outputs
 */
export const MessageDisplaySpecificOutput = specific("MessageDisplay", {
  displayContent: Schema.optionalKey(Schema.String)
})

/**
 * PreSkillShellCommand answer: as PreToolUse's, without `additionalContext`.
 *
 * @since 0.2.0
 * @category outputs
 */
export const PreSkillShellCommandSpecificOutput = specific("PreSkillShellCommand", {
  permissionDecision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask", "defer"])),
  permissionDecisionReason: Schema.optionalKey(Schema.String),
  updatedInput: Schema.optionalKey(ToolInput)
})

/**
 * The `hookSpecificOutput` of an event this library has no schema for: any JSON object,
 * passed through (its `hookEventName` is still filled in).
 *
 * @since 0.1.0
 * @category outputs
 */
export const UnknownSpecificOutput = Schema.Record(Schema.String, Schema.Unknown)

// -----------------------------------------------------------------------------
// any event (what the control channel carries)
// -----------------------------------------------------------------------------

/**
 * The input of any hook callback: the common fields ({@link BaseHookInputFields}) typed, the
 * event's own fields (`tool_name`, `tool_input`, `prompt`, `stop_hook_active`, …) kept under their
 * names. The event schemas above check an event's own fields.
 *
 * @since 0.1.0
 * @category any event
 */
export const HookInput = Schema.StructWithRest(
  Schema.Struct({ ...BaseHookInputFields, hook_event_name: Schema.String }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category any event
 */
export interface HookInput extends Schema.Schema.Type<typeof HookInput> {}

/**
 * The answer to any `hook_callback` (`{}` = no opinion): the common fields
 * ({@link HookOutputBaseFields}) and a `hookSpecificOutput` that carries `hookEventName` and the
 * event's own fields (`additionalContext`, `permissionDecision`, `updatedInput`, …; see the event
 * schemas above).
 *
 * @since 0.1.0
 * @category any event
 */
export const HookOutput = Schema.Struct({
  ...HookOutputBaseFields,
  hookSpecificOutput: Schema.optionalKey(
    Schema.StructWithRest(Schema.Struct({ hookEventName: Schema.String }), [Rest])
  )
})

/**
 * @since 0.1.0
 * @category any event
 */
export interface HookOutput extends Schema.Schema.Type<typeof HookOutput> {}
