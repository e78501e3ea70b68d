/**
 * Issue 13, defect 1 against the real CLI (the pinned devDependency) and the project's fake
 * Messages API: each call gets the result of its own turn, matched by the user message's uuid.
 *
 * The fake model answers each request by what it asks (a function script), so the replies do not
 * depend on the order in which the CLI runs its turns; each test then checks which result each
 * call returned.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { wireLog } from "./support/wire.ts"
import { collectEvents } from "./support/events.ts"

/** The raw content of the request's last user message (system reminders included). */
const lastUserRaw = (request: FakeModel.RecordedRequest): string =>
  JSON.stringify(FakeModel.lastUserMessage(request)?.content ?? "")

const results = (events: ReadonlyArray<Claude.Event>) => events.filter((e): e is Claude.TurnResult => e.type === "result")

/** Waits (polling, real time) until `seen` holds a result passing `predicate`; dies after `timeoutMillis`. */
const awaitResult = (
  seen: ReadonlyArray<Claude.Event>,
  predicate: (result: Claude.TurnResult) => boolean,
  timeoutMillis = 30_000
) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < timeoutMillis; waited += 20) {
      const found = results(seen).find(predicate)
      if (found !== undefined) return found
      yield* Effect.sleep("20 millis")
    }
    const summary = results(seen).map((r) => `${r.result ?? r.subtype} ${JSON.stringify(r.turn.userMessageUuids)}`)
    return yield* Effect.die(new Error(`no matching result within ${timeoutMillis} ms; results: ${summary.join(" | ")}`))
  })

/** Waits (polling, real time) until `seen` holds an event passing `predicate`. */
const awaitEvent = (seen: ReadonlyArray<Claude.Event>, predicate: (event: Claude.Event) => boolean) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < 30_000; waited += 20) {
      const found = seen.find(predicate)
      if (found !== undefined) return found
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`no matching event; got: ${seen.map((e) => e.type).join(", ")}`))
  })

const AFTER_AGENT = "Main: after Agent tool result."
const AUTOMATIC = "Main: re-invoked after the agent finished."
const NEXT = "Reply to the next turn."

/**
 * The model of the c4-subagent-background scenario (captured in testdata/protocol/c4-subagent-background.ndjson): the main agent
 * calls the Agent tool (in the background by default), answers its tool result, and is re-invoked
 * by the CLI when the subagent is done; the program's next turn gets its own reply. Each reply
 * streams for about the given milliseconds.
 */
const agentScript = (timing: { readonly subagentMs: number; readonly automaticMs: number; readonly nextMs: number }) =>
(request: FakeModel.RecordedRequest): FakeModel.Reply => {
  const slow = (ms: number) => (ms === 0 ? {} : { chunks: 20, delayMs: Math.round(ms / 20) })
  if (FakeModel.systemText(request).includes("cc_is_subagent=true")) {
    return FakeModel.text("Sub-agent says hello.", slow(timing.subagentMs))
  }
  const raw = lastUserRaw(request)
  if (raw.includes("SYSTEM NOTIFICATION") || raw.includes("task-notification")) {
    return FakeModel.text(AUTOMATIC, slow(timing.automaticMs))
  }
  if (FakeModel.toolResults(request).length > 0) return FakeModel.text(AFTER_AGENT)
  const text = FakeModel.lastUserText(request) ?? ""
  if (text.includes("Use a subagent")) {
    return FakeModel.toolUse("Agent", { description: "Probe subagent", prompt: "Say sub-hello", subagent_type: "general-purpose" })
  }
  if (text.includes("next turn")) return FakeModel.text(NEXT, slow(timing.nextMs))
  return FakeModel.text(`unexpected request: ${text.slice(0, 80)}`)
}

