/**
 * The `effect-claude-code/node` entry: importing it loads no more of `@effect/platform-node` than
 * `runMain` needs (Node's services, about a hundred modules, load only when `layerSessions` is
 * built), and `layerSessions` reads the CLI's sessions from the real file system.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import { ClaudeNode } from "../src/node.ts"
import * as Sessions from "../src/Sessions.ts"

const root = Path.resolve(import.meta.dirname, "..")

/** The modules a fresh Node process resolves while importing `entry`. */
const loadedBy = (entry: string): Array<string> => {
  const script = [
    `import { registerHooks } from "node:module"`,
    `const seen = []`,
    `registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.push(found.url); return found } })`,
    `await import(${JSON.stringify(Path.join(root, entry))})`,
    `process.stdout.write(JSON.stringify(seen))`
  ].join("\n")
  const run = ChildProcess.spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 })
  assert.strictEqual(run.status, 0, run.stderr)
  return JSON.parse(run.stdout) as Array<string>
}

describe("ClaudeNode", { timeout: 60_000 }, () => {
  it("importing the node entry loads NodeRuntime, not Node's services", () => {
    const loaded = loadedBy("src/node.ts")
    // The check itself: it sees the entry's own imports.
    assert.isTrue(loaded.some((url) => url.includes("@effect/platform-node/dist/NodeRuntime.js")), loaded.join("\n"))
    assert.deepStrictEqual(loaded.filter((url) => /@effect\/platform-node\/dist\/Node(Services|FileSystem)\.js$/.test(url)), [])
  })

  it.effect("layerSessions lists the sessions of the config directory, on Node's file system", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-node-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const sessionId = "11111111-1111-4111-8111-111111111111"
      const project = Path.join(dir, "projects", Sessions.projectKey(dir))
      Fs.mkdirSync(project, { recursive: true })
      Fs.writeFileSync(
        Path.join(project, `${sessionId}.jsonl`),
        JSON.stringify({
          type: "user",
          uuid: "u1",
          parentUuid: null,
          sessionId,
          cwd: dir,
          timestamp: new Date(0).toISOString(),
          message: { role: "user", content: "Hello from disk" }
        }) + "\n"
      )
      const sessions = yield* Effect.flatMap(Sessions.Sessions, (sessions) => sessions.list({ cwd: dir })).pipe(
        Effect.provide(ClaudeNode.layerSessions),
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { CLAUDE_CONFIG_DIR: dir } })))
      )
      assert.deepStrictEqual(sessions.map((session) => [session.sessionId, session.title]), [[sessionId, "Hello from disk"]])
    }).pipe(Effect.scoped))
})
