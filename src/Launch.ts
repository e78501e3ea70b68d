/**
 * How the `claude` process is started: the options a user sets ({@link LaunchOptions}), the pure
 * translation of those options into an argument vector and an environment ({@link buildCommand}),
 * their validation ({@link validate}) and the lookup of the executable ({@link findExecutable}).
 *
 * Nothing here starts a process. The spawner runs `findExecutable`, then `validate`, then
 * `buildCommand`, and hands `args` and `env` to the child process with `extendEnv: true`, so an
 * `undefined` value in `env` removes that variable from the inherited environment.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type { Stats } from "node:fs"
import * as Path from "node:path"
import * as ClaudeError from "./ClaudeError.ts"
import type * as Control from "./protocol/control.ts"
import { isUuid, jsonDataProblem, objectSchemaOf } from "./internal/json.ts"
import * as McpServerConfigs from "./internal/mcpServerConfigs.ts"
import { Fs } from "./internal/nodeFs.ts"
import * as SpanExits from "./internal/spanExits.ts"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * The CLI's permission modes (`--permission-mode`).
 *
 * - `default`: ask before anything risky. Without the library's permission handler
 *   (`--permission-prompt-tool stdio`) such a tool call is denied silently. The 2.1.332 help
 *   text calls this mode `manual`; `default` is still accepted.
 * - `acceptEdits`: file edits are allowed, other risky tools ask.
 * - `plan`: read-only planning.
 * - `bypassPermissions`: everything is allowed. Only when asked for (the library then also passes
 *   `--allow-dangerously-skip-permissions`, which the CLI needs to accept the mode). As root the
 *   CLI refuses it unless `IS_SANDBOX=1` is in its environment, and exits (reason
 *   `BypassRefused`); the library never sets that variable for the program.
 * - `dontAsk`: never ask, deny what would have asked.
 * - `auto`: a classifier decides.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk" | "auto"

/**
 * Every {@link PermissionMode}, in a stable order.
 *
 * @since 0.1.0
 * @category constants
 */
export const permissionModes: ReadonlyArray<PermissionMode> = [
  "default",
  "acceptEdits",
  "plan",
  "bypassPermissions",
  "dontAsk",
  "auto"
]

/**
 * A value in the child's environment: a plain string, a secret kept `Redacted` until the
 * spawner hands it to the operating system, or `undefined` to remove the variable.
 *
 * @since 0.1.0
 * @category models
 */
export type EnvValue = string | Redacted.Redacted<string> | undefined

/**
 * The identity git uses for commits the agent makes.
 *
 * @since 0.1.0
 * @category models
 */
export interface GitIdentity {
  /** Becomes `GIT_AUTHOR_NAME` and `GIT_COMMITTER_NAME`. */
  readonly name: string
  /** Becomes `GIT_AUTHOR_EMAIL` and `GIT_COMMITTER_EMAIL`. */
  readonly email: string
}

/**
 * A value of an external MCP server's `env` or `headers`: plain, or a secret kept `Redacted`
 * until the CLI reads it (`[redacted]` in transcripts, spans and logs).
 *
 * @since 0.2.0
 * @category models
 */
export type McpConfigValue = string | Redacted.Redacted<string>

/**
 * A stdio MCP server the CLI runs: `Protocol.McpStdioServerConfig` with `Redacted` values taken
 * in `env`.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpStdioServer extends Omit<Control.McpStdioServerConfig, "env"> {
  /** The server's environment variables; a `Redacted` value is a secret of the session. */
  readonly env?: Readonly<Record<string, McpConfigValue>>
}

/**
 * An SSE MCP server the CLI dials: `Protocol.McpSseServerConfig` with `Redacted` values taken in
 * `headers`.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpSseServer extends Omit<Control.McpSseServerConfig, "headers"> {
  /** The headers of its requests; a `Redacted` value is a secret of the session. */
  readonly headers?: Readonly<Record<string, McpConfigValue>>
}

/**
 * A streamable HTTP MCP server the CLI dials: `Protocol.McpHttpServerConfig` with `Redacted`
 * values taken in `headers`.
 *
 * @since 0.2.0
 * @category models
 */
export interface McpHttpServer extends Omit<Control.McpHttpServerConfig, "headers"> {
  /** The headers of its requests; a `Redacted` value is a secret of the session. */
  readonly headers?: Readonly<Record<string, McpConfigValue>>
}

/**
 * An MCP server the CLI runs or dials itself (the option `mcpServers`, `setMcpServers`).
 *
 * @since 0.2.0
 * @category models
 */
export type McpExternalServer = McpStdioServer | McpSseServer | McpHttpServer

/**
 * The command sandbox of the CLI's Bash tool (the settings' `sandbox`; on Linux it needs
 * `bubblewrap` and `socat`). With `enabled: true` and no `failIfUnavailable`, the library sets
 * `failIfUnavailable: true`, as the official SDK's `sandbox` does: where the sandbox cannot
 * start, the CLI exits (`ProcessExited`, its stderr naming what is missing) rather than run the
 * commands unsandboxed, which CLI 2.1.332 does by default. `failIfUnavailable: false` lets them
 * run unsandboxed there. A key the CLI's sandbox settings do not have is `InvalidInput` (a
 * misspelt `enable` would leave the sandbox off).
 *
 * @since 0.2.0
 * @category models
 */
export interface SandboxSettings {
  /** Runs Bash commands inside the sandbox. */
  readonly enabled?: boolean
  /** Exit at start when the sandbox cannot start (`true` by default here when `enabled`). */
  readonly failIfUnavailable?: boolean
  /** Sandboxed Bash commands run without a permission prompt. */
  readonly autoAllowBashIfSandboxed?: boolean
  /** Whether a command may ask to run outside the sandbox. */
  readonly allowUnsandboxedCommands?: boolean
  /** Network access of sandboxed commands (`allowedDomains`, `deniedDomains`, …). */
  readonly network?: { readonly [key: string]: unknown }
  /** File access of sandboxed commands (`allowWrite`, `denyRead`, …). */
  readonly filesystem?: { readonly [key: string]: unknown }
  /** Credentials kept from sandboxed commands (`files`, `envVars`). */
  readonly credentials?: { readonly [key: string]: unknown }
  /** Commands that run outside the sandbox. */
  readonly excludedCommands?: ReadonlyArray<string>
  /** The other keys of the CLI's sandbox settings, as it takes them. */
  readonly ignoreViolations?: unknown
  /** See the CLI's sandbox settings. */
  readonly enableWeakerNestedSandbox?: boolean
  /** See the CLI's sandbox settings. */
  readonly allowNestedUserNamespaces?: boolean
  /** See the CLI's sandbox settings. */
  readonly enableWeakerNetworkIsolation?: boolean
  /** See the CLI's sandbox settings (macOS). */
  readonly allowAppleEvents?: boolean
  /** See the CLI's sandbox settings. */
  readonly ripgrep?: unknown
  /** The `bwrap` executable to use (Linux). */
  readonly bwrapPath?: string
  /** The `socat` executable to use (Linux). */
  readonly socatPath?: string
}

/**
 * A settings object passed to the CLI with `--settings`. Any key of the CLI's `settings.json`
 * is allowed; values must be JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /**
   * The text the CLI adds to commits and pull requests. The library sets both to `""` (no
   * co-author trailer); a key set here wins over that default (one set to `undefined` does not).
   */
  readonly attribution?: {
    /** The text added to commit messages (`""`: none). */
    readonly commit?: string
    /** The text added to pull request descriptions (`""`: none). */
    readonly pr?: string
  }
  readonly [key: string]: unknown
}

/**
 * Flags the library has no option for, appended after every other flag.
 *
 * - A record maps a flag name without its leading dashes to a value: `{ effort: "high" }` gives
 *   `--effort high`, `{ debug: null }` gives the bare flag `--debug`, a value starting with `-`
 *   is passed as `--name=value`. Names must start with a letter and hold only letters, digits
 *   and `-`.
 * - An array is appended verbatim, token by token.
 *
 * Either way, `--output-format` and `--input-format` are refused (the library needs
 * stream-json), and so are the flags of tool permissions (`--permission-mode`,
 * `--dangerously-skip-permissions`, `--permission-prompt-tool`) when `permissionMode`,
 * `permissionPromptToolName` or a `Permissions` layer sets them already: coming last, they would
 * silently win.
 *
 * @since 0.1.0
 * @category models
 */
export type ExtraArgs = Readonly<Record<string, string | null>> | ReadonlyArray<string>

/**
 * A CLI run through an interpreter: `command` (a path, relative paths resolving against `cwd`,
 * or a bare name looked up on `PATH`) started with `args` before the CLI's own flags. For a CLI
 * that is a script without its execute bit or shebang, e.g.
 * `{ command: "node", args: ["./cli.mjs"] }` (the official SDK's `executable` + `executableArgs`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Executable {
  /** The interpreter (or any program): a path, or a name looked up on `PATH`. */
  readonly command: string
  /** Arguments put before the CLI's own flags (e.g. the script to run). */
  readonly args?: ReadonlyArray<string> | undefined
}

/**
 * Thinking (extended reasoning), as the official SDK's `thinking` option:
 *
 * - `{ type: "adaptive" }`: the model decides when and how much to think (`--thinking=adaptive`).
 * - `{ type: "enabled", budgetTokens }`: a fixed budget of thinking tokens
 *   (`--max-thinking-tokens N`); without `budgetTokens`, as `adaptive`.
 * - `{ type: "disabled" }`: no thinking (`--thinking=disabled`).
 *
 * `display` (not with `disabled`) becomes `--thinking-display`: `summarized` or `omitted`.
 *
 * @since 0.2.0
 * @category models
 */
export type ThinkingConfig = ThinkingAdaptive | ThinkingEnabled | ThinkingDisabled

/**
 * The model decides when and how much to think (`--thinking=adaptive`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ThinkingAdaptive {
  /** Always `"adaptive"`. */
  readonly type: "adaptive"
  /** How thinking comes back (`--thinking-display`). */
  readonly display?: ThinkingDisplay | undefined
}

/**
 * A fixed budget of thinking tokens (`--max-thinking-tokens N`); without one, as adaptive.
 *
 * @since 0.2.0
 * @category models
 */
export interface ThinkingEnabled {
  /** Always `"enabled"`. */
  readonly type: "enabled"
  /** The thinking budget in tokens; a positive integer. */
  readonly budgetTokens?: number | undefined
  /** How thinking comes back (`--thinking-display`). */
  readonly display?: ThinkingDisplay | undefined
}

/**
 * No thinking (`--thinking=disabled`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ThinkingDisabled {
  /** Always `"disabled"`. */
  readonly type: "disabled"
}

