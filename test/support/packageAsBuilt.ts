/**
 * The package as built (`scripts/build.ts`), for tests and benchmarks that use it as a program that
 * installed it would: {@link buildPackage} builds it, {@link packageAsBuilt} bundles against it.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type { Plugin } from "esbuild"

const root = Path.resolve(import.meta.dirname, "../..")

/**
 * Builds the package's JavaScript into a fresh directory `.tmp/<prefix>…` inside the repository (so
 * that its imports of `effect` resolve as in an installed package) and returns it; the caller
 * removes it.
 */
export const buildPackage = (prefix: string): string => {
  Fs.mkdirSync(Path.join(root, ".tmp"), { recursive: true })
  const dir = Fs.mkdtempSync(Path.join(root, ".tmp", prefix))
  ChildProcess.execFileSync(process.execPath, [Path.join(root, "scripts/build.ts"), "--outdir", dir, "--js-only"], { cwd: root })
  return dir
}

/**
 * An esbuild plugin for bundling a program of this repository as a program that installed the
 * package would be bundled: its imports of the library's sources (`src/*.ts`) resolve to the files
 * of the package as built in `dist`. Used by `test/BundleLive.test.ts` and by `npm run bench`'s
 * bundled programs.
 */
export const packageAsBuilt = (dist: string): Plugin => ({
  name: "package-as-built",
  setup: (build) => {
    build.onResolve({ filter: /(^|\/)src\/[\w/]+\.ts$/ }, (args) => ({
      path: Path.join(dist, args.path.replace(/^.*src\//, "").replace(/\.ts$/, ".js"))
    }))
  }
})
