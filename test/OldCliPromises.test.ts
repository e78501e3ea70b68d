/**
 * The library's promises on the older supported CLIs (2.1.0, 2.1.200) as recorded in
 * `testdata/cli-versions/`. Each FakeCli here writes what those CLIs write: no
 * `user_message_uuid(s)`, no `command_lifecycle`, and (2.1.0) results without `terminal_reason`,
 * `stop_reason` or `api_error_status`. Each was wrong before (found by an audit): a turn given up
 * before it started was withdrawn and its late result ended the next run; a background line
 * before a turn's init started a second turn, which took the next run's result; a 500 was
 * `TurnFailed` (2.1.0 writes the status in the text only); `setModel` failed on the bare success
 * these CLIs answer; `StructuredOutputMissing` blamed the model for an interrupted 2.1.0 turn.
 * (That such a CLI is written one message at a time, so that it never merges two: see
 * `LateResults.test.ts`.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "f6769afd-6744-4bd6-9ec7-b6b7d6e0965e"

type Line = Record<string, unknown>

const fixtures: ReadonlyMap<string, Line> = new Map(
  Fs.readFileSync(new URL("../testdata/cli-versions/fixtures.ndjson", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { readonly name: string; readonly msg: Line })
    .map(({ msg, name }) => [name, msg] as const)
)

const fixture = (name: string): Line => {
  const found = fixtures.get(name)
  if (found === undefined) throw new Error(`no fixture ${name}`)
  return structuredClone(found)
}

const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

/**
 * Past the turn's `turnTimeout` (3 s, after which the session interrupts it) and the
 * `interruptTimeout` (1 s, after which it gives the interrupt up): the turn has failed.
 */
const pastTurnAndInterruptTimeouts = Effect.gen(function*() {
  yield* settle
  yield* TestClock.adjust("3 seconds")
  yield* settle
  yield* TestClock.adjust("2 seconds")
  yield* settle
})

/** What 2.1.0 leaves out of a line (`result`: no `terminal_reason`, no `stop_reason`). */
const as210 = (line: Line): Line => {
  const { stop_reason: _stop, terminal_reason: _terminal, ...rest } = line
  return rest
}

/** A text turn as 2.1.0 writes it: no uuid echoed, a result without terminal_reason/stop_reason. */
const turnLines = (text: string, cost: number): ReadonlyArray<Line> =>
  FakeCli.textTurn({ sessionId: SESSION, text, totalCostUsd: cost }).map(as210)

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, cli.emit, { discard: true })

const isUser = (m: Line) => m.type === "user"

/** The initialize answer of 2.1.0 / 2.1.200: no claude_code_version, hooks_applied, … */
const answerInitializeOld = (cli: FakeCli.FakeCliHandle) =>
  FakeCli.answerInitialize(cli, {
    claude_code_version: undefined,
    hooks_applied: undefined,
    hook_on_failure_supported: undefined,
    capabilities: undefined,
    current_permission_mode: undefined
  })

const errorOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.ClaudeError | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined

