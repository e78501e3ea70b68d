/**
 * On the real CLI 2.1.332, two `PermissionRequest` hooks of one tool call: the CLI calls them at
 * once and takes the first decision, so one hook's quick allow beat a slower guard's deny and `rm`
 * ran, without a `Permissions` handler and beside one that denied too (found by a reviewing
 * helper; both failed before the fix, `internal/permissionRequestGate.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const bash = (command: string) => FakeModel.toolUse("Bash", { command, description: "probe" })

/** A hook that allows every Bash call at once, and a guard that takes its time to deny rm. */
const hooks = Hooks.layer(
  Hooks.on("PermissionRequest", { matcher: "Bash" }, () =>
    Effect.succeed({ hookSpecificOutput: { decision: { behavior: "allow" as const } } })),
  Hooks.on("PermissionRequest", { matcher: "Bash" }, (input) =>
    Effect.succeed(
      input.tool_input.command.startsWith("rm")
        ? { hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }
        : {}
    ).pipe(Effect.delay("800 millis")))
)

const rmSurvives = (options: Claude.SessionOptions, cwd: string) =>
  Effect.gen(function*() {
    const victim = Path.join(cwd, "victim.txt")
    Fs.writeFileSync(victim, "still here")
    const session = yield* Claude.open(options)
    yield* session.turn("delete the file").pipe(Stream.runCollect)
    return Fs.existsSync(victim)
  })

describe("a PermissionRequest hook's quick allow beside a slower guard (real CLI)", { timeout: 120_000 }, () => {
  it.live("the guard's deny keeps rm from running", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      assert.isTrue(yield* rmSurvives(options, cwd).pipe(Effect.provide(hooks)), "the quick allow won: rm ran")
    }).pipe(Effect.provide(processLayer)))

  it.live("the guard's deny keeps rm from running beside a Permissions handler that denies", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("done")], { permissionMode: "default" })
      const survives = yield* rmSurvives(options, cwd).pipe(
        Effect.provide(hooks),
        Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.deny("not rm"))))
      )
      assert.isTrue(survives, "the quick allow won: rm ran")
    }).pipe(Effect.provide(processLayer)))

  it.live("with no deny, the allow lets the command run", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("touch made.txt"), FakeModel.text("done")], { permissionMode: "default" })
      const session = yield* Claude.open(options).pipe(Effect.provide(hooks))
      yield* session.turn("make the file").pipe(Stream.runCollect)
      assert.isTrue(Fs.existsSync(Path.join(cwd, "made.txt")), "the allow was not honoured")
    }).pipe(Effect.provide(processLayer)))
})