/**
 * An API-side token budget the model is told about (`--task-budget`).
 *
 * @since 0.2.0
 * @category models
 */
export interface TaskBudget {
  /** The budget in tokens; a positive integer. */
  readonly total: number
}

/**
 * The CLI's default set of built-in tools (`--tools default`).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolsPreset {
  /** Always `"preset"`. */
  readonly type: "preset"
  /** Always `"claude_code"`. */
  readonly preset: "claude_code"
}

/**
 * How thinking blocks come back (`--thinking-display`).
 *
 * @since 0.2.0
 * @category models
 */
export type ThinkingDisplay = "summarized" | "omitted"

/**
 * The CLI's effort levels (`--effort`).
 *
 * @since 0.2.0
 * @category models
 */
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max"

/**
 * Every {@link EffortLevel}, in a stable order.
 *
 * @since 0.2.0
 * @category constants
 */
export const effortLevels: ReadonlyArray<EffortLevel> = ["low", "medium", "high", "xhigh", "max"]

/**
 * Where the CLI loads settings files (and `CLAUDE.md` memory) from (`--setting-sources`):
 * `user` (`~/.claude`), `project` (`.claude/` and `CLAUDE.md` of the project), `local`
 * (`.claude/settings.local.json`).
 *
 * @since 0.2.0
 * @category models
 */
export type SettingSource = "user" | "project" | "local"

/**
 * Every {@link SettingSource}, in a stable order.
 *
 * @since 0.2.0
 * @category constants
 */
export const settingSources: ReadonlyArray<SettingSource> = ["user", "project", "local"]

/**
 * The CLI's own system prompt, optionally with text appended: the official SDK's
 * `{ type: "preset", preset: "claude_code", append }`.
 *
 * @since 0.2.0
 * @category models
 */
export interface SystemPromptPreset {
  /** Always `"preset"`. */
  readonly type: "preset"
  /** Always `"claude_code"`: the CLI's own prompt. */
  readonly preset: "claude_code"
  /** Text added at the end of the preset (sent in `initialize`). */
  readonly append?: string | undefined
}

/**
 * A plugin loaded for this session only (`--plugin-dir`). Only local directories (or `.zip`s).
 *
 * @since 0.2.0
 * @category models
 */
export interface PluginConfig {
  /** Always `"local"`. */
  readonly type: "local"
  /** The plugin's directory (or `.zip`); relative paths resolve against `cwd`. */
  readonly path: string
}

/**
 * A subagent the model can run with its `Agent` tool, sent in `initialize.agents` as the official
 * SDK does (its `AgentDefinition`).
 *
 * @since 0.2.0
 * @category models
 */
export interface AgentDefinition {
  /** When the model should use this agent (shown to the model). */
  readonly description: string
  /** The agent's system prompt. */
  readonly prompt: string
  /** The tools it may use (default: all the main thread has). */
  readonly tools?: ReadonlyArray<string> | undefined
  /** Tools it may not use. */
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /** Its model: an alias (`sonnet`, `opus`, `haiku`, `inherit`) or a model name. */
  readonly model?: string | undefined
  /** Skills preloaded into its context. */
  readonly skills?: ReadonlyArray<string> | undefined
  /** The most agent turns it may take; a positive integer. */
  readonly maxTurns?: number | undefined
  /** Runs it in the background. */
  readonly background?: boolean | undefined
  /** Its permission mode. */
  readonly permissionMode?: PermissionMode | undefined
}

/**
 * Everything a user sets about the `claude` process.
 *
 * @since 0.1.0
 * @category models
 */
export interface LaunchOptions {
  /**
   * The `claude` executable: a path (relative paths resolve against `cwd`), or a bare command
   * name looked up on `PATH` (the session's `env.PATH` when it sets one); or an interpreter with its arguments ({@link Executable}), e.g.
   * `{ command: "node", args: ["cli.mjs"] }`. When set, nothing else is searched. Default:
   * {@link findExecutable}.
   */
  readonly executable?: string | Executable | undefined
  /** The working directory of the process. Also sets `PWD`. Default: the current directory. */
  readonly cwd?: string | undefined
  /** `--model`: a model alias (`opus`, `sonnet`, `haiku`, ...) or a full model name. */
  readonly model?: string | undefined
  /** `--fallback-model`: models to use when the main one is busy (comma-separated, in order). */
  readonly fallbackModel?: string | undefined
  /**
   * `--resume=<id>`: continue the session with this id (or title). Always passed in the
   * `--resume=<id>` form, so an id starting with `-` is never read as a flag.
   */
  readonly resume?: string | undefined
  /** `--fork-session`: with `resume` or `continueConversation`, continue under a new session id. */
  readonly forkSession?: boolean | undefined
  /**
   * `--continue`: continue the most recent session of `cwd`. Cannot be combined with `resume`.
   */
  readonly continueConversation?: boolean | undefined
  /**
   * `--permission-mode` (see {@link PermissionMode}). Unset, no flag is passed and the CLI picks
   * its own mode, as with the official SDKs: `permissions.defaultMode` from the settings it
   * loads, else its default (which asks, and without a `Permissions` layer denies what would
   * ask). Unset with a `Permissions` layer, the library passes `default`, so that the CLI asks
   * the layer whatever the settings say; likewise for a session launched with an in-process tool
   * that needs approval. `bypassPermissions` is never chosen for the program, and cannot be
   * combined with a `Permissions` layer (the CLI would never ask it); neither it nor `auto` with
   * a tool that needs approval ({@link approvalToolNames}).
   */
  readonly permissionMode?: PermissionMode | undefined
  /**
   * Replaces the CLI's system prompt (sent in `initialize`, as the official SDK does; any length).
   * A {@link SystemPromptPreset} keeps the CLI's own prompt, its `append` added at its end (then
   * `appendSystemPrompt` must be unset).
   *
   * Unset, the CLI uses Claude Code's own prompt, as a `claude` run does. The official SDKs differ:
   * unset, they send `""`, which gives the CLI's one-line SDK prompt ("You are a Claude agent,
   * built on Anthropic's Claude Agent SDK."); set `systemPrompt: ""` for that.
   */
  readonly systemPrompt?: string | SystemPromptPreset | undefined
  /** Text added at the end of the system prompt (sent in `initialize`; any length). */
  readonly appendSystemPrompt?: string | undefined
  /** `--allowedTools a,b`: tool rules allowed without asking, e.g. `"Bash(git *)"`. */
  readonly allowedTools?: ReadonlyArray<string> | undefined
  /** `--disallowedTools a,b`: tool rules that are always denied. */
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /** `--max-turns N`: the most agent turns per user message. A positive integer. */
  readonly maxTurns?: number | undefined
  /** `--add-dir D`, once per directory: more directories the tools may access. */
  readonly addDirs?: ReadonlyArray<string> | undefined
  /**
   * `--project-config-root <dir>`: the project settings, `.mcp.json` and the `.claude` trees
   * (commands, agents, skills, output styles) are read from this directory, not from `cwd`: a
   * session in a worktree of a repository runs the settings of the trusted checkout, not what
   * the branch in `cwd` carries. An absolute path.
   */
  readonly projectConfigRoot?: string | undefined
  /** Merged into the `--settings` JSON, next to the library's `attribution` default. */
  readonly settings?: Settings | undefined
  /**
   * The settings' `sandbox` (see {@link SandboxSettings}: fails closed where the sandbox cannot
   * start). Set it here or in `settings.sandbox`, not both (`InvalidInput`); the fail-closed
   * default holds for `settings.sandbox` too.
   */
  readonly sandbox?: SandboxSettings | undefined
  /**
   * `--managed-settings <json>`: settings of the policy tier, for a host that enforces its own
   * lock-down (`{ permissions: { deny: ["Bash"] } }` holds whatever `allowedTools` or `settings`
   * allow). The CLI keeps only what restricts (an `allow` list is dropped), and only when no
   * administrator's managed settings are on the machine unless those let it in (the SDK's
   * `managedSettings`). A CLI that does not know the flag (2.1.0) exits: the session fails
   * with `ProcessExited` rather than run without the policy. Its `sandbox` fails closed as
   * {@link SandboxSettings} says (`failIfUnavailable: true` with `enabled`, unless set).
   */
  readonly managedSettings?: { readonly [key: string]: unknown } | undefined
  /**
   * Variables set (or, with `undefined`, removed) in the child environment, on top of the
   * inherited one. `Redacted` values stay redacted until the process starts. The process
   * transport sets `CLAUDE_CODE_TMPDIR` (the CLI's own temporary files) to a directory it removes
   * when the CLI has exited, unless this sets it (the model's tools keep `TMPDIR`): background
   * tasks' output files go with the process, so a session resumed in another process finds none
   * of an earlier process's (set `CLAUDE_CODE_TMPDIR` here to keep them).
   */
  readonly env?: Readonly<Record<string, EnvValue>> | undefined
  /**
   * Names of `env` variables to treat as secrets: their plain string values are wrapped in
   * `Redacted`. Added to {@link defaultSecretEnv}.
   */
  readonly secretEnv?: ReadonlyArray<string> | undefined
  /**
   * The Anthropic API key; becomes `ANTHROPIC_API_KEY` (over any value in `env`). It is the
   * session's credential: the host's `ANTHROPIC_AUTH_TOKEN` and `CLAUDE_CODE_OAUTH_TOKEN` are not
   * inherited with it (the CLI would send the token beside the key), unless `env` sets them. An
   * empty one is `InvalidInput` (the CLI would take it as none and use another login).
   */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Sets `GIT_AUTHOR_NAME`/`GIT_AUTHOR_EMAIL` and `GIT_COMMITTER_NAME`/`GIT_COMMITTER_EMAIL`. */
  readonly gitIdentity?: GitIdentity | undefined
  /** `--replay-user-messages`: the CLI echoes every user message back on stdout. */
  readonly replayUserMessages?: boolean | undefined
  /**
   * Sets `CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`, which the CLI needs before it
   * accepts `rewind_files`.
   */
  readonly fileCheckpointing?: boolean | undefined
  /** Flags the library has no option for; a last resort, appended last (see {@link ExtraArgs}). */
  readonly extraArgs?: ExtraArgs | undefined
  /**
   * `--include-partial-messages`: stream `stream_event` lines (text deltas) as they arrive.
   * Default `true`.
   */
  readonly includePartialMessages?: boolean | undefined

  // --- Limits, models, context, session identity (issue 15) ---------------------------------

