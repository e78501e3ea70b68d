/**
 * `Close` asked while a turn holds the session's CLI closes it once no call holds it, and a turn
 * that comes meanwhile runs on that CLI: never a second CLI process of the same session beside
 * the first, which would run the turn on a conversation without the first's (found by a review;
 * the next turn opened a second CLI, resumed, while the first still ran, before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { advance, entityOn, realSleep, S1, uuid } from "./support/clusterEntity.ts"
import { launchedSession } from "./support/resumedSessions.ts"

describe("Close while a turn holds the session's CLI", () => {
  it.effect("a turn that comes meanwhile runs on that CLI, not on a second one; the CLI closes once free", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const state = { live: 0, peak: 0, spawns: 0 }
    const transport = FakeCli.layer((cli) => {
      const sessionId = launchedSession(cli.spec)!
      state.spawns++
      state.live++
      state.peak = Math.max(state.peak, state.live)
      let seen = 0
      return FakeCli.conversation({
        sessionId,
        onUser: (text, _index, cli, message) =>
          Effect.gen(function*() {
            if (text === "long") yield* Deferred.await(gate)
            seen++
            for (
              const line of FakeCli.textTurn({
                sessionId,
                text: `echo: ${text} (${seen} in this CLI)`,
                userMessageUuid: String(message.uuid)
              })
            ) yield* cli.emit(line)
          })
      })(cli).pipe(Effect.ensuring(Effect.sync(() => state.live--)))
    })
    const layer = entityOn(transport)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(yield* session.Send({ uuid: uuid(1), prompt: "long" }), uuid(1))
      for (let i = 0; i < 20; i++) yield* realSleep
      yield* session.Close()
      const next = yield* Effect.forkChild(session.Run({ uuid: uuid(2), prompt: "next" }), { startImmediately: true })
      yield* advance(20, 10)
      assert.strictEqual(state.peak, 1, "a second CLI of the session ran beside the first")
      yield* Deferred.succeed(gate, undefined)
      const first = yield* session.Run({ uuid: uuid(1), prompt: "long" })
      const second = yield* Fiber.join(next)
      assert.strictEqual(first.text, "echo: long (1 in this CLI)")
      assert.strictEqual(second.text, "echo: next (2 in this CLI)")
      assert.strictEqual(state.spawns, 1)
      // Free again: the Close asked before is done now.
      yield* advance(20, 10, () => state.live <= 0)
      assert.strictEqual(state.live, 0, "the CLI was left open after the Close")
      assert.isFalse((yield* session.Status()).live)
    }).pipe(
      // Opens the gate whatever happened, so that a failed assertion does not leave the close waiting.
      Effect.ensuring(Deferred.succeed(gate, undefined)),
      Effect.provide(layer)
    )
  })
})
