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
import { build } from "esbuild"
import { bundle, settings } from "../examples/bundle/build.ts"
import { projectKey } from "../src/Sessions.ts"
import { buildPackage, packageAsBuilt } from "./support/packageAsBuilt.ts"

const root = Path.resolve(import.meta.dirname, "..")
const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

/** The package as built, removed afterwards. */
const builtPackage = Effect.acquireRelease(
  Effect.sync(() => buildPackage("bundle-dist-")),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

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

  // With `sideEffects: false`, esbuild drops a barrel, and with it the initialization of a module
  // that is also loaded by `import()` (esbuild issues 1490, 3357): `layerSessions` loads
  // Sessions.js so, as a session loads the hooks' and permissions' machinery. A program taking the
  // library through its barrels must still find every module initialized, both before the layer is
  // built (the turn) and after (the listing), and the protocol's schemas (which a session loads with
  // `import()`) before the session and after it.
  it.live("a program bundled against the package as built, through the main entry's barrel, runs a turn with a hook and a permission handler, then builds ClaudeNode.layerSessions and lists a session from disk", () =>
    Effect.gen(function*() {
      const dist = yield* builtPackage
      const dir = yield* outside
      const outfile = Path.join(dir, "program.mjs")
      const result = yield* Effect.promise(() =>
        build({
          ...settings,
          entryPoints: [Path.join(root, "test/fixtures/bundle-sessions.ts")],
          outfile,
          metafile: true,
          logLevel: "error",
          // The library as a program gets it: the package's files, not its sources.
          plugins: [packageAsBuilt(dist)]
        })
      )
      // The recipe's settings bundle the package without a warning (a newcomer got 31: esbuild's
      // ignored-bare-import for the package's chunks, which it declares free of side effects).
      assert.deepStrictEqual(result.warnings.map((warning) => warning.text), [])
      // Every module of the library comes from the package as built, none from its sources.
      const inputs = Object.keys(result.metafile.inputs)
      assert.isTrue(inputs.some((input) => input.includes("bundle-dist-") && input.endsWith("Sessions.js")))
      assert.deepStrictEqual(inputs.filter((input) => !input.includes("node_modules") && /(^|\/)src\//.test(input)), [])
      const configDir = Path.join(dir, "config")
      const cwd = Path.join(dir, "project")
      const sessionId = "22222222-2222-4222-8222-222222222222"
      Fs.mkdirSync(Path.join(configDir, "projects", projectKey(cwd)), { recursive: true })
      Fs.writeFileSync(
        Path.join(configDir, "projects", projectKey(cwd), `${sessionId}.jsonl`),
        JSON.stringify({
          type: "user",
          uuid: "u1",
          parentUuid: null,
          sessionId,
          cwd,
          timestamp: new Date(0).toISOString(),
          message: { role: "user", content: "Hello from disk" }
        }) + "\n"
      )
      const run = ChildProcess.spawnSync(process.execPath, [outfile], {
        cwd: dir,
        env: { ...process.env, CLAUDE_PATH: FAKE, CLAUDE_CONFIG_DIR: configDir, SESSIONS_CWD: cwd, NODE_PATH: "" },
        encoding: "utf8",
        timeout: 60_000
      })
      assert.strictEqual(run.status, 0, run.stderr)
      assert.deepStrictEqual(run.stdout.trim().split("\n"), [
        "Success true",
        "Hello from the fake model! Café → 日本語 ✓",
        JSON.stringify(["Hello from disk"]),
        projectKey(cwd),
        "Success true"
      ])
    }))
})