  /** Thinking (see {@link ThinkingConfig}). Cannot be combined with `maxThinkingTokens`. */
  readonly thinking?: ThinkingConfig | undefined
  /**
   * The official SDK's older thinking option: `0` is `{ type: "disabled" }`, any other
   * non-negative integer `{ type: "enabled", budgetTokens }` (`--max-thinking-tokens N`).
   */
  readonly maxThinkingTokens?: number | undefined
  /** `--effort`: how much effort the model puts into its answer (see {@link EffortLevel}). */
  readonly effort?: EffortLevel | undefined
  /**
   * `--max-budget-usd`: the most the session may spend, in US dollars; a positive number. When a
   * turn reaches it, its result is `error_max_budget_usd` (a `LimitReached` failure).
   */
  readonly maxBudgetUsd?: number | undefined
  /**
   * `--task-budget`: an API-side budget of tokens the model is told about, so that it paces
   * itself (`output_config.task_budget`). `total` is a positive integer.
   */
  readonly taskBudget?: TaskBudget | undefined
  /**
   * `--setting-sources`: which settings files (and `CLAUDE.md` files) the CLI loads (see
   * {@link SettingSource}); `[]` loads none. Unset, no flag is passed and the CLI loads all of them.
   */
  readonly settingSources?: ReadonlyArray<SettingSource> | undefined
  /** `--betas`: beta headers for the API requests (API key users only). */
  readonly betas?: ReadonlyArray<string> | undefined
  /**
   * `--tools`: the base set of built-in tools. Tool names (`["Read", "Grep"]`), `[]` for none,
   * or the preset `{ type: "preset", preset: "claude_code" }` for the CLI's default set.
   */
  readonly tools?: ReadonlyArray<string> | ToolsPreset | undefined
  /** `--agent`: the agent (a subagent name) the main thread runs as. */
  readonly agent?: string | undefined
  /** `--session-id`: the id of a new session; a UUID. */
  readonly sessionId?: string | undefined
  /**
   * `--resume-session-at`: with `resume`, resume up to this message uuid of the transcript (any
   * entry of it; one the transcript does not hold ends the CLI: `ProcessExited`, its stderr
   * naming the uuid).
   */
  readonly resumeSessionAt?: string | undefined
  /**
   * `--resume-drops-turn`: with `resumeSessionAt`, the uuid of the prompt of the one turn that
   * resume means to drop. The CLI refuses the resume when the entries past `resumeSessionAt`
   * hold anything else (a message queued mid-turn, a task's notice): it ends with
   * `ProcessExited`, its stderr starting `Resume rejected by --resume-drops-turn:`. Refused
   * once, refused again: resume without it to keep those entries.
   */
  readonly resumeDropsTurn?: string | undefined
  /** `false` passes `--no-session-persistence`: no transcript under `~/.claude/projects`. */
  readonly persistSession?: boolean | undefined
  /** `--include-hook-events`: the CLI also writes `hook_started`/`hook_response` system lines. */
  readonly includeHookEvents?: boolean | undefined
  /**
   * `--debug`: the CLI writes its debug log to `~/.claude/debug/<session id>.txt` (under the
   * CLI's `HOME`); a string is its category filter (`"hooks,mcp"`, `"!statsig"`).
   */
  readonly debug?: boolean | string | undefined
  /**
   * `--debug-file`: the CLI writes its debug log to this file (debug on, whatever `debug` says;
   * a category filter of `debug` applies to it).
   */
  readonly debugFile?: string | undefined
  /** One `--plugin-dir` each: plugins for this session only (see {@link PluginConfig}). */
  readonly plugins?: ReadonlyArray<PluginConfig> | undefined
  /**
   * `--permission-prompt-tool <name>`: an MCP tool (`mcp__<server>__<tool>`) that answers
   * permission prompts; any other name is `InvalidInput` (the CLI would exit at the first prompt),
   * unless `env` sets `CLAUDE_AGENT_SDK_MCP_NO_PREFIX` (the CLI then names in-process tools bare).
   * Cannot be combined with a `Permissions` layer, which answers through `stdio` (`"stdio"` alone
   * is `InvalidInput`: provide the layer).
   */
  readonly permissionPromptToolName?: string | undefined
  /**
   * Subagents, by name, sent in `initialize.agents`: the model runs one with its `Agent` tool
   * (`subagent_type: <name>`); `agent` can name one for the main thread.
   */
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined
  /**
   * Sent in `initialize`: the title of a new session, in place of the one the CLI makes of its
   * first prompt (a resumed session keeps its own: `Session.renameSession` retitles it).
   */
  readonly title?: string | undefined
  /**
   * Sent in `initialize`: after a turn (not the first), the CLI asks the model for a likely next
   * prompt and writes it as a `prompt_suggestion` line after the turn's `result`, so it is read
   * from `Session.events`. The CLI makes none in plan mode, after an API error, near the
   * account's usage limit, or with `CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false`.
   */
  readonly promptSuggestions?: boolean | undefined
  /**
   * Sent in `initialize`: the workflow of plan mode (`permissionMode: "plan"`), in place of the
   * CLI's; the CLI keeps its read-only preamble and its `ExitPlanMode` footer around it.
   */
  readonly planModeInstructions?: string | undefined
  /**
   * Sent in `initialize`: the CLI forwards subagents' text and thinking as assistant/user
   * messages with `parent_tool_use_id` set (by default only their tool calls and results).
   */
  readonly forwardSubagentText?: boolean | undefined
  /**
   * The skills the model may use: their names (each allowed as `Skill(<name>)` and sent in
   * `initialize.skills`, which hides the others from the model), or `"all"` (the `Skill` tool
   * allowed). Unset, the CLI's own listing applies. A name the CLI cannot match is
   * `InvalidInput`, as the official SDK checks them (`"*"`, whitespace around it, a leading `/`, a
   * wildcard suffix, parentheses, commas, control characters): CLI 2.1.332 hides every skill for
   * one.
   */
  readonly skills?: ReadonlyArray<string> | "all" | undefined

  // ---- structured output (issue 15) -----------------------------------------------------------
  /**
   * `--json-schema <json>`: the JSON Schema of every turn's structured output, as a plain object.
   * The CLI gives the model a `StructuredOutput` tool with this schema and writes the value it
   * accepted as the result's `structured_output`. Set by a session's `outputFormat` (an Effect
   * Schema, which also decodes the value); set it here only for a raw JSON Schema. Sent in
   * `initialize` too, and there only when its JSON is over 128 KiB (too long for one argument).
   */
  readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined

  // ---- external MCP servers (issue 15) --------------------------------------------------------
  /**
   * MCP servers the CLI runs or dials itself, by name (the `mcp__<name>__` of their tools): a
   * stdio server (`{ command, args?, env? }`, `type: "stdio"` optional), an SSE one
   * (`{ type: "sse", url, headers? }`) or a streamable HTTP one (`{ type: "http", url, headers? }`).
   * They go in the `--mcp-config` the library writes, next to the in-process servers of the
   * `McpServers` layer; a name used by both is refused (`InvalidInput`). The process transport
   * hands that JSON to the CLI as an owner-only file of the CLI's temporary directory, not on its
   * command line, where the official SDK puts it (any user of the machine can read a process's
   * command line); where that directory cannot be made or written, on the command line, with a
   * warning in the log. A value of `env` or `headers` may be `Redacted` (revealed to the CLI only);
   * it, a plain `env` value of a secret name (`defaultSecretEnv`, `secretEnv`) or of a
   * credential's (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`) and a plain credential header
   * (`Authorization`, `X-Api-Key`, `Private-Token`, `Cookie`, …) are the session's secrets,
   * `[redacted]` where the CLI echoes the configs (`mcpStatus`) in transcripts, spans and logs.
   * In-process (`sdk`) servers come from the `McpServers` layer, not from here.
   */
  readonly mcpServers?: Readonly<Record<string, McpExternalServer>> | undefined
  /**
   * `--strict-mcp-config`: only the servers of `--mcp-config` (`mcpServers` and the in-process
   * ones); those of the settings files, a project's `.mcp.json` and plugins are ignored.
   */
  readonly strictMcpConfig?: boolean | undefined
}

/**
 * What the rest of the library adds to the command line: the in-process (`sdk`) MCP servers
 * and whether a permission handler answers `can_use_tool`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Wiring {
  /** One `--mcp-config` entry each; `alwaysLoad` puts the server's tools in the first prompt. */
  readonly mcpServers: ReadonlyArray<{
    /** The server's name (the `mcp__<name>__` of its tools). */
    readonly name: string
    /** Puts the server's tools in the first prompt. */
    readonly alwaysLoad: boolean
    /**
     * The names of its tools whose calls need the user's approval: the session then never runs in
     * a mode that asks no one (see {@link approvalToolNames}).
     *
     * @since 0.2.0
     */
    readonly needsApproval?: ReadonlyArray<string> | undefined
  }>
  /** Adds `--permission-prompt-tool stdio`, so `can_use_tool` requests arrive. */
  readonly permissionPromptTool: boolean
  /** Adds `--session-mirror`, so `transcript_mirror` frames arrive (the `sessionStore` option). */
  readonly sessionMirror?: boolean | undefined
}

/**
 * The command line for the CLI: the arguments after the executable, and the environment to
 * lay over the inherited one (`extendEnv: true`; `undefined` removes a variable).
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  /** The arguments after the executable. */
  readonly args: ReadonlyArray<string>
  /** Variables laid over the inherited environment; `undefined` removes one. */
  readonly env: Record<string, EnvValue>
}

// -----------------------------------------------------------------------------
// Constants
// -----------------------------------------------------------------------------

/**
 * The `CLAUDE_CODE_ENTRYPOINT` the library sets unless `env` names another. The CLI knows
 * `sdk-ts` and treats it as an SDK host (the official TypeScript SDK sets the same; without it
 * the CLI picks `sdk-cli`). This library is a TypeScript host speaking the same protocol.
 *
 * @since 0.1.0
 * @category constants
 */
export const entrypoint = "sdk-ts"

/**
 * Environment variables whose plain values in `env` are always wrapped in `Redacted`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSecretEnv: ReadonlyArray<string> = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
  // The other credentials the official SDK lists and the CLI reads (Foundry, Anthropic on AWS,
  // OAuth refresh, remote sessions).
  "ANTHROPIC_FOUNDRY_API_KEY",
  "ANTHROPIC_FOUNDRY_AUTH_TOKEN",
  "ANTHROPIC_AWS_API_KEY",
  "CLAUDE_CODE_OAUTH_REFRESH_TOKEN",
  "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
  "CLAUDE_CODE_SESSIONS_OAUTH_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  // Headers the CLI sends with every API request (a gateway's key, an `Authorization` line; each
  // header's value is a secret of its own too), and the passphrase of its client certificate's key.
  "ANTHROPIC_CUSTOM_HEADERS",
  "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE"
]

const protocolFlags = new Set(["output-format", "input-format"])
/**
 * The flags that set the permission mode, which the library sets itself when told to.
 * (`--allow-dangerously-skip-permissions` is not one: it sets no mode, only lets a later
 * explicit switch to `bypassPermissions` through.)
 */
