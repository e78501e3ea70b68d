/**
 * Edges of the turn engine found by a reviewing helper, each failing before its fix:
 * - On a CLI that echoes no uuid (2.1.0, 2.1.200), a turn that timed out before the CLI started
 *   it stopped holding back the next message: a `send` then was written at once, the CLI held
 *   two messages it merges into one turn with one result, and the second's turn never ended, so
 *   every later turn waited behind it.
 * - On such a CLI, a turn the CLI started by itself while no user message was open (a background
 *   task's) was given to the next user turn written: its events went to that turn's stream, and
 *   without `origin` its result ended that turn, each later turn one result behind.
 * - An `interrupt` was sent for a turn whose result came in the same read as the answer that
 *   made the library send it, and landed on the next message.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { collectEvents } from "./support/events.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const S = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const A = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
const B = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"

type Line = Record<string, unknown>

let counter = 0
const lifecycle = (commandUuid: string, state: string): Line => ({
  type: "command_lifecycle",
  command_uuid: commandUuid,
  state,
  uuid: `lifecycle-${++counter}`,
  session_id: SESSION
})
/** A text turn as a CLI that echoes uuids writes it, each line with a uuid of its own. */
const echoedTurn = (uuid: string, text: string, cost: number): ReadonlyArray<Line> =>
  FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: uuid, totalCostUsd: cost }).map((line) => ({
    ...line,
    uuid: `${String(line.uuid)}-${++counter}`
  }))
const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, cli.emit, { discard: true })
/** The lines in one read of the library's. */
const oneChunk = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) =>
  cli.emitRaw(lines.map((line) => JSON.stringify(line) + "\n").join(""))
const isRequest = (subtype: string) => (m: Line) => m.type === "control_request" && (m.request as Line).subtype === subtype
const textOf = (m: Line) => String((m.message as Line).content)
const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow
})

