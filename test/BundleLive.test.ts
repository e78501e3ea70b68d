/**
 * The bundling recipe (`examples/bundle/`, `docs/bundling.md`): esbuild makes one file of a
 * program that uses the library, with `effect` and `@effect/platform-node` inside; that file
 * runs where no `node_modules` can be found, and drives a CLI through a whole turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { bundle } from "../examples/bundle/build.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

/** A fresh directory outside the repository (no node_modules above it), removed afterwards. */
const outside = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-bundle-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("bundled program", { timeout: 120_000 }, () => {
  it.live("esbuild bundles the example into one ES module that imports only Node's own modules", () =>
    Effect.gen(function*() {
      const dir = yield* outside
      const outfile = Path.join(dir, "program.mjs")
      yield* Effect.promise(() => bundle(outfile))
      const code = Fs.readFileSync(outfile, "utf8")
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!)
      assert.isAbove(specifiers.length, 0)
      assert.deepStrictEqual(specifiers.filter((s) => !s.startsWith("node:")), [])
      // effect is inside: its runtime is in the file, not imported.
      assert.include(code, "effect/Fiber")
    }))

  it.live("the bundle runs from a folder with no node_modules: one turn against the fake CLI, its answer printed", () =>
    Effect.gen(function*() {
      const dir = yield* outside
      const outfile = Path.join(dir, "program.mjs")
      yield* Effect.promise(() => bundle(outfile))
      const run = ChildProcess.spawnSync(process.execPath, [outfile, "Say hello"], {
        cwd: dir,
        env: { ...process.env, CLAUDE_PATH: FAKE, NODE_PATH: "" },
        encoding: "utf8",
        timeout: 60_000
      })
      assert.strictEqual(run.status, 0, run.stderr)
      const [answer, figures] = run.stdout.trim().split("\n")
      assert.strictEqual(answer, "Hello from the fake model! Café → 日本語 ✓")
      const parsed = JSON.parse(figures!) as { events: number; firstEventMs: number }
      assert.isAbove(parsed.events, 1)
      assert.isAbove(parsed.firstEventMs, 0)
    }))
})
