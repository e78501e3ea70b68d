/**
 * The package as users get it: `npm run build`, `npm pack`, installed (offline) into an empty
 * ESM project next to its peer `effect`, imported with types from the main entry, a subpath and
 * `effect-claude-code/testing`, type-checked with the repo's tsc and run with node.
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

/** Runs a command to its end (bounded); returns its stdout, or throws with its output. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 60_000): string => {
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
import { Claude, ClaudeError, Hooks, McpServers, Permissions } from "effect-claude-code"
import * as Launch from "effect-claude-code/Launch"
import * as Transcript from "effect-claude-code/Transcript"
import { FakeCli, FakeModel, Replay } from "effect-claude-code/testing"

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
const failure: ClaudeError.ClaudeError = ClaudeError.make(new ClaudeError.SessionClosed({ operation: "demo" }))
await Effect.runPromise(Console.log(JSON.stringify({
  text: result.result,
  costUsd: result.turn.costUsd,
  reason: failure.reason._tag,
  modes: Launch.permissionModes.length,
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

describe("the npm package", { timeout: 90_000 }, () => {
  it.live("builds, packs, installs offline into an empty ESM project, type-checks and runs from its exports", () =>
    Effect.gen(function*() {
      const work = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-package-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      // The build emits JavaScript with the relative `.ts` imports rewritten to `.js`.
      run(npm, ["run", "build"], root)
      const index = Fs.readFileSync(Path.join(root, "dist", "index.js"), "utf8")
      assert.include(index, "from \"./Claude.js\"")
      assert.notMatch(index, /from "\.[^"]*\.ts"/)
      assert.isTrue(Fs.existsSync(Path.join(root, "dist", "testing", "index.d.ts")))

      const packed = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], root)) as ReadonlyArray<{
        readonly filename: string
        readonly files: ReadonlyArray<{ readonly path: string }>
      }>
      const tarball = Path.join(work, Path.basename(packed[0]!.filename))
      const files = packed[0]!.files.map((f) => f.path)
      assert.include(files, "dist/index.js")
      assert.include(files, "dist/testing/index.js")
      assert.include(files, "README.md")
      assert.isFalse(files.some((f) => f.startsWith("test/") || f.startsWith("examples/")), files.join(", "))

      const project = Path.join(work, "consumer")
      Fs.mkdirSync(project)
      Fs.writeFileSync(Path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
      // The peer `effect` from this repository's node_modules: no network.
      run(npm, ["install", "--offline", "--no-audit", "--no-fund", tarball, Path.join(root, "node_modules", "effect")], project)
      const installed = JSON.parse(
        Fs.readFileSync(Path.join(project, "node_modules", "effect-claude-code", "package.json"), "utf8")
      ) as { readonly peerDependencies?: Record<string, string> }
      assert.property(installed.peerDependencies ?? {}, "effect")

      Fs.writeFileSync(Path.join(project, "main.ts"), consumer)
      Fs.writeFileSync(Path.join(project, "tsconfig.json"), JSON.stringify(consumerTsconfig))
      run(tsc, ["-p", "tsconfig.json"], project)
      const output = JSON.parse(run(process.execPath, [Path.join(project, "out", "main.js")], project, 30_000)) as {
        readonly text: string
        readonly costUsd: number
        readonly reason: string
        readonly modes: number
        readonly api: ReadonlyArray<string>
      }
      assert.strictEqual(output.text, "echo: hello from a package")
      assert.isAbove(output.costUsd, 0)
      assert.strictEqual(output.reason, "SessionClosed")
      assert.isAbove(output.modes, 0)
      assert.deepStrictEqual(output.api, Array.from({ length: 6 }, () => "function"))
    }))
})
