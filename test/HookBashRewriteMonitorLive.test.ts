/**
 * A `Bash` guard that rewrites a command (`Hooks.allowWith`), on the real CLI: CLI 2.1.332 asks
 * it about a `Monitor` command too, with `tool_name: "Bash"` and the command, so the handler
 * cannot tell the two apart, and there ignores the allow and its `updatedInput`: the original
 * command ran. The session knows the model called Monitor (its `tool_use`): such a rewrite is
 * refused now, the call denied (`test/HookRewriteOtherToolName.test.ts`), so the command does not
 * run. Its deny is honoured too.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const monitor = FakeModel.toolUse("Monitor", { command: "rm victim.txt", description: "probe", timeout_ms: 10_000 })

describe("a Bash guard asked about a Monitor command", () => {
  it.live("its rewrite, which the CLI would not apply, is refused: the command does not run", () =>
    Effect.gen(function*() {
      const { cwd, options } = yield* live([monitor, FakeModel.text("done")])
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const asked: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
          Effect.sync(() => {
            asked.push(`${input.tool_name}: ${input.tool_input.command}`)
            return Hooks.allowWith({ ...input.tool_input, command: "echo sanitized" })
          }))))
      )
      yield* session.turn("watch the file").pipe(Stream.runCollect)
      // The watch ran `rm` by now, had the rewrite gone out (and been dropped by the CLI).
      yield* Effect.sleep("1500 millis")
      assert.deepStrictEqual(asked, ["Bash: rm victim.txt"], "the CLI asked the Bash guard, naming the tool Bash")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the original command ran")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)

  it.live("its deny is honoured: the command does not run", () =>
    Effect.gen(function*() {
      const { cwd, options } = yield* live([monitor, FakeModel.text("done")])
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
          Effect.succeed(input.tool_input.command.includes("rm") ? Hooks.deny("no rm") : Hooks.allow())))))
      yield* session.turn("watch the file").pipe(Stream.runCollect)
      yield* Effect.sleep("1500 millis")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the Bash guard's deny was not honoured for the Monitor command")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)
})
