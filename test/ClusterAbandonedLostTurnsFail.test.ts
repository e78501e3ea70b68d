/**
 * With `lostTurns: "fail"`, a `Run` its caller stopped waiting for (a timeout) and asked again with
 * its uuid was answered `TurnLost`, recorded for good: the uuid was dead, though no runner was lost
 * and the README says a caller that stops waiting leaves the uuid usable (run again, `attempt: 2`).
 * `lostTurns` is about turns lost with their runner; one its caller abandoned here runs again.
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

describe("lostTurns: fail, a Run its caller interrupted, asked again with its uuid", () => {
  it.effect("runs again (attempt 2), not TurnLost", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const spawned: Array<ReadonlyArray<string>> = []
    const transport = FakeCli.layer((cli) => {
      const sessionId = launchedSession(cli.spec)!
      spawned.push(cli.spec.args)
      return FakeCli.conversation({
        sessionId,
        onUser: (text, index, cli, message) =>
          Effect.forkChild(Effect.gen(function*() {
            if (spawned.length === 1 && index === 0) yield* Deferred.await(gate)
            for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: String(message.uuid) })) {
              yield* cli.emit(line)
            }
          }))
      })(cli)
    })
    const layer = ClaudeSessionEntity.layer({ lostTurns: "fail" }).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(transport),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
    )
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* Effect.forkChild(session.Run({ uuid: uuid(1), prompt: "first" }), { startImmediately: true })
      for (let i = 0; i < 200 && spawned.length === 0; i++) yield* realSleep
      for (let i = 0; i < 10; i++) yield* realSleep
      yield* Effect.forkChild(Fiber.interrupt(first), { startImmediately: true })
      for (let i = 0; i < 40; i++) {
        yield* realSleep
        yield* TestClock.adjust("1 second")
      }
      const again = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "first" })), {
        startImmediately: true
      })
      for (let i = 0; i < 40 && again.pollUnsafe() === undefined; i++) {
        yield* realSleep
        yield* TestClock.adjust("1 second")
      }
      const exit = yield* Fiber.join(again)
      assert.isTrue(exit._tag === "Success", `asked again: ${String(exit._tag === "Failure" ? exit.cause : "")}`)
      const outcome = exit._tag === "Success" ? exit.value : undefined
      assert.strictEqual(outcome?.text, "echo: first")
      assert.strictEqual(outcome?.attempt, 2)
    }).pipe(Effect.provide(layer))
  })
})
