/**
 * The permission modes a session's CLI may be switched to at run time, and the in-process tools
 * it may be given in them: none that would let a tool run without the asking it needs. The
 * launch is checked alike (`Launch.validate`).
 *
 * Invariants:
 * - With a `Permissions` layer, no switch to `bypassPermissions` goes out: in that mode the CLI
 *   never asks the layer, and a CLI launched with `--allow-dangerously-skip-permissions` takes
 *   the switch.
 * - While the session serves a tool that needs approval (`McpServers.Tool.needsApproval`), no
 *   switch to a mode that asks no one (`Launch.asksNoOne`) goes out; and in such a mode no such
 *   tool is given to the CLI (`setMcpServers`).
 * - Every request is checked, the raw `session.request` too: one way in for all of them.
 * - Failing closed: the mode is the last one a switch the CLI took asked for (the launch's before
 *   any); a tool is counted from when `setMcpServers` is asked to serve it, and for good.
 */
import * as Launch from "../Launch.ts"

/** A control request's body, as `session.request` takes it. */
type Body = { readonly subtype: string } & Record<string, unknown>

export class ModeGuard {
  private mode: unknown
  private readonly approval: Array<string>
  private readonly permissionsLayer: boolean

  constructor(
    permissionsLayer: boolean,
    launchMode: Launch.PermissionMode | undefined,
    servers: Launch.Wiring["mcpServers"]
  ) {
    this.permissionsLayer = permissionsLayer
    this.mode = launchMode
    this.approval = [...Launch.approvalTools(servers)]
  }

  /** Why this request is not sent (undefined when it may be). */
  refusal(body: Body): string | undefined {
    if (body.subtype !== "set_permission_mode") return undefined
    if (this.permissionsLayer && body.mode === "bypassPermissions") {
      return `set_permission_mode "bypassPermissions" cannot be used in a session with a Permissions layer: in ` +
        `that mode the CLI never asks, so the layer would never be called`
    }
    if (Launch.asksNoOne(body.mode) && this.approval.length > 0) {
      return `set_permission_mode "${String(body.mode)}" asks no one before a tool runs, and the session serves ` +
        `${this.approval.join(", ")}, which ${this.approval.length === 1 ? "needs" : "need"} approval (needsApproval)`
    }
    return undefined
  }

  /** The CLI took this request: a switch's mode is the session's now. */
  took(body: Body): void {
    if (body.subtype === "set_permission_mode") this.mode = body.mode
  }

  /**
   * Why these servers are not given to the CLI now (undefined when they may be, and then their
   * tools that need approval count from now on).
   */
  serving(servers: Launch.Wiring["mcpServers"]): string | undefined {
    const approval = Launch.approvalTools(servers)
    if (approval.length === 0) return undefined
    if (Launch.asksNoOne(this.mode)) {
      return `the session's permission mode "${String(this.mode)}" asks no one before a tool runs, and ` +
        `${approval.join(", ")} ${approval.length === 1 ? "needs" : "need"} approval (needsApproval)`
    }
    this.approval.push(...approval)
    return undefined
  }
}
