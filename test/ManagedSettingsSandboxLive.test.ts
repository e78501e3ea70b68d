/**
 * `managedSettings` with `sandbox: { enabled: true }`: the fail-closed default of `sandbox` and
 * `settings.sandbox` did not hold for the policy tier, so where the sandbox cannot start (no
 * `bubblewrap` or `socat`) CLI 2.1.332 ran the model's commands unsandboxed, the lock-down the
 * host meant to enforce quietly off (found by a review). `failIfUnavailable: true` is set there
 * too unless the policy says otherwise: the session ends with `ProcessExited`, no command run.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Launch from "../src/Launch.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"
import { makesAFile, sandboxCanStart } from "./support/sandbox.ts"

const options = { executable: cliPath, permissionMode: "default", allowedTools: ["Bash"] } as const

const managedOf = (options: Launch.LaunchOptions): unknown => {
  const args = Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false }).args
  return JSON.parse(args[args.indexOf("--managed-settings") + 1]!)
}

describe("managedSettings' sandbox fails closed", { timeout: 120_000 }, () => {
  it("--managed-settings gets failIfUnavailable: true with enabled; the policy's own choice is kept", () => {
    assert.deepStrictEqual(managedOf({ managedSettings: { sandbox: { enabled: true } } }), {
      sandbox: { enabled: true, failIfUnavailable: true }
    })
    assert.deepStrictEqual(managedOf({ managedSettings: { sandbox: { enabled: true, failIfUnavailable: false } } }), {
      sandbox: { enabled: true, failIfUnavailable: false }
    })
    assert.deepStrictEqual(managedOf({ managedSettings: { permissions: { deny: ["Bash"] } } }), {
      permissions: { deny: ["Bash"] }
    })
  })

  it.live(`real CLI, managedSettings sandbox enabled: ${sandboxCanStart ? "the command runs in the sandbox" : "the sandbox cannot start here, so the session fails with ProcessExited, and no command runs"}`, () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open(makesAFile(), { ...options, managedSettings: { sandbox: { enabled: true } } })
      if (sandboxCanStart) {
        yield* offline.session.run("Make a file")
      } else {
        const error = yield* Effect.flip(offline.session.run("Make a file"))
        assert.strictEqual(error.reason._tag, "ProcessExited", String(error))
        if (error.reason._tag === "ProcessExited") assert.include(error.reason.stderrTail, "sandbox")
        assert.isFalse(Fs.existsSync(Path.join(offline.cwd, "made-by-bash")), "a command ran unsandboxed")
      }
    })).pipe(Effect.provide(processLayer)))
})
