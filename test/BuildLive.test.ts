/**
 * The package as built (`scripts/build.ts`): what `Claude.ts` loads statically (the core) is one
 * file, `chunks/core.js`, and every module of `src` is in one built file only (one class, one tag,
 * whichever entries a program imports). Not timed: the times are `npm run bench`'s ("Where start-up
 * goes").
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { buildPackage } from "./support/packageAsBuilt.ts"
import { loadedBy as loadedByFiles } from "./support/loadProbe.ts"
import { loadedAfterSpawn } from "./support/startup.ts"

const root = Path.resolve(import.meta.dirname, "..")
const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as {
  readonly exports: Record<string, { readonly default: string }>
  readonly bin: Record<string, string>
}

/** What Node loads (URLs) to import each of `entries` of `dist` in one fresh process. */
const loadedBy = (dist: string, entries: ReadonlyArray<string>): ReadonlyArray<string> =>
  loadedByFiles(entries.map((entry) => Path.join(dist, entry)))

/** The package's files (relative to `dist`) Node loads to import each of `entries` in one fresh process. */
const packageFilesLoadedBy = (dist: string, entries: ReadonlyArray<string>): ReadonlyArray<string> =>
  loadedBy(dist, entries)
    .filter((url) => url.startsWith("file:") && new URL(url).pathname.startsWith(dist + Path.sep))
    .map((url) => Path.relative(dist, new URL(url).pathname))

/** Each built file's sources, by its source map (relative to the repository). */
const sourcesByFile = (dist: string): ReadonlyMap<string, ReadonlyArray<string>> =>
  new Map(
    (Fs.readdirSync(dist, { recursive: true }) as Array<string>)
      .filter((file) => file.endsWith(".js.map"))
      .map((map) => {
        const { sources } = JSON.parse(Fs.readFileSync(Path.join(dist, map), "utf8")) as { readonly sources: ReadonlyArray<string> }
        const file = map.replace(/\.map$/, "")
        return [file, sources.map((source) => Path.relative(root, Path.resolve(dist, Path.dirname(file), source)))]
      })
  )

describe("the package as built", () => {
  // Built once for the file: each test only reads it (or imports it in a process of its own).
  let dist = ""
  beforeAll(() => {
    dist = buildPackage("build-dist-")
  })
  afterAll(() => {
    if (dist !== "") Fs.rmSync(dist, { recursive: true, force: true })
  })

  it("Claude.js and node.js load five files of it, the core in one (chunks/core.js); the main entry and testing load no @effect/platform-node", () => {
    // Node's loader pays for every file (resolve, read, its package scope, compile): the core in
    // one file is ~10 ms less start-up than the 21 files of one chunk per set of entries.
    assert.deepStrictEqual(
      [...packageFilesLoadedBy(dist, ["Claude.js", "node.js"])].sort(),
      ["Claude.js", "ClaudeNode.js", "chunks/ClaudeNode.js", "chunks/core.js", "node.js"]
    )
    const sources = sourcesByFile(dist).get("chunks/core.js") ?? []
    for (const module of ["src/Claude.ts", "src/internal/processTransport.ts", "src/Launch.ts"]) {
      assert.include(sources, module)
    }
    // The session engine and the protocol's schemas are not in it: a session loads them while its
    // CLI starts.
    assert.deepStrictEqual(sources.filter((module) => module.startsWith("src/protocol/") || loadedAfterSpawn.includes(module)), [])
    // `@effect/platform-node` is an optional peer: only the node entry (and what it is for) loads it.
    const platform = (entries: ReadonlyArray<string>) => loadedBy(dist, entries).filter((url) => url.includes("@effect/platform-node"))
    assert.deepStrictEqual(platform(["index.js", "testing/index.js"]), [])
    assert.isAbove(platform(["node.js"]).length, 0)
  })

  it("each entry the manifest names exports, as built, the names its module exports from src", () => {
    const entries = Object.values(manifest.exports).map((e) => Path.relative("dist", e.default).replace(/\.js$/, ""))
    // One process imports each entry twice: its source (Node's type stripping) and its build.
    const script = [
      `const entries = ${JSON.stringify(entries)}`,
      `const names = async (file) => Object.keys(await import(file)).sort()`,
      `const out = {}`,
      `for (const entry of entries) out[entry] = [`,
      `  await names(${JSON.stringify(pathToFileURL(root).href)} + "/src/" + entry + ".ts"),`,
      `  await names(${JSON.stringify(pathToFileURL(dist).href)} + "/" + entry + ".js")`,
      `]`,
      `process.stdout.write(JSON.stringify(out))`
    ].join("\n")
    const out = JSON.parse(NodeChildProcess.execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" }
    })) as Record<string, readonly [ReadonlyArray<string>, ReadonlyArray<string>]>
    assert.isAbove(Object.keys(out).length, 25)
    for (const [entry, [source, built]] of Object.entries(out)) assert.deepStrictEqual(built, source, entry)
    assert.include(out["Claude"]![1], "open")
    assert.include(out["ClaudeError"]![1], "InvalidInput")
  })

  it("every built file is ASCII, so that Node keeps its source one byte a character", () => {
    // V8 keeps a module's source text for its whole life; one character outside Latin-1, even in
    // a comment esbuild keeps (an arrow in a doc comment of a class), stores the whole file two
    // bytes a character: chunks/core.js's ~75 KB would take ~150 KB of every program's heap.
    // esbuild escapes strings, identifiers and regular expressions; the comments are ours to write,
    // and ASCII is the rule that is easy to keep.
    const files = (Fs.readdirSync(dist, { recursive: true }) as Array<string>).filter((file) => file.endsWith(".js"))
    assert.isAbove(files.length, 20)
    const notAscii = files.flatMap((file) =>
      Fs.readFileSync(Path.join(dist, file), "utf8").split("\n").flatMap((line, i) =>
        /[^\x00-\x7f]/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
      )
    )
    assert.deepStrictEqual(notAscii, [])
  })

  it("every module of src is in one built file only, and every entry the manifest names is there", () => {
    const where = new Map<string, Array<string>>()
    for (const [file, sources] of sourcesByFile(dist)) {
      for (const source of sources.filter((source) => source.startsWith("src/"))) where.set(source, [...(where.get(source) ?? []), file])
    }
    assert.isAbove(where.size, 60)
    assert.deepStrictEqual([...where].filter(([, files]) => files.length > 1), [])
    for (const target of [...Object.values(manifest.exports).map((e) => e.default), ...Object.values(manifest.bin)]) {
      assert.isTrue(Fs.existsSync(Path.join(dist, Path.relative("dist", target))), target)
    }
  })

  // `npx effect-claude-code` in a clone runs the file itself: built 0644 (after `npm run build` or
  // `npm pack`), it failed with "Permission denied" (found by a newcomer's run).
  it("the bin the manifest names is executable, with its shebang", () => {
    for (const target of Object.values(manifest.bin)) {
      const file = Path.join(dist, Path.relative("dist", target))
      assert.strictEqual(Fs.statSync(file).mode & 0o111, 0o111, `${target} is not executable`)
      assert.isTrue(Fs.readFileSync(file, "utf8").startsWith("#!/usr/bin/env node"), target)
    }
  })
})
