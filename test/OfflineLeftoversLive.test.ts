/**
 * `Offline` leaves nothing behind: the real CLI writes into `$TMPDIR` (its task files, a socket),
 * which Offline did not point anywhere of its own, so every offline session (every `npm start`)
 * left them in the system's temporary directory (found by a reviewing helper: failing before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

describe("Offline", () => {
  it.live("a Bash turn on the real CLI leaves nothing in the temporary directory once its scope closes", () =>
    Effect.gen(function*() {
      // A temporary directory of this test's own, as the CLI and Offline see it.
      const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-offline-tmp-"))
      const before = process.env.TMPDIR
      process.env.TMPDIR = tmp
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (before === undefined) delete process.env.TMPDIR
          else process.env.TMPDIR = before
          Fs.rmSync(tmp, { recursive: true, force: true })
        })
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const { session } = yield* Offline.open([FakeModel.toolUse("Bash", { command: "echo hi" }), FakeModel.text("done")], {
          executable: cliPath,
          permissionMode: "bypassPermissions"
        })
        assert.strictEqual((yield* session.run("go")).result, "done")
      }))
      assert.deepStrictEqual(Fs.readdirSync(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)), { timeout: 60_000 })
})
