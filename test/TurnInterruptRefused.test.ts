/**
 * `session.interrupt` on a running turn whose `interrupt` the CLI refused (an error answer)
 * succeeded: the program was told the turn was interrupted while it ran on to its end. With no
 * turn running the same refusal failed with `ControlRejected`. Now both fail with it; the turn
 * and the session go on.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow
})

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) => {
  const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
  return ClaudeError.isClaudeError(error) ? error.reason._tag : "success"
}

describe("session.interrupt refused by the CLI", () => {
  it.effect("fails with ControlRejected on a running turn as with none running; the turn runs on", () =>
    Effect.gen(function*() {
      const finish = yield* Deferred.make<void>()
      // A CLI that refuses every control request but `initialize`.
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const refuse = Effect.forever(Effect.flatMap(
            cli.nextMatching((m) => m.type === "control_request"),
            (request) => cli.emit(FakeCli.failure(request, "Cannot interrupt now"))
          ))
          const user = yield* cli.nextMatching((m) => m.type === "user")
          const lines = FakeCli.textTurn({ sessionId: SESSION, text: "A", userMessageUuid: String(user.uuid) })
          yield* cli.emit(lines[0])
          yield* Effect.raceFirst(refuse, Deferred.await(finish))
          for (const line of lines.slice(1)) yield* cli.emit(line)
          return yield* refuse
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const turn = yield* session.run("A").pipe(Effect.forkChild)
        yield* settle
        const running = yield* Effect.exit(session.interrupt)
        yield* Deferred.succeed(finish, undefined)
        const result = yield* Fiber.join(turn)
        const idle = yield* Effect.exit(session.interrupt)
        assert.strictEqual(reasonOf(idle), "ControlRejected")
        assert.strictEqual(reasonOf(running), "ControlRejected", "the refused interrupt of the running turn read as done")
        assert.strictEqual(result.result, "A")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
