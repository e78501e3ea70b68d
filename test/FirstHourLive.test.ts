/**
 * The newcomer's five programs of `examples/first-hour/` (issue 20), run as programs: each is
 * started with `node`, as its author would start it, with the real CLI of this repository on
 * `PATH` and pointed at the fake model (fresh HOME and working directory), and does what its
 * comment says. The fifth, the test, runs in the unit tier itself. Their line counts against the
 * official SDK's are checked by test/FirstHour.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { makeTempDir } from "./support/tempDir.ts"

const root = Path.resolve(import.meta.dirname, "..")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly model: FakeModel.Server
}

/** Runs `examples/first-hour/<name>.ts` against a fake model playing `script`. */
const runProgram = (
  name: string,
  script: FakeModel.Script,
  stdin = "",
  during?: (child: ChildProcess.ChildProcess, model: FakeModel.Server, cwd: string) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const model = yield* FakeModel.make(script)
    const home = yield* makeTempDir("ecc-first-hour-home-")
    const cwd = yield* makeTempDir("ecc-first-hour-cwd-")
    Fs.writeFileSync(Path.join(cwd, "notes.txt"), "hello\n")
    const env: Record<string, string> = {}
    const wanted = {
      ...process.env,
      ...model.cliEnvironment(home),
      PATH: `${Path.join(root, "node_modules/.bin")}${Path.delimiter}${process.env.PATH ?? ""}`
    }
    for (const [key, value] of Object.entries(wanted)) if (value !== undefined) env[key] = value
    const run = yield* Effect.callback<Omit<Run, "model">>((resume) => {
      const child = ChildProcess.execFile(
        process.execPath,
        [Path.join(root, "examples/first-hour", `${name}.ts`)],
        { cwd, env, timeout: 50_000 },
        (_error, stdout, stderr) => resume(Effect.succeed({ code: child.exitCode, stdout, stderr }))
      )
      child.stdin?.end(stdin)
      if (during !== undefined) Effect.runFork(during(child, model, cwd))
      return Effect.sync(() => child.kill("SIGKILL"))
    })
    return { ...run, model, files: Fs.readdirSync(cwd), left: processesIn(cwd) }
  }).pipe(Effect.scoped)

/** The pids of the processes whose working directory is `dir` (Linux: /proc). */
const processesIn = (dir: string): ReadonlyArray<number> =>
  Fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return Fs.readlinkSync(`/proc/${pid}/cwd`) === dir
    } catch {
      return false
    }
  }).map(Number)

describe("examples/first-hour, run as programs on the fake model", { timeout: 60_000 }, () => {
  it.live("quickstart: the text streams out, then the turn's cost", () =>
    Effect.gen(function*() {
      const run = yield* runProgram("quickstart", [FakeModel.text("notes.txt")])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^notes\.txt\ndone, \$0\.\d{4}\n$/)
    }))

  it.live("quickstart: a failed turn (the API refuses the key) says failed, not done", () =>
    Effect.gen(function*() {
      const run = yield* runProgram("quickstart", [FakeModel.httpError(401), FakeModel.httpError(401)])
      // Before: "done, $0.0000", then the error.
      assert.match(run.stdout, /\nfailed, \$0\.\d{4}\n/, run.stdout)
      assert.notInclude(run.stdout, "done,")
    }))

  it.live("text-only: the answer's text, and exit code 0", () =>
    Effect.gen(function*() {
      const run = yield* runProgram("text-only", [FakeModel.text("Paris.")])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "Paris.\n")
    }))

  it.live("text-only: a failed turn (the API refuses the key) exits 1 with the reason", () =>
    Effect.gen(function*() {
      const run = yield* runProgram("text-only", [FakeModel.httpError(401), FakeModel.httpError(401)])
      assert.strictEqual(run.code, 1)
      assert.notInclude(run.stdout, "Paris")
      // NodeRuntime.runMain logs the error (Effect's logger writes to stdout).
      assert.include(run.stdout + run.stderr, "ClaudeError: The model API failed (401")
    }))

  it.live("text-only: Ctrl-C during the turn ends the program (ClaudeNode.runMain), and no CLI is left behind", () =>
    Effect.gen(function*() {
      let cliSeen = false
      const run = yield* runProgram("text-only", [FakeModel.hang], "", (child, model, cwd) =>
        Effect.gen(function*() {
          yield* model.awaitRequests(1)
          cliSeen = processesIn(cwd).some((pid) => pid !== child.pid)
          child.kill("SIGINT")
        }))
      assert.isTrue(cliSeen, "the CLI ran in the program's working directory")
      assert.notStrictEqual(run.code, 0)
      assert.notInclude(run.stdout, "Paris")
      assert.deepStrictEqual(run.left, [])
    }))

  it.live("chat: a turn per stdin line on one session (the second sees the first), each answer on its line", () =>
    Effect.gen(function*() {
      const run = yield* runProgram(
        "chat",
        (request) =>
          FakeModel.lastUserText(request)?.includes("What is my name?") === true
            ? FakeModel.text(request.messages.length > 1 ? "Your name is Ada." : "I don't know.")
            : FakeModel.text("Nice to meet you, Ada."),
        "My name is Ada.\nWhat is my name?\n"
      )
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "Nice to meet you, Ada.\nYour name is Ada.\n")
    }))

  it.live("hook-mcp: the MCP tool adds, the hook refuses `rm`, the model reads both", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const run = yield* runProgram("hook-mcp", (request) => {
        if (!FakeModel.hasTool(request, "mcp__calc__add")) return FakeModel.text("no calculator")
        seen.push(...FakeModel.toolResults(request).map((result) => result.content))
        if (seen.length === 0) return FakeModel.toolUse("mcp__calc__add", { a: 2, b: 3 })
        if (seen.length === 1) return FakeModel.toolUse("Bash", { command: "rm -rf notes.txt" })
        return FakeModel.text(`sum ${seen[0]}; bash: ${seen[1]}`)
      })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^sum 5; bash: .*no rm/)
      assert.deepStrictEqual(run.files, ["notes.txt"])
    }))

  it.live("examples/offline.ts runs a program unchanged against the fake model (the README's recipe)", () =>
    Effect.gen(function*() {
      const run = yield* Effect.callback<{ readonly code: number | null; readonly stdout: string }>((resume) => {
        const child = ChildProcess.execFile(
          process.execPath,
          [Path.join(root, "examples/offline.ts"), Path.join(root, "examples/first-hour/text-only.ts"), "Paris."],
          { cwd: root, timeout: 50_000 },
          (_error, stdout) => resume(Effect.succeed({ code: child.exitCode, stdout }))
        )
        return Effect.sync(() => child.kill("SIGKILL"))
      })
      assert.strictEqual(run.code, 0)
      assert.strictEqual(run.stdout, "Paris.\n")
    }))
})
