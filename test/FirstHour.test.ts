/**
 * Issue 20's measure: each newcomer program of `examples/first-hour/` is at most as long as the
 * official TypeScript SDK's version of it (under `sdk/`), counted without blank and comment
 * lines, and the README states the counts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"

const dir = Path.resolve(import.meta.dirname, "../examples/first-hour")

/** Lines of code: neither blank nor only a `//` comment. */
const linesOf = (file: string): number =>
  Fs.readFileSync(Path.join(dir, file), "utf8").split("\n").filter((line) => {
    const trimmed = line.trim()
    return trimmed !== "" && !trimmed.startsWith("//")
  }).length

const programs = [
  { row: "Quickstart: the text streamed, then the cost (its second program)", ours: "quickstart.ts", sdk: "sdk/quickstart.ts" },
  { row: "Text only: one prompt, its answer", ours: "text-only.ts", sdk: "sdk/text-only.ts" },
  { row: "Chat from stdin, answers streamed", ours: "chat.ts", sdk: "sdk/chat.ts" },
  { row: "A `PreToolUse` hook refusing `rm` and an MCP tool", ours: "hook-mcp.ts", sdk: "sdk/hook-mcp.ts" },
  { row: "A test of a program, offline", ours: "agent.test.ts", sdk: "sdk/agent-test.ts" }
]

describe("examples/first-hour", () => {
  it("each program is at most the official SDK's line count", () => {
    const longer = programs
      .map((program) => ({ ...program, lines: linesOf(program.ours), sdkLines: linesOf(program.sdk) }))
      .filter((program) => program.lines > program.sdkLines)
    assert.deepStrictEqual(longer, [])
  })

  it("the README states the counts as they are", () => {
    const readme = Fs.readFileSync(Path.resolve(import.meta.dirname, "../README.md"), "utf8")
    for (const program of programs) {
      assert.include(readme, `| ${program.row} | ${linesOf(program.ours)} | ${linesOf(program.sdk)} |`)
    }
  })

  it("the README's Quickstart blocks are programs of examples/first-hour, imports aside", () => {
    const readme = Fs.readFileSync(Path.resolve(import.meta.dirname, "../README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## Quickstart"), readme.indexOf("### Your first hour"))
    const bodies = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => codeOf(match[1]!))
    assert.deepStrictEqual(bodies, [codeOf(read("text-only.ts")), codeOf(read("quickstart.ts"))])
  })
})

const read = (file: string): string => Fs.readFileSync(Path.join(dir, file), "utf8")

/** The code without imports and comments (the examples import `src/`, the README the package). */
const codeOf = (text: string): string =>
  text.split("\n").filter((line) => !line.startsWith("import ") && !line.trim().startsWith("//") && line.trim() !== "")
    .join("\n")
