/**
 * On the real CLI 2.1.332, launched with `--allow-dangerously-skip-permissions` (in `extraArgs`)
 * and a `Permissions` layer that denies: `setPermissionMode("bypassPermissions")` was taken and
 * the model's Bash call ran without the layer being asked. It is `InvalidInput` now, and the
 * layer is asked (found by a reviewing helper; failing before). See
 * `ControlsBypassWithPermissions.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as Permissions from "../src/Permissions.ts"
import type { CanUseToolRequest } from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

describe("setPermissionMode with a Permissions layer (real CLI)", { timeout: 120_000 }, () => {
  it.live("bypassPermissions is refused and the layer still decides the next tool call", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([
        FakeModel.toolUse("Bash", { command: "touch bypassed.txt", description: "permission test" }),
        FakeModel.text("done")
      ], { permissionMode: undefined, extraArgs: ["--allow-dangerously-skip-permissions"] })
      const asked: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Permissions.layer((request) => Effect.sync(() => (asked.push(request), Permissions.deny("no")))))
      )
      const exit = yield* Effect.exit(session.setPermissionMode("bypassPermissions"))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.strictEqual(Option.getOrUndefined(error)?.reason._tag, "InvalidInput")
      yield* session.run("touch a file")
      assert.strictEqual(asked.length, 1)
      assert.isFalse(Fs.existsSync(Path.join(cwd, "bypassed.txt")))
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
