/**
 * Failed turns against the in-memory fake CLI: the classification of real `result` lines (copied
 * from the CLI 2.1.332 recordings into `testdata/results.ndjson`), `errorResults: "return"`, and
 * `turnTimeout` under `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

interface RecordedCase {
  /** Where the lines come from: a protocol recording, or a run of the pinned CLI. */
  readonly source: string
  readonly case: string
  /** The CLI's lines for the turn: the synthetic `assistant` error line (when any), the `result`. */
  readonly lines: ReadonlyArray<Record<string, unknown>>
}

const recorded: ReadonlyArray<RecordedCase> = Fs.readFileSync(
  Path.resolve(import.meta.dirname, "../testdata/results.ndjson"),
  "utf8"
).split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as RecordedCase)

const recordedCase = (name: string): RecordedCase => {
  const found = recorded.find((c) => c.case === name)
  if (found === undefined) throw new Error(`no recorded case ${name}`)
  return found
}

/** What each recorded result must give: a reason (with its fields), or a result (no failure). */
type Expected =
  | { readonly ok: true }
  | { readonly tag: "NotAuthenticated" }
  | { readonly tag: "ApiError"; readonly status: number | null; readonly errorType: string | null }
  | { readonly tag: "PromptTooLong" }
  | { readonly tag: "LimitReached"; readonly limit: string }
  | { readonly tag: "TurnFailed" }
  | { readonly tag: "Refused" }

const expectations: Record<string, Expected> = {
  "401 authentication_error after retries": { tag: "ApiError", status: 401, errorType: "authentication_error" },
  "500 api_error after 10 retries": { tag: "ApiError", status: 500, errorType: "api_error" },
  "529 overloaded_error after 10 retries": { tag: "ApiError", status: 529, errorType: "overloaded_error" },
  "500 with CLAUDE_CODE_MAX_RETRIES=1": { tag: "ApiError", status: 500, errorType: "api_error" },
  "500, 500, then a normal reply": { ok: true },
  "429 with retry-after after retries": { tag: "ApiError", status: 429, errorType: "rate_limit_error" },
  "400 invalid_request_error": { tag: "ApiError", status: 400, errorType: "invalid_request_error" },
  "SSE error mid-stream, retry succeeds": { ok: true },
  "SSE error mid-stream, retry fails with 500": { tag: "ApiError", status: 500, errorType: "api_error" },
  // Replayed with no interrupt from the program: the CLI's own abort, a failure. With the
  // program's interrupt, a result (below).
  "interrupt during a tool": { tag: "TurnFailed" },
  "interrupt during streaming": { tag: "TurnFailed" },
  "not logged in": { tag: "NotAuthenticated" },
  "prompt over the context window, refused by the CLI": { tag: "PromptTooLong" },
  "prompt too long, said by the API": { tag: "PromptTooLong" },
  "request too large": { tag: "ApiError", status: 413, errorType: "request_too_large" },
  "max turns reached": { tag: "LimitReached", limit: "error_max_turns" },
  // The model's own stops the CLI gives up on: `api_error` with no status, which read as an API
  // that could not be reached (a retryable `ApiError`) before.
  "model refusal, the CLI gives up": { tag: "Refused" },
  "output token maximum on every try": { tag: "LimitReached", limit: "max_output_tokens" },
  "model context window full": { tag: "PromptTooLong" }
}

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const error = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(error, "expected a typed failure")
  return (error as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

/** A CLI that answers every user turn with the recorded lines of `name`. */
const replying = (name: string) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_text, _index, cli) => Effect.forEach(recordedCase(name).lines, cli.emit, { discard: true })
  }))

const recordedResult = (name: string) => recordedCase(name).lines.find((line) => line.type === "result")!

