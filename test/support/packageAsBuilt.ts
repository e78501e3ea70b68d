/**
 * An esbuild plugin for bundling a program of this repository as a program that installed the
 * package would be bundled: its imports of the library's sources (`src/*.ts`) resolve to the files
 * of the package as built (`scripts/build.ts`) in `dist`. Used by `test/BundleLive.test.ts` and by
 * `npm run bench`'s bundled programs.
 */
import * as Path from "node:path"
import type { Plugin } from "esbuild"

export const packageAsBuilt = (dist: string): Plugin => ({
  name: "package-as-built",
  setup: (build) => {
    build.onResolve({ filter: /(^|\/)src\/[\w/]+\.ts$/ }, (args) => ({
      path: Path.join(dist, args.path.replace(/^.*src\//, "").replace(/\.ts$/, ".js"))
    }))
  }
})
