/**
 * The interrupt for one turn aborted the next message the program sent (found by a reviewing
 * helper on the real CLI; failing before in half the runs of 12 rounds, 2 to 6 of them): a plain `interrupt` names no
 * turn, and when the CLI had just finished the turn the library meant and started the message
 * sent behind it, that message was aborted. The library's interrupts for a turn now name its
 * messages (`for_user_message_uuids`, which CLI 2.1.332 reads): the CLI spares any other turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { collectEvents } from "./support/events.ts"
import { live, processLayer } from "./support/live.ts"

const awaitResultOf = (seen: ReadonlyArray<Claude.Event>, uuid: string) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < 30_000; waited += 5) {
      const found = seen.find((e): e is Claude.TurnResult => e.type === "result" && e.turn.userMessageUuids.includes(uuid))
      if (found !== undefined) return found
      yield* Effect.sleep("5 millis")
    }
    return yield* Effect.die(new Error(`no result for ${uuid}`))
  })

describe("an early-stopped turn's interrupt and the message sent behind it (real CLI)", { timeout: 120_000 }, () => {
  it.live("the interrupt of a turn whose consumer stopped never aborts the message sent behind it", () =>
    Effect.gen(function*() {
      const { options } = yield* live(() => FakeModel.text("a streamed answer", { chunks: 10, delayMs: 30 }))
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      const outcomes: Array<string> = []
      for (let i = 0; i < 20; i++) {
        let sent: string | undefined
        yield* session.turn(`prompt ${i}`).pipe(
          // While this turn streams, the program sends a message: the CLI queues it.
          Stream.tap((e) =>
            e.type === "stream_event" && sent === undefined
              ? Effect.map(session.send(`sent ${i}`), (uuid) => {
                sent = uuid
              })
              : Effect.void
          ),
          // The consumer stops at the turn's last assistant line, just before its result.
          Stream.takeUntil((e) => e.type === "assistant"),
          Stream.runDrain
        )
        const result = yield* awaitResultOf(seen, sent!)
        outcomes.push(`${result.subtype}/${result.terminal_reason}`)
      }
      assert.deepStrictEqual(outcomes, outcomes.map(() => "success/completed"))
    }).pipe(Effect.provide(processLayer)))
})
