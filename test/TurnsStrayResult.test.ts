/**
 * A `result` that names none of the running turn's user messages, on a CLI that echoes uuids
 * (2.1.332): a late or repeated result of an ended turn, or the result of a queued message that
 * never ran. Before, every such result also ended the user turns of the running CLI turn, so
 * the running `run` returned another turn's result (or failed with another turn's failure), and
 * its own result later ended nothing. Now it ends only the turns it names; the running turn ends
 * at its own result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const userUuid = (cli: FakeCli.FakeCliHandle) =>
  Effect.map(cli.nextMatching((m) => m.type === "user"), (m) => String(m.uuid))

/** Answers `initialize`, then the first turn whole ("answer one"): its lines, to write again. */
const firstTurn = (cli: FakeCli.FakeCliHandle) =>
  Effect.gen(function*() {
    yield* FakeCli.answerInitialize(cli)
    const first = yield* userUuid(cli)
    const lines = FakeCli.textTurn({ sessionId: SESSION, text: "answer one", userMessageUuid: first })
    yield* Effect.forEach(lines, cli.emit, { discard: true })
    return lines
  })

describe("a result that names none of the running turn's messages", () => {
  it.effect("a repeated result of the ended turn does not end the next turn", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const firstLines = yield* firstTurn(cli)
          const second = yield* userUuid(cli)
          const secondLines = FakeCli.textTurn({
            sessionId: SESSION,
            text: "answer two",
            userMessageUuid: second,
            totalCostUsd: 0.002
          })
          yield* cli.emit(secondLines[0])
          // The first turn's result again, while the second runs.
          yield* cli.emit(firstLines[firstLines.length - 1])
          yield* Effect.forEach(secondLines.slice(1), cli.emit, { discard: true })
          const third = yield* userUuid(cli)
          yield* Effect.forEach(
            FakeCli.textTurn({ sessionId: SESSION, text: "answer three", userMessageUuid: third, totalCostUsd: 0.003 }),
            cli.emit,
            { discard: true }
          )
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual((yield* session.run("one")).result, "answer one")
        // The second turn's stream holds its own result alone, last.
        const events = Array.from(yield* Stream.runCollect(session.turn("two")))
        const results = events.filter((event) => event.type === "result")
        assert.deepStrictEqual(results.map((result) => result.result), ["answer two"])
        assert.strictEqual(events[events.length - 1], results[0])
        assert.strictEqual((yield* session.run("three")).result, "answer three")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  it.effect("the failed result of a queued message does not fail the running turn", () =>
    Effect.gen(function*() {
      const queued = yield* Deferred.make<string>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const running = yield* userUuid(cli)
          const lines = FakeCli.textTurn({ sessionId: SESSION, text: "the running answer", userMessageUuid: running })
          yield* Effect.forEach(lines.slice(0, 3), cli.emit, { discard: true })
          const sent = yield* userUuid(cli)
          // The queued message never ran: its own result, naming it alone.
          yield* cli.emit({
            ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "turn_setup_failed" }),
            user_message_uuid: sent,
            user_message_uuids: [sent]
          })
          yield* Deferred.succeed(queued, sent)
          yield* Effect.forEach(lines.slice(3), cli.emit, { discard: true })
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ errorResults: "return" })
        // The running turn's first line (its init), once the session has read it.
        const started = yield* session.events.pipe(
          Stream.filter((event) => event.type === "system"),
          Stream.take(1),
          Stream.runDrain,
          Effect.forkChild({ startImmediately: true })
        )
        const running = yield* Effect.forkChild(session.run("run me"))
        // Written once the session has read the running turn's start.
        yield* Fiber.join(started)
        const sent = yield* session.send("queued")
        assert.strictEqual(yield* Deferred.await(queued), sent)
        const exit = yield* Fiber.await(running)
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        if (Exit.isSuccess(exit)) {
          assert.strictEqual(exit.value.result, "the running answer")
          assert.notInclude(exit.value.turn.userMessageUuids, sent)
        }
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  it.effect("a repeated result while the program's interrupt is pending leaves the interrupt to the running turn", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const firstLines = yield* firstTurn(cli)
          const second = yield* userUuid(cli)
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: second })[0])
          yield* Deferred.succeed(started, undefined)
          yield* answerInterrupt(cli)
          // The first turn's result again, then the second's, aborted as the program asked.
          yield* cli.emit(firstLines[firstLines.length - 1])
          yield* cli.emit(abortedResult(SESSION, second))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("one")
        const run = yield* Effect.forkChild(Effect.exit(session.run("two")), { startImmediately: true })
        yield* Deferred.await(started)
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        yield* session.interrupt
        const exit = yield* Fiber.join(run)
        // Before: the repeated result took the ask, and the aborted result read as the CLI's own
        // abort (TurnFailed).
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        if (Exit.isSuccess(exit)) {
          assert.isTrue(exit.value.turn.interruptRequested)
          // Its own result, not the repeated one of turn one.
          assert.strictEqual(exit.value.terminal_reason, "aborted_streaming")
        }
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
