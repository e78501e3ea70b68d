/**
 * A `PermissionRequest` hook's decision beside a `Permissions` handler, on the real CLI (found by
 * a reviewing helper; failing before, 3 runs of 3): an allow that rewrote the command lost to the
 * handler's plain allow, and `rm` ran instead of the rewrite; a `Hooks.block` guard, which the
 * CLI reads as no decision on this event, let `rm` run. `test/PermissionRequestDecisions.test.ts`
 * has the rules on the fake CLI.
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

const allowing = Permissions.layer(() => Effect.succeed(Permissions.allow()))

describe("a PermissionRequest hook's decision beside a Permissions handler (real CLI)", { timeout: 120_000 }, () => {
  it.live("an allow with updatedInput: the hook's rewritten command runs, not the original one", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, (input) =>
          Effect.succeed({
            hookSpecificOutput: {
              decision: { behavior: "allow" as const, updatedInput: { ...input.tool_input, command: "touch sanitized.txt" } }
            }
          })))),
        Effect.provide(allowing)
      )
      yield* session.turn("delete the file").pipe(Stream.runDrain)
      assert.isTrue(Fs.existsSync(Path.join(cwd, "sanitized.txt")), "the hook's rewritten command did not run")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the original `rm victim.txt` ran instead of the hook's rewrite")
    }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(Logger.layer([]))))

  it.live("Hooks.block: rm does not run, though the handler allows", () =>
    Effect.gen(function*() {
      const { options, cwd, model } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.succeed(Hooks.block("no rm here"))))),
        Effect.provide(allowing)
      )
      yield* session.turn("delete the file").pipe(Stream.runDrain)
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the guard's block was not honoured: rm ran")
      const results = (yield* model.messageRequests).flatMap((request) => FakeModel.toolResults(request))
      assert.isTrue(results.some((result) => result.isError && result.content.includes("no rm here")), JSON.stringify(results))
    }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(Logger.layer([]))))
})