describe("the turn engine's edges", () => {
  it.effect("a CLI that echoes no uuid: a send after a run timed out before the CLI started it waits; the CLI never holds two", () =>
    Effect.gen(function*() {
      const users: Array<string> = []
      const heldTogether: Array<string> = []
      const startA = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          users.push(textOf(yield* cli.nextMatching((m) => m.type === "user")))
          // Slow to start A (an MCP server still connecting); an older CLI: no cancel_async_message.
          const cancel = yield* cli.nextMatching(isRequest("cancel_async_message"))
          yield* cli.emit(FakeCli.failure(cancel, "Unsupported control request subtype: cancel_async_message"))
          // What is written before A starts, the CLI would merge into A's turn.
          const early = yield* Effect.raceFirst(
            Effect.map(cli.nextMatching((m) => m.type === "user"), (m) => [textOf(m)]),
            Effect.as(Deferred.await(startA), [])
          )
          if (early.length > 0) heldTogether.push(...users, ...early)
          users.push(...early)
          // A starts, and the library interrupts it.
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "A" }).slice(0, 3))
          const interrupt = yield* cli.nextMatching(isRequest("interrupt"))
          yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
          yield* cli.emit(
            FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" })
          )
          while (true) {
            const m = yield* cli.nextMatching((m) => m.type === "user")
            users.push(textOf(m))
            yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: `reply to ${textOf(m)}` }))
          }
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ turnTimeout: "5 seconds", interruptTimeout: "30 seconds" })
        const a = yield* session.run("A").pipe(Effect.exit, Effect.forkChild)
        yield* settle
        yield* TestClock.adjust("5 seconds")
        yield* settle
        assert.isTrue(Exit.isFailure(yield* Fiber.join(a)), "A timed out")
        const b = yield* session.send("B").pipe(Effect.forkChild)
        yield* settle
        yield* Deferred.succeed(startA, undefined)
        yield* settle
        const c = yield* session.run("C").pipe(Effect.exit, Effect.forkChild)
        yield* settle
        yield* TestClock.adjust("5 seconds")
        yield* settle
        const cExit = yield* Fiber.join(c)
        yield* Fiber.interrupt(b)
        assert.deepStrictEqual(heldTogether, [], `the CLI was written ${JSON.stringify(heldTogether)} before it started A`)
        assert.isTrue(Exit.isSuccess(cExit), `run(C) failed: ${Exit.isFailure(cExit) ? Cause.pretty(cExit.cause) : ""}`)
        assert.deepStrictEqual(users, ["A", "B", "C"])
        assert.strictEqual(Exit.isSuccess(cExit) ? cExit.value.result : undefined, "reply to C")
      }).pipe(Effect.provide(layer))
    }))

  for (const withOrigin of [true, false]) {
    it.effect(`a CLI that echoes no uuid: a turn it started by itself before run(A) is not A's, and A waits for its end (its result ${withOrigin ? "with" : "without"} origin)`, () =>
      Effect.gen(function*() {
        const autoStarted = yield* Deferred.make<void>()
        const finishAuto = yield* Deferred.make<void>()
        const written: Array<string> = []
        const layer = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            // A background task finished: the CLI starts a turn by itself (no user message open).
            const auto = FakeCli.textTurn({ sessionId: SESSION, text: "automatic reply", totalCostUsd: 0.001 })
            yield* emitAll(cli, auto.slice(0, 2))
            yield* Deferred.succeed(autoStarted, undefined)
            // Such a CLI merges a message written now into this turn, with one result: none is.
            const early = yield* Effect.raceFirst(
              Effect.map(cli.nextMatching((m) => m.type === "user"), (m) => [textOf(m)]),
              Effect.as(Deferred.await(finishAuto), [])
            )
            written.push(...early.map((text) => `${text} during the automatic turn`))
            const result = auto.at(-1)!
            yield* emitAll(cli, [
              ...auto.slice(2, -1),
              withOrigin ? { ...result, origin: { kind: "task-notification", producer: "session-task", runId: "r1" } } : result
            ])
            const a = early.length > 0 ? early[0]! : textOf(yield* cli.nextMatching((m) => m.type === "user"))
            written.push(a)
            yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: `reply to ${a}`, totalCostUsd: 0.002 }))
            return yield* Effect.never
          })
        )
        yield* Effect.gen(function*() {
          const session = yield* Claude.open()
          const seen = yield* collectEvents(session)
          yield* Deferred.await(autoStarted)
          yield* settle
          const a = yield* session.turn("A").pipe(Stream.runCollect, Effect.forkChild)
          yield* settle
          yield* Deferred.succeed(finishAuto, undefined)
          const events = yield* Fiber.join(a)
          const texts = events.flatMap((e) =>
            e.type === "assistant" ? e.message.content.flatMap((b) => b.type === "text" ? [b.text] : []) : []
          )
          assert.deepStrictEqual(written, ["A"], "A was written while the automatic turn ran")
          assert.strictEqual((events.at(-1) as Claude.TurnResult).result, "reply to A", "A got the automatic turn's result")
          assert.deepStrictEqual(texts, ["reply to A"], "A's stream holds the automatic turn's events")
          yield* settle
          // The automatic turn's lines all went to `events`, its result as an automatic turn's.
          const results = seen.flatMap((e) => e.type === "result" ? [[e.result, e.turn.kind]] : [])
          assert.deepStrictEqual(results, [["automatic reply", "automatic"], ["reply to A", "user"]])
        }).pipe(Effect.provide(layer))
      }))
  }

  it.effect("no interrupt is sent for a turn whose result is in the read that answered its cancel_async_message", () =>
    Effect.gen(function*() {
      const queued = yield* Deferred.make<void>()
      const told: Array<string> = []
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          const sLines = echoedTurn(S, "reply to S", 0.001)
          yield* emitAll(cli, [lifecycle(S, "queued"), lifecycle(S, "started"), ...sLines.slice(0, 2)])
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(lifecycle(A, "queued"))
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(lifecycle(B, "queued"))
          yield* Deferred.succeed(queued, undefined)
          const cancel = yield* cli.nextMatching(isRequest("cancel_async_message"))
          told.push("cancel_async_message")
          // S ends, A (a quick turn) runs whole, B starts; then the CLI answers the cancel: A had
          // started. All in one read.
          yield* oneChunk(cli, [
            ...sLines.slice(2),
            lifecycle(S, "completed"),
            lifecycle(A, "started"),
            ...echoedTurn(A, "reply to A", 0.002),
            lifecycle(A, "completed"),
            lifecycle(B, "started"),
            ...echoedTurn(B, "reply to B", 0.003).slice(0, 2),
            FakeCli.success(cancel, { cancelled: false, message_uuid: A })
          ])
          while (true) {
            const request = yield* cli.nextMatching((m) => m.type === "control_request")
            const subtype = String((request.request as Line).subtype)
            told.push(subtype)
            yield* cli.emit(FakeCli.success(request, { still_queued: [] }))
            if (subtype === "interrupt") {
              // The CLI runs B now: the interrupt lands on B.
              yield* cli.emit({
                ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
                user_message_uuid: B,
                user_message_uuids: [B]
              })
            }
          }
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const seen = yield* collectEvents(session)
        yield* session.send({ text: "S", uuid: S })
        const a = yield* session.turn({ text: "A", uuid: A }).pipe(Stream.runDrain, Effect.forkChild)
        yield* settle
        yield* session.send({ text: "B", uuid: B })
        yield* Deferred.await(queued)
        yield* settle
        yield* Fiber.interrupt(a)
        yield* settle
        assert.deepStrictEqual(told, ["cancel_async_message"], "an interrupt was sent after A's result was read")
        assert.isUndefined(
          seen.find((e) => e.type === "result" && e.turn.userMessageUuids.includes(B)),
          "B was interrupted by the interrupt meant for A"
        )
      }).pipe(Effect.provide(layer))
    }))

  for (const operation of ["run", "send"] as const) {
    it.effect(`a CLI that echoes no uuid: with stallTimeout, a ${operation} waiting to be written behind a send the CLI went silent on fails with Stalled`, () =>
      Effect.gen(function*() {
        const users: Array<string> = []
        const layer = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            users.push(textOf(yield* cli.nextMatching((m) => m.type === "user")))
            // X starts, then the CLI writes nothing more.
            yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "x" }).slice(0, 2))
            users.push(textOf(yield* cli.nextMatching((m) => m.type === "user")))
            return yield* Effect.never
          })
        )
        yield* Effect.gen(function*() {
          const session = yield* Claude.open({ stallTimeout: "5 seconds", interruptTimeout: "1 second" })
          yield* session.send("X")
          yield* settle
          const y = yield* (operation === "run" ? Effect.asVoid(session.run("Y")) : Effect.asVoid(session.send("Y"))).pipe(
            Effect.exit,
            Effect.forkChild
          )
          yield* settle
          yield* TestClock.adjust("4 seconds")
          yield* settle
          assert.isUndefined(y.pollUnsafe(), "not stalled yet: 4 s of silence")
          yield* TestClock.adjust("2 seconds")
          yield* settle
          assert.isDefined(y.pollUnsafe(), `${operation}(Y) still waits after 6 s of silence with stallTimeout 5 s`)
          const exit = yield* Fiber.join(y)
          const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
          assert.strictEqual((error as { reason?: { _tag: string } } | undefined)?.reason?._tag, "Stalled", String(exit))
          assert.deepStrictEqual(users, ["X"], "Y was never written")
        }).pipe(Effect.provide(layer))
      }))
  }
})
