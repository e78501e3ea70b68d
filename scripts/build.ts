/**
 * `npm run build`: `dist/` as the package ships it. The declarations come from tsc, one `.d.ts` a
 * source file (`tsconfig.build.json`); the JavaScript from esbuild, each module of `src` in one
 * built file only (one class, one tag, whichever entries a program imports):
 *
 * - `chunks/core.js`: the core, every module that `Claude.ts` loads by static imports, as one
 *   file; it exports what each entry and each module read from outside the core exports, under
 *   names of their own (`ClaudeError$make`);
 * - `chunks/*.js`: everything else (the other entries, the modules a session loads on request with
 *   `import()`, and the chunks they share), reading a core module from `./core.js`;
 * - at each path the manifest names (`exports` and `bin`): the entry, re-exporting its module's
 *   names from `chunks/` (the build fails if they are not all the names the module exports); a
 *   barrel re-exports those entries.
 *
 * Why: Node's ES module loader pays for every file it loads (resolve, read, the package scope
 * lookup, compile). Built one file a module, `Claude.js` with `node.js` were 47 files; with one
 * chunk for each set of entries that shares code, 21; now 5 (`test/BuildLive.test.ts`), about
 * 10 ms less of every program's start-up (`npm run bench`, "Where start-up goes", times the
 * per-module build beside this one). A module that a session loads on request stays out of the
 * core, loaded when it is (`test/StartupLive.test.ts`).
 */
import { build, type BuildOptions, type Metafile, type OnResolveArgs, type OnResolveResult, type PluginBuild } from "esbuild"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"

// `--outdir D --js-only`: the same JavaScript elsewhere, without declarations (`npm run bench`).
const { values: args } = parseArgs({ options: { outdir: { type: "string" }, "js-only": { type: "boolean" } } })
const root = Path.resolve(import.meta.dirname, "..")
const outdir = Path.resolve(root, args.outdir ?? "dist")

interface Manifest {
  readonly exports: Record<string, { readonly default: string }>
  readonly bin: Record<string, string>
}
const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as Manifest

/** `./dist/testing/index.js` → `testing/index` (its source is `src/testing/index.ts`). */
const entryOf = (target: string) => Path.posix.relative("dist", target).replace(/\.js$/, "")
const entries = [...Object.values(manifest.exports).map((e) => e.default), ...Object.values(manifest.bin)].map(entryOf)

/**
 * A barrel (`index.ts`, `node.ts`, …: nothing but `export * as X from "./X.ts"`) is not bundled:
 * bundled, each namespace would be an object the chunk builds (`__export(X_exports, …)`), which a
 * program's bundler cannot drop, so every export of every module the barrel names would stay in
 * that program's bundle. Written as the same re-exports of the modules' own entries instead, the
 * namespaces are Node's, and a bundler sees through them.
 */
