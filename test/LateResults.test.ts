/**
 * A late result on a CLI that echoes no uuid (2.1.0, 2.1.200: both supported). An interrupted
 * turn whose aborted result comes after `interruptTimeout` is given up, and the next turn is
 * written; the late result must end the turn it belongs to, not the next one. Before, the given-up
 * turn left the first-in-first-out line of turns, so its late result ended the next `run`, and
 * every later turn was one result behind. The same on a CLI that echoes uuids (2.1.332) is the
 * control. And such a CLI is written one message at a time: two messages queued while a turn runs
 * are merged by it into one turn with one result, which could not be told apart.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

type Line = Record<string, unknown>

const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, cli.emit, { discard: true })

/** A text turn as a CLI that echoes no uuid writes it (no `user_message_uuid(s)`, no `command_lifecycle`). */
const turnLines = (text: string, cost: number) => FakeCli.textTurn({ sessionId: SESSION, text, totalCostUsd: cost })

describe("a late aborted result after the library gave up on the interrupt", () => {
  it.effect("a CLI that echoes no uuid: after an interrupt that ran past interruptTimeout, the next runs get their own results", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interruptSeen = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          // The first turn starts, then the CLI is slow to stop it (a tool that takes a while).
          yield* emitAll(cli, turnLines("first", 0.001).slice(0, 3))
          yield* Deferred.succeed(started, undefined)
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          assert.strictEqual((interrupt.request as Line).subtype, "interrupt")
          yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
          yield* Deferred.succeed(interruptSeen, undefined)
          // The second user message: the first turn's aborted result comes only now, then the
          // second turn runs.
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(FakeCli.result({
            sessionId: SESSION,
            subtype: "error_during_execution",
            terminalReason: "aborted_tools",
            totalCostUsd: 0.002
          }))
          yield* emitAll(cli, turnLines("reply to second", 0.003))
          yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, turnLines("reply to third", 0.004))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "5 seconds" })
        const first = yield* session.turn("first").pipe(Stream.runDrain, Effect.forkChild)
        yield* Deferred.await(started)
        yield* settle
        const interrupting = yield* Effect.forkChild(Fiber.interrupt(first))
        yield* Deferred.await(interruptSeen)
        yield* settle
        // The aborted result does not come within interruptTimeout: the library gives up.
        yield* TestClock.adjust("6 seconds")
        yield* settle
        yield* Fiber.join(interrupting)

        const second = yield* session.run("second")
        assert.strictEqual(second.subtype, "success", "the second run got the first turn's aborted result")
        assert.strictEqual(second.result, "reply to second")
        const third = yield* session.run("third")
        assert.strictEqual(third.result, "reply to third")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a CLI that echoes uuids (2.1.332): the same sequence gives each run its own result", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interruptSeen = yield* Deferred.make<void>()
      const echoed = (uuid: unknown) => typeof uuid === "string" ? uuid : undefined
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const first = yield* cli.nextMatching((m) => m.type === "user")
          const firstLines = FakeCli.textTurn({ sessionId: SESSION, text: "first", userMessageUuid: echoed(first.uuid) })
          yield* emitAll(cli, firstLines.slice(0, 3))
          yield* Deferred.succeed(started, undefined)
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
          yield* Deferred.succeed(interruptSeen, undefined)
          const second = yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit({
            ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_tools", totalCostUsd: 0.002 }),
            user_message_uuid: first.uuid,
            user_message_uuids: [first.uuid]
          })
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to second", totalCostUsd: 0.003, userMessageUuid: echoed(second.uuid) }))
          const third = yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to third", totalCostUsd: 0.004, userMessageUuid: echoed(third.uuid) }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "5 seconds" })
        const first = yield* session.turn("first").pipe(Stream.runDrain, Effect.forkChild)
        yield* Deferred.await(started)
        yield* settle
        const interrupting = yield* Effect.forkChild(Fiber.interrupt(first))
        yield* Deferred.await(interruptSeen)
        yield* settle
        yield* TestClock.adjust("6 seconds")
        yield* settle
        yield* Fiber.join(interrupting)
        const second = yield* session.run("second")
        assert.strictEqual(second.result, "reply to second")
        const third = yield* session.run("third")
        assert.strictEqual(third.result, "reply to third")
      }).pipe(Effect.provide(layer))
    }))
  it.effect("a CLI that echoes no uuid never holds two messages (it would merge them): B is written once A's result is in", () =>
    Effect.gen(function*() {
      const aStarted = yield* Deferred.make<void>()
      const finishA = yield* Deferred.make<void>()
      const users: Array<string> = []
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const text = (m: Line) => String((m.message as { content: unknown }).content)
          users.push(text(yield* cli.nextMatching((m) => m.type === "user")))
          const a = turnLines("reply to A", 0.001)
          yield* emitAll(cli, a.slice(0, 2))
          yield* Deferred.succeed(aStarted, undefined)
          // Whatever is written while A runs is what the CLI would merge.
          const during = yield* Effect.raceFirst(
            Effect.map(cli.nextMatching((m) => m.type === "user"), (m) => [text(m)]),
            Effect.as(Deferred.await(finishA), [])
          )
          users.push(...during.map((t) => `${t} (while A ran)`))
          yield* Deferred.await(finishA)
          yield* emitAll(cli, a.slice(2))
          while (true) {
            const message = yield* cli.nextMatching((m) => m.type === "user")
            users.push(text(message))
            yield* emitAll(cli, turnLines(`reply to ${text(message)}`, 0.001 * (users.length + 1)))
          }
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.send("A")
        yield* Deferred.await(aStarted)
        const b = yield* session.run("B").pipe(Effect.forkChild)
        const c = yield* session.send("C").pipe(Effect.forkChild)
        yield* settle
        assert.deepStrictEqual(users, ["A"], "B and C wait while A runs")
        yield* Deferred.succeed(finishA, undefined)
        assert.strictEqual((yield* Fiber.join(b)).result, "reply to B")
        yield* Fiber.join(c)
        const d = yield* session.run("D")
        assert.strictEqual(d.result, "reply to D")
        assert.deepStrictEqual(users, ["A", "B", "C", "D"], "one message at a time, in order")
      }).pipe(Effect.provide(layer))
    }))
})
