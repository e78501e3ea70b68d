/**
 * `npm start` (node examples/main.ts) as a person runs it: a child process with no credentials
 * in its environment, on the real CLI and the fake model; Ctrl-C, once and twice; and a reader
 * that stops reading (`npm start | head`). Each run has a TMPDIR of its own, where the demo's
 * temporary HOME and cwd (`ecc-example-*`) must be gone once it exited.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { isAlive } from "./support/live.ts"

const root = Path.resolve(import.meta.dirname, "..")

interface Run {
  readonly pid: number
  /** Everything written on stdout and stderr so far. */
  readonly output: () => string
  /** The stdout chunks, as they arrived. */
  readonly chunks: ReadonlyArray<string>
  /** Signals the whole process group (npm and node), as Ctrl-C in a terminal does. */
  readonly signal: (signal: NodeJS.Signals) => void
  /** Signals npm alone, as `timeout`, a process manager or `kill <npm's pid>` does. */
  readonly signalNpm: (signal: NodeJS.Signals) => void
  /** Waits for the output to pass `predicate` (dies with the output after `timeoutMs`). */
  readonly waitFor: (predicate: (output: string) => boolean, timeoutMs: number) => Effect.Effect<void>
  /** Waits for the exit (dies after `timeoutMs`). */
  readonly exited: (timeoutMs: number) => Effect.Effect<{ readonly code: number | null; readonly signal: string | null }>
  /** Closes the read end of its stdout, as `| head -c N` does once it has N bytes. */
  readonly closeStdout: () => void
  /** Closes stdout and stderr, as `npm start 2>&1 | head` does. */
  readonly closeOutput: () => void
  /** The demo's temporary folders (`ecc-example-*`) still in its TMPDIR. */
  readonly leftovers: () => ReadonlyArray<string>
}

/**
 * The lines of hooks and of the permission handler (which run beside the printing of the stream)
 * that do not start a line of their own: each must, never inside streamed text.
 */
const misplacedHandlerLines = (output: string): ReadonlyArray<string> =>
  output.split("\n").filter((l) => /⚑|permission: allow/.test(l) && !/^(⚑ |  permission: allow )/.test(l))


/** True while any process of the group `pgid` exists. */
const groupAlive = (pgid: number): boolean => isAlive(-pgid)

/**
 * `npm start` (node examples/main.ts) in its own process group, as a terminal runs it, with HOME an
 * empty temp dir and no credential variables; the group is killed at the end of the scope.
 */
