/**
 * Issue 13, defect 1: a turn ends at the result that names it, not at whatever result comes next.
 *
 * The fake CLIs here behave as the real CLI 2.1.332 does when the host puts a `uuid` on its user
 * messages: a `command_lifecycle` line when a message is queued, started and completed, and the
 * message's uuid echoed as `user_message_uuid(s)` on `system/init`, `stream_event`
 * `message_start`, `assistant` and `result`. A message written while a turn runs waits for it;
 * a turn the CLI starts by itself (after a background task) has no uuid and a `result` with
 * `origin`. Each test was run against the engine before the fix (commit 1d0b9fe) and failed there.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { collectEvents } from "./support/events.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const FIRST = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const SECOND = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
const THIRD = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"

type Line = Record<string, unknown>

let lineCounter = 0

/** A `command_lifecycle` line, as the CLI writes it for a user message that carried a uuid. */
const lifecycle = (commandUuid: string, state: "queued" | "started" | "completed" | "cancelled"): Line => ({
  type: "command_lifecycle",
  command_uuid: commandUuid,
  state,
  uuid: `lifecycle-${++lineCounter}`,
  session_id: SESSION
})

/** The lines of a text turn answering `uuid`, each line with a uuid of its own. */
const turnLines = (uuid: string, text: string, totalCostUsd: number): ReadonlyArray<Line> => {
  const tag = `${uuid.slice(0, 4)}-${++lineCounter}`
  return FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: uuid, totalCostUsd }).map((line) => ({
    ...line,
    uuid: `${String(line.uuid)}-${tag}`
  }))
}

/** The lines of a turn the CLI started by itself after a background task finished. */
const automaticTurnLines = (text: string, totalCostUsd: number): ReadonlyArray<Line> => {
  const lines = FakeCli.textTurn({ sessionId: SESSION, text, totalCostUsd }).map((line) => ({
    ...line,
    uuid: `${String(line.uuid)}-auto-${++lineCounter}`
  }))
  const result = lines.at(-1)!
  return [
    ...lines.slice(0, -1),
    { ...result, origin: { kind: "task-notification", producer: "session-task", runId: "0mx2oi31q-f5c31fa6" } }
  ]
}

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<Line>) => Effect.forEach(lines, cli.emit, { discard: true })

const nextUser = (cli: FakeCli.FakeCliHandle) => cli.nextMatching((m) => m.type === "user")

const requestOf = (message: Line) => message.request as Line

const results = (events: ReadonlyArray<Claude.Event>) => events.filter((e): e is Claude.TurnResult => e.type === "result")

/** Waits until `seen` holds an event passing `predicate`. */
const awaitEvent = (seen: ReadonlyArray<Claude.Event>, predicate: (event: Claude.Event) => boolean) =>
  Effect.gen(function*() {
    while (!seen.some(predicate)) yield* Effect.yieldNow
    return seen.find(predicate)!
  })

