/**
 * A `Run` whose caller stopped waiting (a timeout, a cancelled request) interrupts its turn on the
 * CLI and leaves the turn's uuid usable: asked again, the turn runs (attempt 2) or answers what was
 * recorded, never the bare interruption the cluster would store as the reply of a request keyed by
 * the uuid (found by a reviewer; failing before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abandonedRun, advance, entityOn, gatedEchoCli, uuid } from "./support/clusterEntity.ts"
import { launchedSession } from "./support/resumedSessions.ts"

describe("a Run its caller interrupted, asked again with its uuid", () => {
  it.effect("is answered with the turn's outcome or a ClaudeError, not a bare interruption", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    let spawns = 0
    const transport = FakeCli.layer((cli) => {
      const sessionId = launchedSession(cli.spec)!
      spawns++
      return FakeCli.conversation({
        sessionId,
        onUser: (text, _index, cli, message) =>
          Effect.forkChild(Effect.gen(function*() {
            yield* Deferred.await(gate)
            for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: String(message.uuid) })) {
              yield* cli.emit(line)
            }
          }))
      })(cli)
    })
    const layer = entityOn(transport)
    return Effect.gen(function*() {
      // The caller stops waiting (a timeout, a cancelled request), its turn running.
      const session = yield* abandonedRun(() => spawns !== 0)
      yield* advance(40, "1 second")
      yield* Deferred.succeed(gate, undefined)
      // Retried with its uuid: "a retried call gets the stored answer".
      const again = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "first" })), { startImmediately: true })
      yield* advance(40, "1 second", () => again.pollUnsafe() !== undefined)
      const exit = again.pollUnsafe()
      assert.isDefined(exit, "the retried Run is still waiting")
      assert.isTrue(Exit.isSuccess(exit!), "the retried Run's own fiber was not interrupted")
      const answer = Exit.isSuccess(exit!) ? exit.value : undefined
      // Expected: the turn's outcome (attempt 2) or a typed ClaudeError; not a bare interruption.
      assert.isFalse(
        answer !== undefined && Exit.isFailure(answer) && Cause.hasInterruptsOnly(answer.cause),
        "the retried Run was answered with a bare interruption"
      )
    }).pipe(Effect.provide(layer))
  })

  // With `lostTurns: "fail"` too: that option is about turns lost with their runner; one its caller
  // abandoned here was answered `TurnLost`, recorded for good, before (found by a review).
  it.effect.each([{ lostTurns: "retry" }, { lostTurns: "fail" }] as const)("interrupts the turn on the CLI, and asked again runs it (attempt 2) on a CLI without the abandoned prompt (lostTurns: $lostTurns)", ({ lostTurns }) => {
    // The first prompt of the first CLI waits; any later one is answered at once.
    const { gate, controls, spawned, transport } = gatedEchoCli()
    const layer = entityOn(transport, undefined, { lostTurns })
    return Effect.gen(function*() {
      const session = yield* abandonedRun(() => spawned.length !== 0)
      yield* advance(40, "1 second", () => controls.some((c) => c === "interrupt" || c === "cancel_async_message"))
      // Structured interruption: the caller's interruption reached the CLI's turn.
      assert.isTrue(controls.some((c) => c === "interrupt" || c === "cancel_async_message"), `controls: ${controls.join(", ")}`)
      yield* advance(40, "1 second")
      const again = yield* Effect.forkChild(session.Run({ uuid: uuid(1), prompt: "first" }), { startImmediately: true })
      yield* advance(40, "1 second", () => again.pollUnsafe() !== undefined)
      const outcome = yield* Fiber.join(again)
      assert.strictEqual(outcome.text, "echo: first")
      assert.strictEqual(outcome.attempt, 2)
      // Run on a CLI opened again, a new session under the id: the abandoned prompt is not in it.
      assert.strictEqual(spawned.length, 2)
      assert.isTrue(spawned[1]!.includes("--session-id"), spawned[1]!.join(" "))
      // Asked once more, the recorded outcome: not run a third time.
      assert.deepStrictEqual(yield* session.Run({ uuid: uuid(1), prompt: "first" }), outcome)
      assert.strictEqual(spawned.length, 2)
    }).pipe(Effect.provide(layer))
  })
})