describe("older CLIs (2.1.0, 2.1.200)", () => {
  it.effect("2.1.0: a turn written alone and given up before the CLI started it keeps its place: its late result never ends the next run", () =>
    Effect.gen(function*() {
      const bWritten = yield* Deferred.make<void>()
      const runB = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* answerInitializeOld(cli)
          yield* cli.nextMatching(isUser)
          yield* emitAll(cli, turnLines("reply to A", 0.001))
          yield* cli.nextMatching(isUser)
          yield* Deferred.succeed(bWritten, undefined)
          // The CLI is slow to start B: it refuses the withdrawal (2.1.0 has no
          // cancel_async_message), and runs B only later, after the library gave up on it.
          const cancel = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.failure(cancel, "Unsupported control request subtype: cancel_async_message"))
          yield* Deferred.await(runB)
          // B starts, and is interrupted then; C, waiting for B's result, is written after it.
          const b = turnLines("reply to B", 0.002)
          yield* cli.emit(b[0]!)
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          assert.strictEqual((interrupt.request as Line).subtype, "interrupt")
          yield* cli.emit(FakeCli.success(interrupt, {}))
          yield* emitAll(cli, b.slice(1))
          yield* cli.nextMatching(isUser)
          yield* emitAll(cli, turnLines("reply to C", 0.003))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ turnTimeout: "3 seconds", interruptTimeout: "1 second" })
        assert.strictEqual((yield* session.run("A")).result, "reply to A")
        const b = yield* session.run("B").pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(bWritten)
        yield* pastTurnAndInterruptTimeouts
        assert.strictEqual(errorOf(yield* Fiber.join(b))?.reason._tag, "TurnTimedOut")
        // C waits until the CLI is done with B.
        const c = yield* session.run("C").pipe(Effect.forkChild)
        yield* settle
        yield* Deferred.succeed(runB, undefined)
        yield* settle
        const polled = c.pollUnsafe()
        assert.isDefined(polled, "run C got no result")
        if (polled !== undefined && Exit.isSuccess(polled)) {
          assert.strictEqual(polled.value.result, "reply to C", "run C returned the given-up turn B's result")
        }
      }).pipe(Effect.provide(layer))
    }))

  it.effect("2.1.200: a background task_updated before a turn's system/init starts that turn alone, not the next one too", () =>
    Effect.gen(function*() {
      const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
      const bWritten = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* answerInitializeOld(cli)
          yield* cli.nextMatching(isUser)
          yield* Deferred.succeed(bWritten, undefined)
          // The CLI is slow to start B and cannot withdraw it: the library gives B up. Then a
          // background Bash task ends by itself (the recorded 2.1.200 line), which the library
          // takes for B's start: X (a send) is written; B's turn follows, then X's.
          const cancel = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.failure(cancel, "Unsupported control request subtype: cancel_async_message"))
          yield* cli.emit(fixture("task_updated-without-ids"))
          yield* cli.nextMatching(isUser)
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to B", totalCostUsd: 0.001 }))
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to X", totalCostUsd: 0.002 }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ turnTimeout: "3 seconds", interruptTimeout: "1 second" })
        const results = yield* session.events.pipe(
          Stream.filter((event) => event.type === "result"),
          Stream.take(2),
          Stream.runCollect,
          Effect.forkChild({ startImmediately: true })
        )
        const b = yield* session.run({ text: "B", uuid: B }).pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(bWritten)
        yield* pastTurnAndInterruptTimeouts
        assert.strictEqual(errorOf(yield* Fiber.join(b))?.reason._tag, "TurnTimedOut")
        const x = yield* session.send("X")
        const ended = (yield* Fiber.join(results)).map((event) =>
          event.type === "result" ? [event.result, event.turn.userMessageUuids] as const : undefined
        )
        assert.deepStrictEqual(ended, [["reply to B", [B]], ["reply to X", [x]]])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("2.1.0 api-error: a 500 the CLI gave up on fails run with a retryable ApiError (status 500)", () =>
    Effect.gen(function*() {
      // The recorded 2.1.0 result (fixture result-without-stop_reason) with the api-error
      // scenario's outcome: is_error true, the raw API error as text, no terminal_reason and no
      // api_error_status (2.1.0 writes neither).
      const text = "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"},\"request_id\":\"req_fake1\"}"
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) =>
          Effect.gen(function*() {
            yield* cli.emit(turnLines("unused", 0.001)[0])
            yield* cli.emit({ ...fixture("result-without-stop_reason"), is_error: true, result: text })
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const error = errorOf(yield* Effect.exit(session.run("This will fail")))
        assert.isDefined(error)
        assert.strictEqual(error?.reason._tag, "ApiError", `got ${error?.reason._tag}: ${error?.message}`)
        if (error !== undefined && error.reason._tag === "ApiError") {
          assert.strictEqual(error.reason.status, 500)
          assert.isTrue(error.reason.isRetryable)
        }
      }).pipe(Effect.provide(layer))
    }))

  it.effect("2.1.0 and 2.1.200 set-model: setModel answered with a bare success returns the requested model", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* answerInitializeOld(cli)
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          // A bare success: no `response` body at all.
          yield* cli.emit({ type: "control_response", response: { subtype: "success", request_id: request.request_id } })
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const exit = yield* Effect.exit(session.setModel("haiku", { timeout: "5 seconds" }))
        assert.isTrue(Exit.isSuccess(exit), `setModel failed: ${errorOf(exit)?.message}`)
        if (Exit.isSuccess(exit)) assert.strictEqual(exit.value, "haiku")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("2.1.0 interrupt-streaming with outputFormat: StructuredOutputMissing says the turn was interrupted", () =>
    Effect.gen(function*() {
      const streaming = yield* Deferred.make<void>()
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, _index, cli) =>
          Effect.gen(function*() {
            const [init, start] = turnLines(text, 0.001)
            yield* cli.emit(init)
            yield* cli.emit(start)
            yield* Deferred.succeed(streaming, undefined)
            // 2.1.0 never answers `cancel_async_message` (sent when the library has not yet seen the
            // turn start): the library interrupts the turn once it starts.
            const interrupt = yield* cli.nextMatching((m) =>
              m.type === "control_request" && (m.request as Record<string, unknown>).subtype === "interrupt"
            )
            // 2.1.0 answers interrupt with no still_queued, and ends the turn with
            // error_during_execution, is_error false, no terminal_reason (interrupt-streaming).
            yield* cli.emit(FakeCli.success(interrupt, {}))
            yield* cli.emit({ ...as210(FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution" })), is_error: false })
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ outputFormat: Schema.Struct({ name: Schema.String }) })
        const run = yield* session.run("Who?").pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(streaming)
        yield* session.interrupt
        const error = errorOf(yield* Fiber.join(run))
        assert.strictEqual(error?.reason._tag, "StructuredOutputMissing")
        assert.include(error?.message ?? "", "interrupted")
      }).pipe(Effect.provide(layer))
    }))
})
