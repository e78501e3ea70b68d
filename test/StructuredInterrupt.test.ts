/**
 * An interrupted turn of a session with `outputFormat` (`session.interrupt`: the result's
 * `terminal_reason` is `aborted_streaming`) has no structured value, so `run` fails with
 * `StructuredOutputMissing`; its message says the turn was interrupted, not that the model
 * answered in text (what it said before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const Person = Schema.Struct({ name: Schema.String })

describe("an interrupted turn of a session with outputFormat", () => {
  it.effect("session.interrupt during run: run fails with StructuredOutputMissing saying the turn was interrupted", () =>
    Effect.gen(function*() {
      const streaming = yield* Deferred.make<void>()
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, _index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: uuid })
            yield* cli.emit(init)
            yield* cli.emit(start)
            yield* Deferred.succeed(streaming, undefined)
            // The library may first try to withdraw the message (its turn not yet seen started):
            // the CLI runs it, so that is refused; the interrupt aborts the turn.
            yield* answerInterrupt(cli)
            yield* cli.emit(abortedResult(SESSION, uuid))
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ outputFormat: Person })
        const run = yield* session.run("Who?").pipe(Effect.exit, Effect.forkChild)
        yield* Deferred.await(streaming)
        yield* session.interrupt
        const exit = yield* Fiber.join(run)
        const error = Exit.isFailure(exit)
          ? exit.cause.reasons.find(Cause.isFailReason)?.error as ClaudeError.ClaudeError | undefined
          : undefined
        assert.strictEqual(error?.reason._tag, "StructuredOutputMissing", String(exit))
        assert.strictEqual(
          error?.message,
          "The turn was interrupted (aborted_streaming) before the model gave its structured output"
        )
      }).pipe(Effect.provide(layer))
    }))
})
