/**
 * Interrupting a turn the CLI has read but not yet started first asks the CLI to withdraw it
 * (`cancel_async_message`). CLI 2.1.0, the oldest supported, never answers that request (found
 * on the real CLI: no answer in 10 s): the library waited for the answer for the whole
 * `interruptTimeout`, never sent `interrupt` once the CLI started the turn, and the turn ran to
 * its end on the CLI (its tools too) while the interruption took `interruptTimeout`. Once the
 * turn starts, the withdrawal is moot: it is interrupted then.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("a CLI that never answers cancel_async_message (2.1.0)", () => {
  it.live("a turn interrupted before the CLI started it is interrupted once it starts, well within interruptTimeout", () =>
    Effect.gen(function*() {
      const read = yield* Deferred.make<void>()
      const requests: Array<string> = []
      // Echoes no uuid, as 2.1.0; leaves `cancel_async_message` unanswered.
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          yield* Deferred.succeed(read, undefined)
          const cancel = yield* cli.nextMatching((m) => m.type === "control_request")
          requests.push(String((cancel.request as Record<string, unknown>).subtype))
          const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text: "" })
          yield* cli.emit(init)
          yield* cli.emit(start)
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          requests.push(String((interrupt.request as Record<string, unknown>).subtype))
          yield* cli.emit(FakeCli.success(interrupt, {}))
          yield* cli.emit(FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }))
          // The next turn, answered plainly.
          yield* cli.nextMatching((m) => m.type === "user")
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "second answer" })) yield* cli.emit(line)
          yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "10 seconds" })
        const first = yield* Effect.forkChild(session.run("first"))
        yield* Deferred.await(read)
        const before = yield* Clock.currentTimeMillis
        yield* Fiber.interrupt(first)
        const took = (yield* Clock.currentTimeMillis) - before
        assert.deepStrictEqual(requests, ["cancel_async_message", "interrupt"])
        assert.isBelow(took, 5000, "the interrupt waited for the withdrawal's answer (interruptTimeout, 10 s)")
        const second = yield* session.run("second")
        assert.strictEqual(second.result, "second answer")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
