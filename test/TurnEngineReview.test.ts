/**
 * The turn engine, found by a reviewing helper on the real CLI 2.1.332 (each test failed before
 * its fix):
 * - the CLI drops, without a word, a user message whose uuid it has seen in the session; the
 *   library refused only the uuid of a turn still open, so a turn written under an ended turn's
 *   uuid (a retry keyed by its uuid) never ended. It is now `InvalidInput`, nothing written;
 * - `session.interrupt` with the program's turn written but not started yet (a Ctrl-C right after
 *   the prompt) sent a bare `interrupt`, which left the turn queued on the CLI, and it ran to its
 *   end; that turn is now withdrawn (`cancel_async_message`), as when its fiber is interrupted.
 * - and, after a second review: `session.interrupt` during a turn the CLI started by itself still
 *   interrupts that turn (it withdrew the program's queued message instead).
 * The real CLI's side is in `TurnEngineReviewLive.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const RETRIED = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"

const lifecycle = (commandUuid: string, state: "queued" | "started" | "completed" | "cancelled") => ({
  type: "command_lifecycle",
  command_uuid: commandUuid,
  state,
  uuid: `lifecycle-${commandUuid}-${state}`,
  session_id: SESSION
})

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  return error?._tag === "Fail" && ClaudeError.isClaudeError(error.error) ? error.error.reason._tag : "not a typed failure"
}

describe("the turn engine", () => {
  it.effect("a turn under the uuid of an ended turn, or of a sent message, is InvalidInput and nothing is written", () =>
    Effect.gen(function*() {
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      const layer = FakeCli.layer((cli) =>
        Effect.andThen(Deferred.succeed(handle, cli), FakeCli.conversation({ sessionId: SESSION })(cli))
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run({ text: "first try", uuid: RETRIED })
        const again = yield* Effect.exit(session.run({ text: "second try", uuid: RETRIED }))
        assert.strictEqual(reasonOf(again), "InvalidInput")
        assert.include(String(Exit.isFailure(again) ? again.cause : ""), "earlier user message of this session")
        const sent = yield* session.send("a message")
        assert.strictEqual(reasonOf(yield* Effect.exit(session.send({ text: "again", uuid: sent }))), "InvalidInput")
        const users = (yield* Deferred.await(handle)).received.filter((m) => m.type === "user")
        assert.deepStrictEqual(users.map((m) => m.uuid), [RETRIED, sent])
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  it.effect("session.interrupt withdraws the program's turn that is written but not started", () =>
    Effect.gen(function*() {
      const queued = yield* Deferred.make<string>()
      const requests: Array<Record<string, unknown>> = []
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const uuid = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          yield* cli.emit(lifecycle(uuid, "queued"))
          yield* Deferred.succeed(queued, uuid)
          while (true) {
            const request = yield* cli.nextMatching((m) => m.type === "control_request")
            const body = request.request as Record<string, unknown>
            requests.push(body)
            if (body.subtype === "cancel_async_message" && body.message_uuid === uuid) {
              yield* cli.emit(lifecycle(uuid, "cancelled"))
              yield* cli.emit(FakeCli.success(request, { cancelled: true, message_uuid: uuid }))
            } else {
              yield* cli.emit(FakeCli.success(request, { still_queued: [uuid] }))
            }
          }
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        const run = yield* Effect.forkChild(Effect.exit(session.run("go")))
        const uuid = yield* Deferred.await(queued)
        yield* session.interrupt
        assert.strictEqual(reasonOf(yield* Fiber.join(run)), "TurnCancelled")
        assert.deepStrictEqual(requests.map((r) => [r.subtype, r.message_uuid]), [["cancel_async_message", uuid]])
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))

  it.effect("session.interrupt during a turn the CLI started by itself interrupts that turn, not the program's queued message", () =>
    Effect.gen(function*() {
      const requests: Array<Record<string, unknown>> = []
      const automaticRuns = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          // A first turn, its uuid echoed (the library learns that the CLI echoes them).
          const first = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "first", userMessageUuid: first })) yield* cli.emit(line)
          // A turn the CLI starts by itself (a background task finished): its init names no user message.
          yield* cli.emit({ ...FakeCli.textTurn({ sessionId: SESSION, text: "" })[0], uuid: "automatic-init" })
          yield* Deferred.succeed(automaticRuns, undefined)
          const uuid = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
          yield* cli.emit(lifecycle(uuid, "queued"))
          while (true) {
            const request = yield* cli.nextMatching((m) => m.type === "control_request")
            requests.push(request.request as Record<string, unknown>)
            yield* cli.emit(FakeCli.success(request, { still_queued: [uuid] }))
          }
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        yield* session.run("first")
        yield* Deferred.await(automaticRuns)
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        yield* session.send("queued behind it")
        yield* session.interrupt
        assert.deepStrictEqual(requests.map((r) => r.subtype), ["interrupt"])
      }).pipe(Effect.scoped, Effect.provide(layer))
    }))
})
