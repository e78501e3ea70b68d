/**
 * A fake CLI's side of an interrupt of its running turn, as CLI 2.1.332 answers it: for tests
 * whose `FakeCli` script runs a turn until the library interrupts it.
 */
import * as Effect from "effect/Effect"
import * as FakeCli from "../../src/testing/FakeCli.ts"

/**
 * A turn the CLI started: answers `initialize`, reads the program's user line and writes the
 * turn's start (`command_lifecycle` started, the turn's first line, as 2.1.332 echoes the uuid).
 * Returns the user line's uuid.
 */
export const startedTurn = (cli: FakeCli.FakeCliHandle, sessionId: string) =>
  Effect.gen(function*() {
    yield* FakeCli.answerInitialize(cli)
    const user = yield* cli.nextMatching((m) => m.type === "user")
    const uuid = String(user.uuid)
    yield* cli.emit({ type: "command_lifecycle", command_uuid: uuid, state: "started", uuid: "l1", session_id: sessionId })
    yield* cli.emit(FakeCli.textTurn({ sessionId, text: "working", userMessageUuid: uuid })[0])
    return uuid
  })

/**
 * Answers the library's control requests until its `interrupt`: a withdrawal of the running turn
 * first (`cancel_async_message`, sent while the library has not yet seen the turn start) is
 * refused, as the CLI refuses it for a turn it runs; the interrupt is answered. Returns the
 * interrupt's request body.
 */
export const answerInterrupt = (cli: FakeCli.FakeCliHandle) =>
  Effect.gen(function*() {
    while (true) {
      const request = yield* cli.nextMatching((m) => m.type === "control_request")
      const body = request.request as Record<string, unknown>
      if (body.subtype === "cancel_async_message") yield* cli.emit(FakeCli.success(request, { cancelled: false }))
      if (body.subtype !== "interrupt") continue
      yield* cli.emit(FakeCli.success(request, { still_queued: [] }))
      return body
    }
  })

/** The result of a turn the CLI aborted mid-stream, naming the user message `uuid`. */
export const abortedResult = (sessionId: string, uuid: string) => ({
  ...FakeCli.result({ sessionId, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
  user_message_uuid: uuid,
  user_message_uuids: [uuid]
})
