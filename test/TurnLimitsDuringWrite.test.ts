/**
 * `turnTimeout` is a deadline for the whole turn, and `stallTimeout` fails a turn whose CLI writes
 * nothing for that long: both counted from the turn's start. A turn whose user line waits for a
 * full pipe to drain (a large message, an image, to a CLI that stopped reading its stdin) had
 * neither armed until the line was drained: the turn waited without end, `turnTimeout` and
 * `stallTimeout` set or not. Now both cover that wait: the turn fails at its deadline, is
 * withdrawn (or interrupted) on the CLI in the background, and the session goes on.
 *
 * The transport wraps `FakeCli`: its first user line is handed to the fake CLI, then `send` waits
 * (interruptibly, as the transport of a real CLI does) for a drain that never comes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { fullPipeOnFirstUserLine } from "./support/fullPipe.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

type Line = Record<string, unknown>

const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow
})

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) =>
  Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined

const cases = [
  { option: { turnTimeout: "5 seconds" }, reason: "TurnTimedOut" },
  { option: { stallTimeout: "5 seconds" }, reason: "Stalled" }
] as const

describe("a turn whose user line waits for a full pipe to drain", () => {
  for (const { option, reason } of cases) {
    it.effect(`fails with ${reason} at its deadline (${JSON.stringify(option)}); the session goes on`, () =>
      Effect.gen(function*() {
        const handedOver = yield* Deferred.make<void>()
        const told: Array<string> = []
        // A CLI busy elsewhere: it has not started the big message when the library gives up on
        // it, and withdraws it when asked; it then answers every message.
        const fake = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            const big = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
            const cancel = yield* cli.nextMatching((m) => m.type === "control_request")
            const body = cancel.request as Line
            told.push(`${String(body.subtype)} ${String(body.message_uuid === big)}`)
            yield* cli.emit(FakeCli.success(cancel, { cancelled: true }))
            yield* cli.emit({ type: "command_lifecycle", command_uuid: big, state: "cancelled", uuid: "l1", session_id: SESSION })
            while (true) {
              const user = yield* cli.nextMatching((m) => m.type === "user")
              const text = String((user.message as Line).content)
              for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, userMessageUuid: String(user.uuid) })) {
                yield* cli.emit(line)
              }
            }
          })
        )
        yield* Effect.gen(function*() {
          const session = yield* Claude.open(option)
          const first = yield* session.run("a big message").pipe(Effect.exit, Effect.forkChild)
          yield* Deferred.await(handedOver)
          yield* settle
          yield* TestClock.adjust("5 seconds")
          yield* settle
          const exit = first.pollUnsafe()
          assert.isDefined(exit, `the turn still waits for the pipe past its ${reason === "Stalled" ? "stallTimeout" : "turnTimeout"}`)
          const error = reasonOf(yield* Fiber.join(first))
          assert.isTrue(ClaudeError.isClaudeError(error) && error.reason._tag === reason, `failed with ${String(error)}`)
          assert.deepStrictEqual(told, ["cancel_async_message true"], "the CLI was not told to withdraw the turn")
          const second = yield* session.run("second")
          assert.strictEqual(second.result, "echo: second")
        }).pipe(Effect.scoped, Effect.provide(fullPipeOnFirstUserLine(fake, handedOver)))
      }))
  }
})
