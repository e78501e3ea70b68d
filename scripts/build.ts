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

/** `./dist/testing/index.js` → `{ in: "src/testing/index.ts", out: "testing/index" }`. */
const entry = (target: string) => {
  const out = Path.posix.relative("dist", target).replace(/\.js$/, "")
  return { in: Path.join(root, "src", `${out}.ts`), out }
}
const entryPoints = [...Object.values(manifest.exports).map((e) => e.default), ...Object.values(manifest.bin)].map(entry)

Fs.rmSync(outdir, { recursive: true, force: true })
if (args["js-only"] !== true) {
  const tsc = Path.join(root, "node_modules/typescript/bin/tsc")
  ChildProcess.execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", outdir, "--emitDeclarationOnly"], { cwd: root, stdio: "inherit" })
}
await build({
  entryPoints,
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  // `effect`, the platform and every other package stay imports, resolved where the program runs.
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  // The sources ship (`files`); the maps point at them rather than copy them.
  sourcesContent: false,
  logLevel: "warning"
})
