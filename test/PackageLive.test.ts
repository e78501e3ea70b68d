/**
 * The package as users get it: `npm run build`, `npm pack`, installed (offline) into an empty
 * ESM project next to its peers `effect` and `@effect/platform-node`, imported with types from the
 * main entry, a module's own entry (`effect-claude-code/Launch`), `effect-claude-code/node` and
 * `effect-claude-code/testing` (the internal modules are not exported), type-checked with the
 * repo's tsc and run with node.
 *
 * And from a git URL: npm clones the repository, installs its dependencies and runs `prepare`,
 * which builds `dist/`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"

const root = Path.resolve(import.meta.dirname, "..")
const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const tsc = Path.join(root, "node_modules", ".bin", "tsc")
const fakeClaude = Path.join(root, "test", "fixtures", "fake-claude.mjs")

/** Runs a command to its end (bounded); returns its stdout, or throws with its output. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 180_000): string => {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" }
  // Inside `npm test`, npm's own variables would point the child npm at this project.
  for (const name of Object.keys(env)) if (name.startsWith("npm_package_") || name === "npm_config_prefix") delete env[name]
  const result = ChildProcess.spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: timeoutMs })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

const consumer = `import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Claude, ClaudeError, Hooks, Launch, McpServers, Permissions, Transcript } from "effect-claude-code"
import { ClaudeNode } from "effect-claude-code/node"
import { FakeCli, FakeModel, Replay } from "effect-claude-code/testing"

declare const process: { readonly argv: ReadonlyArray<string> }

const program = Effect.gen(function*() {
  const session = yield* Claude.open()
  return yield* session.run("hello from a package")
}).pipe(Effect.scoped, Effect.provide(FakeCli.layer(FakeCli.conversation({}))))

const result: Claude.TurnResult = await Effect.runPromise(program)
// @ts-expect-error the types are real: costUsd is a number (this line fails to compile if they were any)
const wrong: string = result.turn.costUsd
void wrong
// Permissions.d.ts imports "./ClaudeError.ts": those types resolve in the package too.
type DecideError = Effect.Error<ReturnType<Permissions.Permissions["Service"]["decide"]>>
// @ts-expect-error a string is not a ClaudeError
const notAnError: DecideError = "a string"
void notAnError
// Types and values of a module are reached the same way.
const denied: Hooks.HookOutput<"PreToolUse"> = Hooks.deny("not here")
const failure: ClaudeError.ClaudeError = ClaudeError.make(new ClaudeError.SessionClosed({ operation: "demo" }))
// The real CLI's transport on Node, ready: here a fake CLI process (its path is the first argument).
const overNode = await Effect.runPromise(
  Claude.query("hello over node", { executable: process.argv[2]!, env: { FAKE_CLAUDE_ECHO: "1" }, closeGrace: "2 seconds" })
    .pipe(Effect.provide(ClaudeNode.layer))
)
// Internal modules are not exported (the public ones are: effect-claude-code/Launch).
// @ts-expect-error no such export
const internal = await import("effect-claude-code/internal/turns").then(() => "importable", (error: { code?: string }) => error.code)
const launch: typeof Launch = await import("effect-claude-code/Launch")
await Effect.runPromise(Console.log(JSON.stringify({
  text: result.result,
  costUsd: result.turn.costUsd,
  reason: failure.reason._tag,
  modes: Launch.permissionModes.length,
  sameLaunch: launch.permissionModes === Launch.permissionModes,
  denied: denied.hookSpecificOutput?.permissionDecision,
  overNode: overNode.result,
  internal,
  api: [typeof Hooks.on, typeof McpServers.tool, typeof Permissions.layer, typeof FakeModel.make, typeof Replay.layer, typeof Transcript.toFile]
})))
`

const consumerTsconfig = {
  compilerOptions: {
    target: "ES2023",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: [],
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    outDir: "out"
  },
  include: ["main.ts"]
}

describe("the npm package", { timeout: 400_000 }, () => {
  it.live("builds, packs, installs offline into an empty ESM project, type-checks and runs from its exports", () =>
    Effect.gen(function*() {
      const work = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-package-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      // The build emits, at each path of the manifest, an ES module re-exporting its module from
      // dist/chunks/ (each module once, whichever entries a program uses; the core, what Claude.js
      // loads, in one file); a barrel re-exports the entries; no `.ts` import is left anywhere.
      run(npm, ["run", "build"], root)
      const index = Fs.readFileSync(Path.join(root, "dist", "index.js"), "utf8")
      assert.include(index, "export * as Claude from \"./Claude.js\"")
      assert.include(Fs.readFileSync(Path.join(root, "dist", "Claude.js"), "utf8"), "from \"./chunks/")
      const built = (Fs.readdirSync(Path.join(root, "dist"), { recursive: true }) as Array<string>).filter((f) => f.endsWith(".js"))
      assert.isAbove(built.length, 30)
      for (const file of built) assert.notMatch(Fs.readFileSync(Path.join(root, "dist", file), "utf8"), /from "\.[^"]*\.ts"/, file)
      assert.isTrue(Fs.existsSync(Path.join(root, "dist", "testing", "index.d.ts")))
      assert.isTrue(Fs.existsSync(Path.join(root, "dist", "Claude.d.ts")))

      const packed = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], root)) as ReadonlyArray<{
        readonly filename: string
        readonly files: ReadonlyArray<{ readonly path: string }>
      }>
      const tarball = Path.join(work, Path.basename(packed[0]!.filename))
      const files = packed[0]!.files.map((f) => f.path)
      assert.include(files, "dist/index.js")
      assert.include(files, "dist/testing/index.js")
      assert.include(files, "dist/node.js")
      assert.include(files, "dist/bin.js")
      assert.include(files, "README.md")
      assert.isFalse(files.some((f) => f.startsWith("test/") || f.startsWith("examples/")), files.join(", "))

      const project = Path.join(work, "consumer")
      Fs.mkdirSync(project)
      Fs.writeFileSync(Path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
      // The peers `effect` and `@effect/platform-node` from this repository's node_modules: no network.
      const peers = [Path.join(root, "node_modules", "effect"), Path.join(root, "node_modules", "@effect", "platform-node")]
      run(npm, ["install", "--offline", "--no-audit", "--no-fund", tarball, ...peers], project)
      const installed = JSON.parse(
        Fs.readFileSync(Path.join(project, "node_modules", "effect-claude-code", "package.json"), "utf8")
      ) as { readonly peerDependencies?: Record<string, string> }
      assert.property(installed.peerDependencies ?? {}, "effect")
      // The package's command (`npx effect-claude-code`), linked by npm from its `bin`.
      // Its version is the manifest's, read from the package's package.json above the built file.
      const { version } = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { readonly version: string }
      assert.include(run(Path.join(project, "node_modules", ".bin", "effect-claude-code"), ["--version"], project), `effect-claude-code v${version}`)

      Fs.writeFileSync(Path.join(project, "main.ts"), consumer)
      Fs.writeFileSync(Path.join(project, "tsconfig.json"), JSON.stringify(consumerTsconfig))
      run(tsc, ["-p", "tsconfig.json"], project)
      const output = JSON.parse(run(process.execPath, [Path.join(project, "out", "main.js"), fakeClaude], project, 30_000)) as {
        readonly text: string
        readonly costUsd: number
        readonly reason: string
        readonly modes: number
        readonly denied: string
        readonly overNode: string
        readonly internal: string
        readonly sameLaunch: boolean
        readonly api: ReadonlyArray<string>
      }
      assert.strictEqual(output.text, "echo: hello from a package")
      assert.isAbove(output.costUsd, 0)
      assert.strictEqual(output.reason, "SessionClosed")
      assert.isAbove(output.modes, 0)
      assert.strictEqual(output.denied, "deny")
      assert.strictEqual(output.overNode, "echo: hello over node")
      assert.strictEqual(output.internal, "ERR_PACKAGE_PATH_NOT_EXPORTED")
      // A public module imported on its own is the main entry's module, not a copy.
      assert.isTrue(output.sameLaunch)
      assert.deepStrictEqual(output.api, Array.from({ length: 6 }, () => "function"))
    }))

  it.live("installs from a git URL: prepare builds dist/ in npm's clone, and the entries import", () =>
    Effect.gen(function*() {
      const work = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-git-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      // A clone of the committed tree, as a git host would serve it (no dist/: it is ignored).
      const repo = Path.join(work, "repo")
      run("git", ["clone", "--quiet", "--no-hardlinks", root, repo], work)
      run("git", ["checkout", "--quiet", run("git", ["rev-parse", "HEAD"], root).trim()], repo)
      assert.isFalse(Fs.existsSync(Path.join(repo, "dist")))
      // npm installs a git dependency's devDependencies before `prepare`; only those the build needs
      // are kept (the pinned CLIs and the test tools would add minutes), the lockfile still pins them.
      const manifestPath = Path.join(repo, "package.json")
      const manifest = JSON.parse(Fs.readFileSync(manifestPath, "utf8")) as {
        readonly scripts: Record<string, string>
        devDependencies: Record<string, string>
      }
      assert.strictEqual(manifest.scripts.prepare, "npm run build")
      const buildNeeds = new Set(["typescript", "esbuild", "@types/node", "effect", "@effect/platform-node"])
      manifest.devDependencies = Object.fromEntries(Object.entries(manifest.devDependencies).filter(([name]) => buildNeeds.has(name)))
      // The ./pg entry's types need @effect/sql-pg: this repository's copy, so no registry is asked.
      manifest.devDependencies["@effect/sql-pg"] = `file:${Path.join(root, "node_modules", "@effect", "sql-pg")}`
      Fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2))
      run("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "--quiet", "-am", "build deps only"], repo)
      const commit = run("git", ["rev-parse", "HEAD"], repo).trim()

      const project = Path.join(work, "consumer")
      Fs.mkdirSync(project)
      Fs.writeFileSync(Path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
      run(
        npm,
        ["install", "--offline", "--no-audit", "--no-fund", `git+file://${repo}#${commit}`, Path.join(root, "node_modules", "effect")],
        project,
        240_000
      )
      const installed = Path.join(project, "node_modules", "effect-claude-code")
      for (const file of ["dist/index.js", "dist/index.d.ts", "dist/node.js", "dist/testing/index.js", "dist/sql.js", "dist/pg.js", "dist/ai.js"]) {
        assert.isTrue(Fs.existsSync(Path.join(installed, file)), file)
      }
      // ./sql loads without its optional peer @effect/sql-pg (not installed here): only ./pg needs it.
      const script = `const m = await import("effect-claude-code"); const t = await import("effect-claude-code/testing");
const s = await import("effect-claude-code/sql");
const claude = await import("effect-claude-code/Claude");
console.log(JSON.stringify({ query: typeof m.Claude.query, layer: typeof m.Hooks.layer, fake: typeof t.FakeCli.layer, sqlite: typeof s.SessionStoreSql.layerSqlite, sameModule: claude.query === m.Claude.query }))`
      const output = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script], project, 30_000)) as Record<string, unknown>
      // A module imported on its own (`effect-claude-code/Claude`) is the main entry's, not a copy.
      assert.deepStrictEqual(output, { query: "function", layer: "function", fake: "function", sqlite: "function", sameModule: true })
    }), { timeout: 300_000 })
})
