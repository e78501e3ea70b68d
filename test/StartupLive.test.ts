/**
 * Start-up (issue 21), as Node sees it: in a fresh `node` process (the sources, through Node's type
 * stripping), a load hook records every module Node loads while `Claude.ts` is imported. A session
 * needs the modules of `support/startup.ts` only on request (in-process MCP servers and `effect/ai`,
 * hooks and the other handlers, the session store, structured output, the schema JIT compiler):
 * importing `Claude.ts` loads none of them. Not timed: the times are `npm run bench`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { loadedOnRequest } from "./support/startup.ts"

const root = Path.resolve(import.meta.dirname, "..")

/** The modules (relative to the root, or `node:` builtins) Node loads to import `module`, in a fresh process. */
const loadedBy = (module: string): ReadonlyArray<string> => {
  const script = [
    `import * as Module from "node:module"`,
    `const loaded = []`,
    `Module.registerHooks({ load: (url, context, next) => { loaded.push(url); return next(url, context) } })`,
    `await import(${JSON.stringify(pathToFileURL(Path.join(root, module)).href)})`,
    `process.stdout.write(JSON.stringify(loaded))`
  ].join("\n")
  const out = NodeChildProcess.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  return (JSON.parse(out) as ReadonlyArray<string>).map((url) =>
    url.startsWith("file:") ? Path.relative(root, new URL(url).pathname) : url
  )
}

describe("start-up", () => {
  it("importing Claude.ts loads none of the modules a session needs only on request, nor effect/ai, nor the schema JIT compiler", () => {
    const loaded = loadedBy("src/Claude.ts")
    // The hook sees the library's modules and Effect's.
    assert.include(loaded, "src/Claude.ts")
    assert.include(loaded, "src/internal/services.ts")
    assert.include(loaded, "src/internal/reader.ts")
    assert.isTrue(loaded.some((module) => module.endsWith("node_modules/effect/dist/Effect.js")))
    assert.deepStrictEqual(loadedOnRequest.filter((module) => loaded.includes(module)), [])
    assert.deepStrictEqual(loaded.filter((module) => /node_modules\/effect\/dist\/(ai\/|unstable\/|schema\/SchemaJITCompiler)|opentelemetry/.test(module)), [])
  })

  it("the check sees them where they are imported: McpServers.ts loads effect/ai", () => {
    const loaded = loadedBy("src/McpServers.ts")
    assert.include(loaded, "src/McpServers.ts")
    assert.include(loaded, "src/internal/mcpJsonRpc.ts")
    assert.isTrue(loaded.some((module) => module.endsWith("node_modules/effect/dist/ai/Tool.js")))
  })
})
