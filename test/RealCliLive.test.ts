/**
 * The engine and the control channel against the real CLI (the pinned devDependency) and the
 * project's fake Messages API on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const SLOW_COMMAND = "node -e \"setTimeout(() => console.log('done'), 30000)\""

const failureReason = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit))
  const fail = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  return (fail as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

describe("the real CLI", { timeout: 120_000 }, () => {
  it.live("runs a plain text turn: stream_event deltas, assistant, result; sessionId matches init", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("Hello from the fake model.", { chunks: 4 })])
      const session = yield* Claude.open(options)
      const events = yield* session.turn("Say hello").pipe(Stream.runCollect)
      const deltas = events.filter((e) =>
        e.type === "stream_event" && (e.event as { type: string }).type === "content_block_delta"
      )
      assert.isAtLeast(deltas.length, 4)
      assert.isTrue(events.some((e) => e.type === "assistant"))
      const init = events.find((e) => e.type === "system" && e.subtype === "init")
      const result = events.at(-1) as Claude.TurnResult
      assert.strictEqual(result.type, "result")
      assert.strictEqual(result.subtype, "success")
      assert.strictEqual(result.result, "Hello from the fake model.")
      assert.strictEqual(yield* session.sessionId, (init as { session_id: string }).session_id)
      assert.strictEqual(result.session_id, yield* session.sessionId)
      assert.isAbove(result.turn.costUsd, 0)
      const [request] = yield* model.messageRequests
      assert.strictEqual(FakeModel.lastUserText(request!), "Say hello")
      assert.isNumber(session.pid)
    }).pipe(Effect.provide(processLayer)))

  it.live("decodes the initialize response", () =>
    Effect.gen(function*() {
      const { options } = yield* live([])
      const session = yield* Claude.open(options)
      const init = yield* session.initializeResult
      assert.isArray(init.commands)
      assert.isArray(init.models)
      assert.strictEqual(init.claude_code_version, "2.1.332")
      assert.strictEqual(init.current_permission_mode, "bypassPermissions")
    }).pipe(Effect.provide(processLayer)))

  it.live("setModel resolves an alias, and the next request to the API uses it", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("ok")])
      const session = yield* Claude.open(options)
      const resolved = yield* session.setModel("haiku")
      assert.strictEqual(resolved, "claude-haiku-5-5")
      yield* session.run("which model?")
      const [request] = yield* model.messageRequests
      assert.strictEqual(request!.model, "claude-haiku-5-5")
    }).pipe(Effect.provide(processLayer)))

  it.live("setPermissionMode, mcpStatus, contextUsage, and an unknown subtype as a typed error", () =>
    Effect.gen(function*() {
      const { options } = yield* live([FakeModel.text("ok")])
      const session = yield* Claude.open(options)
      yield* session.initializeResult
      yield* session.setPermissionMode("acceptEdits")
      const bad = yield* Effect.exit(session.request({ subtype: "set_permission_mode", mode: "bogus" }, Schema.Unknown))
      const badReason = failureReason(bad) as ClaudeError.ControlRejected
      assert.strictEqual(badReason._tag, "ControlRejected")
      assert.strictEqual(badReason.errorCode, "invalid_mode")
      const status = yield* session.mcpStatus()
      assert.deepStrictEqual(status.mcpServers, [])
      yield* session.run("hi")
      const usage = yield* session.contextUsage()
      assert.isAbove(usage.maxTokens, 0)
      const unknown = failureReason(yield* Effect.exit(session.request({ subtype: "no_such_subtype" }, Schema.Unknown)))
      assert.strictEqual(unknown._tag, "ControlRejected")
      assert.strictEqual((unknown as ClaudeError.ControlRejected).errorCode, "unsupported_request")
      assert.include((unknown as ClaudeError.ControlRejected).error, "no_such_subtype")
    }).pipe(Effect.provide(processLayer)))

  it.live("stopTask stops a background Bash task", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.toolUse("Bash", { command: SLOW_COMMAND, description: "background wait", run_in_background: true }),
        FakeModel.text("Started in background.")
      ])
      const session = yield* Claude.open(options)
      const events = yield* session.turn("start a background command").pipe(Stream.runCollect)
      const started = events.find((e) => e.type === "system" && e.subtype === "task_started") as
        | { task_id: string }
        | undefined
      assert.isDefined(started)
      const notified = yield* session.events.pipe(
        Stream.filter((e) => e.type === "system" && e.subtype === "task_notification"),
        Stream.runHead,
        Effect.forkChild
      )
      yield* Effect.sleep("50 millis")
      yield* session.stopTask(started!.task_id)
      const notification = yield* Fiber.join(notified)
      assert.strictEqual((notification as unknown as { value: { status: string } }).value.status, "stopped")
    }).pipe(Effect.provide(processLayer)))

  it.live("rewindFiles restores a file with checkpointing on, addressed by the user turn's uuid", () =>
    Effect.gen(function*() {
      const setup = yield* live([], { fileCheckpointing: true })
      const file = Path.join(setup.cwd, "x.txt")
      yield* setup.model.setScript([
        FakeModel.toolUse("Write", { file_path: file, content: "v1\n" }),
        FakeModel.text("wrote v1"),
        FakeModel.toolUse("Write", { file_path: file, content: "v2\n" }),
        FakeModel.text("wrote v2")
      ])
      const session = yield* Claude.open(setup.options)
      const second = "22222222-2222-4222-8222-222222222222"
      yield* session.run({ text: "write v1", uuid: "11111111-1111-4111-8111-111111111111" })
      yield* session.run({ text: "write v2", uuid: second })
      assert.strictEqual(Fs.readFileSync(file, "utf8"), "v2\n")
      const dry = yield* session.rewindFiles(second, { dryRun: true })
      assert.isTrue(dry.canRewind)
      yield* session.rewindFiles(second)
      assert.strictEqual(Fs.readFileSync(file, "utf8"), "v1\n")
    }).pipe(Effect.provide(processLayer)))

  it.live("interrupting a turn whose tool runs a 30 s command gives the aborted result within 2 s; the next turn works", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.toolUse("Bash", { command: SLOW_COMMAND, description: "slow" }),
        FakeModel.text("after the interrupt")
      ])
      const session = yield* Claude.open(options)
      const seen: Array<Claude.Event> = []
      const toolRunning = session.events.pipe(
        Stream.filter((e) => e.type === "system" && e.subtype === "status"),
        Stream.runHead
      )
      const fiber = yield* session.turn("run the slow command").pipe(
        Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
        Effect.forkChild
      )
      // Wait for the tool_use to be complete (the assistant line carrying it) before interrupting.
      yield* Effect.gen(function*() {
        while (!seen.some((e) => e.type === "assistant")) yield* Effect.sleep("20 millis")
      })
      yield* Effect.sleep("300 millis")
      void toolRunning
      // Subscribed now, before the interrupt: a fiber started later could miss the aborted result.
      const results = session.events.pipe(
        Stream.filter((e) => e.type === "result"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      const resultFiber = yield* results
      const before = yield* Clock.currentTimeMillis
      yield* Fiber.interrupt(fiber)
      const elapsed = (yield* Clock.currentTimeMillis) - before
      const aborted = (yield* Fiber.join(resultFiber)) as unknown as { value: Claude.TurnResult }
      assert.strictEqual(aborted.value.subtype, "error_during_execution")
      assert.strictEqual(aborted.value.terminal_reason, "aborted_tools")
      assert.isBelow(elapsed, 2000)
      const next = yield* session.run("and now?")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "after the interrupt")
    }).pipe(Effect.provide(processLayer)))

  it.live("interrupting while text streams gives aborted_streaming; the next turn works", () =>
    Effect.gen(function*() {
      const { options } = yield* live([
        FakeModel.text("word ".repeat(200), { chunks: 200, delayMs: 25 }),
        FakeModel.text("fine")
      ])
      const session = yield* Claude.open(options)
      let deltas = 0
      const fiber = yield* session.turn("talk a lot").pipe(
        Stream.runForEach((e) => Effect.sync(() => e.type === "stream_event" && deltas++)),
        Effect.forkChild
      )
      while (deltas < 10) yield* Effect.sleep("20 millis")
      // Subscribed now, before the interrupt: a fiber started later could miss the aborted result.
      const resultFiber = yield* session.events.pipe(
        Stream.filter((e) => e.type === "result"),
        Stream.runHead,
        Effect.forkChild({ startImmediately: true })
      )
      const before = yield* Clock.currentTimeMillis
      yield* Fiber.interrupt(fiber)
      const elapsed = (yield* Clock.currentTimeMillis) - before
      const aborted = (yield* Fiber.join(resultFiber)) as unknown as { value: Claude.TurnResult }
      assert.strictEqual(aborted.value.terminal_reason, "aborted_streaming")
      assert.isBelow(elapsed, 2000)
      const next = yield* session.run("short now")
      assert.strictEqual(next.result, "fine")
    }).pipe(Effect.provide(processLayer)))
})
