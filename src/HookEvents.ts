/**
 * The hook events of the `claude` CLI: per event, the schema of the input it sends in
 * `hook_callback` and of the answer a hook gives back, and the typed forms handlers use
 * ({@link HookInput}`<K>`, {@link HookOutput}`<K>`).
 *
 * The schemas themselves are the protocol's (`Protocol`, one definition each), re-exported here
 * under the same names.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  ConfigChangeInput,
  CwdChangedInput,
  CwdChangedSpecificOutput,
  DirectoryAddedInput,
  ElicitationInput,
  ElicitationResultInput,
  ElicitationResultSpecificOutput,
  ElicitationSpecificOutput,
  FileChangedInput,
  FileChangedSpecificOutput,
  HookOutputBase,
  HookOutputBaseFields,
  InstructionsLoadedInput,
  MessageDisplayInput,
  MessageDisplaySpecificOutput,
  NotificationInput,
  NotificationSpecificOutput,
  PermissionDeniedInput,
  PermissionDeniedSpecificOutput,
  PermissionRequestInput,
  PermissionRequestSpecificOutput,
  PostCompactInput,
  PostModelSwitchInput,
  PostModelSwitchSpecificOutput,
  PostToolBatchInput,
  PostToolBatchSpecificOutput,
  PostToolUseFailureInput,
  PostToolUseFailureSpecificOutput,
  PostToolUseInput,
  PostToolUseSpecificOutput,
  PreCompactInput,
  PreModelSwitchInput,
  PreModelSwitchSpecificOutput,
  PreSkillShellCommandInput,
  PreSkillShellCommandSpecificOutput,
  PreToolUseInput,
  PreToolUseSpecificOutput,
  SessionEndInput,
  SessionStartInput,
  SessionStartSpecificOutput,
  SetupInput,
  SetupSpecificOutput,
  StopFailureInput,
  StopInput,
  StopSpecificOutput,
  SubagentStartInput,
  SubagentStartSpecificOutput,
  SubagentStopInput,
  SubagentStopSpecificOutput,
  TaskCompletedInput,
  TaskCreatedInput,
  TeammateIdleInput,
  UnknownHookInput,
  UnknownSpecificOutput,
  UserPromptExpansionInput,
  UserPromptExpansionSpecificOutput,
  UserPromptSubmitInput,
  UserPromptSubmitSpecificOutput,
  WorktreeCreateInput,
  WorktreeCreateSpecificOutput,
  WorktreeRemoveInput
} from "./protocol/hooks.ts"
import type { BuiltinToolName, ToolCall } from "./protocol/tools.ts"

export {
  /**
   * @since 0.1.0
   */
  CompactTrigger,
  /**
   * @since 0.1.0
   */
  SessionStartSource,
  /**
   * @since 0.1.0
   */
  BaseHookInputFields,
  /**
   * @since 0.1.0
   */
  McpServerProvenance,
  /**
   * @since 0.1.0
   */
  ToolInput,
  /**
   * @since 0.1.0
   */
  BackgroundTaskSummary,
  /**
   * @since 0.1.0
   */
  SessionCronSummary,
  /**
   * @since 0.1.0
   */
  PreToolUseInput,
  /**
   * @since 0.1.0
   */
  PostToolUseInput,
  /**
   * @since 0.1.0
   */
  PostToolUseFailureInput,
  /**
   * @since 0.1.0
   */
  UserPromptSubmitInput,
  /**
   * @since 0.1.0
   */
  StopInput,
  /**
   * @since 0.1.0
   */
  StopFailureInput,
  /**
   * @since 0.1.0
   */
  SubagentStartInput,
  /**
   * @since 0.1.0
   */
  SubagentStopInput,
  /**
   * @since 0.1.0
   */
  PreCompactInput,
  /**
   * @since 0.1.0
   */
  PostCompactInput,
  /**
   * @since 0.1.0
   */
  SessionStartInput,
  /**
   * @since 0.1.0
   */
  SessionEndInput,
  /**
   * @since 0.1.0
   */
  NotificationInput,
  /**
   * @since 0.1.0
   */
  PermissionRequestInput,
  /**
   * @since 0.1.0
   */
  PermissionDeniedInput,
  /**
   * @since 0.1.0
   */
  PostToolBatchToolCall,
  /**
   * @since 0.1.0
   */
  PostToolBatchInput,
  /**
   * @since 0.1.0
   */
  UserPromptExpansionInput,
  /**
   * @since 0.1.0
   */
  ElicitationInput,
  /**
   * @since 0.1.0
   */
  ElicitationResultInput,
  /**
   * @since 0.1.0
   */
  UnknownHookInput,
  /**
   * @since 0.1.0
   */
  HookOutputBaseFields,
  /**
   * @since 0.1.0
   */
  HookOutputBase,
  /**
   * @since 0.1.0
   */
  PreToolUseSpecificOutput,
  /**
   * @since 0.1.0
   */
  PostToolUseSpecificOutput,
  /**
   * @since 0.1.0
   */
  PostToolUseFailureSpecificOutput,
  /**
   * @since 0.1.0
   */
  UserPromptSubmitSpecificOutput,
  /**
   * @since 0.1.0
   */
  SessionStartSpecificOutput,
  /**
   * @since 0.1.0
   */
  StopSpecificOutput,
  /**
   * @since 0.1.0
   */
  SubagentStartSpecificOutput,
  /**
   * @since 0.1.0
   */
  SubagentStopSpecificOutput,
  /**
   * @since 0.1.0
   */
  NotificationSpecificOutput,
  /**
   * @since 0.1.0
   */
  PermissionRequestSpecificOutput,
  /**
   * @since 0.1.0
   */
  PermissionDeniedSpecificOutput,
  /**
   * @since 0.1.0
   */
  PostToolBatchSpecificOutput,
  /**
   * @since 0.1.0
   */
  UserPromptExpansionSpecificOutput,
  /**
   * @since 0.1.0
   */
  ElicitationSpecificOutput,
  /**
   * @since 0.1.0
   */
  ElicitationResultSpecificOutput,
  /**
   * @since 0.1.0
   */
  /**
   * @since 0.2.0
   */
  PreModelSwitchInput,
  /**
   * @since 0.2.0
   */
  PostModelSwitchInput,
  /**
   * @since 0.2.0
   */
  SetupInput,
  /**
   * @since 0.2.0
   */
  TeammateIdleInput,
  /**
   * @since 0.2.0
   */
  TaskCreatedInput,
  /**
   * @since 0.2.0
   */
  TaskCompletedInput,
  /**
   * @since 0.2.0
   */
  ConfigChangeInput,
  /**
   * @since 0.2.0
   */
  WorktreeCreateInput,
  /**
   * @since 0.2.0
   */
  WorktreeRemoveInput,
  /**
   * @since 0.2.0
   */
  InstructionsLoadedInput,
  /**
   * @since 0.2.0
   */
  CwdChangedInput,
  /**
   * @since 0.2.0
   */
  FileChangedInput,
  /**
   * @since 0.2.0
   */
  DirectoryAddedInput,
  /**
   * @since 0.2.0
   */
  MessageDisplayInput,
  /**
   * @since 0.2.0
   */
  PreSkillShellCommandInput,
  /**
   * @since 0.2.0
   */
  PreModelSwitchSpecificOutput,
  /**
   * @since 0.2.0
   */
  PostModelSwitchSpecificOutput,
  /**
   * @since 0.2.0
   */
  SetupSpecificOutput,
  /**
   * @since 0.2.0
   */
  WorktreeCreateSpecificOutput,
  /**
   * @since 0.2.0
   */
  CwdChangedSpecificOutput,
  /**
   * @since 0.2.0
   */
  FileChangedSpecificOutput,
  /**
   * @since 0.2.0
   */
  MessageDisplaySpecificOutput,
  /**
   * @since 0.2.0
   */
  PreSkillShellCommandSpecificOutput,
  UnknownSpecificOutput
} from "./protocol/hooks.ts"

