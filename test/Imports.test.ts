/**
 * Start-up hygiene: the library imports Effect module by module, never through a barrel
 * (`effect`, `effect/encoding`, `@effect/platform-node`, …). A barrel loads every module of its
 * folder: `effect/encoding` alone pulled in Xml, Zip, Tar, Csv, Yaml and SchemaBinary, 14 ms of
 * start-up for one `Base64.encode` (BENCHMARKS.md, "Where start-up goes").
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Index from "../src/index.ts"
import * as NodeEntry from "../src/node.ts"
import * as Testing from "../src/testing/index.ts"
import { loadedOnRequest, packagesOnRequest } from "./support/startup.ts"

const root = Path.resolve(import.meta.dirname, "..")

/** The specifiers of a package whose export is a folder's index: its barrels. */
const barrelsOf = (pkg: string): Set<string> => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "node_modules", pkg, "package.json"), "utf8")) as {
    readonly exports: Record<string, unknown>
  }
  const barrels = new Set<string>()
  for (const [key, target] of Object.entries(manifest.exports)) {
    const file = typeof target === "string" ? target : JSON.stringify(target)
    if (/index\.js/.test(file) && !key.includes("*")) barrels.add(key === "." ? pkg : `${pkg}/${key.slice(2)}`)
  }
  return barrels
}

const sourceFiles = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : []
  })

describe("imports", () => {
  it("the library's modules import no barrel of effect or @effect/platform-node", () => {
    const barrels = new Set([...barrelsOf("effect"), ...barrelsOf("@effect/platform-node")])
    // The check itself: it knows the barrels it guards against.
    assert.isTrue(barrels.has("effect") && barrels.has("effect/encoding") && barrels.has("@effect/platform-node"))
    const found: Array<string> = []
    for (const file of sourceFiles(Path.join(root, "src"))) {
      const text = Fs.readFileSync(file, "utf8")
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (barrels.has(match[1]!)) found.push(`${Path.relative(root, file)}: ${match[1]}`)
      }
    }
    assert.deepStrictEqual(found, [])
  })
})

describe("layering", () => {
  it("no internal or protocol module imports the public facade (Claude.ts)", () => {
    const found: Array<string> = []
    const files = [...sourceFiles(Path.join(root, "src/internal")), ...sourceFiles(Path.join(root, "src/protocol"))]
    assert.isTrue(files.length > 10)
    for (const file of files) {
      const text = Fs.readFileSync(file, "utf8")
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (/(^|\/)Claude\.ts$/.test(match[1]!)) found.push(`${Path.relative(root, file)}: ${match[1]}`)
      }
    }
    assert.deepStrictEqual(found, [])
  })
})

/** The specifiers a module imports, comments (and the examples in them) left out. */
const importsOf = (file: string): Array<string> => {
  const code = Fs.readFileSync(file, "utf8").split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n")
  return [...code.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!)
}

/** Every package specifier an entry reaches through its relative imports, with the module importing it. */
const packagesReachedFrom = (entry: string): Array<string> => {
  const seen = new Set<string>()
  const found: Array<string> = []
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith(".")) visit(Path.resolve(Path.dirname(file), specifier))
      else found.push(`${Path.relative(root, file)}: ${specifier}`)
    }
  }
  visit(Path.join(root, entry))
  assert.isTrue(seen.size > 1, `${entry} reaches modules`)
  return found
}

