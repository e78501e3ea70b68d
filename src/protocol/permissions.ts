/**
 * Tool permissions on the wire: the CLI's `can_use_tool` request, the permission updates it
 * suggests and the host sends back, and the host's answer. One definition each: the
 * `Permissions` service and the control channel both use these.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { openLiterals, Rest, StringOtherThan } from "./internal.ts"
import type { ToolCall } from "./tools.ts"

/**
 * Where a permission update is stored. Known values: `userSettings`, `projectSettings`,
 * `localSettings`, `session`, `cliArg`; any other string (from a later CLI) is accepted as is.
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionUpdateDestination = openLiterals([
  "userSettings",
  "projectSettings",
  "localSettings",
  "session",
  "cliArg"
])

/**
 * @since 0.1.0
 * @category permissions
 */
export type PermissionUpdateDestination = typeof PermissionUpdateDestination.Type

/**
 * A permission rule: a tool name and, optionally, the rule content (e.g. a Bash command).
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionRuleValue = Schema.Struct({
  toolName: Schema.String,
  ruleContent: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category permissions
 */
export interface PermissionRuleValue extends Schema.Schema.Type<typeof PermissionRuleValue> {}

/**
 * What a rule does. Known values: `allow`, `deny`, `ask`; any other string (from a later CLI) is
 * accepted as is.
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionBehavior = openLiterals(["allow", "deny", "ask"])

/**
 * @since 0.1.0
 * @category permissions
 */
export type PermissionBehavior = typeof PermissionBehavior.Type

const rulesUpdate = <const T extends string>(type: T) =>
  Schema.Struct({
    type: Schema.Literal(type),
    rules: Schema.Array(PermissionRuleValue),
    behavior: PermissionBehavior,
    destination: PermissionUpdateDestination
  })

const directoriesUpdate = <const T extends string>(type: T) =>
  Schema.Struct({
    type: Schema.Literal(type),
    directories: Schema.Array(Schema.String),
    destination: PermissionUpdateDestination
  })

const knownPermissionUpdateTypes = [
  "addRules",
  "replaceRules",
  "removeRules",
  "setMode",
  "addDirectories",
  "removeDirectories"
] as const

/**
 * A permission update of a type this library does not know (from a later CLI): `type` and every
 * other key, kept as they are. Its `type` is a `Protocol.UnknownType`, so `update.type ===
 * "addRules"` narrows.
 *
 * @since 0.1.0
 * @category permissions
 */
export const OtherPermissionUpdate = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(knownPermissionUpdateTypes, "permission update type") }),
  [Rest]
)

/**
 * @since 0.1.0
 * @category permissions
 */
export interface OtherPermissionUpdate extends Schema.Schema.Type<typeof OtherPermissionUpdate> {}

/**
 * A change to the permission rules, as suggested by the CLI in `permission_suggestions` and as
 * sent back in `updatedPermissions` (e.g. "always allow `touch one.txt` for this session").
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionUpdate = Schema.Union([
  rulesUpdate("addRules"),
  rulesUpdate("replaceRules"),
  rulesUpdate("removeRules"),
  Schema.Struct({
    type: Schema.Literal("setMode"),
    mode: Schema.String,
    destination: PermissionUpdateDestination
  }),
  directoriesUpdate("addDirectories"),
  directoriesUpdate("removeDirectories"),
  // Last: an update of a type a later CLI adds, kept whole (every key), so a can_use_tool that
  // suggests one still reaches the handler and can be sent back as it came.
  OtherPermissionUpdate
])

/**
 * @since 0.1.0
 * @category permissions
 */
export type PermissionUpdate = typeof PermissionUpdate.Type

/**
 * `can_use_tool`: a permission prompt (only with `--permission-prompt-tool stdio`), the
 * `request` object of the envelope. Decoding validates the listed fields; a handler gets the
 * CLI's original object, so fields added by later CLIs are kept. Answer with
 * {@link PermissionResult}.
 *
 * @since 0.1.0
 * @category permissions
 */
export const CanUseToolRequest = Schema.Struct({
  subtype: Schema.Literal("can_use_tool"),
  tool_name: Schema.String,
  input: Schema.Record(Schema.String, Schema.Unknown),
  tool_use_id: Schema.String,
  display_name: Schema.optionalKey(Schema.String),
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  permission_suggestions: Schema.optionalKey(Schema.Array(PermissionUpdate)),
  blocked_path: Schema.optionalKey(Schema.String),
  decision_reason: Schema.optionalKey(Schema.String),
  decision_reason_type: Schema.optionalKey(Schema.String),
  classifier_approvable: Schema.optionalKey(Schema.Boolean),
  suppress_always_allow_rule: Schema.optionalKey(Schema.Boolean),
  default_to_no: Schema.optionalKey(Schema.Boolean),
  matched_ask_rule: Schema.optionalKey(Schema.Struct({
    source: Schema.String,
    tool_name: Schema.String,
    rule_content: Schema.optionalKey(Schema.String)
  })),
  agent_id: Schema.optionalKey(Schema.String),
  mcp_server: Schema.optionalKey(Schema.Struct({ name: Schema.String, source: Schema.String })),
  requires_user_interaction: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category permissions
 */
export interface CanUseToolRequest extends Schema.Schema.Type<typeof CanUseToolRequest> {}

/**
 * A {@link CanUseToolRequest} as a permission handler receives it: a union over `tool_name`, so
 * `if (request.tool_name === "Bash") request.input.command` is a `string`. The object is the
 * CLI's own, passed through unchecked beyond {@link CanUseToolRequest}: the built-in tools'
 * inputs are types only (see `Protocol.ToolCall` for why).
 *
 * @since 0.2.0
 * @category permissions
 */
export type ToolPermissionRequest = ToolCall<CanUseToolRequest, "input">

const DecisionClassification = Schema.Literals(["user_temporary", "user_permanent", "user_reject"])

/**
 * Let the tool run, optionally with a rewritten input and new permission rules.
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionAllow = Schema.Struct({
  behavior: Schema.Literal("allow"),
  updatedInput: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  updatedPermissions: Schema.optionalKey(Schema.Array(PermissionUpdate)),
  toolUseID: Schema.optionalKey(Schema.String),
  decisionClassification: Schema.optionalKey(DecisionClassification)
})

/**
 * @since 0.1.0
 * @category permissions
 */
export interface PermissionAllow extends Schema.Schema.Type<typeof PermissionAllow> {}

/**
 * Refuse the tool; `message` becomes the tool result the model sees. `interrupt: true` also
 * aborts the turn.
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionDeny = Schema.Struct({
  behavior: Schema.Literal("deny"),
  message: Schema.String,
  interrupt: Schema.optionalKey(Schema.Boolean),
  toolUseID: Schema.optionalKey(Schema.String),
  decisionClassification: Schema.optionalKey(DecisionClassification)
})

/**
 * @since 0.1.0
 * @category permissions
 */
export interface PermissionDeny extends Schema.Schema.Type<typeof PermissionDeny> {}

/**
 * The answer to a `can_use_tool` request. Its wire form (the control_response body) is the same
 * object: `{"behavior":"allow","updatedInput":{...}}` or `{"behavior":"deny","message":"..."}`.
 * A `toolUseID`, if any, is the request's `tool_use_id` (the CLI runs the call it names when the
 * answer comes after it stopped waiting): `Permissions.bind` denies an answer naming another call.
 *
 * @since 0.1.0
 * @category permissions
 */
export const PermissionResult = Schema.Union([PermissionAllow, PermissionDeny])

/**
 * @since 0.1.0
 * @category permissions
 */
export type PermissionResult = typeof PermissionResult.Type