// -----------------------------------------------------------------------------
// event table
// -----------------------------------------------------------------------------

/**
 * Every event with a schema: its input schema and its `hookSpecificOutput` schema (`undefined`
 * when the event has none).
 *
 * @since 0.1.0
 * @category events
 */
export const events = {
  PreToolUse: { input: PreToolUseInput, specificOutput: PreToolUseSpecificOutput },
  PostToolUse: { input: PostToolUseInput, specificOutput: PostToolUseSpecificOutput },
  PostToolUseFailure: { input: PostToolUseFailureInput, specificOutput: PostToolUseFailureSpecificOutput },
  UserPromptSubmit: { input: UserPromptSubmitInput, specificOutput: UserPromptSubmitSpecificOutput },
  Stop: { input: StopInput, specificOutput: StopSpecificOutput },
  StopFailure: { input: StopFailureInput, specificOutput: undefined },
  SubagentStart: { input: SubagentStartInput, specificOutput: SubagentStartSpecificOutput },
  SubagentStop: { input: SubagentStopInput, specificOutput: SubagentStopSpecificOutput },
  PreCompact: { input: PreCompactInput, specificOutput: undefined },
  PostCompact: { input: PostCompactInput, specificOutput: undefined },
  SessionStart: { input: SessionStartInput, specificOutput: SessionStartSpecificOutput },
  SessionEnd: { input: SessionEndInput, specificOutput: undefined },
  Notification: { input: NotificationInput, specificOutput: NotificationSpecificOutput },
  PermissionRequest: { input: PermissionRequestInput, specificOutput: PermissionRequestSpecificOutput },
  PermissionDenied: { input: PermissionDeniedInput, specificOutput: PermissionDeniedSpecificOutput },
  PostToolBatch: { input: PostToolBatchInput, specificOutput: PostToolBatchSpecificOutput },
  UserPromptExpansion: { input: UserPromptExpansionInput, specificOutput: UserPromptExpansionSpecificOutput },
  Elicitation: { input: ElicitationInput, specificOutput: ElicitationSpecificOutput },
  ElicitationResult: { input: ElicitationResultInput, specificOutput: ElicitationResultSpecificOutput },
  PreModelSwitch: { input: PreModelSwitchInput, specificOutput: PreModelSwitchSpecificOutput },
  PostModelSwitch: { input: PostModelSwitchInput, specificOutput: PostModelSwitchSpecificOutput },
  Setup: { input: SetupInput, specificOutput: SetupSpecificOutput },
  TeammateIdle: { input: TeammateIdleInput, specificOutput: undefined },
  TaskCreated: { input: TaskCreatedInput, specificOutput: undefined },
  TaskCompleted: { input: TaskCompletedInput, specificOutput: undefined },
  ConfigChange: { input: ConfigChangeInput, specificOutput: undefined },
  WorktreeCreate: { input: WorktreeCreateInput, specificOutput: WorktreeCreateSpecificOutput },
  WorktreeRemove: { input: WorktreeRemoveInput, specificOutput: undefined },
  InstructionsLoaded: { input: InstructionsLoadedInput, specificOutput: undefined },
  CwdChanged: { input: CwdChangedInput, specificOutput: CwdChangedSpecificOutput },
  FileChanged: { input: FileChangedInput, specificOutput: FileChangedSpecificOutput },
  DirectoryAdded: { input: DirectoryAddedInput, specificOutput: undefined },
  MessageDisplay: { input: MessageDisplayInput, specificOutput: MessageDisplaySpecificOutput },
  PreSkillShellCommand: { input: PreSkillShellCommandInput, specificOutput: PreSkillShellCommandSpecificOutput }
} as const