describe("entries' dependencies", () => {
  it("the package's export map names the entries (., ./node, ./testing, ./sql, ./pg, ./ai, ./cluster) and each public module of the main entry (./Claude, ./Hooks, …), no internal module", () => {
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as {
      readonly exports: Record<string, { readonly types: string; readonly default: string }>
    }
    // A program imports the modules it uses (`effect-claude-code/Claude`), as it does Effect's
    // (`effect/Effect`): the main entry loads every module, which costs start-up.
    const modules = [...Fs.readFileSync(Path.join(root, "src/index.ts"), "utf8").matchAll(/^export \* as (\w+) from "\.\/(\w+)\.ts"$/gm)]
      .map((m) => m[2]!)
    assert.isAbove(modules.length, 20)
    const entries = [[".", "index"], ["./node", "node"], ["./testing", "testing/index"], ["./sql", "sql"], ["./pg", "pg"], ["./ai", "ai"], ["./cluster", "cluster"], ...modules.map((name) => [`./${name}`, name] as const)] as const
    assert.deepStrictEqual(Object.keys(manifest.exports).sort(), entries.map(([entry]) => entry).sort())
    for (const [entry, source] of entries) {
      assert.deepStrictEqual(manifest.exports[entry], { types: `./dist/${source}.d.ts`, default: `./dist/${source}.js` })
      assert.isTrue(Fs.existsSync(Path.join(root, "src", `${source}.ts`)), source)
    }
  })

  // AiError is allowed beside them: Tool and Toolkit import it themselves (McpServers' toolkit
  // reports a result that cannot be encoded as one).
  it("only ./ai loads effect/ai's LanguageModel (the heavy one); the main entry reaches Tool, Toolkit and their AiError only", () => {
    for (const entry of ["src/index.ts", "src/testing/index.ts", "src/node.ts", "src/sql.ts", "src/pg.ts"]) {
      const ai = packagesReachedFrom(entry).filter((line) => line.includes("effect/ai/")).map((line) => line.split(": ")[1])
      assert.deepStrictEqual([...new Set(ai)].sort(), entry === "src/testing/index.ts" || entry === "src/index.ts" || entry === "src/node.ts" ? ["effect/ai/AiError", "effect/ai/Tool", "effect/ai/Toolkit"] : [...new Set(ai)].sort(), entry)
      assert.notInclude(ai, "effect/ai/LanguageModel", entry)
    }
    assert.include(packagesReachedFrom("src/ai.ts").join("\n"), "effect/ai/LanguageModel")
  })

  it("the main entry and ./testing never import @effect/platform-node (an optional peer); ./node does", () => {
    for (const entry of ["src/index.ts", "src/testing/index.ts"]) {
      assert.deepStrictEqual(packagesReachedFrom(entry).filter((line) => line.includes("@effect/platform-node")), [], entry)
    }
    // The check itself: it sees the import of the ./node entry.
    assert.deepStrictEqual(
      packagesReachedFrom("src/node.ts").filter((line) => line.includes("@effect/platform-node")),
      ["src/ClaudeNode.ts: @effect/platform-node/NodeRuntime", "src/ClaudeNode.ts: @effect/platform-node/NodeServices"]
    )
  })

  it("only ./pg imports @effect/sql-pg (an optional peer), and only ./sql and ./pg reach a database client", () => {
    for (const entry of ["src/index.ts", "src/testing/index.ts", "src/node.ts", "src/sql.ts", "src/cluster.ts"]) {
      assert.deepStrictEqual(packagesReachedFrom(entry).filter((line) => line.includes("@effect/sql-pg")), [], entry)
    }
    for (const entry of ["src/index.ts", "src/testing/index.ts", "src/node.ts"]) {
      assert.deepStrictEqual(
        packagesReachedFrom(entry).filter((line) => /node:sqlite|effect\/sql\//.test(line)),
        [],
        entry
      )
    }
    assert.include(packagesReachedFrom("src/pg.ts").join("\n"), "@effect/sql-pg/PgClient")
    assert.include(packagesReachedFrom("src/sql.ts").join("\n"), "node:sqlite")
  })
})

describe("examples", () => {
  it("the examples and the README's code import modules, never a barrel of effect, @effect/platform-node or this library", () => {
    // This library's main entry is a barrel too: `effect-claude-code/Claude`, not `effect-claude-code`
    // (in the examples, `src/Claude.ts`, not `src/index.ts`).
    const isBarrel = (specifier: string) => barrels.has(specifier) || specifier === "effect-claude-code" || /(^|\/)src\/index\.ts$/.test(specifier)
    const barrels = new Set([...barrelsOf("effect"), ...barrelsOf("@effect/platform-node")])
    const examples = sourceFiles(Path.join(root, "examples")).map((file) => ({ file, text: Fs.readFileSync(file, "utf8") }))
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const blocks = [...readme.matchAll(/```ts\n([^]*?)```/g)].map((m, i) => ({ file: `README.md block ${i + 1}`, text: m[1]! }))
    assert.isTrue(examples.length > 5 && blocks.length > 0)
    const found: Array<string> = []
    for (const { file, text } of [...examples, ...blocks]) {
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (isBarrel(match[1]!)) found.push(`${Path.relative(root, file)}: ${match[1]}`)
      }
    }
    assert.deepStrictEqual(found, [])
  })
})

describe("entries", () => {
  it("every public module is exported as a namespace (`export * as X`), never as a class", () => {
    const text = ["src/index.ts", "src/testing/index.ts", "src/node.ts"]
      .map((entry) => Fs.readFileSync(Path.join(root, entry), "utf8"))
      .join("\n")
    const exports = [...text.matchAll(/^export .*$/gm)].map((m) => m[0])
    assert.isTrue(exports.length > 10)
    assert.deepStrictEqual(exports.filter((line) => !/^export \* as \w+ from "\.\/\w+\.ts"$/.test(line)), [])
    for (const [name, value] of [...Object.entries(Index), ...Object.entries(Testing), ...Object.entries(NodeEntry)]) {
      assert.strictEqual(typeof value, "object", `${name} is a module namespace`)
    }
  })

  it("a service module holds its tag (Hooks.Hooks) and its operations at module level; the class has no statics", () => {
    const services = [
      [Index.Hooks.Hooks, Index.Hooks, ["layer", "on", "register", "merge", "mergeLayers", "bind", "allow", "deny"]],
      [Index.Permissions.Permissions, Index.Permissions, ["layer", "fromHandler", "bind", "allow", "deny", "toWire"]],
      [Index.McpServers.McpServers, Index.McpServers, ["layer", "tool", "server", "mergeLayers", "connect"]],
      [Index.ClaudeSession.ClaudeSession, Index.ClaudeSession, ["layer", "layerConfig", "make"]]
    ] as const
    for (const [tag, module, operations] of services) {
      for (const operation of operations) {
        assert.strictEqual(typeof (module as Record<string, unknown>)[operation], "function", operation)
        assert.isFalse(Object.hasOwn(tag, operation), `${tag.key}.${operation} is not a static`)
      }
    }
    // Types and values are reached the same way (this file is type-checked).
    const denied: Index.Hooks.HookOutput<"PreToolUse"> = Index.Hooks.deny("not here")
    const allowed: Index.Permissions.PermissionResult = Index.Permissions.allow()
    assert.strictEqual(denied.hookSpecificOutput?.permissionDecision, "deny")
    assert.strictEqual(allowed.behavior, "allow")
  })
})

