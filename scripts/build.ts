/**
 * `npm run build`: `dist/` as the package ships it. The declarations come from tsc, one `.d.ts` a
 * source file (`tsconfig.build.json`); the JavaScript from esbuild, each module of `src` in one
 * built file only (one class, one tag, whichever entries a program imports):
 *
 * - `chunks/core.js`: the core, every module that `Claude.ts` and `ClaudeNode.ts` load by static
 *   imports, as one file, each module's exports under names of its own (`internal_turns$make`);
 * - `chunks/*.js`: everything else (the other entries, the modules a session loads on request with
 *   `import()`, and the chunks they share), reading a core module from `./core.js`;
 * - at each path the manifest names (`exports` and `bin`): the entry, re-exporting its module from
 *   `chunks/` under its own names; a barrel re-exports those entries.
 *
 * Why: Node's ES module loader pays for every file it loads (resolve, read, the package scope
 * lookup, compile). Built one file a module, `Claude.js` with `node.js` were 47 files; with one
 * chunk for each set of entries that shares code, 21; now 4 (`test/BuildLive.test.ts`), about
 * 10 ms less of every program's start-up (`npm run bench`, "Where start-up goes", times the
 * per-module build beside this one). A module that a session loads on request stays out of the
 * core, loaded when it is (`test/StartupLive.test.ts`).
 */
import { build, type BuildOptions, type OnResolveArgs } from "esbuild"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
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
/** The name under which `chunks/core.js` exports `name` of `module`: `internal_turns$make`. */
const coreName = (module: string, name: string) => `${module.replace(/^src\//, "").replace(/\.ts$/, "").replace(/\W/g, "_")}$${name}`
/** The specifier that leads from the file `from` (relative to outdir) to `to`. */
const relative = (from: string, to: string) => {
  const path = Path.posix.relative(Path.posix.dirname(from), to)
  return path.startsWith(".") ? path : `./${path}`
}
/** A relative import's source file (`src/…`), as the metafile names it. */
const resolved = (args: OnResolveArgs) => Path.relative(root, Path.resolve(args.resolveDir, args.path)).split(Path.sep).join("/")

// 1. The core: every module that `Claude.ts` and `ClaudeNode.ts` load by static imports, and the
//    library's modules that one of them loads on request (`import()`).
const graph = await build({
  ...common,
  entryPoints: bundled.map(sourceOf),
  outdir,
  write: false,
  splitting: true,
  metafile: true
})
const { inputs } = graph.metafile
const core = new Set<string>()
const onRequest = new Set<string>()
const reach = (module: string): void => {
  if (core.has(module)) return
  core.add(module)
  for (const dependency of inputs[module]?.imports ?? []) {
    if (dependency.external) continue
    if (dependency.kind === "import-statement") reach(dependency.path)
    else if (dependency.kind === "dynamic-import") onRequest.add(dependency.path)
  }
}
reach("src/Claude.ts")
reach("src/ClaudeNode.ts")
for (const module of core) onRequest.delete(module)

// What the core exports: each public entry's exports, and those of each core module that a module
// outside the core imports.
const importedFromOutside = new Set(
  Object.entries(inputs).flatMap(([module, input]) =>
    core.has(module) ? [] : input.imports.filter((i) => !i.external && core.has(i.path)).map((i) => i.path)
  )
)
const exported = [...core].filter((module) => importedFromOutside.has(module) || bundled.some((entry) => sourceOf(entry) === module))
const exportsOf = new Map<string, ReadonlyArray<string>>()
for (const output of Object.values((await build({ ...common, entryPoints: exported, outdir, write: false, splitting: true, metafile: true })).metafile.outputs)) {
  if (output.entryPoint !== undefined) exportsOf.set(output.entryPoint, output.exports)
}
const namesOf = (module: string): ReadonlyArray<string> => {
  const names = exportsOf.get(module)
  if (names === undefined) throw new Error(`no exports known for ${module}`)
  return names
}
/** `export { a as X$a, … } from "…"`: one line for each of `names`. */
const reexportLine = (names: ReadonlyArray<string>, rename: (name: string) => readonly [string, string], from: string) =>
  `export { ${names.map((name) => rename(name).join(" as ")).join(", ")} } from ${JSON.stringify(from)}\n`

// 2. `chunks/core.js`: the core as one file. Its `import()` of a module outside it stays an import,
//    of that module's file in `chunks/` (step 3).
await build({
  ...shipped,
  entryPoints: [{ in: "ecc:core", out: "chunks/core" }],
  plugins: [{
    name: "core",
    setup: (core_) => {
      core_.onResolve({ filter: /^ecc:core$/ }, () => ({ path: "core", namespace: "ecc" }))
      core_.onLoad({ filter: /^core$/, namespace: "ecc" }, () => ({
        resolveDir: root,
        loader: "js",
        contents: exported.map((module) => reexportLine(namesOf(module), (name) => [name, coreName(module, name)], `./${module}`)).join("")
      }))
      core_.onResolve({ filter: /^\./ }, (args) => {
        const module = resolved(args)
        if (core.has(module)) return undefined
        if (args.kind !== "dynamic-import") throw new Error(`${args.importer} imports ${module} statically, outside the core`)
        return { path: `./${chunkOf(module)}.js`, external: true }
      })
    }
  }]
})

// 3. Everything else, in `chunks/` (so that `./core.js` is the core from any of its files): the
//    entries outside the core and the modules the core loads on request, sharing chunks as they
//    need. A module of the core is read from `chunks/core.js`, under its name there.
const outside = [...new Set([...bundled.map(sourceOf).filter((module) => !core.has(module)), ...onRequest])]
await build({
  ...shipped,
  entryPoints: outside.map((module) => ({ in: module, out: `chunks/${chunkOf(module)}` })),
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  plugins: [{
    name: "core-from-its-chunk",
    setup: (outside_) => {
      outside_.onResolve({ filter: /^\./, namespace: "file" }, (args) => {
        const module = resolved(args)
        return core.has(module) ? { path: module, namespace: "ecc-core" } : undefined
      })
      outside_.onLoad({ filter: /.*/, namespace: "ecc-core" }, (args) => ({
        resolveDir: root,
        loader: "js",
        contents: reexportLine(namesOf(args.path), (name) => [coreName(args.path, name), name], "./core.js")
      }))
      outside_.onResolve({ filter: /^\.\/core\.js$/, namespace: "ecc-core" }, () => ({ path: "./core.js", external: true }))
    }
  }]
})

// 4. The files the manifest names: each entry re-exports its module from `chunks/` (the core's
//    under their own names), and each barrel is the re-exports it is, of those entries.
for (const entry of bundled) {
  const file = `${entry}.js`
  const module = sourceOf(entry)
  const body = core.has(module)
    ? reexportLine(namesOf(module), (name) => [coreName(module, name), name], relative(file, "chunks/core.js"))
    : `export * from ${JSON.stringify(relative(file, `chunks/${chunkOf(module)}.js`))}\n`
  Fs.mkdirSync(Path.join(outdir, Path.dirname(file)), { recursive: true })
  const shebang = Fs.readFileSync(Path.join(root, module), "utf8").startsWith("#!") ? "#!/usr/bin/env node\n" : ""
  Fs.writeFileSync(Path.join(outdir, file), shebang + body)
}
for (const [barrel, lines] of barrels) {
  Fs.writeFileSync(Path.join(outdir, `${barrel}.js`), lines.map((line) => line.replace(/\.ts"$/, ".js\"")).join("\n") + "\n")
}
