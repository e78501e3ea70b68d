/**
 * On the real CLI 2.1.332, a `PermissionRequest` guard beside a `Permissions` handler: the CLI
 * asks both at once and takes the first answer, so the handler's quick allow beat the guard's
 * deny, or a dying guard's refusal, and `rm` ran (found by a reviewing helper; both failed
 * before the fix, `internal/permissionRequestGate.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const bash = (command: string) => FakeModel.toolUse("Bash", { command, description: "probe" })

describe("a PermissionRequest guard beside a Permissions handler (real CLI)", { timeout: 120_000 }, () => {
  it.live("the guard's deny keeps rm from running, though the handler allows", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const guarded: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, (input) =>
          Effect.sync(() => {
            guarded.push(input.tool_input.command)
            return { hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }
          })))),
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow())))
      )
      yield* session.turn("delete the file").pipe(Stream.runCollect)
      assert.deepStrictEqual(guarded, ["rm victim.txt"], "the guard was asked and said deny")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the guard's deny was not honoured: rm ran")
    }).pipe(Effect.provide(processLayer)))

  it.live("a dying guard's refusal keeps rm from running, though the handler allows", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", () => Effect.die(new Error("guard crashed"))))),
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow())))
      )
      yield* session.turn("delete the file").pipe(Stream.runCollect)
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the guard's refusal was not honoured: rm ran")
    }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([]))))

  it.live("with a guard that has no opinion, the handler's allow lets rm run", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.succeed({})))),
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow())))
      )
      yield* session.turn("delete the file").pipe(Stream.runCollect)
      assert.isFalse(Fs.existsSync(Path.join(cwd, "victim.txt")), "the handler's allow was not honoured")
    }).pipe(Effect.provide(processLayer)))

  it.live("a Bash guard's deny keeps a Monitor command from running, though the handler allows", () =>
    Effect.gen(function*() {
      // The CLI calls the Bash guard for a Monitor command too (with `tool_name: "Bash"`); the
      // session answered the Monitor call's can_use_tool at once, and rm ran.
      const { options, cwd } = yield* live([
        FakeModel.toolUse("Monitor", { command: "rm victim.txt", description: "probe", timeout_ms: 10_000 }),
        FakeModel.text("done")
      ], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const guarded: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, (input) =>
          Effect.sync(() => {
            guarded.push(`${input.tool_name}: ${input.tool_input.command}`)
            return { hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }
          }).pipe(Effect.delay("300 millis"))))),
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow())))
      )
      yield* session.turn("watch the file go").pipe(Stream.runCollect)
      // A watch that ran would have removed it by now.
      yield* Effect.sleep("1 second")
      assert.deepStrictEqual(guarded, ["Bash: rm victim.txt"], "the CLI called the Bash guard for the Monitor command")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the guard's deny was not honoured: the Monitor command ran")
    }).pipe(Effect.provide(processLayer)))
})
