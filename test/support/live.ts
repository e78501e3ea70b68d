/**
 * Runs the library against the real CLI (the pinned devDependency) and the project's fake
 * Messages API: one fresh HOME and working directory per session.
 */
import { NodeServices } from "@effect/platform-node"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Claude from "../../src/Claude.ts"
import type * as FakeModel from "../../src/testing/FakeModel.ts"
import * as Offline from "../../src/testing/Offline.ts"
import { cliPath } from "./realCli.ts"

/** The real process transport with Node's spawner. */
export const processLayer = Claude.layerProcess.pipe(Layer.provide(NodeServices.layer))

/** A fake model, the fresh HOME and cwd, and session options pointing the real CLI at them. */
export type Live = Offline.Setup

/**
 * A fake model with `script`, and the options of a real-CLI session that talks to it
 * (`Offline.make`). The session asks for `permissionMode: "bypassPermissions"` (the tools of the
 * scripts run without asking), and `IS_SANDBOX=1` is set whatever the mode (the CLI accepts
 * bypassPermissions as root with it). A test that wants another mode, or none
 * (`permissionMode: undefined`), or another `IS_SANDBOX`, says so in `extra`.
 */
export const live = (script: FakeModel.Script, extra: Partial<Claude.SessionOptions> = {}): Effect.Effect<Live, never, Scope.Scope> =>
  Offline.make(script, {
    executable: cliPath,
    permissionMode: "bypassPermissions",
    ...extra,
    env: { IS_SANDBOX: "1", ...extra.env }
  })

/** True when a process with this pid exists (signal 0 probes without signalling). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
