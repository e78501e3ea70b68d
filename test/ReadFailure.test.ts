/**
 * Reading the CLI's stdout fails (the transport fails its stream with a `ClaudeError`, or a defect
 * is thrown while reading) while the CLI lives on: what waits (a turn, a control request, an
 * `events` subscriber) fails at once with that reason. Before, `onStdoutEnd` first waited up to
 * `closeGrace` for an exit that nobody was going to cause (stdout no longer read), so every turn
 * hung for the whole `closeGrace`. All under `TestClock`: the failures are there with the clock not
 * advanced at all; a stdout that merely *ends* under a live CLI still waits `closeGrace`
 * (`StdoutClosed`) to learn why.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const POISON = "POISON-LINE"
const CLOSE_GRACE = "30 seconds"

/** The typed failure of an exit (fails the test on a success or an untyped failure). */
const errorOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.ClaudeError => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value
}

/** Lets every fiber that can run do so (no clock involved). */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 100; i++) yield* Effect.yieldNow
})

/** The exit of a forked fiber, which must be done by now (the clock was not advanced). */
const doneNow = <A>(fiber: Fiber.Fiber<A, ClaudeError.ClaudeError>, what: string) => {
  const exit = fiber.pollUnsafe()
  if (exit === undefined) return assert.fail(`${what} still waits: it was not failed at once (closeGrace not advanced)`)
  return exit
}

const mismatch = ClaudeError.make(new ClaudeError.ReplayMismatch({ expected: "a recorded line", actual: POISON }))

/** How reading the chunk with the poison fails: with the transport's typed error, or a defect. */
type Failing = "typed" | "defect"

/**
 * A `FakeCli` whose stdout stream fails when the CLI writes the poison (as a replay fails on a
 * mismatch), while its "process" lives on. The script starts a turn, takes the control request
 * the program sends during it (never answered), writes the poison, then waits for `exitWith`
 * (never, unless the test says), as a CLI nobody reads. `stopped` is done when the fake CLI is
 * stopped (its scope closed).
 */
const poisonedCli = (
  failing: Failing,
  stopped: Deferred.Deferred<void>,
  exitWith: Deferred.Deferred<number>
) => {
  const fake = FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const user = yield* cli.nextMatching((m) => m.type === "user")
      const uuid = typeof user.uuid === "string" ? user.uuid : undefined
      const lines = FakeCli.textTurn({ sessionId: SESSION, text: "never finished", userMessageUuid: uuid })
      yield* cli.emit(lines[0])
      yield* cli.emit(lines[1])
      yield* cli.nextMatching((m) => m.type === "control_request")
      yield* cli.emitRaw(`${POISON}\n`)
      return yield* Deferred.await(exitWith)
    }).pipe(Effect.onInterrupt(() => Deferred.succeed(stopped, undefined)))
  )
  const decoder = new TextDecoder()
  return Layer.effect(
    Transport,
    Effect.map(Transport, (inner) =>
      Transport.of({
        open: (spec) =>
          Effect.map(inner.open(spec), (connection) => ({
            ...connection,
            incoming: Stream.mapEffect(connection.incoming, (chunk) =>
              !decoder.decode(chunk).includes(POISON)
                ? Effect.succeed(chunk)
                : failing === "typed"
                ? Effect.fail(mismatch)
                : Effect.die(new Error("the reader blew up")))
          }))
      }))
  ).pipe(Layer.provide(fake))
}

/** Opens a session with a large `closeGrace`, starts a turn and a control request, and lets the poison be read. */
const poisonedSession = Effect.gen(function*() {
  const session = yield* Claude.open({ closeGrace: CLOSE_GRACE })
  const events = yield* session.events.pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
  const turn = yield* Effect.forkChild(session.run("hello"))
  yield* settle
  const control = yield* Effect.forkChild(session.mcpStatus())
  yield* settle
  return { session, events, turn, control }
})

const assertReadFailure = (error: ClaudeError.ClaudeError, failing: Failing, what: string) => {
  const tag = error.reason._tag
  assert.notStrictEqual(tag, "StdoutClosed", what)
  assert.notStrictEqual(tag, "SessionClosed", what)
  if (failing === "typed") assert.strictEqual(error, mismatch, what)
  else {
    assert.strictEqual(tag, "ProtocolViolation", what)
    assert.include((error.reason as ClaudeError.ProtocolViolation).description, "the reader blew up", what)
  }
}

describe("a failed read of the CLI's stdout fails what waits at once", () => {
  for (const failing of ["typed", "defect"] as const) {
    it.effect(`${failing}: the turn, the control request and events fail with the read failure, closeGrace not waited`, () =>
      Effect.gen(function*() {
        const stopped = yield* Deferred.make<void>()
        const exitWith = yield* Deferred.make<number>()
        yield* Effect.gen(function*() {
          const { events, turn, control, session } = yield* poisonedSession
          assertReadFailure(errorOf(doneNow(turn, "the turn")), failing, "the turn")
          assertReadFailure(errorOf(doneNow(control, "the control request")), failing, "the control request")
          const ended = doneNow(events, "events")
          assert.isTrue(Exit.isSuccess(ended))
          assertReadFailure(errorOf(Exit.isSuccess(ended) ? ended.value : assert.fail("events")), failing, "events")
          // The session is dead: a later turn fails with the same reason, at once.
          const later = yield* Effect.forkChild(session.run("later"))
          yield* settle
          assertReadFailure(errorOf(doneNow(later, "a later turn")), failing, "a later turn")
          // The CLI still runs: nothing ended it yet, and `exit` does not pretend it did.
          assert.isFalse(Deferred.isDoneUnsafe(stopped))
        }).pipe(Effect.scoped, Effect.provide(poisonedCli(failing, stopped, exitWith)))
        // Nothing left behind: the scope's close stopped the fake CLI.
        assert.isTrue(Deferred.isDoneUnsafe(stopped), "the fake CLI was not stopped at the scope's end")
      }))
  }

  it.effect("Session.exit resolves when the CLI does exit after the failed read, before the scope closes", () =>
    Effect.gen(function*() {
      const stopped = yield* Deferred.make<void>()
      const exitWith = yield* Deferred.make<number>()
      yield* Effect.gen(function*() {
        const { session, turn } = yield* poisonedSession
        assertReadFailure(errorOf(doneNow(turn, "the turn")), "typed", "the turn")
        const exit = yield* Effect.forkChild(session.exit)
        yield* settle
        assert.isUndefined(exit.pollUnsafe(), "exit resolved before the CLI exited")
        yield* Deferred.succeed(exitWith, 3)
        yield* settle
        const status = doneNow(exit, "Session.exit")
        assert.isTrue(Exit.isSuccess(status))
        assert.strictEqual(Exit.isSuccess(status) ? status.value.code : undefined, 3)
        assert.isFalse(Deferred.isDoneUnsafe(stopped))
      }).pipe(Effect.scoped, Effect.provide(poisonedCli("typed", stopped, exitWith)))
    }))

  it.effect("a stdout that ends under a live CLI still waits closeGrace to learn why (StdoutClosed)", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "x" })[0])
          yield* cli.closeStdout
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: CLOSE_GRACE })
        const turn = yield* Effect.forkChild(session.run("x"))
        yield* settle
        assert.isUndefined(turn.pollUnsafe(), "the turn failed before closeGrace: an exit within it would tell why")
        yield* TestClock.adjust(CLOSE_GRACE)
        yield* settle
        assert.strictEqual(errorOf(doneNow(turn, "the turn")).reason._tag, "StdoutClosed")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
