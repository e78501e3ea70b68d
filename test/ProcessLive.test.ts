/**
 * The engine against real processes (issue 2): the process transport with `fake-claude.mjs`
 * (test/fixtures/README.md) as the CLI. argv/env/cwd reach the child, a crash fails the turn at
 * once with the exit code and stderr tail, closing escalates within `closeGrace`, huge lines
 * cross the real pipe, and a missing or unstartable CLI is a typed error.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { processLayer } from "./support/live.ts"
import { isRunning } from "./support/processes.ts"
import { makeTempDir } from "./support/realCli.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const MiB = 1024 * 1024

/** Session options for fake-claude in `mode` (comma-separated modes; "" for the default). */
const fake = (mode: string, extra: Partial<Claude.SessionOptions> = {}): Claude.SessionOptions => ({
  executable: FAKE,
  ...extra,
  env: { FAKE_CLAUDE_MODE: mode, ...extra.env }
})

/** The reason of a failed exit (fails the test when the exit is a success or not a typed failure). */
const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

/** Opens a session in a fresh scope; returns the session and the scope, to close it by hand. */
const openIn = (options: Claude.SessionOptions) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const session = yield* Claude.open(options).pipe(
      Scope.provide(scope),
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    return { scope, session }
  })

/** Closes a scope and returns how long that took, in ms. */
const timedClose = (scope: Scope.Closeable) =>
  Effect.gen(function*() {
    const start = Date.now()
    yield* Scope.close(scope, Exit.void)
    return Date.now() - start
  })

type Init = Claude.Event & {
  readonly cwd: string
  readonly session_id: string
  readonly fake_argv: ReadonlyArray<string>
  readonly fake_env: Readonly<Record<string, string | null>>
}

const initOf = (events: ReadonlyArray<Claude.Event>): Init => {
  const init = events.find((e) => e.type === "system" && e.subtype === "init")
  assert.isDefined(init, "no system/init in the turn")
  return init as Init
}

