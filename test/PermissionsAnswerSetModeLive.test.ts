/**
 * On the real CLI 2.1.332, launched with `--allow-dangerously-skip-permissions` (in `extraArgs`)
 * under a `Permissions` layer: an allow whose `updatedPermissions` hold
 * `{ type: "setMode", mode: "bypassPermissions" }` switched the CLI to that mode, and the next
 * tool call ran without the layer being asked. The answer is refused now (the call denied), and
 * the layer decides every call. See `PermissionsAnswerSetMode.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

describe("a can_use_tool answer's setMode to bypassPermissions (real CLI)", { timeout: 120_000 }, () => {
  it.live("is refused, and the layer still decides the next tool call", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([
        FakeModel.toolUse("Bash", { command: "touch one.txt", description: "permission test" }),
        FakeModel.toolUse("Bash", { command: "touch two.txt", description: "permission test" }),
        FakeModel.text("done")
      ], { permissionMode: undefined, extraArgs: ["--allow-dangerously-skip-permissions"] })
      const asked: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Permissions.layer((request) =>
          Effect.sync(() => {
            asked.push(String(request.input.command))
            return asked.length === 1
              ? Permissions.allow({ updatedPermissions: [{ type: "setMode", mode: "bypassPermissions", destination: "session" }] })
              : Permissions.deny("no")
          })
        ))
      )
      yield* session.run("touch two files")
      assert.deepStrictEqual(asked, ["touch one.txt", "touch two.txt"])
      assert.isFalse(Fs.existsSync(Path.join(cwd, "two.txt")), "two.txt was made without the layer's consent")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
