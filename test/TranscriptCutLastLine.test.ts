/**
 * A transcript whose recorder stopped while writing (the process killed mid-write) ends inside a
 * line. `Transcript.read` failed with `transcript line N is not {"dir","msg"}`, as for a file that
 * is no transcript, and named no way to the lines before it (found by a reviewing helper; failed
 * before its fix). It now says the line is cut off, and how to read the lines before it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Transcript from "../src/Transcript.ts"

const whole = `{"dir":"send","ts":1,"msg":{"type":"user","message":{"role":"user","content":"hi"}}}\n`
const cut = `{"dir":"recv","ts":2,"msg":{"type":"assistant","message":{"content":[{"type":"te`

const description = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
  assert.strictEqual(error?._tag, "Fail")
  const reason = error?._tag === "Fail" ? (error.error as ClaudeError.ClaudeError).reason : undefined
  assert.strictEqual(reason?._tag, "InvalidInput")
  return reason?._tag === "InvalidInput" ? reason.description : ""
}

describe("a transcript cut off inside its last line", () => {
  it.effect("read says the last line is cut off, not that the file is no transcript", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-cut-"))
      const file = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(file, whole + cut)
      const exit = yield* Effect.exit(Transcript.read(file))
      Fs.rmSync(dir, { recursive: true, force: true })
      const text = description(exit)
      assert.include(text, "line 2")
      assert.include(text, "cut off")
      assert.notInclude(text, `is not {"dir","msg"}`)
    }))

  it.effect("a bad line that is not the last one is still no transcript line", () =>
    Effect.gen(function*() {
      const text = description(yield* Effect.exit(Transcript.parse(`${cut}\n${whole}`)))
      assert.include(text, `transcript line 1 is not {"dir","msg"}`)
    }))

  it.effect("a whole last line without its newline reads", () =>
    Effect.gen(function*() {
      const lines = yield* Transcript.parse(whole.trimEnd())
      assert.strictEqual(lines.length, 1)
    }))
})
