/**
 * The repository is self-contained (issue 13, point 9): no tracked file outside `testdata/` names a
 * path outside the repository, so that a fresh clone with nothing beside it has everything its
 * tests, benchmarks and docs refer to. `testdata/` is exempt: it holds captures of the real CLI,
 * whose messages carry the paths of the machine that recorded them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")

/** What names a place outside the repository. */
const outside: ReadonlyArray<{ readonly what: string; readonly pattern: RegExp }> = [
  { what: "a sibling folder of the repository", pattern: /\.\.\/shared\b/ },
  { what: "the development machine's work folder", pattern: /(?<![\w.-])\/work\// },
  { what: "an absolute home path", pattern: /(?<![\w.-])(?:\/home\/[\w.-]+\/|\/Users\/[\w.-]+\/|\/root\/)/ }
]

/** The offending lines of `text`, as `line: text (what)`. */
const offences = (text: string): ReadonlyArray<string> =>
  text.split("\n").flatMap((line, index) =>
    outside.filter(({ pattern }) => pattern.test(line)).map(({ what }) => `${index + 1}: ${line.trim().slice(0, 160)} (${what})`)
  )

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
      `const dir = "/${"work"}/main/x"`,
      `export PATH=/${"work"}/node24/bin:$PATH`,
      `"cwd":"/${"home"}/dev/runs/cwd-x"`,
      `/${"Users"}/alice/project`,
      `HOME=/${"root"}/.claude`
    ]
    for (const sample of samples) assert.strictEqual(offences(sample).length, 1, sample)
    const fine = [
      `new URL("../testdata/protocol/", import.meta.url)`,
      `{ cwd: "/srv/x" }`,
      `~/.claude/projects`,
      `"/tmp/home/.claude"`,
      `src/network/${"work"}/x.ts`,
      `the homework/ folder`
    ]
    for (const sample of fine) assert.deepStrictEqual(offences(sample), [], sample)
  })

  it("no tracked file outside testdata/ names a path outside the repository", () => {
    const files = trackedFiles()
    assert.isAbove(files.length, 50, "the file list is empty: the check would pass vacuously")
    const problems: Array<string> = []
    for (const file of files) {
      if (file.startsWith("testdata/")) continue
      const path = Path.join(root, file)
      if (!Fs.existsSync(path)) continue // deleted in the work tree, not yet committed
      const bytes = Fs.readFileSync(path)
      if (bytes.includes(0)) continue // binary
      for (const offence of offences(bytes.toString("utf8"))) problems.push(`${file}:${offence}`)
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
