/**
 * The repository is self-contained (issue 13, point 9; issue 20): no tracked file outside `testdata/`
 * names a path outside the repository (a sibling folder, a relative path that climbs out of it) or
 * a path of one machine (a work folder, a home, a drive, a literal temp folder), so that a fresh
 * clone with nothing beside it has everything its tests, benchmarks and docs refer to. `testdata/` is exempt: it holds captures of the real CLI,
 * whose messages carry the paths of the machine that recorded them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")

/** What names a place outside the repository, or a path of one machine. */
const outside: ReadonlyArray<{ readonly what: string; readonly pattern: RegExp }> = [
  { what: "a sibling folder of the repository", pattern: /\.\.\/(?:shared|\.library)\b/ },
  { what: "the development machine's work folder", pattern: /(?<![\w.-])\/work\// },
  { what: "an absolute home path", pattern: /(?<![\w.-])(?:\/home\/[\w.-]+\/|\/Users\/[\w.-]+\/|\/root\/)/ },
  { what: "a Windows drive path", pattern: /(?<![\w])[A-Za-z]:\\\\?[\w.-]/ },
  { what: "a literal temp path (use os.tmpdir())", pattern: /(?<![\w.-])\/tmp\// }
]

/** A relative path that climbs out of the repository from `file` (two levels up from `test/a.ts`). */
const climbsOut = (file: string, line: string): ReadonlyArray<string> =>
  [...line.matchAll(/(?<![\w.])(?:\.\.\/)+/g)].flatMap((match) => {
    const target = Path.resolve(root, Path.dirname(file), match[0])
    return target === root || target.startsWith(root + Path.sep) ? [] : [match[0]]
  })

/** The offending lines of `text` (the file `file`, relative to the root), as `line: text (what)`. */
const offences = (text: string, file = "x.ts"): ReadonlyArray<string> =>
  text.split("\n").flatMap((line, index) => [
    ...outside.filter(({ pattern }) => pattern.test(line)).map(({ what }) => `${index + 1}: ${line.trim().slice(0, 160)} (${what})`),
    ...climbsOut(file, line).map((up) => `${index + 1}: ${line.trim().slice(0, 160)} (${up} leaves the repository)`)
  ])

const ignoredDirs = new Set([".git", "node_modules", "dist", ".tmp", ".tools", "tools"])

/** The tracked files (`git ls-files`); without git (an unpacked tarball), every file but the ignored folders. */
const trackedFiles = (): ReadonlyArray<string> => {
  try {
    return NodeChildProcess.execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\0")
      .filter((file) => file.length > 0)
  } catch {
    const walk = (dir: string): Array<string> =>
      Fs.readdirSync(Path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        const relative = dir === "" ? entry.name : `${dir}/${entry.name}`
        if (entry.isDirectory()) return ignoredDirs.has(entry.name) ? [] : walk(relative)
        return entry.isFile() ? [relative] : []
      })
    return walk("")
  }
}

describe("the repository is self-contained", () => {
  it("the check recognises each kind of outside path, and leaves ordinary paths alone", () => {
    const up = ".."
    const samples = [
      `new URL("${up}/shared/protocol/transcripts/", import.meta.url)`,
      `see ${up}/.library/env/README.md`,
      `const dir = "/${"work"}/main/x"`,
      `export PATH=/${"work"}/node24/bin:$PATH`,
      `"cwd":"/${"home"}/dev/runs/cwd-x"`,
      `/${"Users"}/alice/project`,
      `HOME=/${"root"}/.claude`,
      `${"C"}:\\dev\\project`,
      `"/${"tmp"}/home/.claude"`,
      `writeFileSync("/${"tmp"}/out.json")`
    ]
    for (const sample of samples) assert.isNotEmpty(offences(sample), sample)
    // Climbing out is judged from the file's folder: two levels up from test/support/ is the root.
    assert.deepStrictEqual(offences(`"${up}/${up}/src/Claude.ts"`, "test/support/live.ts"), [])
    assert.strictEqual(offences(`"${up}/${up}/${up}/x"`, "test/support/live.ts").length, 1)
    assert.strictEqual(offences(`[the notes](${up}/notes.md)`, "README.md").length, 1)
    const fine = [
      `new URL("../testdata/protocol/", import.meta.url)`,
      `{ cwd: "/srv/x" }`,
      `~/.claude/projects`,
      `Path.join(Os.tmpdir(), "home")`,
      `src/network/${"work"}/x.ts`,
      `the homework/ folder`,
      `a ratio of 2:1, "key: value"`
    ]
    for (const sample of fine) assert.deepStrictEqual(offences(sample, "test/x.test.ts"), [], sample)
  })

  it("no tracked file outside testdata/ names a path outside the repository or a path of one machine", () => {
    const files = trackedFiles()
    assert.isAbove(files.length, 50, "the file list is empty: the check would pass vacuously")
    const problems: Array<string> = []
    for (const file of files) {
      if (file.startsWith("testdata/")) continue
      const path = Path.join(root, file)
      if (!Fs.existsSync(path)) continue // deleted in the work tree, not yet committed
      const bytes = Fs.readFileSync(path)
      if (bytes.includes(0)) continue // binary
      for (const offence of offences(bytes.toString("utf8"), file)) problems.push(`${file}:${offence}`)
    }
    assert.deepStrictEqual(problems, [])
  })

  it("the transcripts the tests read are in the repository", () => {
    const protocol = Fs.readdirSync(Path.join(root, "testdata/protocol")).filter((f) => f.endsWith(".ndjson"))
    assert.isAbove(protocol.length, 60)
    const recordings = Fs.readdirSync(Path.join(root, "testdata/transcripts")).filter((f) => f.endsWith(".ndjson"))
    assert.isAbove(recordings.length, 10)
  })
})