describe("the process transport (fake-claude)", { timeout: 60_000 }, () => {
  it.live("argv, env and cwd reach the child: protocol flags, --resume=-abc as one argument, no CLAUDECODE, git identity", () =>
    Effect.gen(function*() {
      const cwd = yield* makeTempDir("ecc-proc-cwd-")
      // The host runs inside Claude Code: the child must not inherit that marker.
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const before = process.env.CLAUDECODE
          process.env.CLAUDECODE = "1"
          return before
        }),
        (before) =>
          Effect.sync(() => {
            if (before === undefined) delete process.env.CLAUDECODE
            else process.env.CLAUDECODE = before
          })
      )
      const session = yield* Claude.open(fake("", {
        cwd,
        resume: "-abc",
        model: "sonnet",
        gitIdentity: { name: "Agent Smith", email: "agent@example.com" },
        env: { FAKE_ENV_MARKER: "from the host" }
      }))
      const events = yield* session.turn("hello").pipe(Stream.runCollect)
      const init = initOf(events)
      const argv = init.fake_argv
      for (const [flag, value] of [["--output-format", "stream-json"], ["--input-format", "stream-json"], ["--model", "sonnet"]]) {
        const at = argv.indexOf(flag!)
        assert.isAtLeast(at, 0, `${flag} missing from ${JSON.stringify(argv)}`)
        assert.strictEqual(argv[at + 1], value)
      }
      assert.include(argv, "--verbose")
      assert.include(argv, "--include-partial-messages")
      assert.include(argv, "--resume=-abc")
      assert.notInclude(argv, "-abc")
      assert.notInclude(argv, "--resume")
      // The fake keeps the resumed id as its session id: the id arrived as a value, not a flag.
      assert.strictEqual(init.session_id, "-abc")
      assert.strictEqual(yield* session.sessionId, "-abc")
      assert.strictEqual(process.env.CLAUDECODE, "1")
      assert.isNull(init.fake_env.CLAUDECODE)
      assert.strictEqual(init.fake_env.CLAUDE_CODE_ENTRYPOINT, "sdk-ts")
      assert.strictEqual(init.fake_env.GIT_AUTHOR_NAME, "Agent Smith")
      assert.strictEqual(init.fake_env.GIT_COMMITTER_NAME, "Agent Smith")
      assert.strictEqual(init.fake_env.GIT_AUTHOR_EMAIL, "agent@example.com")
      assert.strictEqual(init.fake_env.GIT_COMMITTER_EMAIL, "agent@example.com")
      assert.strictEqual(init.fake_env.FAKE_ENV_MARKER, "from the host")
      assert.strictEqual(init.cwd, Fs.realpathSync(cwd))
      const result = events.at(-1)
      assert.strictEqual(result?.type, "result")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("the CLI exiting mid-turn fails the turn with ProcessExited (exit code 3, stderr tail) at once, not after closeGrace", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open(fake("exit-mid-turn", { closeGrace: "5 seconds" }))
      let lastEventAt = 0
      const seen: Array<string> = []
      const exit = yield* session.turn("crash, please").pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            lastEventAt = Date.now()
            seen.push(event.type)
          })
        ),
        Effect.exit
      )
      const failedAt = Date.now()
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProcessExited")
      const exited = reason as ClaudeError.ProcessExited
      assert.strictEqual(exited.exitCode, 3)
      assert.isNull(exited.signal)
      assert.include(exited.stderrTail, "simulated crash")
      // The fake wrote system/init and message_start, then crashed right away.
      assert.deepStrictEqual(seen, ["system", "stream_event"])
      // Failed by the exit itself, not by the close that closeGrace (5 s) would have ended.
      const elapsed = failedAt - lastEventAt
      assert.isBelow(elapsed, 5000, `the turn failed ${elapsed} ms after the CLI's last line: it waited for closeGrace`)
      // The session knows it too: a later turn fails at once with the same reason.
      const again = reasonOf(yield* Effect.exit(session.run("again")))
      assert.include(["ProcessExited", "SessionClosed"], again._tag)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a CLI that ignores SIGTERM is SIGKILLed within the grace: closeGrace 500 ms closes within it, pid gone", () =>
    Effect.gen(function*() {
      const { scope, session } = yield* openIn(fake("ignore-sigterm", { closeGrace: "500 millis" }))
      const result = yield* session.run("hi")
      assert.strictEqual(result.subtype, "success")
      const pid = session.pid!
      assert.isTrue(isRunning(pid))
      const took = yield* timedClose(scope)
      // closeGrace is the whole budget: EOF for its first 300 ms, SIGTERM, SIGKILL at 500 ms.
      assert.isAtLeast(took, 450, `closed in ${took} ms: the grace was not honoured`)
      assert.isBelow(took, 900, `closing took ${took} ms, over the 500 ms budget`)
      assert.isFalse(isRunning(pid), "the CLI survived the scope")
    }).pipe(Effect.provide(processLayer)))

  it.live("closing a normal session ends it at stdin EOF (exit 0, no signal after closeGrace) and the pid is gone after", () =>
    Effect.gen(function*() {
      const { scope, session } = yield* openIn(fake("", { closeGrace: "5 seconds" }))
      yield* session.run("hi")
      const pid = session.pid!
      assert.isTrue(isRunning(pid))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isRunning(pid), "the CLI survived the scope")
      // It ended by itself at stdin EOF (code 0): no SIGTERM (143) or SIGKILL after a grace.
      const status = yield* session.exit.pipe(Effect.timeoutOption("1 second"))
      assert.deepStrictEqual(Option.map(status, (s) => s.code), Option.some(0))
    }).pipe(Effect.provide(processLayer)))

  it.live("a 100 MiB line arrives whole through the real pipe with maxLineBytes 128 MiB; the turn completes", () =>
    Effect.gen(function*() {
      const bytes = 100 * MiB
      const session = yield* Claude.open(fake("huge-line", {
        maxLineBytes: 128 * MiB,
        env: { FAKE_CLAUDE_HUGE_BYTES: String(bytes) }
      }))
      let assistantBytes = -1
      let problems = 0
      let result: Claude.Event | undefined
      // Keep only sizes, not the events: the 100 MiB string is dropped as soon as it is measured.
      yield* session.turn("huge").pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event.type === "assistant") {
              const content = event.message.content as ReadonlyArray<{ type: string; text?: string }>
              assistantBytes = Buffer.byteLength(content[0]?.text ?? "", "utf8")
            } else if (event.type === "protocol_problem") problems++
            else if (event.type === "result") result = event
          })
        )
      )
      assert.strictEqual(problems, 0)
      assert.strictEqual(assistantBytes, bytes)
      assert.strictEqual(result?.type, "result")
      assert.strictEqual((result as Claude.TurnResult).result, `(huge assistant text: ${bytes} bytes)`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)

  it.live("with a 64 MiB cap a 100 MiB line is a protocol_problem, the turn completes and the next turn works", () =>
    Effect.gen(function*() {
      const bytes = 100 * MiB
      const session = yield* Claude.open(fake("huge-line", {
        maxLineBytes: 64 * MiB,
        env: { FAKE_CLAUDE_HUGE_BYTES: String(bytes) }
      }))
      const turn = (prompt: string) =>
        session.turn(prompt).pipe(
          Stream.runFold(
            () => ({ problems: [] as Array<Claude.ProtocolProblem>, assistants: 0, result: undefined as Claude.TurnResult | undefined }),
            (acc, event) => {
              if (event.type === "protocol_problem") acc.problems.push(event)
              else if (event.type === "assistant") acc.assistants++
              else if (event.type === "result") acc.result = event
              return acc
            }
          )
        )
      const first = yield* turn("huge")
      assert.strictEqual(first.problems.length, 1)
      assert.strictEqual(first.assistants, 0)
      assert.include(first.problems[0]!.error.description, "over the cap of 67108864")
      assert.isAtMost(first.problems[0]!.error.line.length, 2048)
      assert.strictEqual(first.result?.subtype, "success")
      const second = yield* turn("again")
      assert.strictEqual(second.result?.subtype, "success")
      assert.strictEqual(second.result?.result_index, 1)
      assert.isTrue(Option.isNone(yield* session.exit.pipe(Effect.timeoutOption("10 millis"))), "the CLI died")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)

  it.live("a turn interrupted while its 4 MiB user line waits for a full pipe is interrupted on the CLI", () =>
    Effect.gen(function*() {
      // The CLI reads nothing for 2 s after initialize: the line fills the pipe and waits.
      const session = yield* Claude.open(fake("hang-turn,deaf-at-start", { env: { FAKE_CLAUDE_DEAF_MS: "2000" } }))
      const result = yield* Deferred.make<Claude.TurnResult>()
      let startedAt: number | undefined
      yield* Effect.forkScoped(
        Stream.runForEach(session.events, (event) => {
          if (event.type === "system" && event.subtype === "init") startedAt ??= Date.now()
          return event.type === "result" ? Deferred.succeed(result, event) : Effect.void
        }),
        { startImmediately: true }
      )
      const first = yield* Effect.forkChild(session.run("x".repeat(4 * MiB)))
      yield* Effect.sleep("300 millis")
      const interruptedAt = Date.now()
      // Interrupted while the line waits: the CLI has not read it, so has not started the turn.
      assert.isUndefined(startedAt, "the CLI started the turn before the interrupt: the line did not wait")
      // Ends once the CLI read the line, started the turn, and ended it on the library's interrupt.
      yield* Fiber.interrupt(first).pipe(Effect.timeout("10 seconds"))
      assert.isAbove(startedAt ?? 0, interruptedAt)
      const aborted = yield* Deferred.await(result).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(aborted.terminal_reason, "aborted_streaming")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 30_000)

  it.live("a missing CLI is CliNotFound with an install hint", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.scoped(Claude.open({ executable: "/nonexistent/claude" })))
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "CliNotFound")
      assert.deepStrictEqual((reason as ClaudeError.CliNotFound).searched, ["/nonexistent/claude"])
      assert.include(reason.message, "npm install @anthropic-ai/claude-code")
    }).pipe(Effect.provide(processLayer)))

  it.live("a file that is not executable, or whose interpreter is missing, is a typed error (NotExecutable, SpawnFailed)", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-proc-bad-")
      const plain = Path.join(dir, "claude-plain")
      Fs.writeFileSync(plain, "#!/bin/sh\necho hi\n", { mode: 0o644 })
      const notExecutable = reasonOf(yield* Effect.exit(Effect.scoped(Claude.open({ executable: plain }))))
      assert.strictEqual(notExecutable._tag, "NotExecutable")
      assert.strictEqual((notExecutable as ClaudeError.NotExecutable).path, plain)

      const broken = Path.join(dir, "claude-broken")
      Fs.writeFileSync(broken, "#!/nonexistent/interpreter\n", { mode: 0o755 })
      const spawnFailed = reasonOf(yield* Effect.exit(Effect.scoped(Claude.open({ executable: broken }))))
      assert.strictEqual(spawnFailed._tag, "SpawnFailed")
      assert.strictEqual((spawnFailed as ClaudeError.SpawnFailed).executable, broken)
      assert.include((spawnFailed as ClaudeError.SpawnFailed).description, "NotFound")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
