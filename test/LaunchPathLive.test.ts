/**
 * `executable` (and the default `claude`) is looked up on the PATH the CLI runs with: the
 * session's `env.PATH` when it sets one, as `child_process.spawn` (and the official SDK) looks a
 * command up on its `env`'s. The library searched its own process's PATH: a `claude` on the
 * program's PATH alone was `CliNotFound`, and another on the process's PATH was started instead
 * (found by a reviewing helper; failed before its fix). A `PATH` the program removed is searched
 * as `spawn` searches then, not as nothing (a second review).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

describe("the executable's lookup", () => {
  it.live("a bare executable name is found on the PATH the program gives in env", () =>
    Effect.scoped(Effect.gen(function*() {
      // A directory on the PATH given in `env`, not on this process's PATH.
      const bin = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-launch-bin-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      Fs.writeFileSync(Path.join(bin, "claude-wrapped"), `#!/bin/sh\nexec "${cliPath}" "$@"\n`, { mode: 0o755 })
      const setup = yield* Offline.make([FakeModel.text("ok")], {})
      const session = yield* Claude.open({
        ...setup.options,
        executable: "claude-wrapped",
        env: { ...setup.options.env, PATH: `${bin}${Path.delimiter}${process.env.PATH ?? ""}` }
      })
      const result = yield* session.run("hi")
      assert.strictEqual(result.result, "ok")
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("with env.PATH removed, a bare name is looked up where child_process.spawn looks then (/usr/bin, /bin)", () =>
    Effect.gen(function*() {
      // `sh` is no CLI: found and started (not `CliNotFound`), it exits at once on the CLI's flags.
      const status = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ executable: "sh", env: { PATH: undefined }, closeGrace: "1 second" })
        return yield* session.exit
      }))
      assert.notStrictEqual(status.code, 0)
    }).pipe(Effect.provide(processLayer)), 60_000)
})
