/**
 * A turn's outcome as it reaches the program: a limit's subtype fails the turn whatever
 * `is_error` says (CLI 2.1.0 writes its error subtypes with `is_error: false`: a turn stopped at
 * `maxTurns` read as a success), a turn given up after its interrupt went unanswered does not
 * claim it never ran, and a turn a hook stopped does not blame the model for its missing
 * structured output. Each was wrong before (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { startedTurn } from "./support/interrupts.ts"
import { reasonOf } from "./support/outcomes.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("turn outcomes", () => {
  it.effect("a run whose turn ran and whose interrupt went unanswered does not fail saying it was cancelled before it ran", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          // The turn starts on the CLI (2.1.332 echoes the uuid)...
          const uuid = yield* startedTurn(cli, SESSION)
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "working", userMessageUuid: uuid })[1])
          yield* Deferred.succeed(started, undefined)
          // ...acknowledges the interrupt, but its stuck tool keeps the result from coming in time.
          const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
          return yield* Effect.never
        })
      )
      const session = yield* Claude.open({ interruptTimeout: "2 seconds" }).pipe(Effect.provide(layer))
      const run = yield* Effect.forkChild(Effect.exit(session.run("long job")), { startImmediately: true })
      yield* Deferred.await(started)
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      const interrupting = yield* Effect.forkChild(session.interrupt, { startImmediately: true })
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(interrupting)
      const reason = reasonOf(yield* Fiber.join(run))
      // The turn did run: the CLI started it and wrote its lines. Whatever the reason, it must not
      // say the CLI cancelled the message before its turn ran.
      assert.notInclude(reason.message, "before its turn ran", `${reason._tag}: ${reason.message}`)
      assert.strictEqual(reason._tag, "TurnCancelled")
      assert.include(reason.message, "was given up: its interrupt brought no result within")
    }))

  it.effect("a result whose subtype is error_max_turns fails run with LimitReached even when is_error is false (as CLI 2.1.0 writes error subtypes)", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli) =>
          Effect.gen(function*() {
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "" })[0])
            // CLI 2.1.0: no terminal_reason, and is_error false on an error subtype
            // (testdata/cli-versions/2.1.0.json, interrupt-streaming / interrupt-tool).
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, subtype: "error_max_turns", numTurns: 2 }),
              is_error: false,
              errors: ["Reached maximum number of turns (1)"],
              terminal_reason: undefined
            })
          })
      }))
      const session = yield* Claude.open({ maxTurns: 1 }).pipe(Effect.provide(layer))
      const exit = yield* Effect.exit(session.run("use a tool"))
      assert.isTrue(Exit.isFailure(exit), "a turn stopped at maxTurns was returned as a success")
      assert.strictEqual(reasonOf(exit)._tag, "LimitReached")
    }))

  it.effect("with outputFormat, a turn a hook stopped (terminal_reason hook_stopped) does not fail saying the model did not call StructuredOutput", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            // As CLI 2.1.332 wrote it when a PostToolUse hook answered continue: false
            // (testdata/protocol/c3-hook-outputs.ndjson): success, is_error false, result "".
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, terminalReason: "hook_stopped", numTurns: 2 }),
              stop_reason: "tool_use",
              user_message_uuid: uuid,
              user_message_uuids: [uuid]
            })
          })
      }))
      const Answer = Schema.Struct({ answer: Schema.String })
      const exit = yield* Effect.exit(Claude.query("go", { outputFormat: Answer }).pipe(Effect.provide(layer)))
      const reason = reasonOf(exit)
      assert.notInclude(reason.message, "did not call the StructuredOutput tool", `${reason._tag}: ${reason.message}`)
      assert.include(reason.message, "The turn ended (hook_stopped) before the model gave its structured output")
    }))
})
