/**
 * `npm run build`: `dist/` as the package ships it. The declarations come from tsc, one `.d.ts` a
 * source file (`tsconfig.build.json`); the JavaScript from esbuild, one file an entry of
 * `package.json` (`exports` and `bin`) at the path the manifest names, with code that entries share
 * in `dist/chunks/`, so a module exists once however many entries load it (one class, one tag).
 *
 * Why not tsc's one file a module: Node's ES module loader pays for every file it loads (resolve,
 * read, the package scope lookup, compile), and `Claude.js` with `node.js` were 47 files, 23 as
 * entries and chunks; `npm run bench` ("Where start-up goes") times both imports side by side. A
 * module that a session loads on request (`import()`) stays in chunks of its own, loaded on request
 * (`test/StartupLive.test.ts`).
 */
import { build } from "esbuild"
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
await build({
  entryPoints: bundled.map((entry) => ({ in: Path.join(root, "src", `${entry}.ts`), out: entry })),
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  // `effect`, the platform and every other package stay imports, resolved where the program runs.
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  // Bundling renames the functions whose names collide (`open` is `open2` at run time); the source
  // maps map them back (`node --enable-source-maps`). `keepNames` would keep them at the cost of a
  // `__name(...)` call for every function, in every program that bundles the package too.
  sourcemap: true,
  // The sources ship (`files`); the maps point at them rather than copy them.
  sourcesContent: false,
  logLevel: "warning"
})
// Each barrel as the re-exports it is, of the entries built for its modules.
for (const [barrel, lines] of barrels) {
  Fs.writeFileSync(Path.join(outdir, `${barrel}.js`), lines.map((line) => line.replace(/\.ts"$/, ".js\"")).join("\n") + "\n")
}
