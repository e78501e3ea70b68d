/**
 * The inputs of the CLI's built-in tools (`Bash`, `Read`, `Edit`, …), as types, and the tool
 * call a hook or permission handler receives: a union over `tool_name`, so that
 * `if (input.tool_name === "Bash") input.tool_input.command` is a `string` with no cast.
 *
 * **Types only, on purpose.** The shapes are copied from the types the CLI package ships
 * (`sdk-tools.d.ts` of `@anthropic-ai/claude-code` 2.1.332); nothing here is a schema and
 * nothing is checked at run time: a handler receives the CLI's object as it came. A tool's input
 * changes with the CLI (fields are added, renamed, deprecated), and a check would have to either
 * refuse the call (so a guard would block every `Bash` call after a CLI update renames a field)
 * or let it through unchecked, which is what passing the object through does anyway. A handler
 * that reads a field that is not there gets `undefined` at run time: a guard that then fails
 * (throws, or fails its Effect) refuses the tool, because a failing `PreToolUse`,
 * `PermissionRequest` or permission handler fails closed (see `HandlerFailure`). Every input
 * also keeps its other keys (`[key: string]: unknown`), for fields a later CLI adds.
 *
 * @since 0.2.0
 */
import type { UnknownType } from "./unknown.ts"

/**
 * `Agent` (formerly `Task`): start a subagent.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface AgentInput {
  /** A short (3-5 word) description of the task. */
  readonly description: string
  /** The task for the agent to perform. */
  readonly prompt: string
  /** The type of specialized agent to use. */
  readonly subagent_type?: string
  /** Model override for this agent. */
  readonly model?: "sonnet" | "opus" | "haiku" | "fable" | (string & {})
  /** Reasoning effort for this agent. */
  readonly effort?: "low" | "medium" | "high" | "xhigh" | "max" | (string & {})
  /** Agents run in the background by default. */
  readonly run_in_background?: boolean
  /** Name for the spawned agent (addressable by `SendMessage`). */
  readonly name?: string
  /** Deprecated; ignored. */
  readonly team_name?: string
  /** Deprecated; ignored. */
  readonly mode?: string
  /** `worktree` or `remote`. */
  readonly isolation?: "worktree" | "remote" | (string & {})
  readonly [key: string]: unknown
}

/**
 * `Bash`: run a shell command.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface BashInput {
  /** The command to execute. */
  readonly command: string
  /** Timeout in milliseconds. */
  readonly timeout?: number
  /** What the command does, in plain words (shown to the user). */
  readonly description?: string
  /** Run the command in the background. */
  readonly run_in_background?: boolean
  /** Override sandbox mode and run without sandboxing. */
  readonly dangerouslyDisableSandbox?: boolean
  readonly [key: string]: unknown
}

/**
 * `Edit`: replace text in a file.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface FileEditInput {
  /** The absolute path to the file to modify. */
  readonly file_path: string
  /** The text to replace. */
  readonly old_string: string
  /** The text to replace it with. */
  readonly new_string: string
  /** Replace all occurrences of `old_string` (default false). */
  readonly replace_all?: boolean
  readonly [key: string]: unknown
}

/**
 * `Read`: read a file.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface FileReadInput {
  /** The absolute path to the file to read. */
  readonly file_path: string
  /** The line number to start reading from. */
  readonly offset?: number
  /** The number of lines to read. */
  readonly limit?: number
  /** Page range for PDF files (`"1-5"`, `"3"`). */
  readonly pages?: string
  /** Read a text file over the usual size limits. */
  readonly allow_large?: boolean
  readonly [key: string]: unknown
}

/**
 * `Write`: write a file.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface FileWriteInput {
  /** The absolute path to the file to write. */
  readonly file_path: string
  /** The content to write. */
  readonly content: string
  readonly [key: string]: unknown
}

/**
 * `Glob`: find files by pattern.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface GlobInput {
  /** The glob pattern to match files against. */
  readonly pattern: string
  /** The directory to search in (default: the working directory). */
  readonly path?: string
  readonly [key: string]: unknown
}

