/**
 * An interrupt the program asked for covers the CLI's turn it was written in, and no other
 * (`internal/interruptRequests.ts`): a turn whose result could not be read (a protocol problem,
 * the turn fails with it) ends that CLI turn all the same, so the ask must not carry over to the
 * next turn, where a turn the CLI aborted by itself would read as the program's interrupt (and
 * `run` would return its aborted result as a success).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  return error?._tag === "Fail" && ClaudeError.isClaudeError(error.error) ? error.error.reason._tag : "not a typed failure"
}

describe("an interrupt asked in a turn whose result could not be read", () => {
  it.effect("does not cover the next turn: one the CLI aborts by itself fails with TurnFailed", () =>
    Effect.gen(function*() {
      const streaming = yield* Deferred.make<void>()
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })
            yield* cli.emit(init)
            yield* cli.emit(start)
            if (index === 0) {
              yield* Deferred.succeed(streaming, undefined)
              yield* answerInterrupt(cli)
              // The aborted result, in a shape the library cannot read.
              yield* cli.emit({ ...abortedResult(SESSION, uuid), num_turns: "one" })
            } else {
              // Aborted by the CLI itself (a signal from outside): the program asked nothing.
              yield* cli.emit(abortedResult(SESSION, uuid))
            }
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        const first = yield* Effect.forkChild(Effect.exit(session.run("first")))
        yield* Deferred.await(streaming)
        yield* session.interrupt
        assert.strictEqual(reasonOf(yield* Fiber.join(first)), "ProtocolViolation")
        const second = yield* Effect.exit(session.run("second"))
        assert.strictEqual(reasonOf(second), "TurnFailed")
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
