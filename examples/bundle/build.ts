/**
 * The bundling recipe: one ES module file with the program, the library, `effect` and
 * `@effect/platform-node` inside; Node loads one file instead of a few hundred modules.
 *
 *   node examples/bundle/build.ts [outfile]     # default .tmp/bundle/program.mjs
 *
 * The settings that matter (see `docs/bundling.md`):
 * - `bundle: true`, `platform: "node"`, `format: "esm"`: Node's own modules (`node:*`) stay
 *   imports, everything else goes into the file;
 * - `mainFields: ["module", "main"]` and the packages' `exports` conditions (esbuild's default
 *   for `platform: "node"` plus `import`): the ES module builds of `effect`, tree-shaken;
 * - `minify: true`: a smaller file parses faster; `sourcemap: "linked"` keeps stack traces readable;
 * - `logOverride` silences `ignored-bare-import` (see the setting).
 */
import * as Path from "node:path"
import { build, type BuildOptions } from "esbuild"

/** The recipe's settings, for any entry point (the benchmark bundles an SDK program with them too). */
export const settings = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  mainFields: ["module", "main"],
  conditions: ["import"],
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  // This package (and `effect`) declare themselves free of side effects, so esbuild drops the
  // imports of their code-split chunks made for order alone, and warns of each: nothing to act on.
  logOverride: { "ignored-bare-import": "silent" }
} satisfies BuildOptions

export const bundle = (outfile: string, options: { readonly external?: ReadonlyArray<string> } = {}) =>
  build({
    ...settings,
    entryPoints: [Path.join(import.meta.dirname, "program.ts")],
    outfile,
    metafile: true,
    // The benchmark's "unbundled" variant leaves `effect` and `@effect/platform-node` to Node.
    external: [...(options.external ?? [])]
  })

const isMain = process.argv[1] !== undefined && Path.resolve(process.argv[1]) === Path.resolve(import.meta.filename)
if (isMain) {
  const outfile = Path.resolve(process.argv[2] ?? Path.join(import.meta.dirname, "../../.tmp/bundle/program.mjs"))
  const result = await bundle(outfile)
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
  process.stdout.write(`${outfile}: ${Object.keys(result.metafile.inputs).length} modules in, ${(bytes / 1024).toFixed(0)} KB out (with its source map)\n`)
}
