/**
 * A user message the CLI will never run, told only by its `command_lifecycle`: CLI 2.1.332 drops a
 * message whose uuid is already in the session (a resumed or continued session's earlier messages
 * count) with a bare `completed` (no `queued`, no `started`, no result), and says `discarded` (the
 * session ended with it queued) or `refused` (its receive-side policy declined it) of others. The
 * turn waited for a result that never came: `run` hung (found by a reviewing helper on the real
 * CLI, `test/ReusedUuidAfterResumeLive.test.ts`; failing before). It now fails with
 * `TurnCancelled` naming what the CLI said. A message folded into a running turn is `completed`
 * before that turn's result, after its `started`: that one still gets the result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const lifecycle = (uuid: string, state: string) => ({
  type: "command_lifecycle",
  command_uuid: uuid,
  state,
  uuid: `${uuid}-${state}`,
  session_id: SESSION
})

/** A CLI that answers the first message and drops the second with `state` alone. */
const dropping = (state: string) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli, message) =>
      Effect.gen(function*() {
        const uuid = message.uuid as string
        if (index === 1) return yield* cli.emit(lifecycle(uuid, state))
        yield* cli.emit(lifecycle(uuid, "queued"))
        yield* cli.emit(lifecycle(uuid, "started"))
        yield* Effect.forEach(
          FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, userMessageUuid: uuid }),
          cli.emit,
          { discard: true }
        )
        yield* cli.emit(lifecycle(uuid, "completed"))
      })
  }))

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("the turn succeeded")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(Cause.pretty(exit.cause))
  return error.value.reason
}

describe("a message the CLI will never run", () => {
  for (const [state, says] of [["completed", "already"], ["discarded", "discarded"], ["refused", "refused"]] as const) {
    it.effect(`${state} before it started: run fails with TurnCancelled, and the session goes on`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const first = yield* session.run("one")
        assert.strictEqual(first.result, "echo: one")
        const exit = yield* session.run("two").pipe(Effect.exit, Effect.timeoutOption("2 seconds"), TestClock.withLive)
        if (Option.isNone(exit)) return assert.fail("run never ended")
        const reason = reasonOf(exit.value)
        assert.strictEqual(reason._tag, "TurnCancelled", reason.message)
        assert.include(reason.message, says)
        const third = yield* session.run("three")
        assert.strictEqual(third.result, "echo: three")
      }).pipe(Effect.provide(dropping(state))))
  }

  it.effect("completed after started, before the turn's result (a message folded into a running turn): the turn gets its result", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const result = yield* session.run("one")
      assert.strictEqual(result.result, "echo: one")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli, message) =>
        Effect.gen(function*() {
          const uuid = message.uuid as string
          yield* cli.emit(lifecycle(uuid, "queued"))
          yield* cli.emit(lifecycle(uuid, "started"))
          yield* cli.emit(lifecycle(uuid, "completed"))
          yield* Effect.forEach(
            FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, userMessageUuid: uuid }),
            cli.emit,
            { discard: true }
          )
        })
    })))))
})
