/**
 * The README's Quickstart compiles: each of its `ts` blocks, with the package's entries pointed at
 * this repository's sources, is type-checked with the repo's compiler options.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")
const tsc = Path.join(root, "node_modules", ".bin", "tsc")

/** The `ts` blocks of the README section that starts with `heading`. */
const blocksOf = (heading: string): Array<string> => {
  const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
  const start = readme.indexOf(`\n## ${heading}\n`)
  assert.isAbove(start, 0, heading)
  const end = readme.indexOf("\n## ", start + 1)
  return [...readme.slice(start, end).matchAll(/```ts\n([^]*?)```/g)].map((m) => m[1]!)
}

/** The package's entries, as this repository's sources. */
const entries: ReadonlyArray<readonly [string, string]> = [
  ["effect-claude-code/testing", "src/testing/index.ts"],
  ["effect-claude-code/node", "src/node.ts"],
  ["effect-claude-code/ai", "src/ai.ts"],
  ["effect-claude-code/sql", "src/sql.ts"],
  ["effect-claude-code/pg", "src/pg.ts"],
  ["effect-claude-code", "src/index.ts"]
]

describe("README", () => {
  const sections: ReadonlyArray<readonly [heading: string, minBlocks: number]> = [
    ["Quickstart", 2],
    ["Claude Code in `effect/ai`", 1]
  ]
  for (const [heading, minBlocks] of sections) it(`the ${heading} blocks type-check (strict, exactOptionalPropertyTypes)`, { timeout: 120_000 }, () => {
    const blocks = blocksOf(heading)
    assert.isAtLeast(blocks.length, minBlocks)
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-readme-"))
    try {
      // The blocks import effect and @effect/platform-node as a user's program does.
      Fs.symlinkSync(Path.join(root, "node_modules"), Path.join(dir, "node_modules"), "dir")
      blocks.forEach((block, index) => {
        let source = block
        for (const [specifier, file] of entries) {
          source = source.replaceAll(`from "${specifier}"`, `from ${JSON.stringify(Path.join(root, file))}`)
        }
        // A public module of the main entry (`effect-claude-code/Claude`): its source.
        source = source.replace(/from "effect-claude-code\/([A-Z]\w*)"/g, (_, name: string) => `from ${JSON.stringify(Path.join(root, "src", `${name}.ts`))}`)
        assert.notInclude(source, "\"effect-claude-code", `block ${index + 1} imports only the package's entries`)
        Fs.writeFileSync(Path.join(dir, `block${index + 1}.ts`), `${source}\nexport {}\n`)
      })
      Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ private: true, type: "module" }))
      Fs.writeFileSync(
        Path.join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: Path.join(root, "tsconfig.json"),
          // The entries are imported by absolute path (only relative imports could be rewritten on emit).
          compilerOptions: { rewriteRelativeImportExtensions: false },
          include: ["*.ts"]
        })
      )
      const result = ChildProcess.spawnSync(tsc, ["-p", Path.join(dir, "tsconfig.json")], {
        cwd: dir,
        encoding: "utf8",
        timeout: 110_000
      })
      assert.strictEqual(result.status, 0, `${result.stdout}\n${result.stderr}`)
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
