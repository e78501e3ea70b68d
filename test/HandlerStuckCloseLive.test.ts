/**
 * Closing while a handler of the CLI's requests is stuck where it cannot be interrupted: the CLI
 * is ended within `closeGrace` (the handler's bounded wait runs alongside the close, not before
 * it). Before, the handlers' wait ran first and spent the budget: the CLI was killed with 1 ms of
 * grace left, `closeGrace` late.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import { isAlive, processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

describe("closing while a handler of the CLI's requests does not stop", { timeout: 60_000 }, () => {
  it.live("the CLI is ended within closeGrace; the stuck handler is waited for after, not before", () =>
    Effect.gen(function*() {
      const tmp = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-handler-close-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const scope = yield* Scope.make()
      const session = yield* Claude.open({
        executable: FAKE,
        closeGrace: "1 second",
        env: { FAKE_CLAUDE_MODE: "control-first,ignore-sigterm", TMPDIR: tmp }
      }).pipe(
        Effect.provide(Hooks.layer(Hooks.on("SessionStart", () => Effect.uninterruptible(Effect.as(Effect.sleep("4 seconds"), {}))))),
        Scope.provide(scope)
      )
      const pid = session.pid!
      yield* Effect.addFinalizer(() => Effect.sync(() => isAlive(pid) && process.kill(pid, "SIGKILL")))
      yield* Effect.sleep("500 millis")
      const start = Date.now()
      const closing = yield* Effect.forkDetach(Scope.close(scope, Exit.void))
      let goneAfter: number | undefined
      while (goneAfter === undefined && Date.now() - start < 5000) {
        if (!isAlive(pid)) goneAfter = Date.now() - start
        else yield* Effect.sleep("10 millis")
      }
      yield* Fiber.join(closing)
      assert.isDefined(goneAfter, "the CLI outlived 5 s")
      assert.isBelow(goneAfter!, 1300, `the CLI was alive ${goneAfter} ms after the close began (closeGrace 1 s)`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
