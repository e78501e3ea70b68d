/**
 * What Node loads, seen by a load hook in a fresh `node` process: `StartupLive.test.ts` (the
 * sources, and the package as built) and `BuildLive.test.ts` (the package as built).
 */
import * as NodeChildProcess from "node:child_process"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const root = Path.resolve(import.meta.dirname, "../..")

/**
 * What Node loads (URLs, or `node:` builtins) to import each of `files` (absolute paths) in turn, in
 * one fresh process, seen by a load hook.
 */
export const loadedBy = (files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const script = [
    `import * as Module from "node:module"`,
    `const loaded = []`,
    `Module.registerHooks({ load: (url, context, next) => { loaded.push(url); return next(url, context) } })`,
    ...files.map((file) => `await import(${JSON.stringify(pathToFileURL(file).href)})`),
    `process.stdout.write(JSON.stringify(loaded))`
  ].join("\n")
  const out = NodeChildProcess.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" }
  })
  return JSON.parse(out) as ReadonlyArray<string>
}
