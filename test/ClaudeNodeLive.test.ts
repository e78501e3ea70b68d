/**
 * The `effect-claude-code/node` entry in a fresh Node process: importing it loads no more of
 * `@effect/platform-node` than `runMain` needs (Node's services, about a hundred modules, load
 * only when `layerSessions` is built).
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const root = Path.resolve(import.meta.dirname, "..")

/** The modules a fresh Node process resolves while importing `entry`. */
const loadedBy = (entry: string): Array<string> => {
  const script = [
    `import { registerHooks } from "node:module"`,
    `const seen = []`,
    `registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.push(found.url); return found } })`,
    `await import(${JSON.stringify(pathToFileURL(Path.join(root, entry)).href)})`,
    `process.stdout.write(JSON.stringify(seen))`
  ].join("\n")
  const run = ChildProcess.spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 })
  assert.strictEqual(run.status, 0, run.stderr)
  return JSON.parse(run.stdout) as Array<string>
}

describe("ClaudeNode", () => {
  it("importing the node entry loads NodeRuntime, not Node's services", () => {
    const loaded = loadedBy("src/node.ts")
    // The check itself: it sees the entry's own imports.
    assert.isTrue(loaded.some((url) => url.includes("@effect/platform-node/dist/NodeRuntime.js")), loaded.join("\n"))
    assert.deepStrictEqual(loaded.filter((url) => /@effect\/platform-node\/dist\/Node(Services|FileSystem)\.js$/.test(url)), [])
  })
})
