/**
 * Failed turns against the real CLI (the pinned devDependency) and the fake Messages API: each
 * way a turn fails gives its typed reason from `run`, the session stays usable, an interrupted
 * turn is not a failure, and `turnTimeout` ends a turn whose API never answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), `expected a failure, got ${String(exit)}`)
  const error = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(error, "expected a typed failure")
  return (error as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

/** The result a turn-failure reason carries. */
const resultOf = (reason: ClaudeError.Reason): Claude.TurnResult => (reason as { readonly result: Claude.TurnResult }).result

/** No retries: an API error ends the turn at once. */
const noRetries = { env: { CLAUDE_CODE_MAX_RETRIES: "0" } } as const

describe("failed turns against the real CLI", { timeout: 120_000 }, () => {
  it.live("no key (fresh HOME, no ANTHROPIC_API_KEY): run fails with NotAuthenticated, no request is made", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("never")], { env: { ANTHROPIC_API_KEY: undefined } })
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("hello"))) as ClaudeError.NotAuthenticated
      assert.strictEqual(reason._tag, "NotAuthenticated")
      // What the CLI 2.1.332 writes: an api_error result with no status, and this text.
      assert.strictEqual(reason.description, "Not logged in · Please run /login")
      assert.strictEqual(resultOf(reason).terminal_reason, "api_error")
      assert.strictEqual(reason.message, "Claude Code is not authenticated: Not logged in · Please run /login")
      assert.lengthOf(yield* model.messageRequests, 0)
    }).pipe(Effect.provide(processLayer)))

  it.live("a 401 from the API (the key refused): ApiError with status 401 and authentication_error", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.httpError(401)], noRetries)
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("hello")))
      assert.strictEqual(reason._tag, "ApiError")
      assert.strictEqual((reason as ClaudeError.ApiError).status, 401)
      assert.strictEqual((reason as ClaudeError.ApiError).errorType, "authentication_error")
      assert.strictEqual(resultOf(reason).api_error_status, 401)
      assert.strictEqual(resultOf(reason).api_error_type, "authentication_error")
    }).pipe(Effect.provide(processLayer)))

  for (const status of [404, 429, 500, 529]) {
    it.live(`a ${status} from the API: ApiError with status ${status}; the next turn works`, () =>
      Effect.gen(function*() {
        // Every request fails (the CLI tries a 404 twice, even with no retries), until the script changes.
        const { model, options } = yield* live(() => FakeModel.httpError(status), noRetries)
        const session = yield* Claude.open(options)
        const reason = reasonOf(yield* Effect.exit(session.run("hello"))) as ClaudeError.ApiError
        assert.strictEqual(reason._tag, "ApiError", reason.message)
        assert.strictEqual(reason.status, status)
        assert.strictEqual(reason.errorType, FakeModel.httpError(status).errorType)
        assert.strictEqual(resultOf(reason).terminal_reason, "api_error")
        assert.strictEqual(reason.isRetryable, status !== 404)
        yield* model.setScript([FakeModel.text("fine now")])
        const next = yield* session.run("again")
        assert.strictEqual(next.result, "fine now")
      }).pipe(Effect.provide(processLayer)))
  }

  it.live("the API unreachable (connection refused): ApiError with no status, retryable", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("never")], {
        env: { CLAUDE_CODE_MAX_RETRIES: "0", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" }
      })
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("hello"))) as ClaudeError.ApiError
      assert.strictEqual(reason._tag, "ApiError", reason.message)
      assert.isNull(reason.status)
      assert.include(reason.description, "ECONNREFUSED")
      assert.isTrue(reason.isRetryable)
    }).pipe(Effect.provide(processLayer)))

  it.live("with one retry, the turn's stream carries the typed system/api_retry event, then fails after the result", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.httpError(500), FakeModel.httpError(500)], {
        env: { CLAUDE_CODE_MAX_RETRIES: "1" }
      })
      const session = yield* Claude.open(options)
      const seen: Array<Claude.Event> = []
      const exit = yield* session.turn("hello").pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event))),
        Effect.exit
      )
      const retries = seen.flatMap((e) => e.type === "system" && e.subtype === "api_retry" ? [e] : [])
      assert.lengthOf(retries, 1)
      assert.strictEqual(retries[0]!.attempt, 1)
      assert.strictEqual(retries[0]!.max_retries, 1)
      assert.strictEqual(retries[0]!.error_status, 500)
      assert.strictEqual(retries[0]!.error, "server_error")
      assert.strictEqual(seen.at(-1)?.type, "result")
      const reason = reasonOf(exit) as ClaudeError.ApiError
      assert.strictEqual(reason._tag, "ApiError")
      assert.strictEqual(reason.status, 500)
      assert.strictEqual(resultOf(reason), seen.at(-1))
    }).pipe(Effect.provide(processLayer)))

  it.live("a 5 MB prompt: PromptTooLong (the CLI refuses it without calling the API)", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live(() => FakeModel.text("fine"), noRetries)
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("x".repeat(5_000_000))))
      assert.strictEqual(reason._tag, "PromptTooLong", reason.message)
      assert.strictEqual(resultOf(reason).terminal_reason, "blocking_limit")
      assert.strictEqual((reason as ClaudeError.PromptTooLong).description, "Prompt is too long")
      assert.lengthOf(yield* model.messageRequests, 0)
      // The session goes on.
      const after = yield* session.run("short")
      assert.strictEqual(after.result, "fine")
    }).pipe(Effect.provide(processLayer)))

  it.live("the API's 400 \"prompt is too long\": PromptTooLong", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.httpError(400, { message: "prompt is too long: 1250000 tokens > 1000000 maximum" })
      ], noRetries)
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("hello")))
      assert.strictEqual(reason._tag, "PromptTooLong", reason.message)
      assert.strictEqual(resultOf(reason).terminal_reason, "prompt_too_long")
      assert.strictEqual(resultOf(reason).api_error_status, 400)
    }).pipe(Effect.provide(processLayer)))

  it.live("maxTurns: 1 reached (a tool call wants a second turn): LimitReached", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.toolUse("Bash", { command: "echo hi", description: "say hi" }),
        FakeModel.text("never reached")
      ], { maxTurns: 1 })
      const session = yield* Claude.open(options)
      const reason = reasonOf(yield* Effect.exit(session.run("say hi"))) as ClaudeError.LimitReached
      assert.strictEqual(reason._tag, "LimitReached")
      assert.strictEqual(reason.limit, "error_max_turns")
      assert.strictEqual(resultOf(reason).terminal_reason, "max_turns")
      assert.strictEqual(reason.message, "The turn stopped at a limit: error_max_turns")
    }).pipe(Effect.provide(processLayer)))

  it.live("an interrupted turn is not a failure: run returns the aborted result", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.text("word ".repeat(200), { chunks: 200, delayMs: 25 }),
        FakeModel.text("fine")
      ])
      const session = yield* Claude.open(options)
      const streaming = yield* session.events.pipe(
        Stream.filter((e) => e.type === "stream_event"),
        Stream.take(10),
        Stream.runDrain,
        Effect.forkChild({ startImmediately: true })
      )
      const running = yield* Effect.forkChild(session.run("talk a lot"))
      yield* Fiber.join(streaming)
      yield* session.interrupt
      const aborted = yield* Fiber.join(running)
      assert.isTrue(aborted.is_error)
      assert.strictEqual(aborted.terminal_reason, "aborted_streaming")
      const next = yield* session.run("short now")
      assert.strictEqual(next.result, "fine")
    }).pipe(Effect.provide(processLayer)))

  it.live("turnTimeout ends a turn whose API never answers (TurnTimedOut, interrupt sent); the next turn works", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.hang, FakeModel.text("answered")], { turnTimeout: "3 seconds" })
      const session = yield* Claude.open(options)
      const results = yield* session.events.pipe(
        Stream.filter((e) => e.type === "result"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      const reason = reasonOf(yield* Effect.exit(session.run("hello"))) as ClaudeError.TurnTimedOut
      assert.strictEqual(reason._tag, "TurnTimedOut")
      assert.strictEqual(reason.timeoutMillis, 3000)
      assert.lengthOf(yield* model.messageRequests, 1)
      // The CLI's turn was interrupted: its aborted result still reaches `events`.
      const aborted = yield* Fiber.join(results)
      assert.strictEqual(aborted._tag, "Some")
      assert.strictEqual((aborted as { readonly value: Claude.TurnResult }).value.terminal_reason, "aborted_streaming")
      const next = yield* session.run("again")
      assert.strictEqual(next.result, "answered")
    }).pipe(Effect.provide(processLayer)))
})

describe("FakeModel.hang", () => {
  it.live("leaves a request unanswered; the next request is answered", () =>
    Effect.gen(function*() {
      const model = yield* FakeModel.make([FakeModel.hang, FakeModel.text("second")])
      const post = Effect.promise((signal) =>
        fetch(`${model.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", max_tokens: 10, stream: false, messages: [{ role: "user", content: "x" }] }),
          signal
        }).then((res) => res.json() as Promise<{ readonly content: ReadonlyArray<{ readonly text: string }> }>)
      )
      const first = yield* Effect.forkChild(post)
      yield* model.awaitRequests(1)
      yield* Effect.sleep("300 millis")
      assert.isUndefined(first.pollUnsafe(), "the first request is still unanswered")
      const second = yield* post
      assert.strictEqual(second.content[0]!.text, "second")
      yield* Fiber.interrupt(first)
    }))
})
