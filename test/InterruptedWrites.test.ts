/**
 * A turn interrupted while its user line waits for a full pipe to drain (the process transport:
 * `stdin.write` returned false, a large message such as an image). The line is handed over
 * already, so the CLI will run that turn: the library interrupts it on the CLI (or withdraws it
 * while queued), as for any interrupted turn, and the next turn is written once it is over. Before,
 * the turn was withdrawn as "not written": nothing told the CLI, which ran it to its end, and on a
 * CLI that echoes no uuid the next `run` got its result.
 *
 * The transport wraps `FakeCli`: its first user line is handed to the fake CLI, then `send` waits
 * (interruptibly, as the transport of a real CLI does) for a drain that never comes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { fullPipeOnFirstUserLine } from "./support/fullPipe.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

type Line = Record<string, unknown>

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, cli.emit, { discard: true })

const isRequest = (subtype: string) => (m: Line) =>
  m.type === "control_request" && (m.request as Line).subtype === subtype

describe("a turn interrupted while its user line waits for the pipe to drain", () => {
  it.effect("is interrupted on the CLI, and on a CLI that echoes no uuid the next run gets its own result", () =>
    Effect.gen(function*() {
      const handedOver = yield* Deferred.make<void>()
      const told: Array<string> = []
      const fake = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          // An older CLI: no uuids echoed, no cancel_async_message.
          const cancel = yield* cli.nextMatching(isRequest("cancel_async_message"))
          told.push("cancel_async_message")
          yield* cli.emit(FakeCli.failure(cancel, "Unsupported control request subtype: cancel_async_message"))
          // It runs the big message; the library interrupts it.
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to the big message" }).slice(0, 3))
          const interrupt = yield* cli.nextMatching(isRequest("interrupt"))
          told.push("interrupt")
          yield* cli.emit(FakeCli.success(interrupt))
          yield* cli.emit(FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_tools" }))
          yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, FakeCli.textTurn({ sessionId: SESSION, text: "reply to second" }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const first = yield* session.run("a big message").pipe(Effect.forkChild)
        yield* Deferred.await(handedOver)
        yield* Fiber.interrupt(first)
        const second = yield* session.run("second")
        assert.deepStrictEqual(told, ["cancel_async_message", "interrupt"])
        assert.strictEqual(second.result, "reply to second", "the next run got the interrupted turn's result")
      }).pipe(Effect.provide(fullPipeOnFirstUserLine(fake, handedOver)))
    }))

  it.effect("a CLI that echoes uuids withdraws it while it is still queued", () =>
    Effect.gen(function*() {
      const handedOver = yield* Deferred.make<void>()
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      const fake = FakeCli.layer(
        (cli) => Effect.andThen(Deferred.succeed(handle, cli), FakeCli.conversation({ sessionId: SESSION })(cli))
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const first = yield* session.run("a big message").pipe(Effect.forkChild)
        yield* Deferred.await(handedOver)
        yield* Fiber.interrupt(first)
        const second = yield* session.run("second")
        const received = (yield* Deferred.await(handle)).received
        const firstUuid = received.find((m) => m.type === "user")!.uuid
        const cancels = received.filter((m) => isRequest("cancel_async_message")(m) && (m.request as Line).message_uuid === firstUuid)
        assert.lengthOf(cancels, 1, "the CLI got the turn's user line but was told nothing when it was interrupted")
        assert.strictEqual(second.subtype, "success")
      }).pipe(Effect.provide(fullPipeOnFirstUserLine(fake, handedOver)))
    }))
})