const modeFlags = new Set(["permission-mode", "dangerously-skip-permissions"])

/** The flags `extraArgs` name: a record's keys, or an array's `--name` and `--name=value`. */
const extraFlagNames = (extraArgs: ExtraArgs): ReadonlyArray<string> =>
  isStringArray(extraArgs)
    ? extraArgs.flatMap((arg) => (typeof arg === "string" && arg.startsWith("--") ? [arg.slice(2).split("=")[0]!] : []))
    : Object.keys(extraArgs)

/**
 * Whether a CLI launched with `options` accepts a switch to `bypassPermissions` at run time: one
 * launched in that mode (the library adds `--allow-dangerously-skip-permissions` then), or with
 * that flag among its `extraArgs`.
 *
 * @since 0.2.0
 * @category validation
 */
export const allowsBypassSwitch = (options: LaunchOptions): boolean =>
  options.permissionMode === "bypassPermissions" ||
  (options.extraArgs !== undefined && extraFlagNames(options.extraArgs).includes("allow-dangerously-skip-permissions"))

/**
 * What `extraArgs` may not set: the stream-json protocol's flags, and the flags of the
 * permission decisions when the program set them some other way (a `permissionMode`, a prompt
 * tool, a `Permissions` layer): the CLI takes the last of a flag it is given, and `extraArgs`
 * come last, so such a flag would silently undo the program's choice (a
 * `--dangerously-skip-permissions` would put the CLI in bypass mode, and no layer asked).
 */
const extraArgsProblems = (options: LaunchOptions, wiring: Wiring | undefined, add: (problem: string) => void): void => {
  const layer = wiring?.permissionPromptTool === true
  const approval = approvalToolNames(wiring?.mcpServers ?? [])
  for (const name of extraFlagNames(options.extraArgs!)) {
    if (protocolFlags.has(name)) add(`extraArgs must not set --${name}: the library needs stream-json`)
    else if (modeFlags.has(name) && (options.permissionMode !== undefined || layer || approval.length > 0)) {
      add(`extraArgs must not set --${name}: ${
        layer
          ? "a Permissions layer decides the tools' permissions"
          : options.permissionMode !== undefined
          ? `permissionMode is ${options.permissionMode}`
          : `${approval[0]} needs approval, which the mode must ask for`
      }; name the mode with permissionMode alone`)
    } else if (name === "permission-prompt-tool" && (options.permissionPromptToolName !== undefined || layer)) {
      add(`extraArgs must not set --permission-prompt-tool: ${
        layer ? "a Permissions layer answers the prompts" : "permissionPromptToolName names the tool"
      }`)
    }
  }
}
const flagName = /^[A-Za-z][A-Za-z0-9-]*$/
const envName = /^[^=\0]+$/

// -----------------------------------------------------------------------------
// buildCommand
// -----------------------------------------------------------------------------

/** The longest argument Linux takes (`MAX_ARG_STRLEN`, 128 KiB with its NUL), in bytes. */
const maxArgBytes = 128 * 1024 - 1

/** `--name value`, or `--name=value` when the value starts with `-` and could read as a flag. */
const valueFlag = (name: string, value: string): ReadonlyArray<string> =>
  value.startsWith("-") ? [`${name}=${value}`] : [name, value]

const settingsJson = (settings: Settings | undefined, sandboxOption: SandboxSettings | undefined): string => {
  const { attribution, ...rest } = settings ?? {}
  const sandbox = sandboxOption ?? (isPlainObject(rest.sandbox) ? rest.sandbox : undefined)
  // A key set to `undefined` is absent: it keeps the library's "" (spread, it would cancel it).
  return JSON.stringify({
    attribution: { ...attribution, commit: attribution?.commit ?? "", pr: attribution?.pr ?? "" },
    ...rest,
    ...(sandbox === undefined ? {} : { sandbox: failingClosed(sandbox) })
  })
}

/** The keys of the CLI 2.1.332's sandbox settings (the official SDK's `SandboxSettings`). */
const sandboxKeys: ReadonlyArray<string> = [
  "enabled",
  "failIfUnavailable",
  "autoAllowBashIfSandboxed",
  "allowUnsandboxedCommands",
  "network",
  "filesystem",
  "credentials",
  "ignoreViolations",
  "enableWeakerNestedSandbox",
  "allowNestedUserNamespaces",
  "enableWeakerNetworkIsolation",
  "allowAppleEvents",
  "excludedCommands",
  "ripgrep",
  "bwrapPath",
  "socatPath"
]

/**
 * A sandbox that is `enabled` fails closed unless told otherwise: CLI 2.1.332 runs the commands
 * unsandboxed, with a warning, where it cannot start one.
 */
const failingClosed = <S extends { readonly enabled?: unknown; readonly failIfUnavailable?: unknown }>(sandbox: S): S =>
  sandbox.enabled === true && sandbox.failIfUnavailable === undefined ? { ...sandbox, failIfUnavailable: true } : sandbox

/** The policy tier's settings, its `sandbox` failing closed as the other tiers' do. */
const managedSettingsJson = (managed: { readonly [key: string]: unknown }): string =>
  JSON.stringify(isPlainObject(managed.sandbox) ? { ...managed, sandbox: failingClosed(managed.sandbox) } : managed)

const mcpConfigJson = (
  servers: Wiring["mcpServers"],
  external: Readonly<Record<string, McpExternalServer>>
): string => {
  const mcpServers: Record<string, Control.McpServerConfig> = McpServerConfigs.reveal(external)
  for (const server of servers) {
    mcpServers[server.name] = server.alwaysLoad
      ? { type: "sdk", name: server.name, alwaysLoad: true }
      : { type: "sdk", name: server.name }
  }
  return JSON.stringify({ mcpServers })
}

const extraArgsList = (extra: ExtraArgs | undefined): ReadonlyArray<string> => {
  if (extra === undefined) return []
  if (isStringArray(extra)) return extra
  const out: Array<string> = []
  for (const [name, value] of Object.entries(extra)) {
    if (value === null) out.push(`--${name}`)
    else out.push(...valueFlag(`--${name}`, value))
  }
  return out
}

const isStringArray = (extra: ExtraArgs): extra is ReadonlyArray<string> => Array.isArray(extra)

/** The thinking settings the official SDK derives from `thinking`, else from `maxThinkingTokens`. */
const thinkingOf = (options: LaunchOptions): ThinkingConfig | undefined =>
  options.thinking ??
    (options.maxThinkingTokens === undefined
      ? undefined
      : options.maxThinkingTokens === 0
      ? { type: "disabled" }
      : { type: "enabled", budgetTokens: options.maxThinkingTokens })

/**
 * The flags of the limits, models, context and session identity options, in the official SDK's
 * order and spelling.
 */
const contextArgs = (options: LaunchOptions): ReadonlyArray<string> => {
  const args: Array<string> = []
  const thinking = thinkingOf(options)
  if (thinking !== undefined) {
    if (thinking.type === "disabled") args.push("--thinking=disabled")
    else {
      if (thinking.type === "enabled" && thinking.budgetTokens !== undefined) {
        args.push("--max-thinking-tokens", String(thinking.budgetTokens))
      } else args.push("--thinking=adaptive")
      if (thinking.display !== undefined) args.push("--thinking-display", thinking.display)
    }
  }
  if (options.effort !== undefined) args.push("--effort", options.effort)
  if (options.maxBudgetUsd !== undefined) args.push("--max-budget-usd", String(options.maxBudgetUsd))
  if (options.taskBudget !== undefined) args.push("--task-budget", String(options.taskBudget.total))
  if (options.agent !== undefined) args.push(...valueFlag("--agent", options.agent))
  if (options.betas !== undefined && options.betas.length > 0) args.push(...valueFlag("--betas", options.betas.join(",")))
  if (options.permissionPromptToolName !== undefined) {
    args.push(...valueFlag("--permission-prompt-tool", options.permissionPromptToolName))
  }
  if (options.tools !== undefined) {
    args.push("--tools", isStringList(options.tools) ? options.tools.join(",") : "default")
  }
  if (options.settingSources !== undefined) args.push("--setting-sources", options.settingSources.join(","))
  if (options.includeHookEvents === true) args.push("--include-hook-events")
  for (const plugin of options.plugins ?? []) args.push(...valueFlag("--plugin-dir", plugin.path))
  if (options.resumeSessionAt !== undefined) args.push(...valueFlag("--resume-session-at", options.resumeSessionAt))
  if (options.resumeDropsTurn !== undefined) args.push(...valueFlag("--resume-drops-turn", options.resumeDropsTurn))
  // `--debug-file` turns debug on by itself; a category filter applies to the file too.
  if (typeof options.debug === "string") args.push(`--debug=${options.debug}`)
  else if (options.debug === true && options.debugFile === undefined) args.push("--debug")
  if (options.debugFile !== undefined) args.push(...valueFlag("--debug-file", options.debugFile))
  if (options.sessionId !== undefined) args.push("--session-id", options.sessionId)
  if (options.persistSession === false) args.push("--no-session-persistence")
  return args
}

const isStringList = (u: unknown): u is ReadonlyArray<string> => Array.isArray(u)

/**
 * The system prompt's fields of `initialize`, as the official SDK sends them (CLI 2.1.0 reads them
 * there too): a string `systemPrompt` replaces the CLI's own prompt (`""`: the CLI's one-line SDK
 * prompt); a preset's `append`, or `appendSystemPrompt`, is added at the end of it (validate
 * refuses both). Not on the command line, where Linux takes at most 128 KiB in one argument and
 * every process listing shows them.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initializePrompts = (
  options: Pick<LaunchOptions, "systemPrompt" | "appendSystemPrompt">
): {
  /** Replaces the CLI's own prompt. */
  readonly systemPrompt?: string
  /** Added at the end of the prompt. */
  readonly appendSystemPrompt?: string
} => {
  const append = (typeof options.systemPrompt === "object" ? options.systemPrompt.append : undefined) ??
    options.appendSystemPrompt
  return {
    ...(typeof options.systemPrompt === "string" ? { systemPrompt: options.systemPrompt } : {}),
    ...(append === undefined ? {} : { appendSystemPrompt: append })
  }
}

/** `allowedTools` with the `Skill` rules of `skills` after it, as the official SDK adds them. */
const allowedWithSkills = (options: LaunchOptions): ReadonlyArray<string> => {
  const allowed = options.allowedTools ?? []
  if (options.skills === undefined) return allowed
  const rules = options.skills === "all" ? ["Skill"] : options.skills.map((name) => `Skill(${name})`)
  return [...allowed, ...rules.filter((rule) => !allowed.includes(rule))]
}

