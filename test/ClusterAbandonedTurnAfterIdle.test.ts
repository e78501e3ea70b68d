/**
 * A turn its caller abandoned on a runner runs again when asked again, whatever `lostTurns` says
 * ("A turn its caller abandoned on this runner ... runs again either way"), also once the
 * session's entity was passivated there (its CLI idle-closed, the entity idle): that it was
 * abandoned here, not lost with a runner, outlives the entity (found by a review; with
 * `lostTurns: "fail"` it was answered `TurnLost`, as if its runner had died, before). So does
 * the answer given for a turn whose outcome the ledger did not take: given again, not run again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { abandonedRun, advance, entityOn, gatedEchoCli, S1, uuid } from "./support/clusterEntity.ts"
import { launchedSession } from "./support/resumedSessions.ts"

describe("a turn its caller abandoned, asked again once its entity was passivated", () => {
  it.effect("runs again (attempt 2) with lostTurns: fail, not TurnLost", () => {
    const { gate, spawned, transport } = gatedEchoCli()
    const layer = entityOn(transport, undefined, { lostTurns: "fail", idleTimeToLive: "1 minute" })
    return Effect.gen(function*() {
      // The caller stops waiting, its turn running: the turn is interrupted on the CLI.
      const session = yield* abandonedRun(() => spawned.length !== 0)
      yield* advance(40, "1 second")
      yield* Deferred.succeed(gate, undefined)
      // Nothing more for a while: the CLI is idle-closed, then the entity passivated.
      yield* advance(60, "10 seconds")
      assert.isFalse((yield* session.Status()).live)
      const again = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "first" })), {
        startImmediately: true
      })
      yield* advance(40, "1 second", () => again.pollUnsafe() !== undefined)
      const exit = yield* Fiber.join(again)
      assert.isTrue(Exit.isSuccess(exit), `asked again: ${Exit.isFailure(exit) ? String(exit.cause) : ""}`)
      if (Exit.isSuccess(exit)) {
        assert.strictEqual(exit.value.text, "echo: first")
        assert.strictEqual(exit.value.attempt, 2)
      }
    }).pipe(Effect.provide(layer))
  })
})

describe("a turn whose outcome the ledger did not take, asked again once its entity was passivated", () => {
  it.effect("is answered as before (StoreFailed), not run a second time", () => {
    let userLines = 0
    const transport = FakeCli.layer((cli) => {
      const sessionId = launchedSession(cli.spec)!
      return FakeCli.conversation({
        sessionId,
        onUser: (text, _index, cli, message) =>
          Effect.gen(function*() {
            userLines++
            for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: String(message.uuid) })) {
              yield* cli.emit(line)
            }
          })
      })(cli)
    })
    const memory = Effect.runSync(SessionStore.makeMemory)
    const control = { failing: true }
    const store = SessionStore.SessionStore.of({
      ...memory,
      append: (key, entries) =>
        control.failing && entries.some((entry) => entry.type === "turn_finished")
          ? Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "test", operation: "append", description: "down" })))
          : memory.append(key, entries)
    })
    const layer = entityOn(transport, store, { idleTimeToLive: "1 minute" })
    const reasonOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
      const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      const error = failure?._tag === "Fail" ? failure.error : undefined
      return ClaudeError.isClaudeError(error) ? error.reason._tag : undefined
    }
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" })), { startImmediately: true })
      yield* advance(40, "1 second", () => first.pollUnsafe() !== undefined)
      const answered = yield* Fiber.join(first)
      assert.strictEqual(reasonOf(answered), "StoreFailed")
      control.failing = false
      // Nothing more for a while: the CLI is idle-closed, then the entity passivated.
      yield* advance(60, "10 seconds")
      assert.isFalse((yield* session.Status()).live)
      const again = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" })), { startImmediately: true })
      yield* advance(40, "1 second", () => again.pollUnsafe() !== undefined)
      const exit = yield* Fiber.join(again)
      assert.strictEqual(userLines, 1, "the turn ran a second time")
      assert.strictEqual(reasonOf(exit), "StoreFailed")
    }).pipe(Effect.provide(layer))
  })
})
