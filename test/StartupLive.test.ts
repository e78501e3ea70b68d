/**
 * Start-up (issue 21), as Node sees it: in a fresh `node` process (the sources, through Node's type
 * stripping), a load hook records every module Node loads while `Claude.ts` is imported. A session
 * needs the modules of `support/startup.ts` only on request (in-process MCP servers and `effect/ai`,
 * hooks and the other handlers, the session store, structured output, the schema JIT compiler):
 * importing `Claude.ts` loads none of them. Not timed: the times are `npm run bench`'s.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { buildPackage } from "./support/packageAsBuilt.ts"
import { loadedBy as loadedByFiles } from "./support/loadProbe.ts"
import { loadedAfterSpawn, loadedOnRequest, packagesOnRequest } from "./support/startup.ts"

const root = Path.resolve(import.meta.dirname, "..")

/** The modules (relative to the root, or `node:` builtins) Node loads to import `module`, in a fresh process. */
const loadedBy = (module: string): ReadonlyArray<string> =>
  loadedByFiles([Path.join(root, module)]).map((url) => url.startsWith("file:") ? Path.relative(root, new URL(url).pathname) : url)

describe("start-up", () => {
  it("importing Claude.ts loads none of the modules a session needs only on request, nor effect/ai, nor the schema JIT compiler", () => {
    const loaded = loadedBy("src/Claude.ts")
    // The hook sees the library's modules and Effect's.
    assert.include(loaded, "src/Claude.ts")
    assert.include(loaded, "src/internal/services.ts")
    assert.include(loaded, "src/internal/processTransport.ts")
    assert.isTrue(loaded.some((module) => module.endsWith("node_modules/effect/dist/Effect.js")))
    assert.deepStrictEqual(loadedOnRequest.filter((module) => loaded.includes(module)), [])
    assert.deepStrictEqual(loaded.filter((module) => /node_modules\/effect\/dist\/(ai\/|unstable\/|schema\/SchemaJITCompiler)|opentelemetry/.test(module)), [])
  })

  it("a session loads its engine and the protocol's schemas once its CLI is spawned, not before", () => {
    // A fresh process: the load hook records what Node loads, and the transport puts its marks
    // among them: its `open` (the spawn) and each line written. Its CLI answers nothing; the
    // session is closed at once.
    const src = (module: string) => JSON.stringify(pathToFileURL(Path.join(root, "src", module)).href)
    const script = [
      `import * as Module from "node:module"`,
      `const loaded = []`,
      `Module.registerHooks({ load: (url, context, next) => { loaded.push(url); return next(url, context) } })`,
      `const Effect = await import("effect/Effect")`,
      `const Layer = await import("effect/Layer")`,
      `const Stream = await import("effect/Stream")`,
      `const Claude = await import(${src("Claude.ts")})`,
      `const { Transport } = await import(${src("Transport.ts")})`,
      `const { Mailbox } = await import(${src("internal/mailbox.ts")})`,
      `const transport = Layer.succeed(Transport, Transport.of({ open: () => Effect.sync(() => {`,
      `  loaded.push("spawned")`,
      `  const out = new Mailbox()`,
      `  const send = (line) => Effect.sync(() => loaded.push("wrote " + (JSON.parse(line).request?.subtype ?? "a line")))`,
      `  return { pid: undefined, incoming: out.stream, stderr: Stream.empty, send,`,
      `    endInput: Effect.sync(() => { out.end(); out.wake() }), exit: Effect.succeed({ code: 0, signal: null, stderrTail: "" }) }`,
      `}) }))`,
      `await Effect.runPromise(Claude.open({}).pipe(Effect.scoped, Effect.provide(transport)))`,
      `process.stdout.write(JSON.stringify(loaded))`
    ].join("\n")
    const loaded = (JSON.parse(NodeChildProcess.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" }
    })) as ReadonlyArray<string>).map((url) => url.startsWith("file:") ? Path.relative(root, new URL(url).pathname) : url)
    const spawned = loaded.indexOf("spawned")
    assert.isAbove(spawned, 0)
    // The engine and the schemas (`support/startup.ts`): every session loads them, whatever its
    // options; the handlers', the store's, structured output's only with those.
    assert.isAbove(loadedAfterSpawn.length, 20)
    assert.deepStrictEqual(loadedAfterSpawn.filter((module) => loaded.slice(0, spawned).includes(module)), [])
    assert.deepStrictEqual(loadedAfterSpawn.filter((module) => !loaded.slice(spawned).includes(module)), [])
    // The session ran: it wrote `initialize` (once its engine was in hand).
    assert.isAbove(loaded.indexOf("wrote initialize"), loaded.indexOf("src/internal/sessionEngine.ts"))
  })

  it("the check sees them where they are imported: McpServers.ts loads effect/ai", () => {
    const loaded = loadedBy("src/McpServers.ts")
    assert.include(loaded, "src/McpServers.ts")
    assert.include(loaded, "src/internal/mcpJsonRpc.ts")
    assert.isTrue(loaded.some((module) => module.endsWith("node_modules/effect/dist/ai/Tool.js")))
  })

  it("the package as built keeps them on request: dist's Claude.js and node.js load no chunk that holds one of them, nor effect/ai", () => {
    const out = buildPackage("startup-dist-")
    try {
      for (const entry of ["Claude.js", "node.js"]) {
        const loaded = loadedBy(Path.relative(root, Path.join(out, entry)))
        const files = loaded.filter((file) => file.startsWith(Path.relative(root, out)))
        // What each loaded file was built from, by its source map (a barrel has none).
        const sources = files.flatMap((file) => {
          const map = Path.join(root, `${file}.map`)
          if (!Fs.existsSync(map)) return []
          const { sources } = JSON.parse(Fs.readFileSync(map, "utf8")) as { readonly sources: ReadonlyArray<string> }
          return sources.map((source) => Path.relative(root, Path.resolve(root, Path.dirname(file), source)))
        })
        assert.include(sources, entry === "Claude.js" ? "src/Claude.ts" : "src/ClaudeNode.ts")
        assert.isAbove(files.length, 1)
        assert.deepStrictEqual(loadedOnRequest.filter((module) => sources.includes(module)), [], entry)
        const packages = loaded.flatMap((module) => {
          const at = module.lastIndexOf("node_modules/")
          return at === -1 ? [] : [module.slice(at + "node_modules/".length).replace(/\/dist\//, "/").replace(/\.js$/, "")]
        })
        assert.include(packages, "effect/Effect")
        // Random ids come from the global Web Crypto, loaded when a session starts: node:crypto on
        // top of it was ~2 ms more of start-up, all of it at import.
        assert.include(loaded, "node:child_process", entry)
        assert.notInclude(loaded, "node:crypto", entry)
        // Nor through an ES import of node:fs, whose ES module reads every export of it, the lazy
        // file streams and fs/promises too (~1.8 ms): the core takes it with process.getBuiltinModule.
        assert.notInclude(loaded, "node:fs", entry)
        assert.notInclude(loaded, "node:fs/promises", entry)
        assert.deepStrictEqual(packages.filter((module) => packagesOnRequest.test(module)), [], entry)
      }
    } finally {
      Fs.rmSync(out, { recursive: true, force: true })
    }
  })
})