/**
 * The names of the events with a schema.
 *
 * @since 0.1.0
 * @category events
 */
export type KnownEvent = keyof typeof events

/**
 * An event name: a known one, or any other string (handled with {@link UnknownHookInput}).
 *
 * @since 0.1.0
 * @category events
 */
export type HookEventName = KnownEvent | (string & {})

/**
 * `true` when `name` is an event with a schema.
 *
 * @since 0.1.0
 * @category events
 */
export const isKnownEvent = (name: string): name is KnownEvent => Object.hasOwn(events, name)

/**
 * The events about one tool call, whose input carries `tool_name` and `tool_input`.
 *
 * @since 0.2.0
 * @category events
 */
export type ToolEvent = "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest" | "PermissionDenied"

/**
 * The input a handler of event `K` receives. For a {@link ToolEvent} it is a union over
 * `tool_name` (`Protocol.ToolCall`): `if (input.tool_name === "Bash") input.tool_input.command`
 * is a `string`, and a tool without a typed input (an MCP tool) has a plain record. The typing of
 * the built-in tools' inputs is not checked at run time (a later CLI may change them): the handler
 * gets the CLI's object, and a guard that fails on an input it did not expect refuses the tool.
 *
 * @since 0.1.0
 * @category events
 */
export type HookInput<K extends string> = K extends ToolEvent ? ToolCall<(typeof events)[K]["input"]["Type"], "tool_input">
  : K extends KnownEvent ? (typeof events)[K]["input"]["Type"]
  : UnknownHookInput

