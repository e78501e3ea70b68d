/**
 * Runs the library against the real CLI (the pinned devDependency) and the project's fake
 * Messages API: one fresh HOME and working directory per session.
 */
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Claude from "../../src/Claude.ts"
import * as FakeModel from "../../src/testing/FakeModel.ts"
import { cliPath, makeHome, makeTempDir } from "./realCli.ts"

/** The real process transport with Node's spawner. */
export const processLayer = Claude.layerProcess.pipe(Layer.provide(NodeServices.layer))

export interface Live {
  readonly model: FakeModel.Server
  readonly home: string
  readonly cwd: string
  /** Session options that point the CLI at the fake model, in a fresh HOME and cwd. */
  readonly options: Claude.SessionOptions
}

/**
 * A fake model with `script`, and the options of a real-CLI session that talks to it. The session
 * asks for `permissionMode: "bypassPermissions"` (the tools of the scripts run without asking;
 * `IS_SANDBOX=1` from the fake model's environment lets the CLI accept it as root). A test that
 * wants another mode, or none (`permissionMode: undefined`), says so in `extra`.
 */
export const live = (script: FakeModel.Script, extra: Partial<Claude.SessionOptions> = {}): Effect.Effect<Live, never, Scope.Scope> =>
  Effect.gen(function*() {
    const model = yield* FakeModel.make(script)
    const home = yield* makeHome
    const cwd = yield* makeTempDir("ecc-cwd-")
    const options: Claude.SessionOptions = {
      executable: cliPath,
      cwd,
      permissionMode: "bypassPermissions",
      ...extra,
      env: { ...model.cliEnvironment(home), ...extra.env }
    }
    return { model, home, cwd, options }
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