/**
 * The `--permission-mode` the library passes: the one the program named; `default` when it named
 * none and a permission handler is wired (so that the CLI asks it, whatever `defaultMode` its
 * settings hold); otherwise none, and the CLI picks its own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const effectivePermissionMode = (
  options: Pick<LaunchOptions, "permissionMode">,
  wiring: Pick<Wiring, "permissionPromptTool"> & Partial<Pick<Wiring, "mcpServers">>
): PermissionMode | undefined =>
  options.permissionMode ??
    (wiring.permissionPromptTool || approvalToolNames(wiring.mcpServers ?? []).length > 0 ? "default" : undefined)

/**
 * The permission modes in which the CLI asks no one before a tool runs: everything allowed
 * (`bypassPermissions`), or a classifier deciding (`auto`).
 *
 * @since 0.2.0
 * @category validation
 */
export const asksNoOne = (mode: unknown): boolean => mode === "bypassPermissions" || mode === "auto"

/**
 * The in-process tools whose calls need the user's approval, as the model names them
 * (`mcp__<server>__<tool>`): while a session serves one, its CLI runs in no mode that asks no
 * one ({@link asksNoOne}), and no settings file picks the mode (`default` is passed when the
 * program names none, as for a `Permissions` layer).
 *
 * @since 0.2.0
 * @category validation
 */
export const approvalToolNames = (servers: Wiring["mcpServers"]): ReadonlyArray<string> =>
  servers.flatMap((server) => (server.needsApproval ?? []).map((tool) => `mcp__${server.name}__${tool}`))

/**
 * Translates launch options into the CLI's arguments and environment. Pure: it reads neither
 * the file system nor `process.env`, and unwraps no `Redacted` value of the environment (the
 * transport does, at spawn). The `--mcp-config` JSON holds the external MCP servers' `Redacted`
 * values revealed, for the CLI: the process transport hands it over as an owner-only file.
 *
 * It assumes valid options; run {@link validate} first (the spawner does).
 *
 * Arguments, in order: `--output-format stream-json --input-format stream-json --verbose`,
 * `--include-partial-messages` (unless turned off), `--permission-mode <mode>` when a mode is
 * named (plus `--allow-dangerously-skip-permissions` for `bypassPermissions`; `default` when no
 * mode is named and a permission handler is wired), `--settings <json>`,
 * `--mcp-config <json>` (only with servers: `mcpServers`, then the in-process ones),
 * `--strict-mcp-config`, `--permission-prompt-tool stdio` (only when wired),
 * then one flag per set option (`--json-schema` only when its JSON fits in one argument, 128 KiB:
 * the session sends it in `initialize` too), then `extraArgs`. `--resume` always uses the `--resume=<id>`
 * form; any other value starting with `-` uses the `--flag=value` form.
 *
 * The process transport (`Claude.layerProcess`) hands the `--settings` JSON to the CLI as a file:
 * it writes the JSON shown here, unchanged, to a file readable by its owner only in the CLI's own
 * temporary directory, removed when the session closes, and passes that file's path in its place
 * (CLI 2.1.0, given the JSON, wrote it to a file of its own in the system's temporary directory
 * and left it there). When that directory cannot be made, the CLI gets the JSON as shown.
 *
 * Environment: `CLAUDECODE` removed (so the child does not think it is nested),
 * `CLAUDE_CODE_ENTRYPOINT` = {@link entrypoint} unless `env` sets it, `DEBUG` and `DEBUG_SDK`
 * removed unless `env` sets them (either turns the CLI's debug log on), `NODE_OPTIONS` removed
 * unless `env` sets it (the host's Node options: a CLI on Node would take them),
 * `BUN_ENABLE_CRASH_REPORTING=0` unless `env` names it or `BUN_CRASH_REPORT_URL` (the CLI's
 * runtime sends no crash report, as with the official SDK), `PWD` = `cwd` made absolute
 * when `cwd` is set,
 * the user's `env` (secret names wrapped in `Redacted`), then `apiKey`, `gitIdentity` and
 * `fileCheckpointing`, which win over `env`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const buildCommand = (options: LaunchOptions, wiring: Wiring): Command => {
  const mode = effectivePermissionMode(options, wiring)
  const args: Array<string> = ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"]
  if (options.includePartialMessages !== false) args.push("--include-partial-messages")
  if (mode !== undefined) args.push("--permission-mode", mode)
  if (mode === "bypassPermissions") args.push("--allow-dangerously-skip-permissions")
  args.push("--settings", settingsJson(options.settings, options.sandbox))
  if (options.managedSettings !== undefined) args.push("--managed-settings", managedSettingsJson(options.managedSettings))
  if (options.projectConfigRoot !== undefined) args.push(...valueFlag("--project-config-root", options.projectConfigRoot))
  const external = options.mcpServers ?? {}
  if (wiring.mcpServers.length > 0 || Object.keys(external).length > 0) {
    args.push("--mcp-config", mcpConfigJson(wiring.mcpServers, external))
  }
  if (options.strictMcpConfig === true) args.push("--strict-mcp-config")
  if (wiring.permissionPromptTool) args.push("--permission-prompt-tool", "stdio")
  if (options.model !== undefined) args.push(...valueFlag("--model", options.model))
  if (options.fallbackModel !== undefined) args.push(...valueFlag("--fallback-model", options.fallbackModel))
  if (options.resume !== undefined) args.push(`--resume=${options.resume}`)
  if (options.forkSession === true) args.push("--fork-session")
  if (options.continueConversation === true) args.push("--continue")
  // `systemPrompt` and `appendSystemPrompt` go in `initialize` (`initializePrompts`), not here.
  const allowedTools = allowedWithSkills(options)
  if (allowedTools.length > 0) {
    args.push(...valueFlag("--allowedTools", allowedTools.join(",")))
  }
  if (options.disallowedTools !== undefined && options.disallowedTools.length > 0) {
    args.push(...valueFlag("--disallowedTools", options.disallowedTools.join(",")))
  }
  if (options.maxTurns !== undefined) args.push("--max-turns", String(options.maxTurns))
  for (const dir of options.addDirs ?? []) args.push(...valueFlag("--add-dir", dir))
  if (options.replayUserMessages === true) args.push("--replay-user-messages")
  args.push(...contextArgs(options))
  if (options.jsonSchema !== undefined) {
    // Its object at the top (a top-level `$ref` resolved), as the model's tool input schema must be.
    const schema = JSON.stringify(objectSchemaOf(options.jsonSchema) ?? options.jsonSchema)
    // Also sent in `initialize.jsonSchema`, which the CLIs with structured output (2.1.200 on) read:
    // one too long for a single argument would fail the spawn (E2BIG), so it goes there only.
    if (Buffer.byteLength(schema) <= maxArgBytes) args.push("--json-schema", schema)
  }
  if (wiring.sessionMirror === true) args.push("--session-mirror")
  args.push(...extraArgsList(options.extraArgs))

  return { args, env: commandEnv(options) }
}

/**
 * The variables {@link buildCommand} sets for the CLI, over the host's: the session's `env` (a
 * value under a secret name, `defaultSecretEnv` or `secretEnv`, as a `Redacted`), `apiKey`,
 * `gitIdentity`, `PWD`, the entrypoint, `BUN_ENABLE_CRASH_REPORTING=0` (no crash report sent by
 * the CLI's runtime) unless `env` names it or `BUN_CRASH_REPORT_URL`; `CLAUDECODE` removed, and
 * `DEBUG`/`DEBUG_SDK` and `NODE_OPTIONS` unless `env` sets them, and with `apiKey` the host's
 * `ANTHROPIC_AUTH_TOKEN` and `CLAUDE_CODE_OAUTH_TOKEN`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const commandEnv = (options: LaunchOptions): Record<string, EnvValue> => {
  const secrets = new Set([...defaultSecretEnv, ...(options.secretEnv ?? [])])
  // A host's `DEBUG`/`DEBUG_SDK` (its own logging) would turn the CLI's debug log on, which the
  // `debug` option decides (the official SDK removes `DEBUG` too); the session's `env` may set them.
  // A host's `NODE_OPTIONS` is its own Node's (a `--require` of its agent, an `--inspect` port): a
  // CLI that runs on Node (2.1.0) would take it too; removed, as the official SDK does.
  const env: Record<string, EnvValue> = {
    CLAUDE_CODE_ENTRYPOINT: entrypoint,
    DEBUG: undefined,
    DEBUG_SDK: undefined,
    NODE_OPTIONS: undefined
  }
  // With `apiKey`, the key is the session's credential: the CLI would send a host's bearer token
  // beside it (`Authorization`), to whatever endpoint the session names; the `env` may set one.
  if (options.apiKey !== undefined) env.ANTHROPIC_AUTH_TOKEN = env.CLAUDE_CODE_OAUTH_TOKEN = undefined
  if (options.cwd !== undefined) env.PWD = Path.resolve(options.cwd)
  for (const [name, value] of Object.entries(options.env ?? {})) {
    env[name] = typeof value === "string" && secrets.has(name) ? Redacted.make(value, { label: name }) : value
  }
  if (options.apiKey !== undefined) env.ANTHROPIC_API_KEY = options.apiKey
  if (options.gitIdentity !== undefined) {
    env.GIT_AUTHOR_NAME = options.gitIdentity.name
    env.GIT_AUTHOR_EMAIL = options.gitIdentity.email
    env.GIT_COMMITTER_NAME = options.gitIdentity.name
    env.GIT_COMMITTER_EMAIL = options.gitIdentity.email
  }
  if (options.fileCheckpointing === true) env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING = "true"
  // The CLI's runtime (Bun) sends a crash report to its makers unless told not to; the official
  // SDK turns it off too. The session's `env` may ask for it (either variable).
  if (!Object.hasOwn(env, "BUN_ENABLE_CRASH_REPORTING") && !Object.hasOwn(env, "BUN_CRASH_REPORT_URL")) {
    env.BUN_ENABLE_CRASH_REPORTING = "0"
  }
  env.CLAUDECODE = undefined
  return env
}

// -----------------------------------------------------------------------------
// validate
// -----------------------------------------------------------------------------

const nonEmpty = (u: unknown): u is string => typeof u === "string" && u.trim().length > 0

const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isNonNegativeInteger = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0

/**
 * Why the option `name`, sent to the CLI as JSON, would not reach it as given: `JSON.stringify`
 * throws (a BigInt, a cycle), or writes something else (a Set as `{}`, Infinity as `null`, a
 * Date as its string; see `jsonDataProblem`). Undefined when it would.
 */
