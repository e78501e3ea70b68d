/**
 * The README's table of `ClaudeError` reasons ("Every reason a `ClaudeError` can carry") lists
 * every reason of `ClaudeError.Reason`, once, and no other: four were missing (found by a
 * newcomer's read).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as ClaudeError from "../src/ClaudeError.ts"

const readme = Fs.readFileSync(Path.resolve(import.meta.dirname, "../README.md"), "utf8")

/** The reasons the table names, in its order: the first cell of each row after its heading. */
const tableReasons = (): Array<string> => {
  const start = readme.indexOf("Every reason a `ClaudeError` can carry")
  assert.isAbove(start, -1, "the README has the table")
  const rows: Array<string> = []
  let inTable = false
  for (const line of readme.slice(start).split("\n").slice(1)) {
    if (line.startsWith("|")) {
      inTable = true
      const cell = /^\| `(\w+)` \|/.exec(line)
      if (cell !== null) rows.push(cell[1]!)
    } else if (inTable) {
      break
    }
  }
  return rows
}

describe("the README's table of reasons", () => {
  it("lists every ClaudeError reason once, and no other", () => {
    const reasons = ClaudeError.Reason.members.map((member) => member.identifier)
    const listed = tableReasons()
    assert.isAbove(reasons.length, 20)
    assert.deepStrictEqual([...listed].sort(), [...reasons].sort())
  })
})
