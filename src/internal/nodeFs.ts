/**
 * `node:fs` for the core's few synchronous calls (looking up the executable, the sweep of what a
 * CLI left behind), taken as Node's own module object, not through an ES import.
 *
 * Why: the ES module Node makes for `node:fs` reads every export of it once, the lazy ones too
 * (`ReadStream`, `promises`), which loads the file streams, `fs/promises`, readline and more:
 * about 2 ms of the start-up of every program that imports the library and not `node:fs`
 * (1.7-2.4 ms to import `node:fs` alone after Effect's modules, by hand; `npm run bench`, "Where
 * start-up goes", times the library's import).
 */
import type * as NodeFs from "node:fs"

export const Fs: typeof NodeFs = process.getBuiltinModule("node:fs")
