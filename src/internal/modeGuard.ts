/**
 * The permission modes a session's CLI may be switched to at run time, and the in-process tools
 * that need approval it may be given: none that would let a tool run without the asking it needs.
 * The launch is checked alike (`Launch.validate`).
 *
 * Invariants:
 * - With a `Permissions` layer, no switch to `bypassPermissions` goes out: in that mode the CLI
 *   never asks the layer, and a CLI launched with `--allow-dangerously-skip-permissions` takes
 *   the switch.
 * - While the session serves a tool that needs approval (`McpServers.Tool.needsApproval`), no
 *   switch to a mode that asks no one (`Launch.asksNoOne`) goes out.
 * - Such a tool is given to the CLI (`setMcpServers`) only while its mode is known to ask: the
 *   mode the CLI last reported (its `initialize` answer, `system/init`, `system/status`) or was
 *   launched or switched in, with no switch to a mode that asks no one unanswered (one whose
 *   answer never came, a timeout, counts for good). Unknown (no mode named, none reported yet)
 *   is refused.
 * - Every control request of the session goes through {@link ModeGuard.refusal}: the raw
 *   `session.request` too. So does a mode switch inside a `can_use_tool` answer (its
 *   `updatedPermissions` `setMode`, {@link ModeGuard.checkAnswer}): the same switch, refused alike (the
 *   call is denied); one that goes out to a mode that asks no one counts for good.
 */
import * as Launch from "../Launch.ts"
import { isRecord } from "./json.ts"

/** A control request's body, as `session.request` takes it. */
type Body = { readonly subtype: string } & Record<string, unknown>

const isSwitch = (body: Body): boolean => body.subtype === "set_permission_mode"

/** The CLI names `default` `manual` in some answers (as the official SDK reads it). */
const modeNamed = (mode: unknown): unknown => mode === "manual" ? "default" : mode

/** "X needs" or "X, Y need". */
const needs = (tools: ReadonlyArray<string>): string => `${tools.join(", ")} ${tools.length === 1 ? "needs" : "need"}`

export class ModeGuard {
  private readonly permissionsLayer: boolean
  /** The served tools that need approval (`mcp__<server>__<tool>`), from when they are served on. */
  private readonly approval: Set<string>
  /** The mode the CLI runs in as last known (launched in, reported, switched to); undefined: unknown. */
  private known: unknown
  /** Switches to a mode that asks no one sent and not answered. */
  private unanswered = 0
  /** Whether the mode was reported or switched since the launch (the `initialize` answer is older). */
  private updated = false

  constructor(
    permissionsLayer: boolean,
    /** The mode the CLI is launched in (`Launch.effectivePermissionMode`): undefined, its settings'. */
    launchMode: Launch.PermissionMode | undefined,
    servers: Launch.Wiring["mcpServers"]
  ) {
    this.permissionsLayer = permissionsLayer
    this.known = launchMode
    this.approval = new Set(Launch.approvalToolNames(servers))
  }

  /** Why this request is not sent (undefined when it may be). */
  refusal(body: Body): string | undefined {
    if (!isSwitch(body)) return undefined
    if (this.permissionsLayer && body.mode === "bypassPermissions") {
      return `set_permission_mode "bypassPermissions" cannot be used in a session with a Permissions layer: in ` +
        `that mode the CLI never asks, so the layer would never be called`
    }
    if (Launch.asksNoOne(body.mode) && this.approval.size > 0) {
      return `set_permission_mode "${String(body.mode)}" asks no one before a tool runs, and the session has served ` +
        `${needs([...this.approval])} approval (needsApproval)`
    }
    return undefined
  }

  /**
   * Why this `can_use_tool` answer is not sent (undefined when it may be): a `setMode` of its
   * `updatedPermissions` that {@link refusal} refuses as a switch. One that goes out to a mode that
   * asks no one counts as a switch never answered, for good: nothing the CLI writes settles it.
   */
  checkAnswer(answer: unknown): string | undefined {
    const updates = isRecord(answer) && Array.isArray(answer.updatedPermissions) ? answer.updatedPermissions : []
    const modes = updates.flatMap((update) => isRecord(update) && update.type === "setMode" ? [update.mode] : [])
    for (const mode of modes) {
      const refused = this.refusal({ subtype: "set_permission_mode", mode })
      if (refused !== undefined) return `a setMode of its updatedPermissions is refused: ${refused}`
    }
    for (const mode of modes) if (Launch.asksNoOne(mode)) this.unanswered++
    return undefined
  }

  /** The request is sent now: a switch to a mode that asks no one may be in effect from here. */
  sending(body: Body): void {
    if (isSwitch(body) && Launch.asksNoOne(body.mode)) this.unanswered++
  }

  /**
   * The CLI answered the request (`ok`: with success; `answer`, what it said): a switch is
   * settled, in the mode its answer names (not always the one asked), else the one asked.
   */
  answered(body: Body, ok: boolean, answer?: unknown): void {
    if (!isSwitch(body)) return
    if (Launch.asksNoOne(body.mode)) this.unanswered--
    const named = isRecord(answer) && typeof answer.mode === "string" ? answer.mode : undefined
    if (ok) this.update(named ?? body.mode)
  }

  /** A mode the CLI reported it runs in (`system/init`, `system/status`). */
  reported(mode: string | undefined): void {
    if (mode !== undefined) this.update(mode)
  }

  /**
   * The mode the CLI's `initialize` answer says it started in: the first thing it wrote, though
   * its answer may settle after later reports were read, which it then does not overwrite.
   */
  started(mode: string | undefined): void {
    if (!this.updated && mode !== undefined) this.known = modeNamed(mode)
  }

  private update(mode: unknown): void {
    this.known = modeNamed(mode)
    this.updated = true
  }

  /**
   * Why these servers are not given to the CLI now (undefined when they may be: their tools that
   * need approval count from then on, whatever becomes of the servers).
   */
  admit(servers: Launch.Wiring["mcpServers"]): string | undefined {
    const tools = Launch.approvalToolNames(servers)
    if (tools.length === 0) return undefined
    if (this.unanswered > 0 || this.known === undefined || Launch.asksNoOne(this.known)) {
      const mode = this.unanswered > 0
        ? "a switch to a mode that asks no one is unanswered"
        : this.known === undefined
        ? "the session's permission mode is not known (name one with permissionMode)"
        : `the session's permission mode "${String(this.known)}" asks no one before a tool runs`
      return `${mode}, and ${needs(tools)} approval (needsApproval)`
    }
    for (const tool of tools) this.approval.add(tool)
    return undefined
  }
}
