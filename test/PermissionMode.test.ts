/**
 * The permission mode as the official SDKs choose it (issue 14, point 3): the CLI's own default
 * unless the program names a mode, `default` when a `Permissions` layer must be asked, and a
 * refusal of bypass as root explained in the program's terms (`explainExit`; against the real
 * CLI in test/PermissionModeLive.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as ClaudeError from "../src/ClaudeError.ts"
import { explainExit, exitContext } from "../src/internal/exitReason.ts"

/** What CLI 2.1.332 wrote on stderr, run as root with bypass asked and no IS_SANDBOX (then exit 1). */
const rootRefusal = Fs.readFileSync(Path.resolve(import.meta.dirname, "../testdata/stderr/bypass-as-root.txt"), "utf8")

describe("explainExit", () => {
  it("the CLI's refusal of bypass as root is BypassRefused, naming the option, the cause and the ways out", () => {
    const reason = explainExit(
      { code: 1, signal: null, stderrTail: rootRefusal },
      { permissionMode: "bypassPermissions", sandboxVariable: undefined }
    )
    assert.strictEqual(reason._tag, "BypassRefused")
    assert.deepStrictEqual(
      { ...(reason as ClaudeError.BypassRefused) },
      { _tag: "BypassRefused", permissionMode: "bypassPermissions", sandboxVariable: null, exitCode: 1, stderrTail: rootRefusal }
    )
    assert.strictEqual(
      reason.message,
      `The claude CLI refused permissionMode "bypassPermissions": it runs as root, where the CLI bypasses ` +
        `permission checks only in a sandbox. Run the program as a user other than root, or leave permissionMode ` +
        `unset or name another mode; only on a throwaway sandbox or container, pass env: { IS_SANDBOX: "1" } ` +
        `to tell the CLI so. The CLI said: ` +
        `--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons`
    )
  })

  it("says which IS_SANDBOX value the CLI saw when it was not 1; a bypass from extraArgs is named as such", () => {
    const withYes = explainExit(
      { code: 1, signal: null, stderrTail: rootRefusal },
      { permissionMode: "bypassPermissions", sandboxVariable: "yes" }
    )
    assert.include(withYes.message, `(IS_SANDBOX is "yes" now; the CLI accepts only "1")`)
    const fromExtraArgs = explainExit({ code: 1, signal: null, stderrTail: rootRefusal }, {
      permissionMode: undefined,
      sandboxVariable: undefined
    })
    assert.strictEqual(fromExtraArgs._tag, "BypassRefused")
    assert.include(fromExtraArgs.message, "refused to bypass permission checks (--dangerously-skip-permissions)")
  })

  it("any other exit is ProcessExited with the code, the signal and the tail", () => {
    const status = { code: 3, signal: null, stderrTail: "fatal: simulated crash\n" }
    const reason = explainExit(status, { permissionMode: "bypassPermissions", sandboxVariable: undefined })
    assert.strictEqual(reason._tag, "ProcessExited")
    assert.deepStrictEqual({ ...(reason as ClaudeError.ProcessExited) }, {
      _tag: "ProcessExited",
      exitCode: 3,
      signal: null,
      stderrTail: "fatal: simulated crash\n"
    })
    assert.strictEqual(explainExit({ code: null, signal: "SIGKILL", stderrTail: "" }, exitContext({}))._tag, "ProcessExited")
  })

  it("exitContext: the env option's IS_SANDBOX (also its removal) wins over the host's", () => {
    const host = { IS_SANDBOX: "yes" }
    assert.deepStrictEqual(exitContext({ permissionMode: "plan" }, host), { permissionMode: "plan", sandboxVariable: "yes" })
    assert.deepStrictEqual(exitContext({ env: { IS_SANDBOX: "1" } }, host), { permissionMode: undefined, sandboxVariable: "1" })
    assert.deepStrictEqual(exitContext({ env: { IS_SANDBOX: undefined } }, host), {
      permissionMode: undefined,
      sandboxVariable: undefined
    })
    assert.deepStrictEqual(exitContext({}, {}), { permissionMode: undefined, sandboxVariable: undefined })
  })
})
