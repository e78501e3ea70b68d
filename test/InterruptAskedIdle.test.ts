/**
 * An interrupt written while no turn was in progress (`session.interrupt` between turns) counted
 * as the program's ask for the next turn, so a later turn the CLI aborted by itself read as no
 * failure (found by a second review; failing before). Only an interrupt written while a turn is
 * in progress, or a message waits, counts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("an interrupt asked while idle", () => {
  it.effect("session.interrupt between turns, then a turn the CLI aborts by itself: run fails with TurnFailed", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      yield* session.run("first")
      yield* session.interrupt
      const exit = yield* Effect.exit(session.run("second"))
      const tag = Exit.isFailure(exit)
        ? Option.match(Cause.findErrorOption(exit.cause), { onNone: () => "none", onSome: (e) => e.reason._tag })
        : `success ${exit.value.terminal_reason} interruptRequested=${exit.value.turn.interruptRequested}`
      assert.strictEqual(tag, "TurnFailed")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (_text, index, cli, message) =>
        Effect.gen(function*() {
          const uuid = String(message.uuid)
          if (index === 0) {
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "ok", userMessageUuid: uuid })) yield* cli.emit(line)
            return
          }
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
          yield* cli.emit({
            ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
            is_error: true,
            user_message_uuid: uuid
          })
        })
    })))))
})