const reexport = /^export \* as \w+ from "(\.\/[\w/]+)\.ts"$/
/** The entry's re-export lines when it is a barrel, else undefined. */
const barrelLines = (entry: string): ReadonlyArray<string> | undefined => {
  const lines = Fs.readFileSync(Path.join(root, "src", `${entry}.ts`), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"))
  return lines.length > 0 && lines.every((line) => reexport.test(line)) ? lines : undefined
}
/** What a barrel's line re-exports, as an entry (`testing/FakeCli`). */
const targetOf = (barrel: string, line: string) => Path.posix.join(Path.posix.dirname(barrel), reexport.exec(line)![1]!)
const barrels = new Map(entries.flatMap((entry) => {
  const lines = barrelLines(entry)
  return lines === undefined ? [] : [[entry, lines] as const]
}))
const bundled = [
  ...new Set([
    ...entries.filter((entry) => !barrels.has(entry)),
    ...[...barrels].flatMap(([barrel, lines]) => lines.map((line) => targetOf(barrel, line)))
  ])
]

if (outdir === root || root.startsWith(outdir + Path.sep)) throw new Error(`--outdir ${outdir} would delete the repository`)
Fs.rmSync(outdir, { recursive: true, force: true })
if (args["js-only"] !== true) {
  const tsc = Path.join(root, "node_modules/typescript/bin/tsc")
  ChildProcess.execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", outdir, "--emitDeclarationOnly"], { cwd: root, stdio: "inherit" })
}

const common = {
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node22",
  // `effect`, the platform and every other package stay imports, resolved where the program runs.
  packages: "external",
  logLevel: "warning"
} satisfies BuildOptions
const shipped = {
  ...common,
  outdir,
  // Bundling renames the functions whose names collide (`open` is `open2` at run time); the source
  // maps map them back (`node --enable-source-maps`). `keepNames` would keep them at the cost of a
  // `__name(...)` call for every function, in every program that bundles the package too.
  sourcemap: true,
  // The sources ship (`files`); the maps point at them rather than copy them.
  sourcesContent: false
} satisfies BuildOptions

/** `src/Claude.ts` for the entry `Claude`. */
const sourceOf = (entry: string) => `src/${entry}.ts`
/** A source file's name in `chunks/`: `src/internal/lazy/hooks.ts` → `internal-lazy-hooks`. */
const chunkOf = (module: string) => module.replace(/^src\//, "").replace(/\.ts$/, "").replaceAll("/", "-")
/** The name under which `chunks/core.js` exports `name` of `module`: `ClaudeError$make`. */
const coreName = (module: string, name: string) => `${module.replace(/^src\//, "").replace(/\.ts$/, "").replace(/\W/g, "_")}$${name}`
/** The specifier that leads from the file `from` (relative to outdir) to `to`. */
const relative = (from: string, to: string) => {
  const path = Path.posix.relative(Path.posix.dirname(from), to)
  return path.startsWith(".") ? path : `./${path}`
}
/** A file esbuild resolved, as the metafile names it (`src/…`, relative to the root). */
const fromRoot = (path: string) => Path.relative(root, path).split(Path.sep).join("/")
/** `export { a as X$a, … } from "…"`: one line for each of `names`. */
const reexportLine = (names: ReadonlyArray<string>, rename: (name: string) => readonly [string, string], from: string) =>
  `export { ${names.map((name) => [...new Set(rename(name))].join(" as ")).join(", ")} } from ${JSON.stringify(from)}\n`
/** The exports of each entry point of a build's metafile. */
const exportsByEntry = (metafile: Metafile) =>
  new Map(Object.values(metafile.outputs).flatMap((o) => o.entryPoint === undefined ? [] : [[o.entryPoint, o.exports] as const]))
/**
 * Runs `route` on the file a relative import resolves to, as esbuild resolves it (`./X.js` is
 * `src/X.ts` too), so that a module is told apart by what it is, not by how an import spells it.
 */
const onRelativeImport = (
  build_: PluginBuild,
  namespace: string,
  route: (module: string, args: OnResolveArgs) => OnResolveResult | undefined
) =>
  build_.onResolve({ filter: /^\./, namespace }, async (args) => {
    if (args.pluginData === "resolving") return undefined
    const { path, errors } = await build_.resolve(args.path, {
      kind: args.kind,
      importer: args.importer,
      resolveDir: args.resolveDir,
      pluginData: "resolving"
    })
    return errors.length > 0 ? undefined : route(fromRoot(path), args)
  })

// 1. The core: every module that `Claude.ts` loads by static imports, and the library's modules
//    that one of them loads on request (`import()`). Not `ClaudeNode.ts`: it imports
//    `@effect/platform-node`, an optional peer that the main entry and `testing` must not load.
const graph = await build({
  ...common,
  entryPoints: bundled.map(sourceOf),
  outdir,
  write: false,
  splitting: true,
  metafile: true
})
const { inputs } = graph.metafile
/** What each entry exports, bundled as one file an entry: what the built package must export too. */
const expected = exportsByEntry(graph.metafile)
const core = new Set<string>()
const onRequest = new Set<string>()
const reach = (module: string): void => {
  if (core.has(module)) return
  const input = inputs[module]
  if (input === undefined) throw new Error(`the core's module ${module} is not in the build`)
  core.add(module)
  for (const dependency of input.imports) {
    if (dependency.external) continue
    if (dependency.kind === "import-statement") reach(dependency.path)
    else if (dependency.kind === "dynamic-import") onRequest.add(dependency.path)
  }
}
reach("src/Claude.ts")
for (const module of core) onRequest.delete(module)

// What the core exports: each public entry's exports, and those of each core module that a module
// outside the core imports.
const importedFromOutside = new Set(
  Object.entries(inputs).flatMap(([module, input]) =>
    core.has(module) ? [] : input.imports.filter((i) => !i.external && core.has(i.path)).map((i) => i.path)
  )
)
/** The source of each entry the manifest names (`src/Claude.ts`, …). */
const entryModules = new Set(bundled.map(sourceOf))
const exported = [...core].filter((module) => importedFromOutside.has(module) || entryModules.has(module))
const exportsOf = exportsByEntry((await build({ ...common, entryPoints: exported, outdir, write: false, splitting: true, metafile: true })).metafile)
const namesOf = (module: string): ReadonlyArray<string> => {
  const names = exportsOf.get(module)
  if (names === undefined) throw new Error(`no exports known for ${module}`)
  return names
}

// The files of `chunks/` named after modules: one each, and none is the core's.
const outside = [...new Set([...[...entryModules].filter((module) => !core.has(module)), ...onRequest])]
const chunkNames = outside.map((module) => chunkOf(module).toLowerCase())
if (new Set(chunkNames).size !== chunkNames.length || chunkNames.includes("core")) {
  throw new Error(`two modules would have one file in chunks/ (or the core's): ${outside.join(", ")}`)
}

// 2. `chunks/core.js`: the core as one file. Its `import()` of a module outside it stays an import,
//    of that module's file in `chunks/` (step 3).
await build({
  ...shipped,
  entryPoints: [{ in: "ecc:core", out: "chunks/core" }],
  plugins: [{
    name: "core",
    setup: (build_) => {
      build_.onResolve({ filter: /^ecc:core$/ }, () => ({ path: "core", namespace: "ecc" }))
      build_.onLoad({ filter: /^core$/, namespace: "ecc" }, () => ({
        resolveDir: root,
        loader: "js",
        contents: exported.map((module) => reexportLine(namesOf(module), (name) => [name, coreName(module, name)], `./${module}`)).join("")
      }))
      onRelativeImport(build_, "file", (module, args) => {
        if (core.has(module)) return undefined
        if (args.kind !== "dynamic-import") throw new Error(`${args.importer} imports ${module} statically, outside the core`)
        return { path: `./${chunkOf(module)}.js`, external: true }
      })
    }
  }]
})

// 3. Everything else, in `chunks/` (so that `./core.js` is the core from any of its files): the
//    entries outside the core and the modules the core loads on request, sharing chunks as they
//    need. A module of the core is read from `chunks/core.js`, under its names there: each import
//    of it is a module of its own (`suffix`), so that no chunk is left that only re-exports it.
const rest = await build({
  ...shipped,
  entryPoints: outside.map((module) => ({ in: module, out: `chunks/${chunkOf(module)}` })),
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  metafile: true,
  plugins: [{
    name: "core-from-its-file",
    setup: (build_) => {
      onRelativeImport(build_, "file", (module, args) =>
        core.has(module) ? { path: module, namespace: "ecc-core", suffix: `?from=${fromRoot(args.importer)}` } : undefined)
      build_.onLoad({ filter: /.*/, namespace: "ecc-core" }, (args) => ({
        resolveDir: root,
        loader: "js",
        contents: reexportLine(namesOf(args.path), (name) => [coreName(args.path, name), name], "./core.js")
      }))
      build_.onResolve({ filter: /^\.\/core\.js$/, namespace: "ecc-core" }, () => ({ path: "./core.js", external: true }))
    }
  }]
})
const restExports = exportsByEntry(rest.metafile)

// 4. The files the manifest names: each entry re-exports its module's names from `chunks/` (the
//    core's under their own names), and each barrel is the re-exports it is, of those entries.
for (const entry of bundled) {
  const file = `${entry}.js`
  const module = sourceOf(entry)
  const names = core.has(module) ? namesOf(module) : restExports.get(module) ?? []
  const body = core.has(module)
    ? reexportLine(names, (name) => [coreName(module, name), name], relative(file, "chunks/core.js"))
    : names.length === 0
    ? `import ${JSON.stringify(relative(file, `chunks/${chunkOf(module)}.js`))}\n`
    : reexportLine(names, (name) => [name, name], relative(file, `chunks/${chunkOf(module)}.js`))
  const source = Fs.readFileSync(Path.join(root, module), "utf8")
  const shebang = source.startsWith("#!") ? `${source.slice(0, source.indexOf("\n"))}\n` : ""
  Fs.mkdirSync(Path.join(outdir, Path.dirname(file)), { recursive: true })
  // A file with a shebang is a command (`bin`): `npx` in a clone runs it as it is, so executable.
  Fs.writeFileSync(Path.join(outdir, file), shebang + body)
  if (shebang !== "") Fs.chmodSync(Path.join(outdir, file), 0o755)
}
for (const [barrel, lines] of barrels) {
  Fs.writeFileSync(Path.join(outdir, `${barrel}.js`), lines.map((line) => line.replace(/\.ts"$/, ".js\"")).join("\n") + "\n")
}

// 5. What Node sees: each entry exports what its module, bundled alone, does. A name esbuild could
//    not follow across the core's file (one that two modules re-export through `export *`, say)
//    would be missing without a word, and the metafile would still list it.
const check = [
  `const out = {}`,
  ...bundled.filter((entry) => (expected.get(sourceOf(entry)) ?? []).length > 0).map((entry) =>
    `out[${JSON.stringify(entry)}] = Object.keys(await import(${JSON.stringify(pathToFileURL(Path.join(outdir, `${entry}.js`)).href)})).sort()`
  ),
  `process.stdout.write(JSON.stringify(out))`
].join("\n")
const seen = JSON.parse(
  ChildProcess.execFileSync(process.execPath, ["--input-type=module", "-e", check], { cwd: root, encoding: "utf8" })
) as Record<string, ReadonlyArray<string>>
for (const [entry, names] of Object.entries(seen)) {
  const want = [...expected.get(sourceOf(entry)) ?? []].sort()
  if (JSON.stringify(names) !== JSON.stringify(want)) {
    throw new Error(`the built ${entry}.js exports ${names.join(", ")}; src/${entry}.ts exports ${want.join(", ")}`)
  }
}