/**
 * `Grep`: search file contents (ripgrep).
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface GrepInput {
  /** The regular expression to search for. */
  readonly pattern: string
  /** File or directory to search in. */
  readonly path?: string
  /** Glob filter on file names (`rg --glob`). */
  readonly glob?: string
  /** `content`, `files_with_matches` (default) or `count`. */
  readonly output_mode?: "content" | "files_with_matches" | "count" | (string & {})
  /** Lines before each match (`rg -B`). */
  readonly "-B"?: number
  /** Lines after each match (`rg -A`). */
  readonly "-A"?: number
  /** Alias of `context`. */
  readonly "-C"?: number
  /** Lines before and after each match (`rg -C`). */
  readonly context?: number
  /** Show line numbers (`rg -n`). */
  readonly "-n"?: boolean
  /** Case insensitive (`rg -i`). */
  readonly "-i"?: boolean
  /** Only the matched parts (`rg -o`). */
  readonly "-o"?: boolean
  /** File type (`rg --type`). */
  readonly type?: string
  /** Limit the output to the first N lines or entries. */
  readonly head_limit?: number
  /** Skip the first N lines or entries. */
  readonly offset?: number
  /** Multiline mode (`rg -U --multiline-dotall`). */
  readonly multiline?: boolean
  readonly [key: string]: unknown
}

/**
 * `NotebookEdit`: edit a Jupyter notebook cell.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface NotebookEditInput {
  /** The absolute path to the notebook. */
  readonly notebook_path: string
  /** The cell to edit (or to insert after). */
  readonly cell_id?: string
  /** The new source of the cell. */
  readonly new_source: string
  /** `code` or `markdown`. */
  readonly cell_type?: "code" | "markdown" | (string & {})
  /** `replace` (default), `insert` or `delete`. */
  readonly edit_mode?: "replace" | "insert" | "delete" | (string & {})
  readonly [key: string]: unknown
}

/**
 * One item of a {@link TodoWriteInput}.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface TodoItem {
  /** What to do, in the imperative (`"Run the tests"`). */
  readonly content: string
  /** `pending`, `in_progress` or `completed`. */
  readonly status: "pending" | "in_progress" | "completed" | (string & {})
  /** The same in the present continuous, shown while it is in progress (`"Running the tests"`). */
  readonly activeForm: string
  readonly [key: string]: unknown
}

/**
 * `TodoWrite`: replace the todo list.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface TodoWriteInput {
  /** The updated todo list. */
  readonly todos: ReadonlyArray<TodoItem>
  readonly [key: string]: unknown
}

/**
 * `WebFetch`: fetch a URL and run a prompt on it.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface WebFetchInput {
  /** The URL to fetch. */
  readonly url: string
  /** The prompt to run on the fetched content. */
  readonly prompt: string
  /** Character position in the page text to start from. */
  readonly offset?: number
  readonly [key: string]: unknown
}

/**
 * `WebSearch`: search the web.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface WebSearchInput {
  /** The search query. */
  readonly query: string
  /** Only results from these domains. */
  readonly allowed_domains?: ReadonlyArray<string>
  /** Never results from these domains. */
  readonly blocked_domains?: ReadonlyArray<string>
  readonly [key: string]: unknown
}

/**
 * `TaskStop`: stop a background task.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface TaskStopInput {
  /** The id of the background task to stop. */
  readonly task_id?: string
  /** Deprecated: use `task_id`. */
  readonly shell_id?: string
  readonly [key: string]: unknown
}

/**
 * `ExitPlanMode`: leave plan mode.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface ExitPlanModeInput {
  readonly [key: string]: unknown
}

/**
 * An option of an {@link AskUserQuestionInput} question.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface AskUserQuestionOption {
  /** The text the user sees and selects (1 to 5 words). */
  readonly label: string
  /** What the option means or what choosing it does. */
  readonly description: string
  /** Content shown when the option is focused (a mockup, a code snippet). */
  readonly preview?: string
  readonly [key: string]: unknown
}

