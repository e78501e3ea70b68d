/**
 * The contract of `Connection` (src/Transport.ts), checked once and run against every transport
 * (test/TransportContract.test.ts), the way Effect's `ChildProcessSpawnerTest.suite` is run
 * against each spawner: incoming ends when stdout ends (and not before); `send` fails with
 * `SessionClosed` after `endInput`; `endInput` is idempotent; `exit` resolves with the status;
 * closing the scope ends the CLI (and, for processes, leaves nothing of it behind, within
 * `closeGrace` even when it ignores EOF and SIGTERM); stderr lines arrive as written; a session
 * opened over the transport runs a turn.
 *
 * A transport says how to make its CLI behave (`launch`), and which invariants it cannot honour
 * with the reason (`declines`). A declined invariant is not skipped: the suite checks instead what
 * the transport does in its place, so that a transport which starts to honour it fails that check
 * and the declaration must go.
 */
import { assert, describe, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../../src/Claude.ts"
import * as ClaudeError from "../../src/ClaudeError.ts"
import { type Connection, type LaunchSpec, Transport } from "../../src/Transport.ts"
import { isRunning } from "./processes.ts"

/**
 * What the suite asks of a transport's CLI. Every CLI answers `initialize`, answers each user
 * message with one turn, and exits 0 at stdin EOF; besides:
 * - `stderr`: writes `fake-claude: started, pid N` on stderr at start, and for each user message
 *   `fake-claude: turn N: <text>` (in two writes);
 * - `crash`: on the first user message writes `system/init` and one `stream_event`, then
 *   `fatal: simulated crash` on stderr, and exits with code 3;
 * - `closeStdout`: after the first turn's `result`, closes its stdout and lives on until stdin EOF;
 * - `stubborn`: ignores stdin EOF and SIGTERM (only SIGKILL ends it);
 * - `grandchild` (processes): starts two processes that outlive it, one in its process group
 *   (`grandchild_pid` in `system/init`) and one in a session of its own (`stray_pid`).
 * These are the modes of test/fixtures/fake-claude.mjs.
 */
export type Behaviour = "plain" | "stderr" | "crash" | "closeStdout" | "stubborn" | "grandchild"

/** The modes of test/fixtures/fake-claude.mjs (test/fixtures/README.md) that give each behaviour. */
export const fakeClaudeModes: Record<Behaviour, string> = {
  plain: "",
  stderr: "stderr-chatter",
  crash: "exit-mid-turn",
  closeStdout: "close-stdout",
  stubborn: "ignore-sigterm",
  grandchild: "grandchild,stray"
}

/** The invariants a transport may decline, because its CLI cannot behave that way. */
export type Declinable = "stderr" | "crash" | "closeStdout" | "stubborn"

export interface ContractOptions {
  /** The executable and environment that make this transport's CLI behave as asked. */
  readonly launch: (behaviour: Behaviour) => {
    readonly executable?: string | undefined
    readonly env: Readonly<Record<string, string>>
  }
  /** The user message of the turns the suite runs (a replay needs the recorded one). */
  readonly prompt: string
  /** The `result` text of that turn. */
  readonly resultText: string
  /** Real processes: a pid, a process group, and strays to sweep on close. */
  readonly processes: boolean
  /** The invariants this transport cannot honour, each with the reason. */
  readonly declines: { readonly [K in Declinable]?: string }
}

const CLOSE_GRACE = Duration.seconds(2)
const WAIT = Duration.seconds(15)

const spec = (options: ContractOptions, behaviour: Behaviour): LaunchSpec => {
  const launch = options.launch(behaviour)
  return { executable: launch.executable, args: [], env: launch.env, closeGrace: CLOSE_GRACE }
}

const initializeLine = JSON.stringify({
  type: "control_request",
  request_id: "contract-init",
  request: { subtype: "initialize", hooks: {} }
})

const userLine = (text: string) =>
  JSON.stringify({
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    session_id: "",
    uuid: randomUUID()
  })

type Json = Record<string, unknown>

/** Fails the test (a defect with `what`) when `effect` takes longer than `duration`. */
const within = (duration: Duration.Input, what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(effect, {
    duration,
    orElse: () => Effect.die(new Error(`timed out after ${Duration.format(Duration.fromInputUnsafe(duration))}: ${what}`))
  })

/** Polls `check` every 10 ms until it holds; a defect naming `what` after `WAIT`. */
const until = (check: () => boolean, what: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (!check()) yield* Effect.sleep(Duration.millis(10))
  }).pipe(within(WAIT, what))

/** Whether `effect` completes within `millis` (it is interrupted otherwise). */
const doneWithin = <A, E>(effect: Effect.Effect<A, E>, millis: number) =>
  Effect.map(Effect.timeoutOption(Effect.exit(effect), Duration.millis(millis)), Option.isSome)

/**
 * The one consumer of `incoming`: the lines as they come, parsed, and the exit of the stream.
 */
const readIncoming = (connection: Connection) =>
  Effect.gen(function*() {
    const lines: Array<Json> = []
    const decoder = new TextDecoder()
    let buffer = ""
    const ended = yield* Deferred.make<Exit.Exit<void, ClaudeError.ClaudeError>>()
    yield* connection.incoming.pipe(
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          buffer += decoder.decode(chunk, { stream: true })
          let newline: number
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, newline).trim()
            buffer = buffer.slice(newline + 1)
            if (line.length > 0) lines.push(JSON.parse(line) as Json)
          }
        })
      ),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.succeed(ended, exit)),
      Effect.forkScoped
    )
    const has = (predicate: (line: Json) => boolean) => lines.some(predicate)
    return { lines, ended, has }
  })

