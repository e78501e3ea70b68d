/**
 * A CLI that exits with code 0 by itself while a turn is unfinished died mid-turn, for
 * `session.events` too (found by a reviewing helper; failing before): the events stream ended
 * cleanly, so `Turn.finalText(session.events)` gave half an answer as the answer. A clean exit
 * between turns still ends the streams cleanly.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Turn from "../src/Turn.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** A CLI that writes the start of an answer (or, `finished`, a whole turn), then exits with `code`. */
const exitsAfter = (code: number, finished: boolean) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const uuid = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
      if (finished) {
        for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "A whole answer", userMessageUuid: uuid })) yield* cli.emit(line)
      } else {
        yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
        yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "text", text: "The first half of an answer" }], { userMessageUuid: uuid }))
      }
      yield* Effect.sleep("50 millis")
      return code
    })
  )

const readEvents = (finished: boolean, code: number) =>
  Effect.gen(function*() {
    const session = yield* Claude.open({ closeGrace: "1 second" })
    const drained = yield* Effect.forkChild(Effect.exit(Stream.runDrain(session.events)), { startImmediately: true })
    const reading = yield* Effect.forkChild(Effect.exit(Turn.finalText(session.events)), { startImmediately: true })
    yield* session.send("go")
    const events = yield* Fiber.join(drained)
    const text = yield* Fiber.join(reading)
    return {
      events: Exit.isSuccess(events) ? "Success" : `Failure(${Option.match(Cause.findErrorOption(events.cause), {
        onNone: () => "no error",
        onSome: (error) => error.reason._tag
      })})`,
      finalText: Exit.isSuccess(text) ? `Success(${text.value})` : "Failure"
    }
  }).pipe(Effect.scoped, Effect.provide(exitsAfter(code, finished)), Effect.provide(Logger.layer([])))

describe("the CLI exits by itself with the input open", () => {
  for (const code of [0, 1]) {
    it.live(`mid-turn, code ${code}: session.events fails, and Turn.finalText(session.events) is no answer`, () =>
      Effect.gen(function*() {
        const read = yield* readEvents(false, code)
        assert.deepStrictEqual(read, { events: "Failure(ProcessExited)", finalText: "Failure" })
      }))
  }

  it.live("between turns, code 0: session.events ends cleanly, after the whole turn", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* readEvents(true, 0), { events: "Success", finalText: "Success(A whole answer)" })
    }))
})