const start = (extraEnv: Record<string, string>, args: ReadonlyArray<string> = []): Effect.Effect<Run, never, Scope.Scope> =>
  Effect.gen(function*() {
    const home = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-main-home-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    const tmp = Path.join(home, "tmp")
    Fs.mkdirSync(tmp)
    const env: NodeJS.ProcessEnv = { ...process.env }
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDECODE"]) {
      delete env[name]
    }
    Object.assign(env, { HOME: home, TMPDIR: tmp, NO_COLOR: "1", npm_config_update_notifier: "false", ...extraEnv })
    let output = ""
    const chunks: Array<string> = []
    let exit: { code: number | null; signal: string | null } | undefined
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = ChildProcess.spawn("npm", ["start", "--silent", ...(args.length > 0 ? ["--", ...args] : [])], {
          cwd: root,
          env,
          stdio: ["ignore", "pipe", "pipe"],
          detached: true
        })
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk
          chunks.push(chunk)
        })
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          output += chunk
        })
        child.on("exit", (code, signal) => {
          exit = { code, signal }
        })
        return child
      }),
      (child) =>
        Effect.sync(() => {
          // The group, not npm alone: a demo that outlived npm (the SIGTERM test's defect) goes too.
          if (child.pid !== undefined && groupAlive(child.pid)) {
            try {
              process.kill(-child.pid, "SIGKILL")
            } catch {
              // already gone
            }
          }
        })
    )
    const poll = <A>(check: () => A | undefined, timeoutMs: number, what: string): Effect.Effect<A> =>
      Effect.gen(function*() {
        const deadline = Date.now() + timeoutMs
        while (true) {
          const value = check()
          if (value !== undefined) return value
          if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}; output:\n${output}`))
          yield* Effect.sleep("50 millis")
        }
      })
    return {
      pid: child.pid!,
      output: () => output,
      chunks,
      signal: (signal) => process.kill(-child.pid!, signal),
      signalNpm: (signal) => child.kill(signal),
      waitFor: (predicate, timeoutMs) => Effect.asVoid(poll(() => predicate(output) ? true : undefined, timeoutMs, "output")),
      exited: (timeoutMs) => poll(() => exit, timeoutMs, "the exit"),
      closeStdout: () => child.stdout.destroy(),
      closeOutput: () => {
        child.stdout.destroy()
        child.stderr.destroy()
      },
      // The demo's fake-model set-up (`testing/Offline.ts`) makes them in TMPDIR.
      leftovers: () => Fs.readdirSync(tmp).filter((name) => name.startsWith("claude-offline-"))
    }
  })

describe("npm start (examples/main.ts)", { timeout: 120_000 }, () => {
  it.live("on the fake model with no credentials: exits 0, streams the text, shows the tool calls, the Stop hook and the totals", () =>
    Effect.gen(function*() {
      const run = yield* start({})
      const exit = yield* run.exited(90_000)
      const output = run.output()
      assert.strictEqual(exit.code, 0, output)
      const first = output.split("\n")[0]!
      assert.include(first, "FAKE model at http://127.0.0.1:")
      // Assistant text, then each tool call with its input and a short result.
      assert.include(output, "Hello! I am the fake model.")
      assert.match(output, /⏺ Bash \{"command":"ls"/)
      assert.match(output, /⎿ hello\.ts \(\+1 lines\)/)
      assert.match(output, /⏺ mcp__demo__add \{"a":2,"b":3\}/)
      assert.include(output, "⎿ 2 + 3 = 5")
      // The Stop hook blocked once, and the model continued with what it asked for.
      assert.strictEqual(output.split("Stop hook: not yet").length, 2)
      assert.isBelow(output.indexOf("Stop hook: not yet"), output.indexOf("Summary: I listed this directory"))
      // In the order things happened: the hook's line after the whole sentence streamed before
      // it, on a line of its own, and the model's next answer after it (issue 20: it was printed
      // inside that sentence when the CLI's last lines came in one read, about one run in five on
      // a busy machine; test/SessionEngine.test.ts "issue 20" makes that read deterministic).
      assert.include(
        output,
        `\nThe tool answered "2 + 3 = 5".\n⚑ Stop hook: not yet. "Finish with a one-line summary of what you did."\nSummary: `
      )
      assert.deepStrictEqual(misplacedHandlerLines(output), [])
      assert.match(output, /✓ done · 4 model turns · [\d.]+ s · \$\d\.\d{4} this turn/)
      assert.match(output, /Session over: 2 prompts, 5 model turns, [\d.]+ s, \$\d\.\d{4}/)
      // Streamed as it came: the summary sentence arrived over several writes, not in one.
      const summaryChunks = run.chunks.filter((chunk) =>
        chunk.length < 60 && "Summary: I listed this directory with Bash and added 2 and 3 with the demo MCP tool.".includes(chunk)
      )
      assert.isAtLeast(summaryChunks.length, 3, JSON.stringify(run.chunks))
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
    }))

  it.live("with a key and a prompt it talks to the model the environment names (no fake of its own) and says so first", () =>
    Effect.gen(function*() {
      // The "real" model here is a fake the test runs: the program must use the environment as is.
      const api = yield* FakeModel.make(() => FakeModel.text("Answer from the model the environment points at."))
      const run = yield* start({
        ANTHROPIC_API_KEY: "sk-test",
        ANTHROPIC_BASE_URL: api.url,
        CLAUDE_CODE_MAX_RETRIES: "1",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1"
      }, ["What is 2 + 2?"])
      const exit = yield* run.exited(90_000)
      const output = run.output()
      assert.strictEqual(exit.code, 0, output)
      assert.include(output.split("\n")[0]!, "REAL model (credentials from ANTHROPIC_API_KEY)")
      assert.include(output, "› What is 2 + 2?")
      assert.include(output, "Answer from the model the environment points at.")
      assert.match(output, /Session over: 1 prompt, /)
      const requests = yield* api.messageRequests
      assert.isAtLeast(requests.length, 1)
      assert.strictEqual(FakeModel.lastUserText(requests[0]!), "What is 2 + 2?")
    }))

  it.live("Ctrl-C interrupts the running turn (aborted result shown, the session goes on); a second Ctrl-C ends it, no process left", () =>
    Effect.gen(function*() {
      const run = yield* start({ DEMO_SLOW: "1", DEMO_DEBUG: "1" })
      yield* run.waitFor((o) => /\[debug\] claude pid \d+/.test(o), 60_000)
      const cliPid = Number(/\[debug\] claude pid (\d+)/.exec(run.output())![1])
      assert.isTrue(isAlive(cliPid))
      // The slow Bash command is running (its permission was granted): interrupt the turn.
      yield* run.waitFor((o) => o.includes("permission: allow Bash"), 60_000)
      yield* Effect.sleep("1 second")
      run.signal("SIGINT")
      yield* run.waitFor((o) => o.includes("✗ interrupted"), 15_000)
      assert.include(run.output(), "^C interrupting the turn")
      assert.match(run.output(), /✗ interrupted \(error_during_execution, aborted_(tools|streaming)\)/)
      assert.isTrue(isAlive(cliPid), "the session survives the first Ctrl-C")
      // The next prompt runs on the same CLI; while it streams, the second Ctrl-C ends the session.
      yield* run.waitFor((o) => o.includes("Goodbye! "), 30_000)
      run.signal("SIGINT")
      const exit = yield* run.exited(30_000)
      const output = run.output()
      const ending = output.indexOf("^C ending the session (its turn first)")
      assert.isAbove(ending, -1, output)
      assert.notInclude(output, "Session over")
      assert.notStrictEqual(exit.code, 0)
      // At once (issue 20: it took seconds). The turn is interrupted first and its result shown;
      // the CLI, idle, then exits by itself when its input ends. Closing the session during the
      // turn made the CLI finish it: the close waited out three fifths of closeGrace (3 s), then
      // SIGTERMed the CLI, which the demo's debug line reports as "signal SIGTERM". What the demo
      // prints says which path it took, with no clock in the test.
      assert.match(output.slice(ending), /✗ interrupted \(error_during_execution, aborted_streaming\)/)
      assert.match(output, /\[debug\] claude exited: code \d+\n/)
      assert.notInclude(output, "claude exited: signal")
      assert.isFalse(isAlive(cliPid), "the CLI is gone")
      assert.isFalse(groupAlive(cliPid), "nothing the CLI started is left")
      yield* Effect.sleep("200 millis")
      assert.isFalse(groupAlive(run.pid), "npm and node are gone")
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
    }))

  it.live("after an interrupted first turn the session goes on, and the model's summary claims no work that did not happen", () =>
    Effect.gen(function*() {
      const run = yield* start({ DEMO_SLOW: "1" })
      yield* run.waitFor((o) => o.includes("permission: allow Bash"), 60_000)
      yield* Effect.sleep("1 second")
      run.signal("SIGINT")
      yield* run.exited(90_000)
      // (npm, which got the Ctrl-C too, then ends by SIGINT: its exit status is not the demo's.)
      const output = run.output()
      assert.match(output, /✗ interrupted \(error_during_execution, aborted_tools\)/)
      // The Stop hook sends the model back once, after the goodbye; its summary says what the
      // tools did: the Bash command was interrupted, and the MCP tool was never called (issue 20:
      // it claimed both had run).
      const summary = /\nSummary: [^\n]*\n/.exec(output)?.[0] ?? ""
      assert.include(summary, "Bash, but it was interrupted", output)
      assert.notInclude(summary, "listed this directory")
      assert.notInclude(summary, "added 2 and 3")
      assert.include(output, `nothing left this machine.\n⚑ Stop hook: not yet.`)
      assert.deepStrictEqual(misplacedHandlerLines(output), [])
      assert.match(output, /Session over: 2 prompts, /)
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
    }))

  it.live("when its stdout closes early (npm start | head -c N) it ends the session, removes its temporary folders and exits", () =>
    Effect.gen(function*() {
      const run = yield* start({ DEMO_DEBUG: "1" })
      yield* run.waitFor((o) => /\[debug\] claude pid \d+/.test(o), 60_000)
      const cliPid = Number(/\[debug\] claude pid (\d+)/.exec(run.output())![1])
      run.closeStdout()
      // The next write fails with EPIPE (the fake model's first answer comes within seconds).
      const exit = yield* run.exited(60_000)
      const output = run.output()
      assert.include(output, "stdout closed (EPIPE); ending the session", output)
      assert.strictEqual(exit.code, 141, output)
      assert.notInclude(output, "Unhandled 'error' event")
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
      assert.isFalse(groupAlive(cliPid), "the CLI and what it started are gone")
    }))

  it.live("when stdout and stderr both close early (npm start 2>&1 | head) it still removes its temporary folders", () =>
    Effect.gen(function*() {
      const run = yield* start({ DEMO_DEBUG: "1" })
      yield* run.waitFor((o) => /\[debug\] claude pid \d+/.test(o), 60_000)
      const cliPid = Number(/\[debug\] claude pid (\d+)/.exec(run.output())![1])
      assert.isAbove(run.leftovers().length, 0, "the demo made its temporary HOME and cwd")
      run.closeOutput()
      yield* run.exited(60_000)
      // The folders go in the close, which may end after the process group's leader.
      yield* Effect.sleep("500 millis")
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
      assert.isFalse(groupAlive(cliPid), "the CLI and what it started are gone")
    }))

  it.live("SIGTERM to npm alone (timeout, a process manager) ends the demo with it: nothing runs on, its folders are gone", () =>
    Effect.gen(function*() {
      // DEMO_SLOW: the first turn's Bash command runs 30 s.
      const run = yield* start({ DEMO_SLOW: "1" })
      yield* run.waitFor((o) => o.includes("permission: allow Bash"), 40_000)
      // Before: npm's shell ended, and node ran on without a parent, its turn and all.
      run.signalNpm("SIGTERM")
      yield* run.exited(10_000)
      // The demo ends its session after npm has gone: within a few seconds, not never.
      const ended = yield* Effect.gen(function*() {
        for (let i = 0; i < 100 && (groupAlive(run.pid) || run.leftovers().length > 0); i++) yield* Effect.sleep("50 millis")
        return !groupAlive(run.pid)
      })
      assert.isTrue(ended, `a process of npm start still runs 5 s after npm got SIGTERM:\n${run.output()}`)
      assert.deepStrictEqual(run.leftovers(), [], "the temporary HOME and cwd are removed")
    }))
})
