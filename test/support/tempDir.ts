/**
 * A fresh temporary directory for one test, removed when its scope closes (under `os.tmpdir()`,
 * never a literal path). Used by both tiers; it starts nothing.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** A fresh directory named `<prefix>XXXXXX` under the system's temporary folder, removed with the scope. */
export const makeTempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