type MatcherParts<M extends string> = M extends `${infer Head}|${infer Tail}` ? Head | MatcherParts<Tail> : M

/**
 * The built-in tools a hook `matcher` names, when it is a plain name or a `|`-list of names
 * (`"Bash"`, `"Edit|Write"`), each one a built-in with a typed input; `never` for any other
 * matcher (a regular expression, an MCP tool, a tool without a typed input), which narrows
 * nothing. The CLI matches such a matcher exactly (not as a substring); `Task`, the former name
 * of `Agent`, names both.
 *
 * @since 0.2.0
 * @category events
 */
export type MatchedTools<M extends string> = string extends M ? never
  : [Exclude<MatcherParts<M>, BuiltinToolName>] extends [never]
    ? MatcherParts<M> | (MatcherParts<M> extends "Task" ? "Agent" : never)
  : never

/**
 * The input of a handler of event `K` registered with matcher `M`: {@link HookInput}`<K>`,
 * narrowed to the tools the matcher names when it names built-in tools exactly
 * ({@link MatchedTools}), so `Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
 * input.tool_input.command)` is a `string` with no check of `tool_name`.
 *
 * @since 0.2.0
 * @category events
 */
export type HookInputMatching<K extends string, M extends string> = K extends ToolEvent
  ? [MatchedTools<M>] extends [never] ? HookInput<K> : Extract<HookInput<K>, { readonly tool_name: MatchedTools<M> }>
  : HookInput<K>

type SpecificSchema<K extends string> = K extends KnownEvent ? (typeof events)[K]["specificOutput"]
  : typeof UnknownSpecificOutput

/**
 * The `hookSpecificOutput` of event `K` (`never` for events that have none).
 *
 * @since 0.1.0
 * @category events
 */
export type HookSpecificOutput<K extends string> = SpecificSchema<K> extends Schema.Top ? SpecificSchema<K>["Type"]
  : never

/**
 * The answer of a handler of event `K`.
 *
 * @since 0.1.0
 * @category outputs
 */
export type HookOutput<K extends string = string> = HookOutputBase & {
  /** The event's own answer (`permissionDecision` for `PreToolUse`, …), tagged with `hookEventName`. */
  readonly hookSpecificOutput?: HookSpecificOutput<K>
}

/**
 * The input schema used to decode a `hook_callback` input for `event`.
 *
 * @since 0.1.0
 * @category events
 */
export const inputSchema = (event: string): Schema.Decoder<unknown> =>
  isKnownEvent(event) ? events[event].input : UnknownHookInput

const outputSchemas = new Map<string, Schema.Codec<unknown>>()

/**
 * The schema a handler's answer for `event` is checked against and written with (the common
 * fields and the event's `hookSpecificOutput`, as the protocol defines them).
 *
 * @since 0.1.0
 * @category events
 */
export const outputSchema = (event: string): Schema.Codec<unknown> => {
  const cached = outputSchemas.get(event)
  if (cached !== undefined) return cached
  const spec = isKnownEvent(event) ? events[event].specificOutput : UnknownSpecificOutput
  const schema = spec === undefined
    ? HookOutputBase
    : Schema.Struct({ ...HookOutputBaseFields, hookSpecificOutput: Schema.optionalKey(spec) })
  outputSchemas.set(event, schema)
  return schema
}