/** Each result once on `events`: the two user turns as the calls got them, the automatic one apart. */
const assertAttribution = (
  seen: ReadonlyArray<Claude.Event>,
  first: Claude.TurnResult,
  next: Claude.TurnResult,
  automatic: Claude.TurnResult
) => {
  assert.deepStrictEqual(
    results(seen).map((r) => [r.result, r.turn.kind]).sort(),
    [[AFTER_AGENT, "user"], [AUTOMATIC, "automatic"], [NEXT, "user"]].sort()
  )
  assert.deepStrictEqual(first.turn.userMessageUuids, [FIRST])
  assert.strictEqual(next.turn.kind, "user")
  assert.deepStrictEqual(next.turn.userMessageUuids, [SECOND])
  assert.deepStrictEqual(automatic.turn.userMessageUuids, [])
}

const FIRST = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const SECOND = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
const THIRD = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"

describe("the real CLI: each call gets its own turn's result", { timeout: 120_000 }, () => {
  it.live("a send during a turn, then run: the turn, the sent message and run each get their own result", () =>
    Effect.gen(function*() {
      // Each reply names the prompts of its request; the first streams for a while, so that the
      // second message is written while it runs.
      const { options } = yield* live((request) => {
        const text = FakeModel.lastUserText(request) ?? ""
        const names = ["first", "second", "third"].filter((name) => text.includes(`prompt ${name}`))
        return FakeModel.text(`reply to ${names.join("+")}`, names.includes("first") ? { chunks: 40, delayMs: 25 } : {})
      })
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      const streaming = yield* Deferred.make<void>()
      const first = yield* session.turn({ text: "prompt first", uuid: FIRST }).pipe(
        Stream.tap((e) => e.type === "stream_event" ? Deferred.succeed(streaming, undefined) : Effect.void),
        Stream.runCollect,
        Effect.forkChild
      )
      yield* Deferred.await(streaming)
      yield* session.send({ text: "prompt second", uuid: SECOND })
      const firstEvents = yield* Fiber.join(first)
      const firstResult = firstEvents.at(-1) as Claude.TurnResult
      assert.strictEqual(firstResult.type, "result")
      assert.strictEqual(firstResult.result, "reply to first")
      assert.strictEqual(results(firstEvents).length, 1)

      const third = yield* session.run({ text: "prompt third", uuid: THIRD })
      // The CLI may have merged "second" and "third" into one turn when both waited; otherwise
      // "third" has a turn of its own. Either way `run` returns the result that answers it.
      assert.include(String(third.result), "third")
      const second = yield* awaitResult(seen, (r) => String(r.result).includes("second"))
      if (second !== third) {
        assert.strictEqual(second.result, "reply to second")
        assert.strictEqual(third.result, "reply to third")
      }
      assert.deepStrictEqual(firstResult.turn.userMessageUuids, [FIRST])
      assert.include(third.turn.userMessageUuids, THIRD)
      assert.include(second.turn.userMessageUuids, SECOND)
      assert.strictEqual(second.turn.kind, "user")
    }).pipe(Effect.provide(processLayer)))

  it.live("an automatic turn that finishes while the program's next turn runs goes to events only", () =>
    Effect.gen(function*() {
      // The subagent finishes while the next turn streams: the CLI runs its automatic turn after it.
      const { options } = yield* live(agentScript({ subagentMs: 600, automaticMs: 0, nextMs: 1500 }))
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      const first = yield* session.run({ text: "Use a subagent", uuid: FIRST })
      assert.strictEqual(first.result, AFTER_AGENT)
      const next = yield* session.run({ text: "And now the next turn", uuid: SECOND })
      assert.strictEqual(next.result, NEXT)
      const automatic = yield* awaitResult(seen, (r) => r.result === AUTOMATIC)
      assert.strictEqual(automatic.origin?.kind, "task-notification")
      yield* awaitResult(seen, (r) => r.result === NEXT)
      assertAttribution(seen, first, next, automatic)
    }).pipe(Effect.provide(processLayer)))

  it.live("the program's next turn written while the CLI runs its automatic turn gets its own result", () =>
    Effect.gen(function*() {
      // The program writes its next turn once the subagent is done, while the automatic turn that
      // follows streams: the CLI queues the program's message behind it.
      const { options } = yield* live(agentScript({ subagentMs: 0, automaticMs: 1500, nextMs: 0 }))
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      const first = yield* session.run({ text: "Use a subagent", uuid: FIRST })
      assert.strictEqual(first.result, AFTER_AGENT)
      yield* awaitEvent(seen, (e) => e.type === "system" && e.subtype === "init" && !("user_message_uuids" in e))
      const next = yield* session.run({ text: "And now the next turn", uuid: SECOND })
      assert.strictEqual(next.result, NEXT)
      const automatic = yield* awaitResult(seen, (r) => r.result === AUTOMATIC)
      assert.strictEqual(automatic.origin?.kind, "task-notification")
      yield* awaitResult(seen, (r) => r.result === NEXT)
      assertAttribution(seen, first, next, automatic)
    }).pipe(Effect.provide(processLayer)))

  it.live("an interrupt while a second message is queued: the running turn is aborted, the queued one runs and gets its own result", () =>
    Effect.gen(function*() {
      const { options } = yield* live((request) => {
        const text = FakeModel.lastUserText(request) ?? ""
        return text.includes("prompt second")
          ? FakeModel.text("reply to second")
          : text.includes("prompt third")
          ? FakeModel.text("reply to third")
          : FakeModel.text("word ".repeat(200), { chunks: 200, delayMs: 25 })
      })
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      // A message sent runs (and streams); a turn written meanwhile waits in the CLI's queue.
      yield* session.send({ text: "prompt first", uuid: FIRST })
      yield* awaitEvent(seen, (e) => e.type === "stream_event")
      const second = yield* session.turn({ text: "prompt second", uuid: SECOND }).pipe(Stream.runCollect, Effect.forkChild)
      yield* awaitEvent(seen, (e) => e.type === "command_lifecycle" && e.command_uuid === SECOND && e.state === "queued")
      yield* session.interrupt
      const secondEvents = yield* Fiber.join(second)
      const own = secondEvents.at(-1) as Claude.TurnResult
      assert.strictEqual(own.type, "result")
      assert.strictEqual(own.subtype, "success")
      assert.strictEqual(own.result, "reply to second")
      assert.strictEqual(results(secondEvents).length, 1)
      const aborted = yield* awaitResult(seen, (r) => r.subtype === "error_during_execution")
      assert.match(String(aborted.terminal_reason), /^aborted_/)
      // The session goes on: a later turn gets its own result.
      const later = yield* session.run({ text: "prompt third", uuid: THIRD })
      assert.strictEqual(later.result, "reply to third")
      yield* awaitResult(seen, (r) => r.result === "reply to third")
      assert.deepStrictEqual(results(seen).map((r) => r.subtype), ["error_during_execution", "success", "success"])
      assert.deepStrictEqual(aborted.turn.userMessageUuids, [FIRST])
      assert.deepStrictEqual(own.turn.userMessageUuids, [SECOND])
      assert.deepStrictEqual(later.turn.userMessageUuids, [THIRD])
    }).pipe(Effect.provide(processLayer)))

  it.live("interrupting a turn that waits in the CLI's queue withdraws it; the running turn finishes untouched", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live((request) => {
        const text = FakeModel.lastUserText(request) ?? ""
        return text.includes("prompt second")
          ? FakeModel.text("reply to second")
          : FakeModel.text("done streaming", { chunks: 40, delayMs: 25 })
      })
      const wire = wireLog()
      const session = yield* Claude.open({ ...options, transcript: wire.transcript })
      const seen = yield* collectEvents(session)
      yield* session.send({ text: "prompt first", uuid: FIRST })
      yield* awaitEvent(seen, (e) => e.type === "stream_event")
      const second = yield* session.turn({ text: "prompt second", uuid: SECOND }).pipe(Stream.runDrain, Effect.forkChild)
      yield* awaitEvent(seen, (e) => e.type === "command_lifecycle" && e.command_uuid === SECOND && e.state === "queued")
      yield* Fiber.interrupt(second)
      // The first result after the interrupt is the running turn's, complete.
      const first = yield* awaitResult(seen, () => true)
      assert.strictEqual(first.subtype, "success")
      assert.strictEqual(first.result, "done streaming")
      assert.deepStrictEqual(first.turn.userMessageUuids, [FIRST])
      const sent = wire.lines.filter((l) => l.direction === "send" && l.message.type === "control_request")
        .map((l) => l.message.request as Record<string, unknown>)
      assert.deepStrictEqual(sent.filter((r) => r.subtype !== "initialize"), [
        { subtype: "cancel_async_message", message_uuid: SECOND }
      ])
      // The withdrawn message never reached the model, and the session goes on.
      const later = yield* session.run({ text: "prompt third", uuid: THIRD })
      assert.deepStrictEqual(later.turn.userMessageUuids, [THIRD])
      const prompts = (yield* model.messageRequests).map((r) => FakeModel.lastUserText(r) ?? "")
      assert.isFalse(prompts.some((p) => p.includes("prompt second")), `prompts: ${prompts.join(" | ")}`)
    }).pipe(Effect.provide(processLayer)))

  it.live("two messages queued during an interrupted turn run as one turn: its result ends both", () =>
    Effect.gen(function*() {
      const { options } = yield* live((request) => {
        const text = FakeModel.lastUserText(request) ?? ""
        const names = ["second", "third"].filter((name) => text.includes(`prompt ${name}`))
        return names.length > 0
          ? FakeModel.text(`reply to ${names.join("+")}`)
          : FakeModel.text("word ".repeat(200), { chunks: 200, delayMs: 25 })
      })
      const session = yield* Claude.open(options)
      const seen = yield* collectEvents(session)
      yield* session.send({ text: "prompt first", uuid: FIRST })
      yield* awaitEvent(seen, (e) => e.type === "stream_event")
      yield* session.send({ text: "prompt second", uuid: SECOND })
      const third = yield* session.turn({ text: "prompt third", uuid: THIRD }).pipe(Stream.runCollect, Effect.forkChild)
      yield* awaitEvent(seen, (e) => e.type === "command_lifecycle" && e.command_uuid === THIRD && e.state === "queued")
      yield* session.interrupt
      const thirdEvents = yield* Fiber.join(third)
      const own = thirdEvents.at(-1) as Claude.TurnResult
      // The CLI merged the two queued messages into one turn (as the pinned CLI does): the
      // turn's stream ends with that turn's result, not with the interrupted one's.
      assert.strictEqual(own.type, "result")
      assert.strictEqual(own.subtype, "success")
      assert.strictEqual(own.result, "reply to second+third")
      assert.strictEqual(results(thirdEvents).length, 1)
      yield* awaitResult(seen, (r) => r.result === "reply to second+third")
      assert.deepStrictEqual(results(seen).map((r) => r.subtype), ["error_during_execution", "success"])
      assert.deepStrictEqual(results(seen)[0]!.turn.userMessageUuids, [FIRST])
      assert.deepStrictEqual(own.turn.userMessageUuids, [SECOND, THIRD])
      // Both merged turns ended: the session has nothing running, and a later turn is its own.
      const later = yield* session.run({ text: "prompt second, later", uuid: "dddddddd-dddd-4ddd-8ddd-dddddddddddd" })
      assert.strictEqual(later.result, "reply to second")
      assert.deepStrictEqual(later.turn.userMessageUuids, ["dddddddd-dddd-4ddd-8ddd-dddddddddddd"])
    }).pipe(Effect.provide(processLayer)))
})