const jsonProblem = (name: string, value: unknown): string | undefined => {
  try {
    JSON.stringify(value)
  } catch (cause) {
    return `${name} must be JSON: ${cause instanceof Error ? cause.message : String(cause)}`
  }
  // Only once stringify accepted it: it refuses a cycle, which `jsonDataProblem` would follow for good.
  const problem = jsonDataProblem({ [name]: value })
  return problem === undefined ? undefined : `${name} must be plain JSON data: ${problem}`
}

/** True when `value` (a string, a `Redacted` string, or a list of strings) holds a NUL byte. */
const holdsNul = (value: unknown): boolean => {
  const revealed = Redacted.isRedacted(value) ? Redacted.value(value) : value
  if (typeof revealed === "string") return revealed.includes("\0")
  return Array.isArray(revealed) && revealed.some((item) => typeof item === "string" && item.includes("\0"))
}

/**
 * The options holding a NUL byte, which cannot cross exec(2): each named as the program set it
 * (`cwd`, not the `PWD` it becomes; `apiKey`, without its value), wrong types left to the other
 * checks.
 */
const nulProblems = (options: LaunchOptions, add: (problem: string) => void): void => {
  const check = (name: string, value: unknown) => {
    if (holdsNul(value)) add(`${name} must not contain NUL characters`)
  }
  const executable: unknown = options.executable
  if (isPlainObject(executable)) check("executable.command", executable.command)
  else check("executable", executable)
  const prompt: unknown = options.systemPrompt
  if (isPlainObject(prompt)) check("systemPrompt.append", prompt.append)
  else check("systemPrompt", prompt)
  const named = [
    "cwd",
    "model",
    "fallbackModel",
    "resume",
    "appendSystemPrompt",
    "agent",
    "permissionPromptToolName",
    "resumeSessionAt",
    "resumeDropsTurn",
    "debugFile",
    "debug",
    "projectConfigRoot",
    "sessionId",
    "allowedTools",
    "disallowedTools",
    "addDirs",
    "betas",
    "tools",
    "skills",
    "apiKey"
  ] as const
  for (const name of named) check(name, options[name])
  const plugins: unknown = options.plugins
  if (Array.isArray(plugins) && plugins.some((plugin) => isPlainObject(plugin) && holdsNul(plugin.path))) {
    add("plugins must not contain NUL characters")
  }
  const git: unknown = options.gitIdentity
  if (isPlainObject(git)) {
    check("gitIdentity.name", git.name)
    check("gitIdentity.email", git.email)
  }
  const env: unknown = options.env
  if (isPlainObject(env)) for (const [name, value] of Object.entries(env)) check(`env.${name}`, value)
  const extra: unknown = options.extraArgs
  if (Array.isArray(extra)) check("extraArgs", extra)
  else if (isPlainObject(extra)) for (const [name, value] of Object.entries(extra)) check(`extraArgs.${name}`, value)
}

/** The problems of the limits, models, context and session identity options. */
const contextProblems = (options: LaunchOptions, wiring: Wiring | undefined, add: (problem: string) => void): void => {
  const list = (name: keyof LaunchOptions, value: unknown, allowed?: ReadonlyArray<string>) => {
    if (value === undefined) return
    if (!Array.isArray(value) || !value.every(nonEmpty)) add(`${name} must be an array of non-empty strings`)
    else if (allowed !== undefined) {
      for (const item of value) {
        if (!allowed.includes(item)) add(`${name} must hold only ${allowed.join(", ")} (got ${JSON.stringify(item)})`)
      }
    }
  }
  const text = (name: keyof LaunchOptions, value: unknown) => {
    if (value !== undefined && !nonEmpty(value)) add(`${name} must be a non-empty string`)
  }
  const flag = (name: keyof LaunchOptions, value: unknown) => {
    if (value !== undefined && typeof value !== "boolean") add(`${name} must be a boolean`)
  }
  const prompt: unknown = options.systemPrompt
  if (isPlainObject(prompt)) {
    if (prompt.type !== "preset" || prompt.preset !== "claude_code") {
      add(`systemPrompt must be a string or { type: "preset", preset: "claude_code", append? }`)
    } else if (prompt.append !== undefined) {
      if (typeof prompt.append !== "string") add("systemPrompt.append must be a string")
      if (options.appendSystemPrompt !== undefined) add("systemPrompt.append and appendSystemPrompt cannot be combined")
    }
  }
  const thinking: unknown = options.thinking
  if (thinking !== undefined) {
    if (!isPlainObject(thinking) || !["adaptive", "enabled", "disabled"].includes(String(thinking.type))) {
      add(`thinking must be { type: "adaptive" }, { type: "enabled", budgetTokens } or { type: "disabled" }`)
    } else {
      if (thinking.type === "enabled" && thinking.budgetTokens !== undefined) {
        if (!isNonNegativeInteger(thinking.budgetTokens) || thinking.budgetTokens === 0) {
          add(`thinking.budgetTokens must be a positive integer (got ${String(thinking.budgetTokens)})`)
        }
      }
      if (thinking.display !== undefined) {
        if (thinking.type === "disabled") add(`thinking.display cannot be set with { type: "disabled" }`)
        else if (thinking.display !== "summarized" && thinking.display !== "omitted") {
          add(`thinking.display must be "summarized" or "omitted" (got ${String(thinking.display)})`)
        }
      }
    }
    if (options.maxThinkingTokens !== undefined) add("thinking and maxThinkingTokens cannot be combined")
  }
  if (options.maxThinkingTokens !== undefined && !isNonNegativeInteger(options.maxThinkingTokens)) {
    add(`maxThinkingTokens must be a non-negative integer (got ${String(options.maxThinkingTokens)})`)
  }
  if (options.effort !== undefined && !effortLevels.includes(options.effort)) {
    add(`effort must be one of ${effortLevels.join(", ")} (got ${String(options.effort)})`)
  }
  const budget: unknown = options.maxBudgetUsd
  if (budget !== undefined && !(typeof budget === "number" && Number.isFinite(budget) && budget > 0)) {
    add(`maxBudgetUsd must be a positive number of US dollars (got ${String(budget)})`)
  }
  const taskBudget: unknown = options.taskBudget
  if (taskBudget !== undefined) {
    if (!isPlainObject(taskBudget) || !isNonNegativeInteger(taskBudget.total) || taskBudget.total === 0) {
      add("taskBudget must be { total } with a positive integer of tokens")
    }
  }
  list("settingSources", options.settingSources, settingSources)
  list("betas", options.betas)
  const tools: unknown = options.tools
  if (tools !== undefined && !Array.isArray(tools)) {
    if (!isPlainObject(tools) || tools.type !== "preset" || tools.preset !== "claude_code") {
      add(`tools must be an array of tool names or { type: "preset", preset: "claude_code" }`)
    }
  } else list("tools", tools)
  text("agent", options.agent)
  if (options.sessionId !== undefined && !(typeof options.sessionId === "string" && isUuid(options.sessionId))) {
    add(`sessionId must be a UUID (got ${String(options.sessionId)})`)
  }
  text("resumeSessionAt", options.resumeSessionAt)
  if (options.resumeSessionAt !== undefined && options.resume === undefined) add("resumeSessionAt needs resume")
  text("resumeDropsTurn", options.resumeDropsTurn)
  if (options.resumeDropsTurn !== undefined && options.resumeSessionAt === undefined) {
    add("resumeDropsTurn needs resumeSessionAt")
  }
  if (options.sessionId !== undefined && (options.resume !== undefined || options.continueConversation === true) &&
    options.forkSession !== true) {
    add("sessionId with resume or continueConversation needs forkSession")
  }
  flag("persistSession", options.persistSession)
  flag("includeHookEvents", options.includeHookEvents)
  const debug: unknown = options.debug
  if (debug !== undefined && typeof debug !== "boolean" && !nonEmpty(debug)) {
    add("debug must be a boolean or a non-empty category filter (\"hooks,mcp\")")
  }
  text("debugFile", options.debugFile)
  const plugins: unknown = options.plugins
  if (plugins !== undefined) {
    if (!Array.isArray(plugins)) add(`plugins must be an array of { type: "local", path }`)
    else {
      for (const plugin of plugins) {
        if (!isPlainObject(plugin) || plugin.type !== "local" || !nonEmpty(plugin.path)) {
          add(`plugins must hold { type: "local", path } with a non-empty path only`)
          break
        }
      }
    }
  }
  flag("forwardSubagentText", options.forwardSubagentText)
  text("title", options.title)
  flag("promptSuggestions", options.promptSuggestions)
  text("planModeInstructions", options.planModeInstructions)
  const agents: unknown = options.agents
  if (agents !== undefined) {
    if (!isPlainObject(agents)) add("agents must be an object of agent definitions by name")
    else {
      for (const [name, definition] of Object.entries(agents)) {
        const at = `agents.${name}`
        if (name.trim().length === 0) add("agents names must not be empty")
        if (!isPlainObject(definition)) {
          add(`${at} must be an object { description, prompt, ... }`)
          continue
        }
        if (!nonEmpty(definition.description)) add(`${at}.description must be a non-empty string`)
        if (!nonEmpty(definition.prompt)) add(`${at}.prompt must be a non-empty string`)
        for (const key of ["tools", "disallowedTools", "skills"] as const) {
          const value = definition[key]
          if (value !== undefined && !(Array.isArray(value) && value.every(nonEmpty))) {
            add(`${at}.${key} must be an array of non-empty strings`)
          }
        }
        if (definition.model !== undefined && !nonEmpty(definition.model)) add(`${at}.model must be a non-empty string`)
        if (definition.maxTurns !== undefined && !(isNonNegativeInteger(definition.maxTurns) && definition.maxTurns > 0)) {
          add(`${at}.maxTurns must be a positive integer (got ${String(definition.maxTurns)})`)
        }
        if (definition.background !== undefined && typeof definition.background !== "boolean") {
          add(`${at}.background must be a boolean`)
        }
        if (definition.permissionMode !== undefined && !permissionModes.includes(definition.permissionMode as PermissionMode)) {
          add(`${at}.permissionMode must be one of ${permissionModes.join(", ")}`)
        }
      }
      // Sent in `initialize` as JSON.
      const problem = jsonProblem("agents", agents)
      if (problem !== undefined) add(problem)
    }
  }
  if (options.skills !== undefined && options.skills !== "all") {
    if (!Array.isArray(options.skills) || !options.skills.every(nonEmpty)) {
      add(`skills must be "all" or an array of non-empty skill names`)
    } else {
      for (const name of options.skills) {
        const problem = skillNameProblem(name)
        if (problem !== undefined) add(`skills name ${JSON.stringify(name)}: ${problem}`)
      }
    }
  }
  text("permissionPromptToolName", options.permissionPromptToolName)
  const promptTool = options.permissionPromptToolName
  if (promptTool !== undefined && wiring?.permissionPromptTool === true) {
    add("permissionPromptToolName cannot be combined with a Permissions layer (which answers through stdio)")
  } else if (promptTool === "stdio") {
    add(`permissionPromptToolName "stdio" is the channel a Permissions layer answers: provide Permissions.layer instead`)
  } else if (
    nonEmpty(promptTool) && !promptTool.startsWith("mcp__") && options.env?.CLAUDE_AGENT_SDK_MCP_NO_PREFIX === undefined
  ) {
    // CLI 2.1.332 takes only an MCP tool, and exits at the first prompt otherwise (mid-turn).
    add(`permissionPromptToolName ${JSON.stringify(promptTool)} must name an MCP tool (mcp__<server>__<tool>)`)
  }
}

