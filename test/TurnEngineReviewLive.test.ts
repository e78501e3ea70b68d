/**
 * On the real CLI 2.1.332 (found by a reviewing helper; each failed before its fix, see
 * `TurnEngineReview.test.ts`): a turn under the uuid of an ended turn never ended (the CLI drops
 * it without a word), now `InvalidInput`; and `session.interrupt` right after a `run`'s line was
 * written let that turn run to its end (12 of 15 turns), now it is withdrawn or interrupted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { wireLog } from "./support/wire.ts"

const RETRIED = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"

describe("the turn engine on the real CLI", { timeout: 90_000 }, () => {
  it.live("a turn re-using the uuid of an ended turn is InvalidInput at once, not a turn that never ends", () =>
    Effect.gen(function*() {
      const { options } = yield* live((request) => FakeModel.text(`reply to ${FakeModel.lastUserText(request) ?? ""}`))
      const session = yield* Claude.open(options)
      const first = yield* session.run({ text: "first try", uuid: RETRIED })
      assert.strictEqual(first.result, "reply to first try")
      const again = yield* session.run({ text: "second try", uuid: RETRIED }).pipe(Effect.exit, Effect.timeoutOption("15 seconds"))
      assert.isTrue(again._tag === "Some", "the second run never ended")
      if (again._tag === "Some") {
        assert.isTrue(Exit.isFailure(again.value))
        assert.include(String(Exit.isFailure(again.value) ? again.value.cause : ""), "earlier user message of this session")
      }
      // The session goes on.
      assert.strictEqual((yield* session.run("third")).result, "reply to third")
    }).pipe(Effect.provide(processLayer)))

  it.live("session.interrupt right after a run's line is written interrupts or withdraws that turn", () =>
    Effect.gen(function*() {
      const { options } = yield* live(() => FakeModel.text("the whole reply", { chunks: 20, delayMs: 50 }))
      const wire = wireLog()
      const session = yield* Claude.open({ ...options, transcript: wire.transcript })
      yield* session.run("warm up")
      const completed: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const text = `prompt ${i}`
        const fiber = yield* session.run(text).pipe(Effect.exit, Effect.forkChild)
        while (!wire.lines.some((l) => l.direction === "send" && l.message.type === "user" && JSON.stringify(l.message).includes(text))) {
          yield* Effect.yieldNow
        }
        yield* session.interrupt
        const exit = yield* Fiber.join(fiber)
        if (Exit.isSuccess(exit) && exit.value.subtype === "success") completed.push(text)
      }
      assert.deepStrictEqual(completed, [])
    }).pipe(Effect.provide(processLayer)))
})