/**
 * A question of an {@link AskUserQuestionInput}.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface AskUserQuestion {
  /** The complete question, ending with a question mark. */
  readonly question: string
  /** A very short label (a chip). */
  readonly header: string
  /** 2 to 4 options. */
  readonly options: ReadonlyArray<AskUserQuestionOption>
  /** The user may select several options instead of one. */
  readonly multiSelect: boolean
  readonly [key: string]: unknown
}

/**
 * `AskUserQuestion`: ask the user multiple-choice questions.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface AskUserQuestionInput {
  /** 1 to 4 questions. */
  readonly questions: ReadonlyArray<AskUserQuestion>
  /** The user's answers, by question text (collected by the permission prompt). */
  readonly answers?: { readonly [question: string]: string }
  /** The user's notes on their selections, by question text. */
  readonly annotations?: {
    readonly [question: string]: {
      /** The preview of the selected option, when the question had previews. */
      readonly preview?: string
      /** Free-text notes the user added to the selection. */
      readonly notes?: string
    }
  }
  /** Tracking metadata, not shown to the user. */
  readonly metadata?: {
    /** Where the question comes from (`"remember"` for `/remember`). */
    readonly source?: string
  }
  readonly [key: string]: unknown
}

/**
 * `ListMcpResourcesTool`: list MCP resources.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface ListMcpResourcesInput {
  /** Only this server's resources. */
  readonly server?: string
  readonly [key: string]: unknown
}

/**
 * `ReadMcpResourceTool`: read an MCP resource.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface ReadMcpResourceInput {
  /** The MCP server name. */
  readonly server: string
  /** The resource URI. */
  readonly uri: string
  readonly [key: string]: unknown
}

/**
 * `Monitor`: watch a command or a WebSocket in the background.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface MonitorInput {
  /** What is watched, in a few words (shown in notifications). */
  readonly description: string
  /** Stop watching after this many milliseconds (the CLI caps it at 1800000). */
  readonly timeout_ms: number
  /** A shell command: each line of its stdout is an event; its exit ends the watch. */
  readonly command?: string
  /** A WebSocket to open instead of a command: each text frame is an event; its close ends the watch. */
  readonly ws?: {
    /** The WebSocket's URL. */
    readonly url: string
    /** The subprotocols to ask for. */
    readonly protocols?: ReadonlyArray<string>
  }
  readonly [key: string]: unknown
}

/**
 * The built-in tools with a typed input, by the name the CLI gives them in `tool_name` (and in
 * `tool_use` blocks). `Task` is the former name of `Agent` (CLI 2.1.332 sends `Agent`; a matcher
 * or rule may still say `Task`).
 *
 * @since 0.2.0
 * @category built-in tools
 */
export interface BuiltinToolInputs {
  /** Runs a subagent. */
  readonly Agent: AgentInput
  /** `Agent`'s former name. */
  readonly Task: AgentInput
  /** Runs a shell command. */
  readonly Bash: BashInput
  /** Replaces a string in a file. */
  readonly Edit: FileEditInput
  /** Reads a file. */
  readonly Read: FileReadInput
  /** Writes a file. */
  readonly Write: FileWriteInput
  /** Finds files by glob pattern. */
  readonly Glob: GlobInput
  /** Searches file contents. */
  readonly Grep: GrepInput
  /** Edits a Jupyter notebook cell. */
  readonly NotebookEdit: NotebookEditInput
  /** Replaces the todo list. */
  readonly TodoWrite: TodoWriteInput
  /** Fetches a URL and runs a prompt on it. */
  readonly WebFetch: WebFetchInput
  /** Searches the web. */
  readonly WebSearch: WebSearchInput
  /** Stops a background task. */
  readonly TaskStop: TaskStopInput
  /** Leaves plan mode. */
  readonly ExitPlanMode: ExitPlanModeInput
  /** Asks the user multiple-choice questions. */
  readonly AskUserQuestion: AskUserQuestionInput
  /** Lists MCP resources. */
  readonly ListMcpResourcesTool: ListMcpResourcesInput
  /** Reads an MCP resource. */
  readonly ReadMcpResourceTool: ReadMcpResourceInput
  /** Watches a command or a WebSocket in the background. */
  readonly Monitor: MonitorInput
}

