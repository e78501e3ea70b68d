/**
 * The library's interrupt for a turn names that turn's messages (`for_user_message_uuids`), so
 * that a CLI which has just ended it and started the next message spares the next
 * (`InterruptNamesTurnLive.test.ts` on the real CLI); `session.interrupt` with nothing running
 * or queued sends a plain one.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** A CLI that starts each turn and ends it aborted once interrupted; the interrupts it got. */
const interruptible = (interrupts: Array<Record<string, unknown>>, streaming: Queue.Queue<void>) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_text, _index, cli, message) =>
      Effect.gen(function*() {
        const uuid = String(message.uuid)
        const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })
        yield* cli.emit(init)
        yield* cli.emit(start)
        yield* Queue.offer(streaming, undefined)
        interrupts.push(yield* answerInterrupt(cli))
        yield* cli.emit(abortedResult(SESSION, uuid))
      })
  }))

describe("the interrupt names the turn it is for", () => {
  it.live("a turn whose fiber is interrupted, and session.interrupt during a turn: the turn's uuid", () =>
    Effect.gen(function*() {
      const interrupts: Array<Record<string, unknown>> = []
      const streaming = yield* Queue.unbounded<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const first = "aaaaaaaa-1111-4111-8111-111111111111"
        const fiber = yield* session.turn({ text: "one", uuid: first }).pipe(Stream.runDrain, Effect.forkChild)
        yield* Queue.take(streaming)
        yield* Effect.sleep("10 millis")
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(interrupts.at(-1), { subtype: "interrupt", for_user_message_uuids: [first] })

        const second = "bbbbbbbb-2222-4222-8222-222222222222"
        const run = yield* session.run({ text: "two", uuid: second }).pipe(Effect.exit, Effect.forkChild)
        yield* Queue.take(streaming)
        yield* Effect.sleep("10 millis")
        yield* session.interrupt
        yield* Fiber.join(run)
        assert.deepStrictEqual(interrupts.at(-1), { subtype: "interrupt", for_user_message_uuids: [second] })
      }).pipe(Effect.scoped, Effect.provide(interruptible(interrupts, streaming)))
    }))
})
