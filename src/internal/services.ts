/**
 * The tags of the services a session looks up in its context (`Claude.open`), apart from their
 * modules: importing `Claude.ts` loads these few lines, not the handlers' machinery (`Hooks.ts`
 * and its event schemas, `McpServers.ts` and `effect/ai`, `Permissions.ts`, `Elicitation.ts`,
 * `UserDialogs.ts`). A session that finds one of them loads its module then (`import()`); a
 * program that provides one has loaded it already. Each public module re-exports its tag, so
 * `Hooks.Hooks` is this class.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as ClaudeError from "../ClaudeError.ts"
import type { ElicitationRequest, ElicitationResult } from "../Elicitation.ts"
import type { Registration } from "../Hooks.ts"
import type { RegisteredServer } from "../McpServers.ts"
import type { CanUseToolRequest, PermissionResult } from "../Permissions.ts"
import type { UserDialogRequest, UserDialogResult } from "../UserDialogs.ts"

/**
 * The hooks of a session. The session reads it with `Effect.serviceOption(Hooks)` (absent = no
 * hooks), registers them in `initialize` and answers `hook_callback` requests through
 * `Hooks.bind`.
 *
 * Build it with `Hooks.layer`; several `Hooks` layers add up (see the module docs).
 *
 * @since 0.1.0
 * @category services
 */
export class Hooks extends Context.Service<Hooks, {
  /** The registered hooks, in order. */
  readonly registrations: ReadonlyArray<Registration>
}>()("effect-claude-code/Hooks") {}

/**
 * The permission callback. When present in the session's context, the session launches the CLI
 * with `--permission-prompt-tool stdio` and answers each `can_use_tool` request with `decide`.
 *
 * `decide` never needs services: the handler's requirements are captured when the layer is built
 * (see `Permissions.layer`); each call runs in a scope of its own and under the caller's span. It
 * fails with a `ClaudeError` when the handler fails (its own `ClaudeError`, `ControlTimeout` past
 * the layer's `timeout`, else `InvalidInput`), and dies when it dies. Interrupting `decide` (the
 * CLI's `control_cancel_request`) interrupts the handler and runs its finalizers.
 *
 * What reaches the CLI is decided by `Permissions.bind`: a handler that fails, dies,
 * interrupts itself, times out or answers something invalid **denies** the tool call (fails
 * closed), with the reason as the message, and the failure is logged and reported.
 *
 * @since 0.1.0
 * @category services
 */
export class Permissions extends Context.Service<Permissions, {
  /** Decides one `can_use_tool` request. */
  readonly decide: (request: CanUseToolRequest) => Effect.Effect<PermissionResult, ClaudeError.ClaudeError>
}>()("effect-claude-code/Permissions") {}

/**
 * The in-process MCP servers of the sessions started in this context. The session reads it with
 * `Effect.serviceOption(McpServers)` (absent = `McpServers.empty`), puts
 * `McpServers.launchEntries` in `--mcp-config` and answers `mcp_message` requests through
 * `McpServers.connect`.
 *
 * Build it with `McpServers.layer`; stacked layers add up.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import { McpServers } from "effect-claude-code"
 *
 * const byre = McpServers.server("byre", {
 *   alwaysLoad: true,
 *   tools: [
 *     McpServers.tool({
 *       name: "echo",
 *       description: "Echo the given text back.",
 *       input: Schema.Struct({ text: Schema.String }),
 *       handler: ({ text }) => Effect.succeed(`echo: ${text}`)
 *     })
 *   ]
 * })
 *
 * const ByreLive = McpServers.layer(byre)
 * ```
 *
 * @since 0.1.0
 * @category services
 */
export class McpServers extends Context.Service<McpServers, {
  /** The servers, in the order their layers were provided. */
  readonly servers: ReadonlyArray<RegisteredServer>
}>()("effect-claude-code/McpServers") {}

/**
 * An entry of the launch `--mcp-config`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LaunchEntry {
  /** The server's name: its key in `--mcp-config` and the `server_name` of its `mcp_message`s. */
  readonly name: string
  /** Adds `"alwaysLoad": true` to the entry: the tools are in the prompt from the first turn. */
  readonly alwaysLoad: boolean
  /**
   * The names of its tools whose calls need the user's approval (`McpServers.Tool.needsApproval`).
   *
   * @since 0.2.0
   */
  readonly needsApproval?: ReadonlyArray<string> | undefined
}

/**
 * The `--mcp-config` entries for the servers: `{"type":"sdk","name":<name>}`, plus
 * `"alwaysLoad": true` where set.
 *
 * @since 0.1.0
 * @category accessors
 */
export const launchEntries = (service: McpServers["Service"]): Array<LaunchEntry> => service.servers.map(launchEntry)

/**
 * A registered server's `--mcp-config` entry, with the names of its tools that need approval.
 *
 * @since 0.2.0
 * @category accessors
 */
export const launchEntry = (server: McpServers["Service"]["servers"][number]): LaunchEntry => {
  const needsApproval = server.tools.filter((tool) => tool.needsApproval === true).map((tool) => tool.name)
  return { name: server.name, alwaysLoad: server.alwaysLoad, ...(needsApproval.length > 0 ? { needsApproval } : {}) }
}

/**
 * The elicitation handler. When present in the session's context, the session answers each
 * `elicitation` request with `respond` (through `Elicitation.bind`).
 *
 * `respond` never needs services: the handler's requirements are captured when the layer is
 * built; each call runs in a scope of its own and under the caller's span. It fails with a
 * `ClaudeError` when the handler fails (its own `ClaudeError`, `ControlTimeout` past the
 * layer's `timeout`, else `InvalidInput`), and dies when it dies. Interrupting `respond` (the
 * CLI's `control_cancel_request`) interrupts the handler and runs its finalizers.
 *
 * @since 0.2.0
 * @category services
 */
export class Elicitation extends Context.Service<Elicitation, {
  /** Answers one `elicitation` request. */
  readonly respond: (request: ElicitationRequest) => Effect.Effect<ElicitationResult, ClaudeError.ClaudeError>
}>()("effect-claude-code/Elicitation") {}

/**
 * The dialog handler. When present in the session's context, the session announces `kinds` in
 * `initialize` (`supportedDialogKinds`) and answers each `request_user_dialog` with `show`
 * (through `UserDialogs.bind`).
 *
 * @since 0.2.0
 * @category services
 */
export class UserDialogs extends Context.Service<UserDialogs, {
  /** The dialog kinds the handler renders, announced in `initialize`. */
  readonly kinds: ReadonlyArray<string>
  /** Answers one `request_user_dialog`. */
  readonly show: (request: UserDialogRequest) => Effect.Effect<UserDialogResult, ClaudeError.ClaudeError>
}>()("effect-claude-code/UserDialogs") {}

/** A request of the CLI being served: whose session, and whether the CLI still waits for it. */
export interface ServingRequest {
  readonly session: object
  open: boolean
}

/**
 * Set in the fibers that serve a request of the CLI (a hook, a permission, an MCP tool call, a
 * dialog), and in those they fork: while `open`, the CLI waits for them. A user message such a
 * fiber writes to its own session, on a CLI that takes one message at a time, would wait for
 * the turn that waits for it (`TurnRunner`).
 */
export const ServingTheCli: Context.Reference<ServingRequest | undefined> = Context.Reference<ServingRequest | undefined>(
  "effect-claude-code/internal/ServingTheCli",
  { defaultValue: () => undefined }
)
