/**
 * `Close` asked while a turn holds the session's CLI closes it once no call holds it, and a turn
 * that comes meanwhile runs on that CLI: never a second CLI process of the same session beside
 * the first, which would run the turn on a conversation without the first's (found by a review;
 * the next turn opened a second CLI, resumed, while the first still ran, before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { launchedSession } from "./support/resumedSessions.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`
const realSleep = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

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
    const layer = ClaudeSessionEntity.layer().pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(transport),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
    )
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(yield* session.Send({ uuid: uuid(1), prompt: "long" }), uuid(1))
      for (let i = 0; i < 20; i++) yield* realSleep
      yield* session.Close()
      const next = yield* Effect.forkChild(session.Run({ uuid: uuid(2), prompt: "next" }), { startImmediately: true })
      for (let i = 0; i < 20; i++) {
        yield* realSleep
        yield* TestClock.adjust(10)
      }
      assert.strictEqual(state.peak, 1, "a second CLI of the session ran beside the first")
      yield* Deferred.succeed(gate, undefined)
      const first = yield* session.Run({ uuid: uuid(1), prompt: "long" })
      const second = yield* Fiber.join(next)
      assert.strictEqual(first.text, "echo: long (1 in this CLI)")
      assert.strictEqual(second.text, "echo: next (2 in this CLI)")
      assert.strictEqual(state.spawns, 1)
      // Free again: the Close asked before is done now.
      for (let i = 0; i < 20 && state.live > 0; i++) {
        yield* realSleep
        yield* TestClock.adjust(10)
      }
      assert.strictEqual(state.live, 0, "the CLI was left open after the Close")
      assert.isFalse((yield* session.Status()).live)
    }).pipe(
      // Opens the gate whatever happened, so that a failed assertion does not leave the close waiting.
      Effect.ensuring(Deferred.succeed(gate, undefined)),
      Effect.provide(layer)
    )
  })
})
