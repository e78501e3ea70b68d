/**
 * The control channel: `control_request`, `control_response` and `control_cancel_request` lines
 * (both directions), the request bodies and the typed response bodies.
 *
 * Envelope: `{"type":"control_request","request_id":ID,"request":{"subtype":…,…}}`, answered by
 * `{"type":"control_response","response":{"subtype":"success","request_id":ID,"response":{…}}}`
 * or `{"type":"control_response","response":{"subtype":"error","request_id":ID,"error":"…","error_code"?:"…"}}`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { JsonObject, OpenUnion, Rest, StringOtherThan } from "./internal.ts"
import { HookInput } from "./hooks.ts"
import { CanUseToolRequest } from "./permissions.ts"

const opt = Schema.optionalKey

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/**
 * A JSON-RPC 2.0 message (request, notification or response) as carried by `mcp_message`.
 *
 * @since 0.1.0
 * @category mcp
 */
export const JsonRpcMessage = Schema.Struct({
  jsonrpc: Schema.String,
  id: opt(Schema.NullOr(Schema.Union([Schema.String, Schema.Number]))),
  method: opt(Schema.String),
  params: opt(Schema.Unknown),
  result: opt(Schema.Unknown),
  error: opt(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category mcp
 */
export interface JsonRpcMessage extends Schema.Schema.Type<typeof JsonRpcMessage> {}

// ---------------------------------------------------------------------------------------------
// CLI → host request bodies
// ---------------------------------------------------------------------------------------------

/**
 * `hook_callback`: a registered hook fired. Answer with the hook output ({@link HookOutput});
 * `{}` means no opinion. `tool_use_id` is the tool's id, or a random uuid for non-tool events.
 *
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const HookCallbackRequest = Schema.Struct({
  subtype: Schema.Literal("hook_callback"),
  callback_id: Schema.String,
  input: HookInput,
  /** The tool call's id (a random uuid for non-tool events); absent or `null` from some CLIs: the handler then gets none. */
  tool_use_id: opt(Schema.NullOr(Schema.String))
})

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export interface HookCallbackRequest extends Schema.Schema.Type<typeof HookCallbackRequest> {}

/**
 * `mcp_message`: a JSON-RPC message for an `sdk`-type MCP server the host runs. Answer every one,
 * notifications included, with {@link McpMessageResponse}.
 *
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const McpMessageRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_message"),
  server_name: Schema.String,
  message: JsonRpcMessage
})

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export interface McpMessageRequest extends Schema.Schema.Type<typeof McpMessageRequest> {}

/**
 * The CLI → host request subtypes with a schema of their own.
 *
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const knownIncomingRequestSubtypes = ["hook_callback", "mcp_message", "can_use_tool"] as const

/**
 * A CLI → host request of another subtype (`elicitation`, `request_user_dialog`, …): not an
 * error, but the host should answer it (an error response is the usual "unsupported" answer).
 * The session answers `elicitation` with an `Elicitation` layer and `request_user_dialog` with a
 * `UserDialogs` layer when given one (their schemas are in those modules).
 * Its `subtype` is a `Protocol.UnknownType`, so `body.subtype === "hook_callback"` narrows.
 *
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const OtherIncomingRequest = Schema.StructWithRest(
  Schema.Struct({ subtype: StringOtherThan(knownIncomingRequestSubtypes, "request subtype") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export interface OtherIncomingRequest extends Schema.Schema.Type<typeof OtherIncomingRequest> {}

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const IncomingRequestBody = OpenUnion(
  [HookCallbackRequest, McpMessageRequest, CanUseToolRequest],
  OtherIncomingRequest
)

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export type IncomingRequestBody = typeof IncomingRequestBody.Type

/**
 * A `control_request` line from the CLI.
 *
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export const IncomingControlRequest = Schema.Struct({
  type: Schema.Literal("control_request"),
  request_id: Schema.String,
  request: IncomingRequestBody
})

/**
 * @since 0.1.0
 * @category requests (CLI → host)
 */
export interface IncomingControlRequest extends Schema.Schema.Type<typeof IncomingControlRequest> {}

// ---------------------------------------------------------------------------------------------
// Host → CLI request bodies
// ---------------------------------------------------------------------------------------------

/**
 * A hook registration: `matcher` picks tools by name (names of `[A-Za-z0-9_ -]` separated by `|`
 * or `,` exactly; anything else a regular expression; `null` or absent: every tool);
 * `hookCallbackIds` are the host's ids, sent back as `callback_id`.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const HookMatcher = Schema.Struct({
  matcher: opt(Schema.NullOr(Schema.String)),
  hookCallbackIds: Schema.Array(Schema.String),
  timeout: opt(Schema.Number),
  /** `continue` or `block`. */
  onFailure: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface HookMatcher extends Schema.Schema.Type<typeof HookMatcher> {}

/**
 * A subagent definition for `initialize.agents`.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const AgentDefinition = Schema.Struct({
  description: Schema.String,
  prompt: Schema.String,
  tools: opt(Schema.Array(Schema.String)),
  disallowedTools: opt(Schema.Array(Schema.String)),
  model: opt(Schema.String),
  skills: opt(Schema.Array(Schema.String)),
  maxTurns: opt(Schema.Number),
  background: opt(Schema.Boolean),
  permissionMode: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface AgentDefinition extends Schema.Schema.Type<typeof AgentDefinition> {}

/**
 * `initialize`: registers hooks (keyed by event name: `PreToolUse`, `Stop`, …; unknown names are
 * accepted and never fire) and session options. Optional: the CLI runs turns without it, but
 * hooks can only be registered here. Answered with {@link InitializeResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const InitializeRequest = Schema.Struct({
  subtype: Schema.Literal("initialize"),
  hooks: opt(Schema.Record(Schema.String, Schema.Array(HookMatcher))),
  appendSystemPrompt: opt(Schema.String),
  systemPrompt: opt(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
  agents: opt(Schema.Record(Schema.String, AgentDefinition)),
  sdkMcpServers: opt(Schema.Array(Schema.String)),
  jsonSchema: opt(JsonObject),
  title: opt(Schema.String),
  planModeInstructions: opt(Schema.String),
  skills: opt(Schema.Array(Schema.String)),
  promptSuggestions: opt(Schema.Boolean),
  excludeDynamicSections: opt(Schema.Boolean),
  forwardSubagentText: opt(Schema.Boolean),
  /** The `request_user_dialog` kinds the host renders (a `UserDialogs` layer's kinds). */
  supportedDialogKinds: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface InitializeRequest extends Schema.Schema.Type<typeof InitializeRequest> {}

/**
 * `interrupt`: ends the running turn (its `result` follows); succeeds when idle too. Answered
 * with {@link InterruptResponse}. `for_user_message_uuids` (one to eight, CLI 2.1.332, marked
 * internal in its schema; older CLIs ignore it): the turn it is for, by its messages (the one that
 * opened it included); a Stop that names no message of the current turn does nothing and is
 * answered `turn: "spared"`, so an interrupt meant for a turn that just ended never aborts the
 * next.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const InterruptRequest = Schema.Struct({
  subtype: Schema.Literal("interrupt"),
  cancel_queued: opt(Schema.Boolean),
  for_user_message_uuids: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface InterruptRequest extends Schema.Schema.Type<typeof InterruptRequest> {}

/**
 * `set_model`: switches the model for later turns; no `model` (or `null`, `"default"`) resets to
 * the default. Answered with {@link SetModelResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const SetModelRequest = Schema.Struct({
  subtype: Schema.Literal("set_model"),
  model: opt(Schema.NullOr(Schema.String))
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface SetModelRequest extends Schema.Schema.Type<typeof SetModelRequest> {}

/**
 * `set_permission_mode`: `mode` is one of `acceptEdits`, `auto`, `bypassPermissions`, `default`,
 * `dontAsk`, `plan` (anything else: error `invalid_mode`). Answered with
 * {@link SetPermissionModeResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const SetPermissionModeRequest = Schema.Struct({
  subtype: Schema.Literal("set_permission_mode"),
  mode: Schema.String
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface SetPermissionModeRequest extends Schema.Schema.Type<typeof SetPermissionModeRequest> {}

/**
 * `mcp_status`. Answered with {@link McpStatusResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const McpStatusRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_status")
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface McpStatusRequest extends Schema.Schema.Type<typeof McpStatusRequest> {}

/**
 * `get_context_usage` (makes the CLI call the API's count_tokens endpoint). Answered with
 * {@link ContextUsageResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const GetContextUsageRequest = Schema.Struct({
  subtype: Schema.Literal("get_context_usage"),
  /** `summary` or `full`. */
  detail: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface GetContextUsageRequest extends Schema.Schema.Type<typeof GetContextUsageRequest> {}

/**
 * `rewind_files`: restores files to their state before the user message whose `uuid` is
 * `user_message_id`, as the file tools (Write, Edit) left them: a Bash command's
 * changes are not tracked, and are left as they are with a success answer. Needs
 * `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`, else error `File rewinding is not enabled.`
 * Answered with {@link RewindFilesResponse}.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const RewindFilesRequest = Schema.Struct({
  subtype: Schema.Literal("rewind_files"),
  user_message_id: Schema.String,
  dry_run: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface RewindFilesRequest extends Schema.Schema.Type<typeof RewindFilesRequest> {}

/**
 * `stop_task`: stops a background task (`task_id` from `system/task_started`). Always answered
 * `{}`, also for an unknown id.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const StopTaskRequest = Schema.Struct({
  subtype: Schema.Literal("stop_task"),
  task_id: Schema.String
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface StopTaskRequest extends Schema.Schema.Type<typeof StopTaskRequest> {}

/**
 * `cancel_async_message`: withdraws a user message (by its `uuid`) that is still queued on the
 * CLI. Answered `{cancelled: true}` (and a `command_lifecycle` `cancelled` line) when it was still
 * queued, `{cancelled: false}` when its turn has started or it was merged into one.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const CancelAsyncMessageRequest = Schema.Struct({
  subtype: Schema.Literal("cancel_async_message"),
  message_uuid: Schema.String
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface CancelAsyncMessageRequest extends Schema.Schema.Type<typeof CancelAsyncMessageRequest> {}

// ---------------------------------------------------------------------------------------------
// More host → CLI requests: MCP servers at run time, thinking, titles, reloads, settings, usage
// ---------------------------------------------------------------------------------------------

/**
 * An MCP server the CLI runs as a child process (`type` may be left out).
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpStdioServerConfig = Schema.Struct({
  type: opt(Schema.Literal("stdio")),
  command: Schema.String,
  args: opt(Schema.Array(Schema.String)),
  env: opt(Schema.Record(Schema.String, Schema.String))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpStdioServerConfig extends Schema.Schema.Type<typeof McpStdioServerConfig> {}

/**
 * An MCP server the CLI reaches over SSE.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpSseServerConfig = Schema.Struct({
  type: Schema.Literal("sse"),
  url: Schema.String,
  headers: opt(Schema.Record(Schema.String, Schema.String))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpSseServerConfig extends Schema.Schema.Type<typeof McpSseServerConfig> {}

/**
 * An MCP server the CLI reaches over streamable HTTP.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpHttpServerConfig = Schema.Struct({
  type: Schema.Literal("http"),
  url: Schema.String,
  headers: opt(Schema.Record(Schema.String, Schema.String))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpHttpServerConfig extends Schema.Schema.Type<typeof McpHttpServerConfig> {}

/**
 * An in-process MCP server the host runs (its JSON-RPC arrives as `mcp_message`).
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpSdkServerConfig = Schema.Struct({
  type: Schema.Literal("sdk"),
  name: Schema.String,
  alwaysLoad: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpSdkServerConfig extends Schema.Schema.Type<typeof McpSdkServerConfig> {}

/**
 * A server the CLI dials itself: stdio, SSE or HTTP.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpExternalServerConfig = Schema.Union([McpStdioServerConfig, McpSseServerConfig, McpHttpServerConfig])

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export type McpExternalServerConfig = typeof McpExternalServerConfig.Type

/**
 * Any server of `mcp_set_servers`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpServerConfig = Schema.Union([
  McpStdioServerConfig,
  McpSseServerConfig,
  McpHttpServerConfig,
  McpSdkServerConfig
])

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export type McpServerConfig = typeof McpServerConfig.Type

/**
 * `mcp_set_servers`: replaces the servers set by earlier calls (and the in-process ones) with
 * these; removed ones are disconnected, new ones connected. Servers from settings files and
 * plugins are left alone. Answered with {@link McpSetServersResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpSetServersRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_set_servers"),
  servers: Schema.Record(Schema.String, McpServerConfig)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpSetServersRequest extends Schema.Schema.Type<typeof McpSetServersRequest> {}

/**
 * `mcp_reconnect`: reconnects a server by name (unknown name: error `Server not found: …`).
 * Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpReconnectRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_reconnect"),
  serverName: Schema.String
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpReconnectRequest extends Schema.Schema.Type<typeof McpReconnectRequest> {}

/**
 * `mcp_toggle`: enables or disables a server by name (disabled: the CLI refuses its tools'
 * calls; 2.1.332 may still list them in the next requests). Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpToggleRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_toggle"),
  serverName: Schema.String,
  enabled: Schema.Boolean
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpToggleRequest extends Schema.Schema.Type<typeof McpToggleRequest> {}

/**
 * `mcp_read_resource`: reads a `ui://` resource (MCP Apps) from a server the CLI dialed.
 * Answered with {@link McpReadResourceResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const McpReadResourceRequest = Schema.Struct({
  subtype: Schema.Literal("mcp_read_resource"),
  serverName: Schema.String,
  uri: Schema.String
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface McpReadResourceRequest extends Schema.Schema.Type<typeof McpReadResourceRequest> {}

/**
 * `set_mcp_permission_mode_override`: pins (or clears, with `null`) a per-server permission
 * mode, `default` or `auto` (tighten-only). Answered with
 * {@link McpPermissionModeOverrideResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const SetMcpPermissionModeOverrideRequest = Schema.Struct({
  subtype: Schema.Literal("set_mcp_permission_mode_override"),
  serverName: Schema.String,
  mode: Schema.NullOr(Schema.Literals(["default", "auto"]))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface SetMcpPermissionModeOverrideRequest
  extends Schema.Schema.Type<typeof SetMcpPermissionModeOverrideRequest>
{}

/**
 * `set_max_thinking_tokens`: the thinking budget of later requests (`null`: the default);
 * `thinking_display` `summarized`, `omitted`, `highlights` or `null` (the CLI's default).
 * Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const SetMaxThinkingTokensRequest = Schema.Struct({
  subtype: Schema.Literal("set_max_thinking_tokens"),
  max_thinking_tokens: Schema.NullOr(Schema.Number),
  thinking_display: opt(Schema.NullOr(Schema.Literals(["summarized", "omitted", "highlights"])))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface SetMaxThinkingTokensRequest extends Schema.Schema.Type<typeof SetMaxThinkingTokensRequest> {}

/**
 * `rename_session`: the session's title (a custom-title entry in its transcript; `get_status`
 * shows it as "Session name"). `source` `host` (a user's rename) or `remote`; with `session_id`
 * the CLI refuses when it has moved to another session. Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const RenameSessionRequest = Schema.Struct({
  subtype: Schema.Literal("rename_session"),
  title: Schema.String,
  source: opt(Schema.Literals(["remote", "host"])),
  session_id: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface RenameSessionRequest extends Schema.Schema.Type<typeof RenameSessionRequest> {}

/**
 * A plugin directory, as `reload_plugins` takes it (`path` absolute).
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const PluginConfig = Schema.Struct({
  type: Schema.Literal("local"),
  path: Schema.String
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface PluginConfig extends Schema.Schema.Type<typeof PluginConfig> {}

/**
 * `reload_plugins`: re-reads plugins from disk (and loads `add_plugins`). Answered with
 * {@link ReloadPluginsResponse}; with `refuse_if_busy`, a busy session answers error
 * `reload_plugins_busy`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ReloadPluginsRequest = Schema.Struct({
  subtype: Schema.Literal("reload_plugins"),
  hold_on_cache_impact: opt(Schema.Boolean),
  add_plugins: opt(Schema.Array(PluginConfig)),
  refuse_if_busy: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ReloadPluginsRequest extends Schema.Schema.Type<typeof ReloadPluginsRequest> {}

/**
 * `reload_skills`: re-reads skills from disk. Answered with {@link ReloadSkillsResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ReloadSkillsRequest = Schema.Struct({ subtype: Schema.Literal("reload_skills") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ReloadSkillsRequest extends Schema.Schema.Type<typeof ReloadSkillsRequest> {}

/**
 * `reload_output_styles`: re-reads the output-style directories. Answered with
 * {@link ReloadOutputStylesResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ReloadOutputStylesRequest = Schema.Struct({ subtype: Schema.Literal("reload_output_styles") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ReloadOutputStylesRequest extends Schema.Schema.Type<typeof ReloadOutputStylesRequest> {}

/**
 * `apply_flag_settings`: merges settings into the flag layer (the `--settings` one), top-level
 * keys shallowly; `null` clears a key. Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ApplyFlagSettingsRequest = Schema.Struct({
  subtype: Schema.Literal("apply_flag_settings"),
  settings: JsonObject
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ApplyFlagSettingsRequest extends Schema.Schema.Type<typeof ApplyFlagSettingsRequest> {}

/**
 * `get_settings`: the effective settings and where they come from. Answered with
 * {@link SettingsResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const GetSettingsRequest = Schema.Struct({ subtype: Schema.Literal("get_settings") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface GetSettingsRequest extends Schema.Schema.Type<typeof GetSettingsRequest> {}

/**
 * `background_tasks`: moves running foreground tasks (Bash commands, subagents) to the
 * background, or only the one started by `tool_use_id`. Answered with
 * {@link BackgroundTasksResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const BackgroundTasksRequest = Schema.Struct({
  subtype: Schema.Literal("background_tasks"),
  tool_use_id: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface BackgroundTasksRequest extends Schema.Schema.Type<typeof BackgroundTasksRequest> {}

/**
 * `seed_read_state`: tells the CLI a file was read at `mtime` (floored ms), so an Edit does not
 * fail with "file not read yet". Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const SeedReadStateRequest = Schema.Struct({
  subtype: Schema.Literal("seed_read_state"),
  path: Schema.String,
  mtime: Schema.Number
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface SeedReadStateRequest extends Schema.Schema.Type<typeof SeedReadStateRequest> {}

/**
 * `get_usage`: the session's cost and token totals (the `/usage` data). Answered with
 * {@link UsageResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const GetUsageRequest = Schema.Struct({
  subtype: Schema.Literal("get_usage"),
  skip_behaviors: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface GetUsageRequest extends Schema.Schema.Type<typeof GetUsageRequest> {}

/**
 * `list_models`: the models the session can run. Answered with {@link ListModelsResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ListModelsRequest = Schema.Struct({ subtype: Schema.Literal("list_models") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ListModelsRequest extends Schema.Schema.Type<typeof ListModelsRequest> {}

/**
 * `update_settings`: merges settings into a settings file through the CLI's own writer
 * (`localSettings`: `outputStyle`; `userSettings`: `effortLevel`; string values only) and applies
 * them. Answered `{}`.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const UpdateSettingsRequest = Schema.Struct({
  subtype: Schema.Literal("update_settings"),
  source: Schema.Literals(["localSettings", "userSettings"]),
  settings: JsonObject
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface UpdateSettingsRequest extends Schema.Schema.Type<typeof UpdateSettingsRequest> {}

/**
 * `read_file`: reads a file of the session's filesystem (relative to its cwd), under the Read
 * tool's permission rules (a denied or missing file: error `read denied: …`). Answered with
 * {@link ReadFileResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ReadFileRequest = Schema.Struct({
  subtype: Schema.Literal("read_file"),
  path: Schema.String,
  max_bytes: opt(Schema.Number),
  encoding: opt(Schema.Literals(["utf-8", "base64"]))
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ReadFileRequest extends Schema.Schema.Type<typeof ReadFileRequest> {}

/**
 * `side_question`: asks the model a question aside from the conversation (the `/btw` of the
 * terminal), with the conversation as context; the answer is not added to it. Answered with
 * {@link SideQuestionResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const SideQuestionRequest = Schema.Struct({
  subtype: Schema.Literal("side_question"),
  question: Schema.String
})

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface SideQuestionRequest extends Schema.Schema.Type<typeof SideQuestionRequest> {}

/**
 * `get_status`: the data of the `/status` screen. Answered with {@link StatusResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const GetStatusRequest = Schema.Struct({ subtype: Schema.Literal("get_status") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface GetStatusRequest extends Schema.Schema.Type<typeof GetStatusRequest> {}

/**
 * `export_conversation`: the conversation as plain text (the `/export` command). Answered with
 * {@link ExportConversationResponse}.
 *
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export const ExportConversationRequest = Schema.Struct({ subtype: Schema.Literal("export_conversation") })

/**
 * @since 0.2.0
 * @category requests (host → CLI)
 */
export interface ExportConversationRequest extends Schema.Schema.Type<typeof ExportConversationRequest> {}

/**
 * The host → CLI request subtypes with a schema of their own.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const knownOutgoingRequestSubtypes = [
  "initialize",
  "interrupt",
  "set_model",
  "set_permission_mode",
  "mcp_status",
  "get_context_usage",
  "rewind_files",
  "stop_task",
  "cancel_async_message",
  "mcp_set_servers",
  "mcp_reconnect",
  "mcp_toggle",
  "mcp_read_resource",
  "set_mcp_permission_mode_override",
  "set_max_thinking_tokens",
  "rename_session",
  "reload_plugins",
  "reload_skills",
  "reload_output_styles",
  "apply_flag_settings",
  "get_settings",
  "background_tasks",
  "seed_read_state",
  "get_usage",
  "list_models",
  "update_settings",
  "read_file",
  "side_question",
  "get_status",
  "export_conversation"
] as const

/**
 * A host → CLI request of another subtype, sent as is. The CLI answers an unsupported subtype with
 * error `unsupported_request`. Its `subtype` is a `Protocol.UnknownType`: build one with
 * `{ subtype: Protocol.unknownType("get_plan") }`, or send it with `session.request`, which
 * takes any subtype.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const OtherOutgoingRequest = Schema.StructWithRest(
  Schema.Struct({ subtype: StringOtherThan(knownOutgoingRequestSubtypes, "request subtype") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface OtherOutgoingRequest extends Schema.Schema.Type<typeof OtherOutgoingRequest> {}

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const OutgoingRequestBody = OpenUnion([
  InitializeRequest,
  InterruptRequest,
  SetModelRequest,
  SetPermissionModeRequest,
  McpStatusRequest,
  GetContextUsageRequest,
  RewindFilesRequest,
  StopTaskRequest,
  CancelAsyncMessageRequest,
  McpSetServersRequest,
  McpReconnectRequest,
  McpToggleRequest,
  McpReadResourceRequest,
  SetMcpPermissionModeOverrideRequest,
  SetMaxThinkingTokensRequest,
  RenameSessionRequest,
  ReloadPluginsRequest,
  ReloadSkillsRequest,
  ReloadOutputStylesRequest,
  ApplyFlagSettingsRequest,
  GetSettingsRequest,
  BackgroundTasksRequest,
  SeedReadStateRequest,
  GetUsageRequest,
  ListModelsRequest,
  UpdateSettingsRequest,
  ReadFileRequest,
  SideQuestionRequest,
  GetStatusRequest,
  ExportConversationRequest
], OtherOutgoingRequest)

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export type OutgoingRequestBody = typeof OutgoingRequestBody.Type

/**
 * A `control_request` line from the host.
 *
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export const OutgoingControlRequest = Schema.Struct({
  type: Schema.Literal("control_request"),
  request_id: Schema.String,
  request: OutgoingRequestBody
})

/**
 * @since 0.1.0
 * @category requests (host → CLI)
 */
export interface OutgoingControlRequest extends Schema.Schema.Type<typeof OutgoingControlRequest> {}

// ---------------------------------------------------------------------------------------------
// Responses (both directions)
// ---------------------------------------------------------------------------------------------

/**
 * `{"subtype":"success","request_id":…,"response":{…}}`. The body's shape depends on the
 * answered request's subtype (see {@link responseBodies}); it may be absent for requests that are
 * merely acknowledged. The CLI adds `pending_permission_requests` /
 * `pending_user_dialog_requests` to its `initialize` answer.
 *
 * @since 0.1.0
 * @category responses
 */
export const ControlSuccess = Schema.Struct({
  subtype: Schema.Literal("success"),
  request_id: Schema.String,
  response: opt(JsonObject),
  pending_permission_requests: opt(Schema.Array(Schema.Unknown)),
  pending_user_dialog_requests: opt(Schema.Array(Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category responses
 */
export interface ControlSuccess extends Schema.Schema.Type<typeof ControlSuccess> {}

/**
 * `{"subtype":"error","request_id":…,"error":"…","error_code"?:"…"}`. The CLI sets
 * `error_code` for some errors (`invalid_mode`, `unsupported_request`).
 *
 * @since 0.1.0
 * @category responses
 */
export const ControlError = Schema.Struct({
  subtype: Schema.Literal("error"),
  request_id: Schema.String,
  error: Schema.String,
  error_code: opt(Schema.String),
  pending_permission_requests: opt(Schema.Array(Schema.Unknown)),
  pending_user_dialog_requests: opt(Schema.Array(Schema.Unknown))
})

/**
 * @since 0.1.0
 * @category responses
 */
export interface ControlError extends Schema.Schema.Type<typeof ControlError> {}

/**
 * A `control_response` line (either direction). A response to an unknown `request_id` is ignored
 * by the CLI.
 *
 * @since 0.1.0
 * @category responses
 */
export const ControlResponse = Schema.Struct({
  type: Schema.Literal("control_response"),
  response: Schema.Union([ControlSuccess, ControlError])
})

/**
 * @since 0.1.0
 * @category responses
 */
export interface ControlResponse extends Schema.Schema.Type<typeof ControlResponse> {}

/**
 * `control_cancel_request` (either direction): withdraws the pending request `request_id`. The
 * CLI sends it for a pending `hook_callback` or `can_use_tool` when the turn is interrupted.
 *
 * @since 0.1.0
 * @category responses
 */
export const ControlCancelRequest = Schema.Struct({
  type: Schema.Literal("control_cancel_request"),
  request_id: Schema.String
})

/**
 * @since 0.1.0
 * @category responses
 */
export interface ControlCancelRequest extends Schema.Schema.Type<typeof ControlCancelRequest> {}

// ---------------------------------------------------------------------------------------------
// Response bodies: answers to the host's requests
// ---------------------------------------------------------------------------------------------

/**
 * A command or skill, as listed by `initialize`.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const SlashCommand = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  argumentHint: Schema.String,
  aliases: opt(Schema.Array(Schema.String)),
  builtin: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface SlashCommand extends Schema.Schema.Type<typeof SlashCommand> {}

/**
 * A subagent type, as listed by `initialize`.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const AgentInfo = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  model: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface AgentInfo extends Schema.Schema.Type<typeof AgentInfo> {}

/**
 * A model choice, as listed by `initialize` (`value` `default`, `opus`, `sonnet`, `haiku`, …).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const ModelInfo = Schema.Struct({
  value: Schema.String,
  displayName: Schema.String,
  description: Schema.String,
  resolvedModel: opt(Schema.String),
  supportsEffort: opt(Schema.Boolean),
  supportedEffortLevels: opt(Schema.Array(Schema.String)),
  supportsAdaptiveThinking: opt(Schema.Boolean),
  supportsFastMode: opt(Schema.Boolean),
  supportsAutoMode: opt(Schema.Boolean),
  supportsThinkingOff: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface ModelInfo extends Schema.Schema.Type<typeof ModelInfo> {}

/**
 * The account the CLI uses (with an API key: `tokenSource: "none"`,
 * `apiKeySource: "ANTHROPIC_API_KEY"`, `apiProvider: "firstParty"`).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const AccountInfo = Schema.Struct({
  email: opt(Schema.String),
  organization: opt(Schema.String),
  subscriptionType: opt(Schema.String),
  tokenSource: opt(Schema.String),
  apiKeySource: opt(Schema.String),
  apiProvider: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface AccountInfo extends Schema.Schema.Type<typeof AccountInfo> {}

/**
 * The answer to `initialize` (~17 KB). `hooks_applied` is there only when hooks were sent.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const InitializeResponse = Schema.Struct({
  commands: Schema.Array(SlashCommand),
  /** Absent from CLIs before 2.1.100 or so (see `CliVersion`). */
  agents: opt(Schema.Array(AgentInfo)),
  output_style: Schema.String,
  available_output_styles: Schema.Array(Schema.String),
  models: Schema.Array(ModelInfo),
  account: AccountInfo,
  user_output_styles_dir: opt(Schema.String),
  pid: opt(Schema.Number),
  claude_code_version: opt(Schema.String),
  current_permission_mode: opt(Schema.String),
  hooks_applied: opt(Schema.Boolean),
  hook_on_failure_supported: opt(Schema.Boolean),
  hooks_when_unanswered_kept: opt(Schema.Number),
  other_hook_ask_outranks_host: opt(Schema.Boolean),
  feedback_mode: opt(Schema.Struct({ kind: Schema.String })),
  analytics_disabled: opt(Schema.Boolean),
  sandbox_enabled: opt(Schema.Boolean),
  remote_control_auto_enable: opt(Schema.Boolean),
  remote_control_auto_connect_default: opt(Schema.Boolean),
  remote_control_available: opt(Schema.Boolean),
  remote_control_auto_on_by_default: opt(Schema.Boolean),
  ide_rc_auto_enable_gate: opt(Schema.Boolean),
  fast_mode_state: opt(Schema.String),
  fast_mode_disabled_reason: opt(Schema.String),
  session_state: opt(Schema.String),
  capabilities: opt(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface InitializeResponse extends Schema.Schema.Type<typeof InitializeResponse> {}

/**
 * The answer to `interrupt`: uuids of queued user messages that survive it (`[]` in most recorded
 * runs of 2.1.332; absent in CLI 2.1.0's answer, `{}`).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const InterruptResponse = Schema.Struct({
  still_queued: opt(Schema.Array(Schema.String)),
  cancelled: opt(Schema.Array(Schema.String)),
  /** With `for_user_message_uuids` (CLI 2.1.332): `stopped`, `idle`, or `spared` (not that turn). */
  turn: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface InterruptResponse extends Schema.Schema.Type<typeof InterruptResponse> {}

/**
 * The answer to `set_model`: the resolved model id (`haiku` → `claude-haiku-5-5`; unknown names
 * are accepted as is). CLIs before 2.1.332 (2.1.0, 2.1.200) answer a bare success, with no body.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const SetModelResponse = Schema.Struct({
  model: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface SetModelResponse extends Schema.Schema.Type<typeof SetModelResponse> {}

/**
 * The answer to `set_permission_mode`: the mode now in effect.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const SetPermissionModeResponse = Schema.Struct({
  mode: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface SetPermissionModeResponse extends Schema.Schema.Type<typeof SetPermissionModeResponse> {}

/**
 * An MCP server's state (`status` `connected`, `failed`, `needs-auth`, `pending`, `disabled`).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const McpServerStatus = Schema.Struct({
  name: Schema.String,
  status: Schema.String,
  serverInfo: opt(Schema.Struct({ name: Schema.String, version: Schema.String })),
  error: opt(Schema.String),
  config: opt(Schema.Unknown),
  transport: opt(Schema.String),
  scope: opt(Schema.String),
  source: opt(Schema.String),
  tools: opt(Schema.Array(Schema.Struct({
    name: Schema.String,
    description: opt(Schema.String),
    annotations: opt(JsonObject),
    _meta: opt(JsonObject)
  })))
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface McpServerStatus extends Schema.Schema.Type<typeof McpServerStatus> {}

/**
 * The answer to `mcp_status` (`{"mcpServers":[]}` before the MCP handshake).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const McpStatusResponse = Schema.Struct({
  mcpServers: Schema.Array(McpServerStatus)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface McpStatusResponse extends Schema.Schema.Type<typeof McpStatusResponse> {}

/**
 * One row of the context usage report (`id` `system_prompt`, `messages`, `free_space`, …;
 * `kind` `used`, `free`, `buffer`, `deferred`).
 *
 * @since 0.1.0
 * @category response bodies
 */
export const ContextUsageCategory = Schema.Struct({
  name: Schema.String,
  tokens: Schema.Number,
  color: Schema.String,
  id: opt(Schema.String),
  kind: opt(Schema.String),
  isDeferred: opt(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface ContextUsageCategory extends Schema.Schema.Type<typeof ContextUsageCategory> {}

/**
 * The answer to `get_context_usage`. The main keys are typed; the others (`gridRows`,
 * `messageBreakdown`, `skills`, `slashCommands`, `agents`, `memoryFiles`, …) are kept as
 * `unknown` under their names.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const ContextUsageResponse = Schema.StructWithRest(
  Schema.Struct({
    categories: Schema.Array(ContextUsageCategory),
    totalTokens: Schema.Number,
    maxTokens: Schema.Number,
    rawMaxTokens: opt(Schema.Number),
    percentage: Schema.Number,
    model: Schema.String,
    autocompactSource: opt(Schema.String),
    autoCompactThreshold: opt(Schema.Number),
    isAutoCompactEnabled: opt(Schema.Boolean),
    mcpTools: opt(Schema.Array(Schema.Struct({
      name: Schema.String,
      serverName: Schema.String,
      tokens: Schema.Number,
      isLoaded: opt(Schema.Boolean)
    }))),
    apiUsage: opt(Schema.NullOr(Schema.Struct({
      input_tokens: Schema.Number,
      output_tokens: Schema.Number,
      cache_creation_input_tokens: Schema.Number,
      cache_read_input_tokens: Schema.Number
    })))
  }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface ContextUsageResponse extends Schema.Schema.Type<typeof ContextUsageResponse> {}

/**
 * The answer to `rewind_files`: with `dry_run`, what would change (`filesChanged`,
 * `insertions`, `deletions`) or why not (`canRewind: false`, `error`); without, `skippedLinks`.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const RewindFilesResponse = Schema.Struct({
  canRewind: Schema.Boolean,
  error: opt(Schema.String),
  filesChanged: opt(Schema.Array(Schema.String)),
  insertions: opt(Schema.Number),
  deletions: opt(Schema.Number),
  skippedLinks: opt(Schema.Number)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface RewindFilesResponse extends Schema.Schema.Type<typeof RewindFilesResponse> {}

/**
 * The answer to `stop_task`: always `{}`.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const StopTaskResponse = Schema.Struct({})

/**
 * The answer to `cancel_async_message`.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const CancelAsyncMessageResponse = Schema.Struct({
  cancelled: Schema.Boolean,
  message_uuid: opt(Schema.String)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface CancelAsyncMessageResponse extends Schema.Schema.Type<typeof CancelAsyncMessageResponse> {}

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface StopTaskResponse extends Schema.Schema.Type<typeof StopTaskResponse> {}

// ---------------------------------------------------------------------------------------------
// Response bodies of the requests added in 0.2.0
// ---------------------------------------------------------------------------------------------

/**
 * The answer of the requests that are merely acknowledged (`mcp_reconnect`, `mcp_toggle`,
 * `set_max_thinking_tokens`, `rename_session`, `apply_flag_settings`, `seed_read_state`): `{}`.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const AcknowledgedResponse = Schema.Struct({})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface AcknowledgedResponse extends Schema.Schema.Type<typeof AcknowledgedResponse> {}

/**
 * The answer to `mcp_set_servers`: the names added and removed, and the connection error of
 * each server that failed.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const McpSetServersResponse = Schema.Struct({
  added: Schema.Array(Schema.String),
  removed: Schema.Array(Schema.String),
  errors: Schema.Record(Schema.String, Schema.String)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface McpSetServersResponse extends Schema.Schema.Type<typeof McpSetServersResponse> {}

/**
 * The answer to `mcp_read_resource`: the resource's contents (`text`, or `blob` in base64).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const McpReadResourceResponse = Schema.Struct({
  contents: Schema.Array(Schema.Struct({
    uri: Schema.String,
    mimeType: opt(Schema.String),
    text: opt(Schema.String),
    blob: opt(Schema.String),
    _meta: opt(JsonObject)
  }))
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface McpReadResourceResponse extends Schema.Schema.Type<typeof McpReadResourceResponse> {}

/**
 * The answer to `set_mcp_permission_mode_override`: a `warning` when no known server has that
 * name (the override is stored all the same).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const McpPermissionModeOverrideResponse = Schema.Struct({
  warning: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface McpPermissionModeOverrideResponse
  extends Schema.Schema.Type<typeof McpPermissionModeOverrideResponse>
{}

/**
 * The answer to `reload_plugins`: the session's commands, agents, plugins and MCP servers after
 * the reload; `held` and `cache_impact` when `hold_on_cache_impact` held it back.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ReloadPluginsResponse = Schema.StructWithRest(
  Schema.Struct({
    commands: Schema.Array(SlashCommand),
    agents: Schema.Array(AgentInfo),
    plugins: Schema.Array(Schema.Struct({
      name: Schema.String,
      path: Schema.String,
      source: opt(Schema.String),
      version: opt(Schema.String)
    })),
    mcpServers: Schema.Array(McpServerStatus),
    error_count: Schema.Number,
    held: opt(Schema.Boolean),
    cache_impact: opt(JsonObject)
  }),
  [Rest]
)

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ReloadPluginsResponse extends Schema.Schema.Type<typeof ReloadPluginsResponse> {}

/**
 * The answer to `reload_skills`: the skills now available.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ReloadSkillsResponse = Schema.Struct({
  skills: Schema.Array(SlashCommand)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ReloadSkillsResponse extends Schema.Schema.Type<typeof ReloadSkillsResponse> {}

/**
 * The answer to `reload_output_styles`: the style names now available.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ReloadOutputStylesResponse = Schema.Struct({
  available_output_styles: Schema.Array(Schema.String)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ReloadOutputStylesResponse extends Schema.Schema.Type<typeof ReloadOutputStylesResponse> {}

/**
 * The answer to `get_settings`: the merged settings (`effective`), each source's own
 * (`flagSettings`, `userSettings`, …), and what is applied (`applied.model`, `applied.effort`,
 * …); other keys are kept as `unknown`.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const SettingsResponse = Schema.StructWithRest(
  Schema.Struct({
    effective: JsonObject,
    sources: Schema.Array(Schema.Struct({ source: Schema.String, settings: JsonObject })),
    applied: opt(JsonObject)
  }),
  [Rest]
)

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface SettingsResponse extends Schema.Schema.Type<typeof SettingsResponse> {}

/**
 * The answer to `background_tasks`: `backgrounded: false` when `tool_use_id` matched no
 * foreground task (absent: something was, or nothing ran).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const BackgroundTasksResponse = Schema.Struct({
  backgrounded: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface BackgroundTasksResponse extends Schema.Schema.Type<typeof BackgroundTasksResponse> {}

/**
 * The answer to `get_usage`: `session` (`total_cost_usd`, `model_usage`, …) and the plan's rate
 * limits (`rate_limits_available: false` with an API key); other keys kept as `unknown`.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const UsageResponse = Schema.StructWithRest(
  Schema.Struct({
    session: Schema.StructWithRest(
      Schema.Struct({
        total_cost_usd: Schema.Number,
        model_usage: opt(JsonObject)
      }),
      [Rest]
    ),
    rate_limits_available: Schema.Boolean
  }),
  [Rest]
)

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface UsageResponse extends Schema.Schema.Type<typeof UsageResponse> {}

/**
 * The answer to `list_models`.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ListModelsResponse = Schema.Struct({
  models: Schema.Array(ModelInfo)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ListModelsResponse extends Schema.Schema.Type<typeof ListModelsResponse> {}

/**
 * The answer to `read_file`: the contents (text, or base64 with `encoding: "base64"`), the
 * absolute path, and whether it was cut at `max_bytes` or is not valid UTF-8 (`lossy`).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ReadFileResponse = Schema.Struct({
  contents: Schema.String,
  absPath: Schema.String,
  truncated: opt(Schema.Boolean),
  encoding: opt(Schema.Literal("base64")),
  lossy: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ReadFileResponse extends Schema.Schema.Type<typeof ReadFileResponse> {}

/**
 * The answer to `side_question`: the model's answer (`null` when there is none).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const SideQuestionResponse = Schema.Struct({
  response: Schema.NullOr(Schema.String),
  synthetic: opt(Schema.Boolean)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface SideQuestionResponse extends Schema.Schema.Type<typeof SideQuestionResponse> {}

/**
 * The answer to `get_status`: titled sections of labelled rows (`Session`: `Version`,
 * `Session name`, `Session ID`, `cwd`, …).
 *
 * @since 0.2.0
 * @category response bodies
 */
export const StatusResponse = Schema.Struct({
  sections: Schema.Array(Schema.Struct({
    title: Schema.String,
    rows: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Unknown }))
  }))
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface StatusResponse extends Schema.Schema.Type<typeof StatusResponse> {}

/**
 * The answer to `export_conversation`: the text and the file name the terminal would use.
 *
 * @since 0.2.0
 * @category response bodies
 */
export const ExportConversationResponse = Schema.Struct({
  text: Schema.String,
  default_filename: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category response bodies
 */
export interface ExportConversationResponse extends Schema.Schema.Type<typeof ExportConversationResponse> {}

/**
 * The response body schema of each host → CLI request subtype.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const responseBodies = {
  initialize: InitializeResponse,
  interrupt: InterruptResponse,
  set_model: SetModelResponse,
  set_permission_mode: SetPermissionModeResponse,
  mcp_status: McpStatusResponse,
  get_context_usage: ContextUsageResponse,
  rewind_files: RewindFilesResponse,
  stop_task: StopTaskResponse
} as const

// ---------------------------------------------------------------------------------------------
// Response bodies: the host's answers to the CLI's requests
// ---------------------------------------------------------------------------------------------

/**
 * The answer to `mcp_message`: the JSON-RPC response, or `null` for a notification.
 *
 * @since 0.1.0
 * @category response bodies
 */
export const McpMessageResponse = Schema.Struct({
  mcp_response: Schema.NullOr(JsonRpcMessage)
})

/**
 * @since 0.1.0
 * @category response bodies
 */
export interface McpMessageResponse extends Schema.Schema.Type<typeof McpMessageResponse> {}
