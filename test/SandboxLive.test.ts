/**
 * `sandbox` on the real CLI: a sandbox asked for never turns into commands run unsandboxed
 * without the program saying so. CLI 2.1.332, given `sandbox.enabled` where the sandbox cannot
 * start (no `bubblewrap` or `socat`), runs the commands unsandboxed with a warning; the library
 * sets `failIfUnavailable: true` unless told otherwise (found while adding the option). So for
 * `managedSettings`' sandbox, the policy tier's lock-down, whose fail-closed default did not hold
 * (found by a review): `failIfUnavailable: true` there too unless the policy says otherwise.
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

describe("sandbox (real CLI)", { timeout: 120_000 }, () => {
  for (const [name, extra] of [
    ["the sandbox option", { sandbox: { enabled: true } }],
    ["settings.sandbox", { settings: { sandbox: { enabled: true } } }],
    ["managedSettings.sandbox", { managedSettings: { sandbox: { enabled: true } } }]
  ] as const) {
    it.live(`${name} enabled: ${sandboxCanStart ? "the command runs in the sandbox" : "the sandbox cannot start here, so the session fails with ProcessExited naming what is missing, and no command runs"}`, () =>
      Effect.scoped(Effect.gen(function*() {
        const offline = yield* Offline.open(makesAFile(), { ...options, ...extra })
        if (sandboxCanStart) {
          yield* offline.session.run("Make a file")
        } else {
          const error = yield* Effect.flip(offline.session.run("Make a file"))
          assert.strictEqual(error.reason._tag, "ProcessExited", String(error))
          if (error.reason._tag === "ProcessExited") assert.include(error.reason.stderrTail, "sandbox")
          assert.isFalse(Fs.existsSync(Path.join(offline.cwd, "made-by-bash")), "a command ran unsandboxed")
        }
      })).pipe(Effect.provide(processLayer)))
  }

  it.live("failIfUnavailable: false is the program's choice: where the sandbox cannot start the command runs unsandboxed", () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open(makesAFile(), { ...options, sandbox: { enabled: true, failIfUnavailable: false } })
      yield* offline.session.run("Make a file")
      assert.isTrue(Fs.existsSync(Path.join(offline.cwd, "made-by-bash")))
    })).pipe(Effect.provide(processLayer)))
})

describe("managedSettings' sandbox fails closed", () => {
  const managedOf = (options: Launch.LaunchOptions): unknown => {
    const args = Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false }).args
    return JSON.parse(args[args.indexOf("--managed-settings") + 1]!)
  }

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
})