const skillNameChars = /[(),\u0000-\u001f\u007f-\u009f]/
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Why the CLI cannot match a skill name, as the official SDK checks it before its spawn (a name
 * it refuses makes CLI 2.1.332 hide every skill, without a word); undefined when it can.
 */
const skillNameProblem = (name: string): string | undefined => {
  if (unpairedSurrogate.test(name)) return "it holds an unpaired surrogate, which UTF-8 cannot carry"
  if (name !== name.trim()) return "leading or trailing whitespace (the Skill tool trims the name it is called with)"
  if (skillNameChars.test(name)) return "parentheses, commas and control characters are not allowed (a skill's name is its directory's, or plugin:skill)"
  if (name === "*") return `use skills: "all" for every skill`
  if (name.endsWith(":*") || name.endsWith(" *") || name.endsWith("__*")) return "wildcard suffixes are not allowed: list each skill by its name"
  if (name.startsWith("/")) return "a skill is named without its leading '/' (its directory's name, or plugin:skill)"
  if (name.includes("\\\\")) return "consecutive backslashes are not allowed (the permission rule would name another skill)"
  if (name.endsWith("\\")) return "it ends with an unpaired backslash"
  return undefined
}

/** A record of strings, or `Redacted` strings (the `env` of a stdio server, the `headers` of a remote one). */
const isStringRecord = (u: unknown): boolean =>
  isPlainObject(u) &&
  Object.values(u).every((value) =>
    typeof value === "string" || (Redacted.isRedacted(value) && typeof Redacted.value(value) === "string")
  )

/** The problems of the external MCP servers and `strictMcpConfig`. */
const mcpProblems = (options: LaunchOptions, wiring: Wiring | undefined, add: (problem: string) => void): void => {
  if (options.strictMcpConfig !== undefined && typeof options.strictMcpConfig !== "boolean") {
    add("strictMcpConfig must be a boolean")
  }
  const servers: unknown = options.mcpServers
  if (servers === undefined) return
  if (!isPlainObject(servers)) {
    add("mcpServers must be an object of MCP server configs by name")
    return
  }
  const inProcess = new Set((wiring?.mcpServers ?? []).map((server) => server.name))
  for (const [name, config] of Object.entries(servers)) {
    const at = `mcpServers.${name}`
    if (name.trim().length === 0) add("mcpServers names must not be empty")
    if (inProcess.has(name)) add(`MCP server "${name}" is named both in mcpServers and in the McpServers layer`)
    if (!isPlainObject(config)) {
      add(`${at} must be { command, args?, env? }, { type: "sse", url, headers? } or { type: "http", url, headers? }`)
      continue
    }
    if (config.type === undefined || config.type === "stdio") {
      if (!nonEmpty(config.command)) add(`${at}.command must be a non-empty string`)
      if (config.args !== undefined && !(Array.isArray(config.args) && config.args.every((arg) => typeof arg === "string"))) {
        add(`${at}.args must be an array of strings`)
      }
      if (config.env !== undefined && !isStringRecord(config.env)) add(`${at}.env must be an object of strings (or Redacted strings)`)
    } else if (config.type === "sse" || config.type === "http") {
      const url = typeof config.url === "string" && URL.canParse(config.url) ? new URL(config.url) : undefined
      if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
        add(`${at}.url must be an http:// or https:// URL (got ${JSON.stringify(config.url)})`)
      }
      if (config.headers !== undefined && !isStringRecord(config.headers)) {
        add(`${at}.headers must be an object of strings (or Redacted strings)`)
      }
    } else if (config.type === "sdk") {
      add(`${at}: in-process servers come from the McpServers layer, not from mcpServers`)
    } else add(`${at}.type must be "stdio", "sse" or "http" (got ${JSON.stringify(config.type)})`)
  }
  // Sent in `--mcp-config` as JSON, each Redacted value revealed.
  const problem = jsonProblem("mcpServers", McpServerConfigs.reveal(servers as Record<string, McpExternalServer>))
  if (problem !== undefined) add(problem)
}

/**
 * Lists what is wrong with the options, empty when nothing is. Checks the types too, since
 * options may come from JavaScript or from a configuration file.
 */
const problemsOf = (options: LaunchOptions, wiring: Wiring | undefined): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const add = (problem: string) => problems.push(problem)
  const optionalString = (name: keyof LaunchOptions, value: unknown, empty: "allowEmpty" | "nonEmpty") => {
    if (value === undefined) return
    if (typeof value !== "string") add(`${name} must be a string`)
    else if (empty === "nonEmpty" && value.trim().length === 0) add(`${name} must not be empty`)
  }
  const optionalBoolean = (name: keyof LaunchOptions, value: unknown) => {
    if (value !== undefined && typeof value !== "boolean") add(`${name} must be a boolean`)
  }
  const stringList = (name: keyof LaunchOptions, value: unknown) => {
    if (value === undefined) return
    if (!Array.isArray(value)) add(`${name} must be an array of strings`)
    else if (!value.every(nonEmpty)) add(`${name} must hold non-empty strings only`)
  }

  if (typeof options.executable === "object" && options.executable !== null) {
    const { command, args } = options.executable as { readonly command?: unknown; readonly args?: unknown }
    if (!nonEmpty(command)) add("executable.command must be a non-empty string")
    if (args !== undefined) {
      if (!Array.isArray(args) || !args.every((arg: unknown) => typeof arg === "string")) {
        add("executable.args must be an array of strings")
      } else if (args.some((arg: string) => arg.includes("\0"))) add("executable.args must not contain NUL characters")
    }
  } else optionalString("executable", options.executable, "nonEmpty")
  optionalString("cwd", options.cwd, "nonEmpty")
  optionalString("model", options.model, "nonEmpty")
  optionalString("fallbackModel", options.fallbackModel, "nonEmpty")
  optionalString("resume", options.resume, "nonEmpty")
  // The official SDK refuses it (a fallback to the same model is no fallback); CLI 2.1.332 takes it silently.
  if (options.fallbackModel !== undefined && options.fallbackModel === options.model) {
    add(`fallbackModel must differ from model (both are ${JSON.stringify(options.model)})`)
  }
  if (Array.isArray(options.systemPrompt)) {
    // The official SDK's list form (with a cache boundary) would be dropped here, not sent.
    add("systemPrompt must be a string or a preset ({ type: \"preset\", preset: \"claude_code\" }), not a list")
  } else if (typeof options.systemPrompt !== "object" || options.systemPrompt === null) {
    optionalString("systemPrompt", options.systemPrompt, "allowEmpty")
  }
  optionalString("appendSystemPrompt", options.appendSystemPrompt, "allowEmpty")
  optionalBoolean("forkSession", options.forkSession)
  optionalBoolean("continueConversation", options.continueConversation)
  optionalBoolean("replayUserMessages", options.replayUserMessages)
  optionalBoolean("fileCheckpointing", options.fileCheckpointing)
  optionalBoolean("includePartialMessages", options.includePartialMessages)
  stringList("allowedTools", options.allowedTools)
  stringList("disallowedTools", options.disallowedTools)
  stringList("addDirs", options.addDirs)
  stringList("secretEnv", options.secretEnv)

  if (options.resume !== undefined && options.continueConversation === true) {
    add("resume and continueConversation cannot be combined")
  }
  if (options.forkSession === true && options.resume === undefined && options.continueConversation !== true) {
    add("forkSession needs resume or continueConversation")
  }
  if (options.permissionMode !== undefined && !permissionModes.includes(options.permissionMode)) {
    add(`permissionMode must be one of ${permissionModes.join(", ")} (got ${String(options.permissionMode)})`)
  }
  if (options.permissionMode === "bypassPermissions" && wiring?.permissionPromptTool === true) {
    add(`permissionMode "bypassPermissions" cannot be combined with a Permissions layer: in that mode the CLI ` +
      `never asks, so the layer would never be called. Leave permissionMode unset (the CLI then asks the layer), ` +
      `name another mode ("default", "acceptEdits", "auto", ...), or remove the Permissions layer`)
  }
  const approval = approvalToolNames(wiring?.mcpServers ?? [])
  if (asksNoOne(options.permissionMode) && approval.length > 0) {
    add(`permissionMode "${String(options.permissionMode)}" asks no one before a tool runs, and ${
      approval.join(", ")
    } ${approval.length === 1 ? "needs" : "need"} approval (needsApproval): name a mode that asks the session's ` +
      `Permissions (leave permissionMode unset), or serve ${approval.length === 1 ? "that tool" : "those tools"} elsewhere`)
  }
  if (options.maxTurns !== undefined && !(Number.isSafeInteger(options.maxTurns) && options.maxTurns > 0)) {
    add(`maxTurns must be a positive integer (got ${String(options.maxTurns)})`)
  }
  if (options.settings !== undefined) {
    if (!isPlainObject(options.settings)) add("settings must be an object")
    else {
      if (options.settings.attribution !== undefined && !isPlainObject(options.settings.attribution)) {
        add("settings.attribution must be an object")
      }
      const problem = jsonProblem("settings", options.settings)
      if (problem !== undefined) add(problem)
    }
  }
  if (options.sandbox !== undefined) {
    const sandbox: unknown = options.sandbox
    if (!isPlainObject(sandbox)) add("sandbox must be an object")
    else {
      for (const key of ["enabled", "failIfUnavailable", "autoAllowBashIfSandboxed", "allowUnsandboxedCommands"] as const) {
        if (sandbox[key] !== undefined && typeof sandbox[key] !== "boolean") add(`sandbox.${key} must be a boolean`)
      }
      // A misspelt key (`enable`) would leave the sandbox off without a word.
      for (const key of Object.keys(sandbox)) {
        if (!sandboxKeys.includes(key)) add(`sandbox.${key} is not a sandbox setting (${sandboxKeys.join(", ")})`)
      }
      if (isPlainObject(options.settings) && options.settings.sandbox !== undefined) {
        add("sandbox and settings.sandbox cannot be combined: set the sandbox in one of them")
      }
      const problem = jsonProblem("sandbox", sandbox)
      if (problem !== undefined) add(problem)
    }
  }
  if (options.projectConfigRoot !== undefined &&
    !(typeof options.projectConfigRoot === "string" && Path.isAbsolute(options.projectConfigRoot))) {
    add(`projectConfigRoot must be an absolute path (got ${String(options.projectConfigRoot)})`)
  }
  if (options.managedSettings !== undefined) {
    if (!isPlainObject(options.managedSettings)) add("managedSettings must be an object")
    else {
      const problem = jsonProblem("managedSettings", options.managedSettings)
      if (problem !== undefined) add(problem)
    }
  }
  if (options.env !== undefined) {
    if (!isPlainObject(options.env)) add("env must be an object")
    else {
      for (const [name, value] of Object.entries(options.env)) {
        if (!envName.test(name)) add(`env name ${JSON.stringify(name)} must be non-empty without "=" or NUL`)
        if (!(value === undefined || typeof value === "string" || Redacted.isRedacted(value))) {
          add(`env.${name} must be a string, a Redacted string or undefined`)
        }
      }
    }
  }
  if (options.apiKey !== undefined) {
    if (!Redacted.isRedacted(options.apiKey) || typeof Redacted.value(options.apiKey) !== "string") {
      add("apiKey must be a Redacted string (Redacted.make(key))")
    } else if (Redacted.value(options.apiKey).trim().length === 0) {
      // The CLI takes an empty `ANTHROPIC_API_KEY` as none, and uses whatever other login it finds.
      add("apiKey must not be empty (an unset variable read as \"\"?): the CLI would use another credential")
    }
  }
  if (options.gitIdentity !== undefined) {
    if (!isPlainObject(options.gitIdentity)) add("gitIdentity must be an object")
    else {
      if (!nonEmpty(options.gitIdentity.name)) add("gitIdentity.name must be a non-empty string")
      if (!nonEmpty(options.gitIdentity.email)) add("gitIdentity.email must be a non-empty string")
    }
  }
  if (options.extraArgs !== undefined) {
    if (isStringArray(options.extraArgs)) {
      if (!options.extraArgs.every((arg: unknown) => typeof arg === "string")) add("extraArgs must hold strings only")
    } else if (!isPlainObject(options.extraArgs)) add("extraArgs must be an object or an array of strings")
    else {
      for (const [name, value] of Object.entries(options.extraArgs)) {
        if (!flagName.test(name)) {
          add(`extraArgs name ${JSON.stringify(name)} must start with a letter, hold letters, digits and "-", ` +
            `and leave out the leading dashes`)
        }
        if (value !== null && typeof value !== "string") add(`extraArgs.${name} must be a string or null`)
      }
    }
    if (isStringArray(options.extraArgs) || isPlainObject(options.extraArgs)) extraArgsProblems(options, wiring, add)
  }
  contextProblems(options, wiring, add)
  mcpProblems(options, wiring, add)
  if (options.jsonSchema !== undefined) {
    if (!isPlainObject(options.jsonSchema)) add("jsonSchema must be a JSON Schema object")
    else {
      const problem = jsonProblem("jsonSchema", options.jsonSchema)
      if (problem !== undefined) add(problem)
      else if (objectSchemaOf(options.jsonSchema) === undefined) {
        add(`jsonSchema must describe an object ("type": "object" at its top): the CLI hands it to the model as a ` +
          `tool's input, which is an object`)
      }
    }
  }
  // A NUL byte cannot cross exec(2); report it here instead of as a spawn failure, under the
  // option holding it. What the command holds is checked too, in case an option was missed.
  nulProblems(options, add)
  if (problems.length === 0) {
    const command = buildCommand(options, { mcpServers: [], permissionPromptTool: false })
    if (command.args.some((arg) => arg.includes("\0"))) add("arguments must not contain NUL characters")
    for (const [name, value] of Object.entries(command.env)) {
      if (typeof value === "string" && value.includes("\0")) add(`env.${name} must not contain NUL characters`)
    }
  }
  return problems
}