/**
 * What Node loads when a module is imported: its static `import`/`export … from` (an `import type`
 * is erased; with `verbatimModuleSyntax` an `import { type A }` is kept, so it counts), never the
 * `import()` calls, which run only when the code that holds them does.
 */
const staticImportsOf = (file: string): Array<string> => {
  const code = Fs.readFileSync(file, "utf8").split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n")
  return [...code.matchAll(/(?:^|\n)(?:import|export)(\s+type)?\s+([\w\s{},*$]*?)\s*from\s*"([^"]+)"|(?:^|\n)import\s+"([^"]+)"/g)]
    .filter((m) => m[1] === undefined)
    .map((m) => m[3] ?? m[4]!)
}

/** Every module (relative to the root) and package specifier a module's import loads. */
const loadedAtImport = (entry: string): Set<string> => {
  const seen = new Set<string>()
  const visit = (file: string) => {
    const name = Path.relative(root, file)
    if (seen.has(name)) return
    seen.add(name)
    for (const specifier of staticImportsOf(file)) {
      if (specifier.startsWith(".")) visit(Path.resolve(Path.dirname(file), specifier))
      else seen.add(specifier)
    }
  }
  visit(Path.join(root, entry))
  return seen
}

describe("own barrels", () => {
  // A barrel of this library (`export * from`, `export * as`: Protocol.ts, index.ts, …) is for
  // programs. Inside the library, a value taken through one breaks a program bundled with esbuild:
  // with `sideEffects: false` esbuild drops the barrel, and with it the call that initializes a
  // module it re-exports when that module is also loaded by `import()` (esbuild issues 1490, 3357).
  // The node entry's `layerSessions` loads Sessions.ts so: `Protocol.userTurn` was `undefined` in
  // the bundle.
  it("the library's modules take no value through one of its own barrels (types only)", () => {
    const files = sourceFiles(Path.join(root, "src"))
    const barrels = new Set(files.filter((file) => /^export \* (as \w+ )?from /m.test(Fs.readFileSync(file, "utf8"))))
    assert.isTrue(barrels.has(Path.join(root, "src/Protocol.ts")) && barrels.has(Path.join(root, "src/index.ts")))
    const found: Array<string> = []
    for (const file of files) {
      if (barrels.has(file)) continue
      for (const specifier of staticImportsOf(file)) {
        if (specifier.startsWith(".") && barrels.has(Path.resolve(Path.dirname(file), specifier))) {
          found.push(`${Path.relative(root, file)}: ${specifier}`)
        }
      }
    }
    assert.deepStrictEqual(found, [])
  })
})

describe("start-up", () => {
  it("importing Claude.ts loads none of the modules a session needs only on request, nor effect/ai, nor the schema JIT compiler", () => {
    const loaded = loadedAtImport("src/Claude.ts")
    // The walk itself: it follows static imports (the tags' module, the options' check, the launch)…
    for (const module of ["src/internal/services.ts", "src/internal/sessionOptionsCheck.ts", "src/Launch.ts", "effect/Effect"]) {
      assert.isTrue(loaded.has(module), module)
    }
    // …and sees the modules on request where they are imported statically.
    assert.isTrue(loadedAtImport("src/McpServers.ts").has("effect/ai/Tool"))
    assert.isTrue(loadedAtImport("src/Hooks.ts").has("src/HookEvents.ts"))
    assert.isTrue(loadedAtImport("src/internal/sessionEngine.ts").has("src/internal/reader.ts"))
    assert.deepStrictEqual(loadedOnRequest.filter((module) => loaded.has(module)), [])
    assert.deepStrictEqual([...loaded].filter((module) => packagesOnRequest.test(module)), [])
    // The node entry too (its `layerSessions` loads the sessions on disk when it is built).
    const nodeEntry = loadedAtImport("src/node.ts")
    assert.isTrue(nodeEntry.has("src/ClaudeNode.ts"))
    assert.deepStrictEqual(loadedOnRequest.filter((module) => nodeEntry.has(module)), [])
    assert.deepStrictEqual([...nodeEntry].filter((module) => packagesOnRequest.test(module)), [])
    // The list names modules that exist (a renamed one must be renamed there too).
    for (const module of loadedOnRequest) assert.isTrue(Fs.existsSync(Path.join(root, module)), module)
  })
})
