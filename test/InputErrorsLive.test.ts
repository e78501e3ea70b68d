/**
 * Bad input about the executable and the working directory, through the process transport
 * (live tier: copies of test/fixtures/fake-claude.mjs). The in-memory cases are in
 * test/InputErrors.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/realCli.ts"

const FIXTURES = Path.resolve(import.meta.dirname, "fixtures")

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

const openExit = (options: Claude.SessionOptions) => Effect.exit(Effect.scoped(Claude.open(options)))

describe("an executable that cannot be run", () => {
  it.live("exists without its execute bit: NotExecutable with the path and the mode, and the way out", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-input-")
      const cli = Path.join(dir, "cli.mjs")
      Fs.copyFileSync(Path.join(FIXTURES, "fake-claude.mjs"), cli)
      Fs.chmodSync(cli, 0o644)
      const reason = reasonOf(yield* openExit({ executable: cli }))
      assert.deepStrictEqual<unknown>({ ...reason }, { _tag: "NotExecutable", path: cli, mode: 0o644, isDirectory: false })
      assert.strictEqual(
        reason.message,
        `The executable ${cli} exists but is not executable (mode 0644): make it executable (chmod +x), ` +
          `or run it through its interpreter, e.g. executable: { command: "node", args: [${JSON.stringify(cli)}] }`
      )
    }).pipe(Effect.provide(processLayer)))

  it.live("is a directory: NotExecutable saying so", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-input-")
      const reason = reasonOf(yield* openExit({ executable: dir }))
      assert.strictEqual(reason._tag, "NotExecutable")
      assert.isTrue((reason as ClaudeError.NotExecutable).isDirectory)
      assert.match(reason.message, /^The executable .* is a directory \(mode 0\d{3}\), not a program$/)
    }).pipe(Effect.provide(processLayer)))
})

describe("a working directory that cannot be used", () => {
  it.live("missing: BadWorkingDirectory naming the working directory and its path, before any lookup or spawn", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-input-")
      const missing = Path.join(dir, "no-such-dir")
      const reason = reasonOf(yield* openExit({ executable: Path.join(FIXTURES, "fake-claude.mjs"), cwd: missing }))
      assert.deepStrictEqual<unknown>({ ...reason }, { _tag: "BadWorkingDirectory", path: missing, problem: "missing" })
      assert.strictEqual(reason.message, `The working directory ${missing} (the cwd option) does not exist`)
      // Reported as such even when the executable would be looked up relative to it.
      const relative = reasonOf(yield* openExit({ executable: "./claude", cwd: missing }))
      assert.strictEqual(relative._tag, "BadWorkingDirectory")
    }).pipe(Effect.provide(processLayer)))

  it.live("a file, not a directory: BadWorkingDirectory saying so; a relative cwd is reported resolved", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-input-")
      const file = Path.join(dir, "file.txt")
      Fs.writeFileSync(file, "x")
      const reason = reasonOf(yield* openExit({ executable: Path.join(FIXTURES, "fake-claude.mjs"), cwd: file }))
      assert.deepStrictEqual<unknown>({ ...reason }, { _tag: "BadWorkingDirectory", path: file, problem: "not a directory" })
      assert.strictEqual(reason.message, `The working directory ${file} (the cwd option) is not a directory`)
      const relative = Path.relative(process.cwd(), Path.join(dir, "gone"))
      const resolved = reasonOf(yield* openExit({ executable: Path.join(FIXTURES, "fake-claude.mjs"), cwd: relative }))
      assert.strictEqual((resolved as ClaudeError.BadWorkingDirectory).path, Path.join(dir, "gone"))
    }).pipe(Effect.provide(processLayer)))
})

describe("an interpreter with arguments", () => {
  it.live("{ command, args }: a script without its execute bit runs through node, the script path relative to cwd", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-input-")
      // The fixture and the module it imports, as plain files (mode 0644).
      for (const name of ["fake-claude.mjs", "serialWriter.mjs"]) {
        Fs.copyFileSync(Path.join(FIXTURES, name), Path.join(dir, name))
        Fs.chmodSync(Path.join(dir, name), 0o644)
      }
      const session = yield* Claude.open({
        executable: { command: process.execPath, args: ["fake-claude.mjs"] },
        cwd: dir,
        env: { FAKE_CLAUDE_ECHO: "1" }
      })
      const events = yield* session.turn("through node").pipe(Stream.runCollect)
      const result = events.at(-1) as Claude.TurnResult
      assert.strictEqual(result.result, "echo: through node")
      // The script got the CLI's flags as its own arguments: the interpreter's args came first.
      const init = events.find((e) => e.type === "system" && e.subtype === "init") as unknown as {
        readonly fake_argv: ReadonlyArray<string>
      }
      assert.deepStrictEqual(init.fake_argv.slice(0, 2), ["--output-format", "stream-json"])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
