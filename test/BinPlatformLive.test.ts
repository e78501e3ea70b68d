/**
 * The package's command as built (`dist/bin.js`) where `@effect/platform-node`, the optional peer
 * it needs, is not installed: `npx effect-claude-code view x.ndjson` printed Node's raw
 * `ERR_MODULE_NOT_FOUND` and its stack. It now says in one line what is missing and how to
 * install it, and exits 1; with the package there, the command runs as before; a package that is
 * there but fails to load still fails with its own error.
 *
 * Each case is the built package copied into a project of its own under the system's temporary
 * folder (copied, not linked: Node resolves a linked file's imports from where it really is),
 * with a `node_modules` linking the repository's `effect` and, as the case needs, its
 * `@effect/platform-node` or a broken stand-in.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { buildPackage } from "./support/packageAsBuilt.ts"
import { makeTempDir } from "./support/tempDir.ts"

const root = Path.resolve(import.meta.dirname, "..")
const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as {
  readonly bin: Record<string, string>
}
const binPath = manifest.bin["effect-claude-code"]!
const transcript = Path.join(root, "testdata/transcripts/bash-tool.ndjson")
const INSTALL = "npm install @effect/platform-node"


/**
 * A project under the system's temporary folder holding the built package (its manifest, `dist`)
 * as `node_modules/effect-claude-code`, and in its `node_modules` what `links` names (a package
 * name, and the directory it links to).
 */
const project = (dist: string, links: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const dir = yield* makeTempDir("ecc-bin-")
    const pkg = Path.join(dir, "node_modules", "effect-claude-code")
    Fs.mkdirSync(pkg, { recursive: true })
    Fs.copyFileSync(Path.join(root, "package.json"), Path.join(pkg, "package.json"))
    Fs.cpSync(dist, Path.join(pkg, "dist"), { recursive: true })
    for (const [name, target] of Object.entries(links)) {
      Fs.mkdirSync(Path.dirname(Path.join(dir, "node_modules", name)), { recursive: true })
      Fs.symlinkSync(target, Path.join(dir, "node_modules", name), "dir")
    }
    return { dir, bin: Path.join(pkg, binPath) }
  })

/** Runs the built command with `args` in `cwd`. */
const runBin = (bin: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.sync(() =>
    ChildProcess.spawnSync(bin, args, {
      cwd,
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, NODE_OPTIONS: "" }
    })
  )

const effectDir = Path.join(root, "node_modules", "effect")
const platformDir = Path.join(root, "node_modules", "@effect", "platform-node")

describe("the built command and @effect/platform-node", () => {
  // Built once for the file (into the repository's `.tmp`, as test/BuildLive.test.ts does); each
  // test copies it into a project of its own.
  let dist = ""
  beforeAll(() => {
    dist = buildPackage("bin-platform-")
  })
  afterAll(() => {
    if (dist !== "") Fs.rmSync(dist, { recursive: true, force: true })
  })

  it.effect("without it, `view` says in one line what to install, and exits 1", () =>
    Effect.gen(function*() {
      const { bin, dir } = yield* project(dist, { effect: effectDir })
      // The command is the built file itself (as npm links it), executable.
      assert.strictEqual(Fs.statSync(bin).mode & 0o777, 0o755)
      for (const args of [["view", "x.ndjson"], ["--version"]]) {
        const out = yield* runBin(bin, args, dir)
        assert.strictEqual(out.status, 1, out.stderr)
        assert.strictEqual(out.stdout, "")
        const lines = out.stderr.trimEnd().split("\n")
        assert.strictEqual(lines.length, 1, out.stderr)
        assert.include(lines[0], "@effect/platform-node")
        assert.include(lines[0], INSTALL)
        assert.notInclude(out.stderr, "ERR_MODULE_NOT_FOUND")
        assert.notInclude(out.stderr, "    at ")
      }
    }))

  it.effect("with it, `view --help` and `view --html` run as before", () =>
    Effect.gen(function*() {
      const { bin, dir } = yield* project(dist, { effect: effectDir, "@effect/platform-node": platformDir })
      const help = yield* runBin(bin, ["view", "--help"], dir)
      assert.strictEqual(help.status, 0, help.stderr)
      assert.include(help.stdout, "--follow")
      assert.include(help.stdout, "--html")
      assert.notInclude(help.stdout + help.stderr, INSTALL)
      const out = Path.join(dir, "page.html")
      const html = yield* runBin(bin, ["view", transcript, "--html", out], dir)
      assert.strictEqual(html.status, 0, html.stderr)
      assert.include(Fs.readFileSync(out, "utf8"), "echo hi")
    }))

  it.effect("a @effect/platform-node that is there but fails to load fails with its own error", () =>
    Effect.gen(function*() {
      // A stand-in whose modules import a package that is not installed.
      const broken = yield* makeTempDir("ecc-broken-platform-")
      const missing = "a-dependency-that-is-not-there"
      const modules = ["NodeRuntime", "NodeServices", "NodeHttpServer"]
      Fs.writeFileSync(
        Path.join(broken, "package.json"),
        JSON.stringify({
          name: "@effect/platform-node",
          version: "4.1.0",
          type: "module",
          exports: Object.fromEntries(modules.map((module) => [`./${module}`, `./${module}.js`]))
        })
      )
      for (const module of modules) Fs.writeFileSync(Path.join(broken, `${module}.js`), `export * from "${missing}"\n`)
      const { bin, dir } = yield* project(dist, { effect: effectDir, "@effect/platform-node": broken })
      const out = yield* runBin(bin, ["view", "x.ndjson"], dir)
      assert.strictEqual(out.status, 1, out.stderr)
      assert.include(out.stderr, "ERR_MODULE_NOT_FOUND")
      assert.include(out.stderr, missing)
      assert.notInclude(out.stderr, INSTALL)
    }))
})
