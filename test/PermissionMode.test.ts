/**
 * The permission mode as the official SDKs choose it (issue 14, point 3): the CLI's own default
 * unless the program names a mode, `default` when a `Permissions` layer must be asked, and a
 * refusal of bypass as root explained in the program's terms.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { explainExit, exitContext } from "../src/internal/exitReason.ts"
import * as Launch from "../src/Launch.ts"
import * as Permissions from "../src/Permissions.ts"
import { type CanUseToolRequest } from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { Transport } from "../src/Transport.ts"
import { live, processLayer } from "./support/live.ts"

/** What CLI 2.1.332 wrote on stderr, run as root with bypass asked and no IS_SANDBOX (then exit 1). */
const rootRefusal = Fs.readFileSync(Path.resolve(import.meta.dirname, "../testdata/stderr/bypass-as-root.txt"), "utf8")

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

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

describe("the permission mode against the real CLI", { timeout: 120_000 }, () => {
  it.live("bypass asked as root without IS_SANDBOX: the CLI exits at start and explainExit says why (not root: it starts)", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("never asked")], {
        permissionMode: "bypassPermissions",
        env: { IS_SANDBOX: undefined }
      })
      const launch = yield* Launch.validate(options)
      const command = Launch.buildCommand(launch, { mcpServers: [], permissionPromptTool: false })
      // The env of the run: the fake model's, with IS_SANDBOX removed (this host may set it).
      assert.isTrue(Object.hasOwn(command.env, "IS_SANDBOX") && command.env.IS_SANDBOX === undefined)
      const transport = yield* Transport
      const connection = yield* transport.open({
        executable: options.executable,
        args: command.args,
        env: command.env,
        cwd: options.cwd,
        closeGrace: Duration.seconds(2)
      })
      if (!isRoot) {
        yield* connection.endInput
        const status = yield* connection.exit
        assert.notMatch(status.stderrTail, /root\/sudo/)
        return
      }
      const status = yield* connection.exit.pipe(Effect.timeout("30 seconds"))
      assert.strictEqual(status.code, 1)
      // The text the unit tests above use is still what the pinned CLI writes.
      assert.strictEqual(status.stderrTail, rootRefusal)
      const reason = explainExit(status, exitContext(options))
      assert.strictEqual(reason._tag, "BypassRefused")
      assert.include(reason.message, `refused permissionMode "bypassPermissions": it runs as root`)
      assert.include(reason.message, `env: { IS_SANDBOX: "1" }`)
    }).pipe(Effect.provide(processLayer)))

  it.live("no mode and no Permissions layer: no --permission-mode; the CLI runs a turn in its own mode, as root without IS_SANDBOX", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("hello")], { permissionMode: undefined, env: { IS_SANDBOX: undefined } })
      assert.isUndefined(options.permissionMode)
      const session = yield* Claude.open(options)
      const init = yield* session.initializeResult
      assert.notStrictEqual(init.current_permission_mode, "bypassPermissions")
      const result = yield* session.run("hi")
      assert.strictEqual(result.subtype, "success")
      assert.strictEqual(result.result, "hello")
    }).pipe(Effect.provide(processLayer)))

  it.live("a Permissions layer and no mode: the CLI runs in default mode and asks the layer (allowed, the tool runs)", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([
        FakeModel.toolUse("Bash", { command: "touch asked.txt", description: "permission test" }),
        FakeModel.text("touched")
      ], { permissionMode: undefined })
      const asked: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Permissions.layer((request) => Effect.sync(() => (asked.push(request), Permissions.allow()))))
      )
      const init = yield* session.initializeResult
      assert.strictEqual(init.current_permission_mode, "default")
      const result = yield* session.run("touch a file")
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0]!.input.command, "touch asked.txt")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "asked.txt")))
      assert.strictEqual(result.subtype, "success")
    }).pipe(Effect.provide(processLayer)))
})