/**
 * The name of a built-in tool with a typed input.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export type BuiltinToolName = keyof BuiltinToolInputs

/**
 * The names of {@link BuiltinToolInputs}, at run time.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export const builtinToolNames: ReadonlyArray<BuiltinToolName> = [
  "Agent",
  "Task",
  "Bash",
  "Edit",
  "Read",
  "Write",
  "Glob",
  "Grep",
  "NotebookEdit",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "TaskStop",
  "ExitPlanMode",
  "AskUserQuestion",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
  "Monitor"
]

/**
 * The other built-in tools (CLI 2.1.332, from the Agent SDK's `BUILTIN_TOOL_NAMES`), whose input
 * has no type here: a tool call of one of them carries a plain record. Listed so that
 * `tool_name === "Skill"` compiles and narrows.
 *
 * @since 0.2.0
 * @category built-in tools
 */
export type OtherBuiltinToolName =
  | "Artifact"
  | "ClaudeDesign"
  | "CronCreate"
  | "CronDelete"
  | "CronList"
  | "EndConversation"
  | "EnterPlanMode"
  | "EnterWorktree"
  | "ExitWorktree"
  | "ListAgents"
  | "LSP"
  | "OfferChromeSetup"
  | "PowerShell"
  | "Projects"
  | "propose_skills"
  | "PushNotification"
  | "ReadMcpResourceDirTool"
  | "ReadNotifications"
  | "RemoteTrigger"
  | "ReportFindings"
  | "ScheduleWakeup"
  | "SendFeedback"
  | "SendMessage"
  | "SendUserFile"
  | "SendUserMessage"
  | "SetGoal"
  | "ShareOnboardingGuide"
  | "ShowOnboardingRolePicker"
  | "Skill"
  | "SubagentHandback"
  | "TaskCreate"
  | "TaskGet"
  | "TaskList"
  | "TaskUpdate"
  | "ToolSearch"
  | "WaitForMcpServers"
  | "Workflow"

/**
 * The name of an MCP tool: `mcp__<server>__<tool>` (the tools of in-process servers too).
 *
 * @since 0.2.0
 * @category tool calls
 */
export type McpToolName = `mcp__${string}`

type Flatten<A> = { readonly [K in keyof A]: A[K] }

type WithTool<Base, InputKey extends string, Name, Input> = Flatten<
  Omit<Base, "tool_name" | InputKey> & { readonly tool_name: Name } & { readonly [P in InputKey]: Input }
>

/**
 * A tool call as a union over `tool_name`, with `Base` holding the other fields of the request
 * and the tool's input under `InputKey` (`tool_input` in hook inputs, `input` in
 * `can_use_tool`):
 *
 * - each built-in tool of {@link BuiltinToolInputs}: its name and its typed input;
 * - the other built-in tools ({@link OtherBuiltinToolName}) and MCP tools ({@link McpToolName}):
 *   the input as a plain record;
 * - any other name (a tool a later CLI adds): a `tool_name` typed `UnknownType`, the input as a
 *   plain record.
 *
 * So `input.tool_name === "Bash"` narrows to the `Bash` member, and `=== "mcp__byre__echo"` to
 * the MCP member. A name none of these lists (a built-in added after CLI 2.1.332) cannot be
 * compared with a literal directly: `String(input.tool_name) === "NewTool"`.
 *
 * Types only: see the module documentation for why the input is not checked at run time.
 *
 * @since 0.2.0
 * @category tool calls
 */
export type ToolCall<Base, InputKey extends string> =
  | { readonly [N in BuiltinToolName]: WithTool<Base, InputKey, N, BuiltinToolInputs[N]> }[BuiltinToolName]
  | WithTool<Base, InputKey, OtherBuiltinToolName | McpToolName | UnknownType, { readonly [key: string]: unknown }>