describe("issue 13, defect 1: each turn gets its own result", () => {
  it.effect("send(second) during turn(first), then run(third): each call gets the result that names it", () =>
    Effect.gen(function*() {
      const firstStreaming = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const first = yield* nextUser(cli)
          assert.strictEqual(first.uuid, FIRST)
          const firstLines = turnLines(FIRST, "reply to first", 0.001)
          yield* emitAll(cli, [lifecycle(FIRST, "queued"), lifecycle(FIRST, "started"), ...firstLines.slice(0, 2)])
          yield* Deferred.succeed(firstStreaming, undefined)
          // "second" is written while "first" runs: the CLI queues it.
          const second = yield* nextUser(cli)
          assert.strictEqual(second.uuid, SECOND)
          yield* cli.emit(lifecycle(SECOND, "queued"))
          yield* emitAll(cli, [...firstLines.slice(2), lifecycle(FIRST, "completed")])
          // "third" is written once first's stream ended, while "second" still waits its turn.
          const third = yield* nextUser(cli)
          assert.strictEqual(third.uuid, THIRD)
          yield* cli.emit(lifecycle(THIRD, "queued"))
          yield* emitAll(cli, [
            lifecycle(SECOND, "started"),
            ...turnLines(SECOND, "reply to second", 0.002),
            lifecycle(SECOND, "completed")
          ])
          yield* emitAll(cli, [
            lifecycle(THIRD, "started"),
            ...turnLines(THIRD, "reply to third", 0.003),
            lifecycle(THIRD, "completed")
          ])
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const seen = yield* collectEvents(session)
        const firstTurn = yield* session.turn({ text: "first", uuid: FIRST }).pipe(Stream.runCollect, Effect.forkChild)
        yield* Deferred.await(firstStreaming)
        yield* session.send({ text: "second", uuid: SECOND })
        const firstEvents = yield* Fiber.join(firstTurn)
        const firstResult = firstEvents.at(-1) as Claude.TurnResult
        assert.strictEqual(firstResult.result, "reply to first")
        // The first turn's stream holds none of the second turn's events.
        assert.strictEqual(results(firstEvents).length, 1)

        const third = yield* session.run({ text: "third", uuid: THIRD })
        assert.strictEqual(third.result, "reply to third")
        assert.deepStrictEqual(firstResult.turn.userMessageUuids, [FIRST])
        assert.deepStrictEqual(third.turn.userMessageUuids, [THIRD])
        assert.strictEqual(third.turn.kind, "user")

        // The sent message's own result reaches `events`, attributed to it.
        const second = (yield* awaitEvent(seen, (e) => e.type === "result" && e.result === "reply to second")) as Claude.TurnResult
        assert.deepStrictEqual(second.turn.userMessageUuids, [SECOND])
        assert.deepStrictEqual(results(seen).map((r) => r.result), ["reply to first", "reply to second", "reply to third"])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("an automatic result (origin) that comes while a user turn waits does not end it, and reaches events as automatic", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const user = yield* nextUser(cli)
          assert.strictEqual(user.uuid, FIRST)
          // The CLI is busy with a turn of its own (a background task finished): the user's
          // message waits in its queue, then runs.
          yield* cli.emit(lifecycle(FIRST, "queued"))
          yield* emitAll(cli, automaticTurnLines("automatic reply", 0.001))
          yield* emitAll(cli, [
            lifecycle(FIRST, "started"),
            ...turnLines(FIRST, "reply to the user", 0.002),
            lifecycle(FIRST, "completed")
          ])
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const seen = yield* collectEvents(session)
        const events = yield* session.turn({ text: "mine", uuid: FIRST }).pipe(Stream.runCollect)
        const own = events.at(-1) as Claude.TurnResult
        assert.strictEqual(own.result, "reply to the user")
        assert.strictEqual(own.turn.kind, "user")
        assert.deepStrictEqual(own.turn.userMessageUuids, [FIRST])
        // Neither the automatic turn's result nor its other events went to the user's turn.
        assert.deepStrictEqual(results(events).map((r) => r.result), ["reply to the user"])
        assert.isFalse(events.some((e) => e.type === "assistant" && JSON.stringify(e).includes("automatic reply")))

        const automatic = (yield* awaitEvent(seen, (e) => e.type === "result" && e.result === "automatic reply")) as Claude.TurnResult
        assert.strictEqual(automatic.turn.kind, "automatic")
        assert.deepStrictEqual(automatic.turn.userMessageUuids, [])
        assert.strictEqual(automatic.origin?.kind, "task-notification")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a result naming two uuids (queued messages merged into one turn) ends both turns", () =>
    Effect.gen(function*() {
      const running = yield* Deferred.make<void>()
      const firstQueued = yield* Deferred.make<void>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const busy = yield* nextUser(cli)
          assert.strictEqual(busy.uuid, FIRST)
          const busyLines = turnLines(FIRST, "reply to the sent message", 0.001)
          yield* emitAll(cli, [lifecycle(FIRST, "queued"), lifecycle(FIRST, "started"), ...busyLines.slice(0, 2)])
          yield* Deferred.succeed(running, undefined)
          // Two messages written while the first runs: the CLI queues both, then runs them as one
          // turn, whose `user_message_uuid` is the last one's and `user_message_uuids` both.
          const a = yield* nextUser(cli)
          assert.strictEqual(a.uuid, SECOND)
          yield* cli.emit(lifecycle(SECOND, "queued"))
          yield* Deferred.succeed(firstQueued, undefined)
          const b = yield* nextUser(cli)
          assert.strictEqual(b.uuid, THIRD)
          yield* cli.emit(lifecycle(THIRD, "queued"))
          yield* emitAll(cli, [...busyLines.slice(2), lifecycle(FIRST, "completed")])
          const echo = { user_message_uuid: THIRD, user_message_uuids: [SECOND, THIRD] }
          const merged = turnLines(THIRD, "reply to both", 0.002).map((line) =>
            line.type === "system"
              ? { ...line, user_message_uuids: [SECOND, THIRD] }
              : "user_message_uuid" in line
              ? { ...line, ...echo }
              : line
          )
          yield* emitAll(cli, [lifecycle(SECOND, "started"), lifecycle(THIRD, "started"), ...merged])
          yield* emitAll(cli, [lifecycle(SECOND, "completed"), lifecycle(THIRD, "completed")])
          // A later turn gets its own result.
          const later = yield* nextUser(cli)
          const laterUuid = String(later.uuid)
          yield* emitAll(cli, [
            lifecycle(laterUuid, "queued"),
            lifecycle(laterUuid, "started"),
            ...turnLines(laterUuid, "reply to later", 0.003),
            lifecycle(laterUuid, "completed")
          ])
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const seen = yield* collectEvents(session)
        yield* session.send({ text: "busy", uuid: FIRST })
        yield* Deferred.await(running)
        // The turn is the merged batch's first member: the result's `user_message_uuid` is the
        // other (sent) message's, and only `user_message_uuids` names this turn.
        const fiber = yield* session.run({ text: "one", uuid: SECOND }).pipe(Effect.forkChild)
        yield* Deferred.await(firstQueued)
        yield* session.send({ text: "two", uuid: THIRD })
        const both = yield* Fiber.join(fiber)
        assert.strictEqual(both.result, "reply to both")
        assert.deepStrictEqual(both.turn.userMessageUuids, [SECOND, THIRD])
        const later = yield* session.run("later")
        assert.strictEqual(later.result, "reply to later")
        yield* awaitEvent(seen, (e) => e.type === "result" && e.result === "reply to later")
        assert.deepStrictEqual(
          results(seen).map((r) => r.result),
          ["reply to the sent message", "reply to both", "reply to later"]
        )
      }).pipe(Effect.provide(layer))
    }))

  it.effect("interrupting a turn still queued on the CLI withdraws it (cancel_async_message), and leaves the running turn alone", () =>
    Effect.gen(function*() {
      const queued = yield* Deferred.make<void>()
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(handle, cli)
          yield* FakeCli.answerInitialize(cli)
          const running = yield* nextUser(cli)
          assert.strictEqual(running.uuid, FIRST)
          const runningLines = turnLines(FIRST, "reply to the running turn", 0.001)
          yield* emitAll(cli, [lifecycle(FIRST, "queued"), lifecycle(FIRST, "started"), ...runningLines.slice(0, 2)])
          const waiting = yield* nextUser(cli)
          assert.strictEqual(waiting.uuid, SECOND)
          yield* cli.emit(lifecycle(SECOND, "queued"))
          yield* Deferred.succeed(queued, undefined)
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          const body = requestOf(request)
          if (body.subtype === "cancel_async_message" && body.message_uuid === SECOND) {
            yield* cli.emit(lifecycle(SECOND, "cancelled"))
            yield* cli.emit(FakeCli.success(request, { cancelled: true, message_uuid: SECOND }))
          } else if (body.subtype === "interrupt") {
            // What the CLI does with an interrupt: the running turn is aborted, the queued one runs.
            yield* cli.emit(FakeCli.success(request, { still_queued: [SECOND] }))
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
              user_message_uuid: FIRST,
              user_message_uuids: [FIRST]
            })
            yield* emitAll(cli, [lifecycle(SECOND, "started"), ...turnLines(SECOND, "reply to the queued turn", 0.002)])
            return yield* Effect.never
          } else {
            yield* cli.emit(FakeCli.failure(request, `unexpected ${String(body.subtype)}`))
          }
          yield* emitAll(cli, [...runningLines.slice(2), lifecycle(FIRST, "completed")])
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "1 hour" })
        const seen = yield* collectEvents(session)
        yield* session.send({ text: "running", uuid: FIRST })
        const fiber = yield* session.turn({ text: "queued", uuid: SECOND }).pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
        yield* Deferred.await(queued)
        yield* Fiber.interrupt(fiber)
        const running = (yield* awaitEvent(seen, (e) => e.type === "result")) as Claude.TurnResult
        assert.strictEqual(running.subtype, "success")
        assert.strictEqual(running.result, "reply to the running turn")
        assert.deepStrictEqual(running.turn.userMessageUuids, [FIRST])
        // What the library wrote: a withdrawal of the queued turn, never an interrupt.
        const requests = (yield* Deferred.await(handle)).received
          .filter((m) => m.type === "control_request")
          .map(requestOf)
        assert.isTrue(requests.some((r) => r.subtype === "cancel_async_message" && r.message_uuid === SECOND))
        assert.isFalse(requests.some((r) => r.subtype === "interrupt"))
      }).pipe(Effect.provide(layer))
    }))
})
