/**
 * The permission mode against the real CLI and the fake model (live tier); explainExit is
 * tested in test/PermissionMode.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import { explainExit, exitContext } from "../src/internal/exitReason.ts"
import * as Launch from "../src/Launch.ts"
import * as Permissions from "../src/Permissions.ts"
import type { CanUseToolRequest } from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { Transport } from "../src/Transport.ts"
import { live, processLayer } from "./support/live.ts"

/** What CLI 2.1.332 wrote on stderr, run as root with bypass asked and no IS_SANDBOX (then exit 1). */
const rootRefusal = Fs.readFileSync(Path.resolve(import.meta.dirname, "../testdata/stderr/bypass-as-root.txt"), "utf8")

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

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