describe("failed results, as the CLI 2.1.332 writes them", () => {
  it("every recorded case has an expectation, and every expectation a recorded case", () => {
    assert.deepStrictEqual(recorded.map((c) => c.case).sort(), Object.keys(expectations).sort())
  })

  for (const [name, expected] of Object.entries(expectations)) {
    it.effect(`${name}: ${"ok" in expected ? "run returns the result" : `run fails with ${expected.tag}`}`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const exit = yield* Effect.exit(session.run("go"))
        const line = recordedResult(name)
        if ("ok" in expected) {
          assert.isTrue(Exit.isSuccess(exit), `expected a result, got ${String(exit)}`)
          const result = (exit as Exit.Success<Claude.TurnResult>).value
          assert.strictEqual(result.uuid, line.uuid)
          assert.strictEqual(result.is_error, line.is_error)
          return
        }
        const reason = reasonOf(exit)
        assert.strictEqual(reason._tag, expected.tag, reason.message)
        // Every turn-failure reason carries the result it was read from.
        assert.strictEqual((reason as { readonly result: Claude.TurnResult }).result.uuid, line.uuid)
        switch (expected.tag) {
          case "ApiError": {
            const api = reason as ClaudeError.ApiError
            assert.strictEqual(api.status, expected.status)
            assert.strictEqual(api.errorType, expected.errorType)
            assert.strictEqual(api.description, line.result)
            assert.include(api.message, `(${expected.status} ${expected.errorType})`)
            break
          }
          case "LimitReached":
            assert.strictEqual((reason as ClaudeError.LimitReached).limit, expected.limit)
            break
          case "NotAuthenticated":
          case "PromptTooLong":
          case "Refused":
            assert.strictEqual((reason as ClaudeError.NotAuthenticated).description, line.result)
            break
          case "TurnFailed":
            assert.include(reason.message, "which the program did not ask for")
        }
      }).pipe(Effect.provide(replying(name))))
  }

  for (const name of ["interrupt during a tool", "interrupt during streaming"]) {
    it.effect(`${name}, the program's interrupt: run returns the result, interruptRequested`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const run = yield* Effect.forkChild(Effect.exit(session.run("go")), { startImmediately: true })
        yield* Effect.yieldNow
        yield* session.interrupt
        const exit = yield* Fiber.join(run)
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        const result = (exit as Exit.Success<Claude.TurnResult>).value
        assert.strictEqual(result.uuid, recordedResult(name).uuid)
        assert.isTrue(result.turn.interruptRequested)
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        // The CLI's turn has begun (its init names the message); the lines come once the interrupt does.
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: String(message.uuid) })[0])
            const interrupt = yield* cli.nextMatching((m) =>
              m.type === "control_request" && (m.request as { readonly subtype?: unknown }).subtype === "interrupt"
            )
            yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
            yield* Effect.forEach(recordedCase(name).lines, cli.emit, { discard: true })
          })
      })))))
  }

  it.effect("turn: the stream emits every event, the result included, then fails with the reason", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const seen: Array<Claude.Event> = []
      const exit = yield* session.turn("go").pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event))),
        Effect.exit
      )
      assert.deepStrictEqual(seen.map((e) => e.type), ["assistant", "result"])
      const reason = reasonOf(exit) as ClaudeError.ApiError
      assert.strictEqual(reason._tag, "ApiError")
      assert.strictEqual(reason.result, seen[1])
      assert.isTrue(reason.isRetryable)
    }).pipe(Effect.provide(replying("529 overloaded_error after 10 retries"))))

  it.effect("the session stays usable after a failed turn; events sees the result as data", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const events = yield* session.events.pipe(
        Stream.filter((e) => e.type === "result"),
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild({ startImmediately: true })
      )
      const first = yield* Effect.exit(session.run("fails"))
      assert.strictEqual(reasonOf(first)._tag, "NotAuthenticated")
      const second = yield* session.run("works")
      assert.strictEqual(second.result, "echo: works")
      const results = (yield* Fiber.join(events)) as ReadonlyArray<Claude.TurnResult>
      assert.deepStrictEqual(results.map((r) => r.is_error), [true, false])
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, index, cli) =>
        index === 0
          ? Effect.forEach(recordedCase("not logged in").lines, cli.emit, { discard: true })
          : Effect.forEach(FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}` }), cli.emit, { discard: true })
    })))))

  it.effect("terminal_reason blocking_limit is PromptTooLong whatever the text says", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const reason = reasonOf(yield* Effect.exit(session.run("go")))
      assert.strictEqual(reason._tag, "PromptTooLong")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (_text, _index, cli) =>
        cli.emit({ ...recordedResult("prompt over the context window, refused by the CLI"), result: "Context limit reached" })
    })))))

  it.effect("a reason is caught by name with Effect.catchReason", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const status = yield* session.run("go").pipe(
        Effect.map(() => "done"),
        Effect.catchReason("ClaudeError", "ApiError", (reason) => Effect.succeed(`api ${reason.status}`))
      )
      assert.strictEqual(status, "api 429")
    }).pipe(Effect.provide(replying("429 with retry-after after retries"))))
})

/**
 * CLI 2.1.332 counts these terminal reasons as failed turns (its own check, read from its binary),
 * and writes one of them with `is_error: false`: `turn_setup_failed`, a turn that never started
 * ("Claude Code didn't start. …", `subtype: "success"`). It read as a success (found by a reviewing
 * helper; failing before). Each is now a failure whatever `is_error` says.
 */
describe("terminal reasons the CLI counts as failed, with is_error false", () => {
  const failedReasons: ReadonlyArray<readonly [string, ClaudeError.Reason["_tag"]]> = [
    ["turn_setup_failed", "TurnFailed"],
    ["tool_deferred_unavailable", "TurnFailed"],
    ["model_error", "TurnFailed"],
    ["image_error", "TurnFailed"],
    ["malformed_tool_use_exhausted", "TurnFailed"],
    ["rapid_refill_breaker", "PromptTooLong"],
    ["blocking_limit", "PromptTooLong"],
    ["prompt_too_long", "PromptTooLong"],
    ["api_error", "ApiError"],
    ["budget_exhausted", "LimitReached"],
    ["structured_output_retry_exhausted", "LimitReached"]
  ]
  for (const [terminalReason, tag] of failedReasons) {
    it.effect(`${terminalReason}: run fails with ${tag}`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const reason = reasonOf(yield* Effect.exit(session.run("go")))
        assert.strictEqual(reason._tag, tag, reason.message)
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) =>
          cli.emit({
            ...FakeCli.result({ sessionId: SESSION, text: "Claude Code didn't start. The policy could not be loaded.", terminalReason }),
            is_error: false,
            num_turns: 0
          })
      })))))
  }

  for (const terminalReason of ["completed", "stop_hook_prevented", "hook_stopped", "tool_deferred", "background_requested"]) {
    it.effect(`${terminalReason}: run returns the result`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const result = yield* session.run("go")
        assert.strictEqual(result.terminal_reason, terminalReason)
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) => cli.emit(FakeCli.result({ sessionId: SESSION, text: "done", terminalReason }))
      })))))
  }
})

describe("errorResults: \"return\"", () => {
  for (const name of Object.keys(expectations).filter((name) => !("ok" in expectations[name]!))) {
    it.effect(`${name}: run returns the result as data`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open({ errorResults: "return" })
        const result = yield* session.run("go")
        const line = recordedResult(name)
        assert.strictEqual(result.uuid, line.uuid)
        assert.isTrue(result.is_error)
        assert.strictEqual(result.subtype, line.subtype)
      }).pipe(Effect.provide(replying(name))))
  }

  it.effect("turn ends cleanly with the failed result", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ errorResults: "return" })
      const events = yield* session.turn("go").pipe(Stream.runCollect)
      const last = events.at(-1) as Claude.TurnResult
      assert.strictEqual(last.type, "result")
      assert.strictEqual(last.api_error_status, 500)
    }).pipe(Effect.provide(replying("500 with CLAUDE_CODE_MAX_RETRIES=1"))))
})

const requestOf = (message: Record<string, unknown>) => message.request as Record<string, unknown>

/**
 * A CLI whose first turn starts and then only retries the API (a `system/api_retry` every 10
 * seconds) until it is interrupted; it then ends that turn aborted (`interrupted` is done once the
 * aborted result is written). Later turns answer at once.
 */
const retryingFirstTurn = (
  started: Deferred.Deferred<void>,
  interrupted: Deferred.Deferred<ReadonlyArray<string>>
) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli, message) => {
      const uuid = message.uuid as string
      const lines = FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, userMessageUuid: uuid })
      if (index > 0) return Effect.forEach(lines, cli.emit, { discard: true })
      return Effect.gen(function*() {
        yield* cli.emit(lines[0])
        const retrying = Effect.gen(function*() {
          for (let attempt = 1; ; attempt++) {
            yield* Effect.sleep("10 seconds")
            yield* cli.emit({
              type: "system",
              subtype: "api_retry",
              attempt,
              max_retries: 10,
              retry_delay_ms: 10_000,
              error_status: 529,
              error: "overloaded",
              session_id: SESSION,
              uuid: `retry-${attempt}`
            })
          }
        })
        const fiber = yield* Effect.forkChild(retrying, { startImmediately: true })
        yield* Deferred.succeed(started, undefined)
        const control = yield* cli.nextMatching((m) => m.type === "control_request")
        yield* Fiber.interrupt(fiber)
        yield* cli.emit(FakeCli.success(control, { still_queued: [] }))
        yield* cli.emit({
          ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
          user_message_uuid: uuid,
          user_message_uuids: [uuid]
        })
        yield* Deferred.succeed(interrupted, [String(requestOf(control).subtype)])
      })
    }
  }))

describe("turnTimeout (TestClock)", () => {
  it.effect("the turn fails at its deadline though the CLI keeps writing, interrupt is sent, the next turn works", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<ReadonlyArray<string>>()
      const session = yield* Claude.open({ turnTimeout: "45 seconds" }).pipe(
        Effect.provide(retryingFirstTurn(started, interrupted))
      )
      const retries: Array<number> = []
      const fiber = yield* session.turn("slow").pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event.type === "system" && event.subtype === "api_retry") retries.push(event.attempt)
          })
        ),
        Effect.exit,
        Effect.forkChild
      )
      yield* Deferred.await(started)
      yield* TestClock.adjust("44 seconds")
      assert.isUndefined(fiber.pollUnsafe(), "still running before the deadline")
      // Output does not extend the deadline (a stallTimeout would have been reset by each retry).
      assert.deepStrictEqual(retries, [1, 2, 3, 4])
      yield* TestClock.adjust("1 second")
      const reason = reasonOf(yield* Fiber.join(fiber)) as ClaudeError.TurnTimedOut
      assert.strictEqual(reason._tag, "TurnTimedOut")
      assert.strictEqual(reason.timeoutMillis, 45_000)
      assert.include(reason.message, "45000 ms")
      // The CLI's turn is interrupted in the session's scope.
      const sent = yield* Deferred.await(interrupted).pipe(
        Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.succeed(["nothing within 5 s"]) }),
        TestClock.withLive
      )
      assert.deepStrictEqual(sent, ["interrupt"])
      const next = yield* session.run("next")
      assert.strictEqual(next.result, "echo: next")
      assert.isFalse(next.is_error)
    }))

  it.effect("a turn that ends before its deadline is not touched by it", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ turnTimeout: "1 second" })
      const first = yield* session.run("one")
      yield* TestClock.adjust("5 seconds")
      const second = yield* session.run("two")
      assert.deepStrictEqual([first.result, second.result], ["echo: one", "echo: two"])
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))
})