/** Every line of stderr a run of the stream sees, and whether that run ended. */
const readStderr = (connection: Connection) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const ended = yield* Deferred.make<void>()
    yield* connection.stderr.pipe(
      Stream.runForEach((line) => Effect.sync(() => lines.push(line))),
      Effect.ensuring(Deferred.succeed(ended, undefined)),
      Effect.forkScoped
    )
    return { lines, ended }
  })

const isResponse = (line: Json) =>
  line.type === "control_response" &&
  (line.response as Json | undefined)?.request_id === "contract-init"
const isResult = (line: Json) => line.type === "result"
const isInit = (line: Json) => line.type === "system" && line.subtype === "init"

const reasonTag = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  return ClaudeError.isClaudeError(error) ? error.reason._tag : `not a typed failure: ${Cause.pretty(exit.cause)}`
}

/**
 * Registers the contract of `Connection` for the transport `layer` (a fresh build per test).
 */
export const transportContract = (name: string, layer: Layer.Layer<Transport>, options: ContractOptions) =>
  describe(`transport contract: ${name}`, { timeout: 60_000 }, () => {
    const test = (title: string, body: () => Effect.Effect<void, unknown, Transport | Scope.Scope>) =>
      it.live(title, () => body().pipe(Effect.provide(layer)))
    const open = (behaviour: Behaviour) => Effect.flatMap(Effect.service(Transport), (transport) => transport.open(spec(options, behaviour)))

    /** Sends `initialize` and the prompt, and waits for the answer and the turn's result. */
    const runWireTurn = (connection: Connection, incoming: Effect.Success<ReturnType<typeof readIncoming>>) =>
      Effect.gen(function*() {
        yield* connection.send(initializeLine)
        yield* connection.send(userLine(options.prompt))
        yield* until(() => incoming.has(isResponse) && incoming.has(isResult), "the answer to initialize and the turn's result")
      })

    test("incoming carries the CLI's stdout as it comes, and ends when stdout ends (not before)", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        const incoming = yield* readIncoming(connection)
        yield* runWireTurn(connection, incoming)
        // The answer carries the request id this side sent; the result is the turn's.
        const result = incoming.lines.find(isResult)!
        assert.strictEqual(result.result, options.resultText)
        // The CLI still runs, waiting for input: its stdout is open, so incoming has not ended.
        assert.isFalse(yield* doneWithin(Deferred.await(incoming.ended), 200), "incoming ended while the CLI runs")
        yield* connection.endInput
        const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end after EOF"))
        assert.isTrue(Exit.isSuccess(ended), `incoming failed: ${String(ended)}`)
      }))

    test("incoming keeps what the CLI wrote before it is run (a session writes initialize before its reader starts)", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        yield* connection.send(initializeLine)
        yield* connection.send(userLine(options.prompt))
        yield* connection.endInput
        // The CLI has answered, run the turn and exited before anything reads its stdout.
        const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
        assert.strictEqual(status.code, 0)
        const incoming = yield* readIncoming(connection)
        const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end"))
        assert.isTrue(Exit.isSuccess(ended), `incoming failed: ${String(ended)}`)
        assert.isTrue(incoming.has(isResponse), "the answer to initialize")
        assert.strictEqual(incoming.lines.find(isResult)?.result, options.resultText)
      }))

    test("send after endInput fails with SessionClosed, and nothing reaches the CLI", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        const incoming = yield* readIncoming(connection)
        yield* connection.endInput
        const sent = yield* Effect.exit(connection.send(userLine(options.prompt)))
        assert.strictEqual(reasonTag(sent), "SessionClosed")
        const initialize = yield* Effect.exit(connection.send(initializeLine))
        assert.strictEqual(reasonTag(initialize), "SessionClosed")
        yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end after EOF"))
        // The CLI saw no turn and no request: it answered nothing.
        assert.deepStrictEqual(incoming.lines.filter((line) => isResult(line) || isInit(line) || isResponse(line)), [])
        const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
        assert.strictEqual(status.code, 0)
      }))

    test("endInput is idempotent: twice, concurrently, and after the CLI exited", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        const incoming = yield* readIncoming(connection)
        yield* runWireTurn(connection, incoming)
        yield* Effect.all([connection.endInput, connection.endInput, connection.endInput], { concurrency: "unbounded" })
          .pipe(within(WAIT, "concurrent endInput"))
        yield* connection.endInput.pipe(within(WAIT, "a second endInput"))
        const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
        yield* connection.endInput.pipe(within(WAIT, "endInput after the exit"))
        assert.deepStrictEqual({ code: status.code, signal: status.signal }, { code: 0, signal: null })
        const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end"))
        assert.isTrue(Exit.isSuccess(ended))
        assert.strictEqual(incoming.lines.filter(isResult).length, 1)
      }))

    test("exit waits for the CLI to end, then gives its status (0 at EOF), the same to every caller", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        const incoming = yield* readIncoming(connection)
        yield* runWireTurn(connection, incoming)
        assert.isFalse(yield* doneWithin(connection.exit, 200), "exit resolved while the CLI runs")
        const waiting = yield* Effect.forkScoped(connection.exit)
        yield* connection.endInput
        const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
        assert.deepStrictEqual({ code: status.code, signal: status.signal }, { code: 0, signal: null })
        assert.deepStrictEqual(yield* Fiber.await(waiting), Exit.succeed(status))
        assert.deepStrictEqual(yield* connection.exit, status)
      }))

    if (options.declines.crash === undefined) {
      test("a CLI that dies: exit has its code and stderr tail, what it wrote before arrives, incoming ends, send fails", () =>
        Effect.gen(function*() {
          const connection = yield* open("crash")
          const incoming = yield* readIncoming(connection)
          yield* connection.send(userLine(options.prompt))
          const status = yield* connection.exit.pipe(within(WAIT, "the crash"))
          assert.deepStrictEqual({ code: status.code, signal: status.signal }, { code: 3, signal: null })
          assert.include(status.stderrTail, "fatal: simulated crash")
          const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end after the crash"))
          assert.isTrue(Exit.isSuccess(ended))
          assert.isTrue(incoming.has(isInit), "the system/init written before the crash was lost")
          assert.strictEqual(reasonTag(yield* Effect.exit(connection.send(userLine("after")))), "SessionClosed")
        }))
    } else {
      test(`declines a CLI that dies by itself (${options.declines.crash}): it ends only at EOF, with code 0`, () =>
        Effect.gen(function*() {
          const connection = yield* open("crash")
          const incoming = yield* readIncoming(connection)
          yield* runWireTurn(connection, incoming)
          assert.isFalse(yield* doneWithin(connection.exit, 200), "the CLI ended by itself")
          yield* connection.endInput
          const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
          assert.strictEqual(status.code, 0)
        }))
    }

    if (options.declines.closeStdout === undefined) {
      test("incoming ends when stdout ends while the CLI lives on; stdin stays open until endInput", () =>
        Effect.gen(function*() {
          const connection = yield* open("closeStdout")
          const incoming = yield* readIncoming(connection)
          yield* connection.send(userLine(options.prompt))
          const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end when stdout closes"))
          assert.isTrue(Exit.isSuccess(ended), `incoming failed: ${String(ended)}`)
          assert.isTrue(incoming.has(isResult), "the result written before stdout closed was lost")
          // The CLI still runs: exit waits, and it still takes input.
          assert.isFalse(yield* doneWithin(connection.exit, 200), "exit resolved while the CLI lives on")
          yield* connection.send(userLine("after stdout closed"))
          yield* connection.endInput
          const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
          assert.strictEqual(status.code, 0)
        }))
    } else {
      test(`declines closing stdout before the end (${options.declines.closeStdout}): incoming ends only at EOF`, () =>
        Effect.gen(function*() {
          const connection = yield* open("closeStdout")
          const incoming = yield* readIncoming(connection)
          yield* runWireTurn(connection, incoming)
          assert.isFalse(yield* doneWithin(Deferred.await(incoming.ended), 200), "incoming ended before EOF")
          yield* connection.endInput
          const ended = yield* Deferred.await(incoming.ended).pipe(within(WAIT, "incoming to end after EOF"))
          assert.isTrue(Exit.isSuccess(ended))
        }))
    }

    if (options.declines.stderr === undefined) {
      test("stderr: lines arrive while the CLI runs, a later run sees them too, the tail is in the exit status", () =>
        Effect.gen(function*() {
          const connection = yield* open("stderr")
          const incoming = yield* readIncoming(connection)
          const first = yield* readStderr(connection)
          yield* connection.send(userLine("hello"))
          const turnLine = "fake-claude: turn 1: hello"
          // One line, joined from its two writes, before the CLI ends.
          yield* until(() => first.lines.includes(turnLine), `the stderr line ${turnLine}`)
          assert.isTrue(first.lines.some((line) => line.startsWith("fake-claude: started")), first.lines.join("\n"))
          assert.isFalse(yield* doneWithin(connection.exit, 50), "the CLI ended before the check")
          const later = yield* connection.stderr.pipe(
            Stream.takeUntil((line) => line === turnLine),
            Stream.runCollect,
            within(WAIT, "a later run of stderr to see the earlier lines")
          )
          assert.include(later, turnLine)
          yield* until(() => incoming.has(isResult), "the turn's result")
          yield* connection.endInput
          yield* Deferred.await(first.ended).pipe(within(WAIT, "stderr to end when the CLI ends"))
          const status = yield* connection.exit.pipe(within(WAIT, "the exit after EOF"))
          assert.include(status.stderrTail, turnLine)
        }))
    } else {
      test(`declines stderr (${options.declines.stderr}): none arrives, and the stream ends with the CLI`, () =>
        Effect.gen(function*() {
          const connection = yield* open("stderr")
          const incoming = yield* readIncoming(connection)
          const stderr = yield* readStderr(connection)
          yield* runWireTurn(connection, incoming)
          yield* connection.endInput
          yield* Deferred.await(stderr.ended).pipe(within(WAIT, "stderr to end"))
          assert.deepStrictEqual(stderr.lines, [])
          assert.strictEqual((yield* connection.exit).stderrTail, "")
        }))
    }

    test("stderr ends when the CLI ends, also when it wrote nothing; a run started after the end ends at once", () =>
      Effect.gen(function*() {
        const connection = yield* open("plain")
        const incoming = yield* readIncoming(connection)
        const stderr = yield* readStderr(connection)
        yield* runWireTurn(connection, incoming)
        assert.isFalse(yield* doneWithin(Deferred.await(stderr.ended), 100), "stderr ended while the CLI runs")
        yield* connection.endInput
        yield* Deferred.await(stderr.ended).pipe(within(WAIT, "stderr to end"))
        yield* connection.exit.pipe(within(WAIT, "the exit"))
        yield* connection.stderr.pipe(Stream.runDrain, within(Duration.seconds(2), "a run of stderr after the end"))
      }))

    test("closing the scope ends the CLI: exit resolves, incoming ends, and no process of it is left", () =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const connection = yield* open(options.processes ? "grandchild" : "plain").pipe(Scope.provide(scope))
        // The reader is the test's, outside the closed scope: it sees the end of incoming.
        const incoming = yield* readIncoming(connection)
        yield* runWireTurn(connection, incoming)
        const pids: Array<number> = []
        if (options.processes) {
          assert.isNumber(connection.pid)
          const init = incoming.lines.find(isInit)
          assert.isNumber(init?.grandchild_pid, "no grandchild_pid in system/init")
          assert.isNumber(init?.stray_pid, "no stray_pid in system/init")
          pids.push(connection.pid!, init!.grandchild_pid as number, init!.stray_pid as number)
          for (const pid of pids) assert.isTrue(isRunning(pid), `${pid} is not running before the close`)
        } else {
          assert.isUndefined(connection.pid)
        }
        yield* Scope.close(scope, Exit.void)
        assert.isTrue(yield* doneWithin(connection.exit, 1000), "exit did not resolve after the close")
        assert.isTrue(yield* doneWithin(Deferred.await(incoming.ended), 1000), "incoming did not end after the close")
        for (const pid of pids) assert.isFalse(isRunning(pid), `${pid} is still running after the close`)
      }))

    if (options.declines.stubborn === undefined) {
      test("closing the scope ends a CLI that ignores EOF and SIGTERM, within closeGrace", () =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const connection = yield* open("stubborn").pipe(Scope.provide(scope))
          const incoming = yield* readIncoming(connection)
          yield* connection.send(initializeLine)
          yield* until(() => incoming.has(isResponse), "the answer to initialize")
          // The close cannot wait for the CLI: it ends it, by SIGKILL for a process (below).
          yield* Scope.close(scope, Exit.void).pipe(within(Duration.sum(CLOSE_GRACE, WAIT), "the close"))
          const status = yield* connection.exit.pipe(within(Duration.seconds(1), "the exit after the close"))
          if (options.processes) {
            assert.strictEqual(status.signal, "SIGKILL", JSON.stringify(status))
            assert.isFalse(isRunning(connection.pid!))
          }
        }))
    } else {
      test(`declines a CLI that ignores EOF (${options.declines.stubborn}): closing ends it at once`, () =>
        Effect.gen(function*() {
          const scope = yield* Scope.make()
          const connection = yield* open("stubborn").pipe(Scope.provide(scope))
          yield* Scope.close(scope, Exit.void).pipe(within(Duration.millis(500), "the close"))
          const status = yield* connection.exit.pipe(within(Duration.millis(500), "the exit after the close"))
          assert.strictEqual(status.code, 0)
        }))
    }

    test("a session opened over it runs a turn, and ends at EOF", () =>
      Effect.gen(function*() {
        const launch = options.launch("plain")
        const session = yield* Claude.open({ executable: launch.executable, env: launch.env, closeGrace: CLOSE_GRACE })
        const result = yield* session.run(options.prompt).pipe(within(WAIT, "the turn"))
        assert.strictEqual(result.subtype, "success")
        assert.strictEqual(result.result, options.resultText)
        yield* session.endInput
        const status = yield* session.exit.pipe(within(WAIT, "the exit after EOF"))
        assert.strictEqual(status.code, 0)
      }))
  })