/**
 * Checks options that would make a bad command line, and returns them unchanged when they are
 * fine. Fails with a `ClaudeError` whose reason is `InvalidInput`, listing every problem found:
 * a wrong type, an empty `model`/`fallbackModel`/`resume`/`executable`/`cwd`/`apiKey`, a `maxTurns` that
 * is not a positive integer, a `fallbackModel` equal to `model`, an unknown `permissionMode`,
 * `resume` together with
 * `continueConversation`, `forkSession` without either, an empty tool or directory name,
 * `settings`, `jsonSchema`, `agents` or `mcpServers` that JSON would not write as given (a Set,
 * a RegExp, Infinity, a Date; named by path), a bad env name, an empty git identity, an
 * `extraArgs` name that does not start with a letter (or that sets
 * `--output-format`/`--input-format`), a NUL byte (named by the option holding it, a `Redacted`
 * value not shown), an `mcpServers` config that is not a stdio server with a command or an
 * SSE/HTTP server with an http(s) URL, and, given the `wiring`, `bypassPermissions` together
 * with a permission handler and an `mcpServers` name also used by an in-process server.
 *
 * {@link buildCommand} stays a total function; the spawner calls this first.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate: (
  options: LaunchOptions,
  wiring?: Wiring
) => Effect.Effect<LaunchOptions, ClaudeError.ClaudeError> = Effect
  .fn("Launch.validate")(function*(options: LaunchOptions, wiring?: Wiring) {
    const problems = problemsOf(options, wiring)
    if (problems.length > 0) {
      return yield* Effect.fail(
        ClaudeError.make(new ClaudeError.InvalidInput({ description: `Invalid launch options: ${problems.join("; ")}` }))
      )
    }
    return options
  })

// -----------------------------------------------------------------------------
// findExecutable
// -----------------------------------------------------------------------------

/**
 * Overrides for {@link findExecutable}'s view of the process, for tests and embedders.
 *
 * @since 0.1.0
 * @category models
 */
export interface LookupEnv {
  /** The `PATH` to search. Default: `process.env.PATH`. `""` searches nothing. */
  readonly path?: string
  /** The second start of the `node_modules/.bin` walk. Default: `process.cwd()`. */
  readonly processCwd?: string
}

/** A file that exists but cannot be run: no execute permission, or a directory. */
interface Unusable {
  readonly path: string
  readonly mode: number
  readonly isDirectory: boolean
}

/** `true` for an executable file, an {@link Unusable} for one that exists but is not, else `false`. */
const checkExecutable = (file: string): true | Unusable | false => {
  let stat: Stats
  try {
    stat = Fs.statSync(file)
  } catch {
    return false
  }
  const unusable: Unusable = { path: file, mode: stat.mode & 0o7777, isDirectory: stat.isDirectory() }
  if (!stat.isFile()) return unusable
  if (process.platform !== "win32" && (stat.mode & 0o111) === 0) return unusable
  try {
    Fs.accessSync(file, Fs.constants.X_OK)
    return true
  } catch {
    return unusable
  }
}

const commandNames = (name: string): ReadonlyArray<string> =>
  process.platform === "win32" && Path.extname(name) === "" ? [`${name}.exe`, `${name}.cmd`, name] : [name]

const hasSeparator = (name: string): boolean => name.includes("/") || (process.platform === "win32" && name.includes("\\"))

type Lookup =
  | { readonly found: string }
  | { readonly searched: ReadonlyArray<string>; readonly unusable: Unusable | undefined }

const lookup = (explicit: string | undefined, cwd: string | undefined, override: LookupEnv | undefined): Lookup => {
  const base = Path.resolve(override?.processCwd ?? process.cwd())
  const searched: Array<string> = []
  let unusable: Unusable | undefined
  const first = (candidates: Iterable<string>): string | undefined => {
    for (const candidate of candidates) {
      if (searched.includes(candidate)) continue
      searched.push(candidate)
      const check = checkExecutable(candidate)
      if (check === true) return candidate
      if (check !== false) unusable ??= check
    }
    return undefined
  }
  const pathDirs = (override?.path ?? process.env.PATH ?? "").split(Path.delimiter).filter((dir) => dir.length > 0)
  const onPath = function*(name: string) {
    for (const dir of pathDirs) {
      for (const file of commandNames(name)) yield Path.resolve(base, dir, file)
    }
  }
  const binsAbove = function*(start: string) {
    let dir = Path.resolve(base, start)
    while (true) {
      for (const file of commandNames("claude")) yield Path.join(dir, "node_modules", ".bin", file)
      const parent = Path.dirname(dir)
      if (parent === dir) return
      dir = parent
    }
  }

  if (explicit !== undefined) {
    const found = hasSeparator(explicit)
      ? first([Path.resolve(base, cwd ?? ".", explicit)])
      : first(onPath(explicit))
    return found !== undefined ? { found } : { searched: searched.length > 0 ? searched : [explicit], unusable }
  }
  // Never from the session's `cwd`: it may be a checkout the program does not trust, whose
  // `node_modules/.bin/claude` would run with the host's credentials.
  const found = first(onPath("claude")) ?? first(binsAbove(base))
  // Without an explicit name, a stray non-executable `claude` somewhere is not the point.
  return found !== undefined ? { found } : { searched, unusable: undefined }
}

/**
 * Finds the `claude` executable and returns its absolute path.
 *
 * - `explicit` set: a path (relative to `cwd`) that must be an executable file, or a bare
 *   command name looked up on `PATH` only. Nothing else is tried.
 * - otherwise: `claude` on `PATH`, then `node_modules/.bin/claude` in `process.cwd()` (the
 *   program's directory) and each parent. Never in the session's `cwd`: it may be a checkout the
 *   program does not trust, whose `claude` would run with the host's credentials.
 *
 * Fails with a `ClaudeError` whose reason is `NotExecutable` when `explicit` names a file that
 * exists but cannot be run (no execute permission, or a directory; the message gives its path and
 * mode), else `CliNotFound`, whose `searched` lists every file tried and whose message says how to
 * install the CLI.
 *
 * @since 0.1.0
 * @category lookup
 */
export const findExecutable: (
  explicit: string | undefined,
  cwd?: string,
  env?: LookupEnv
) => Effect.Effect<string, ClaudeError.ClaudeError> = Effect.fnUntraced(
  function*(explicit: string | undefined, cwd?: string, env?: LookupEnv) {
    const result = yield* Effect.sync(() => lookup(explicit, cwd, env))
    if ("found" in result) return result.found
    if (result.unusable !== undefined) return yield* Effect.fail(ClaudeError.make(new ClaudeError.NotExecutable(result.unusable)))
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.CliNotFound({ searched: result.searched })))
  },
  // Its span ends without the path found (under the user's home, most often).
  SpanExits.withSpan("Launch.findExecutable")
)
