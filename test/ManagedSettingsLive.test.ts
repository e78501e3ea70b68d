/**
 * `managedSettings` on the real CLI: the policy tier's deny holds against what the program's own
 * options allow, and a CLI that does not know `--managed-settings` (2.1.0, the supported floor)
 * ends the session rather than run it without the policy.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as CliVersion from "../src/CliVersion.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { installOnce } from "./support/cliVersions.ts"
import { processLayer } from "./support/live.ts"
import { cliPath as pinnedPath } from "./support/realCli.ts"

const script = () => [
  FakeModel.toolUse("Bash", { command: "touch made-by-bash", description: "Make a file" }),
  FakeModel.text("done")
]
const policy = { permissions: { deny: ["Bash"] } }

describe("managedSettings (real CLI)", { timeout: 300_000 }, () => {
  for (const version of ["pinned", "2.1.200"] as const) {
    it.live(`CLI ${version}: a policy-tier deny holds against the program's own allowedTools: the Bash call is refused, its command never runs`, () =>
      Effect.scoped(Effect.gen(function*() {
        const cliPath = version === "pinned" ? pinnedPath : (yield* installOnce(version)).executable
        const allowed = yield* Offline.open(script(), { executable: cliPath, permissionMode: "default", allowedTools: ["Bash"] })
        yield* allowed.session.run("Make a file")
        assert.isTrue(Fs.existsSync(Path.join(allowed.cwd, "made-by-bash")), "allowedTools alone lets the command run")
        const locked = yield* Offline.open(script(), {
          executable: cliPath,
          permissionMode: "default",
          allowedTools: ["Bash"],
          managedSettings: policy
        })
        yield* locked.session.run("Make a file")
        assert.isFalse(Fs.existsSync(Path.join(locked.cwd, "made-by-bash")), "the policy's deny let the command run")
        const requests = yield* locked.model.messageRequests
        assert.match(JSON.stringify(requests[1]?.messages), /denied|permission/i)
      })).pipe(Effect.provide(processLayer)))
  }

  it.live(`CLI ${CliVersion.supported.floor}, which has no --managed-settings: the session fails with ProcessExited, no command runs`, () =>
    Effect.scoped(Effect.gen(function*() {
      const { executable } = yield* installOnce(CliVersion.supported.floor)
      const locked = yield* Offline.open(script(), {
        executable,
        permissionMode: "default",
        allowedTools: ["Bash"],
        managedSettings: policy
      })
      const error = yield* Effect.flip(locked.session.run("Make a file"))
      assert.strictEqual(error.reason._tag, "ProcessExited", String(error))
      if (error.reason._tag === "ProcessExited") assert.include(error.reason.stderrTail, "managed-settings")
      assert.isFalse(Fs.existsSync(Path.join(locked.cwd, "made-by-bash")))
      assert.lengthOf(yield* locked.model.messageRequests, 0)
    })).pipe(Effect.provide(processLayer)))
})
