/**
 * A `hook_callback` the library cannot read is still its hook's. Answered with an error, the CLI
 * takes it as "no opinion" and runs the tool (protocol page §5); only a CLI that honours
 * `onFailure: "block"` (2.1.332) blocks it on its own. So a request whose callback id can be read
 * goes to its hook, whose guard refuses it; and one request id is answered once. Found by a
 * reviewing helper: both an envelope that breaks its schema and a line over `maxLineBytes` were
 * answered with an error, and an unreadable request reusing the id of one that runs was answered
 * as well as it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { preToolUseRmRf as preToolUse } from "./support/hookInputs.ts"

/** A CLI before 2.1.332 (no `hook_on_failure_supported`): the library's refusal is the guard. */
const olderCli = { hook_on_failure_supported: undefined, hooks_applied: undefined }

type Line = Record<string, unknown>

/** A CLI that sends `lines` once `go` is done, then gives the first control response. */
const sending = (lines: ReadonlyArray<Line>, go: Deferred.Deferred<void>) =>
  Effect.gen(function*() {
    const answered = yield* Deferred.make<Line>()
    const layer = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli, olderCli)
        yield* Deferred.await(go)
        for (const line of lines) yield* cli.emit(line)
        yield* Deferred.succeed(answered, yield* cli.nextMatching((m) => m.type === "control_response"))
        return yield* Effect.never
      })
    )
    return { layer, answered }
  })

const denyAll = Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(Hooks.deny("never"))))

/** The CLI's first answer to `lines`, with the `handler_failed` events the program saw by then. */
const answerOf = (
  lines: ReadonlyArray<Line>,
  options: { readonly hooks?: Layer.Layer<Hooks.Hooks, ClaudeError.ClaudeError>; readonly maxLineBytes?: number } = {}
) =>
  Effect.gen(function*() {
    const go = yield* Deferred.make<void>()
    const { answered, layer } = yield* sending(lines, go)
    return yield* Effect.gen(function*() {
      const session = yield* Claude.open(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes })
      const failures: Array<HandlerFailure.HandlerFailed> = []
      yield* session.events.pipe(
        Stream.runForEach((event) => Effect.sync(() => event.type === "handler_failed" && failures.push(event))),
        Effect.forkChild({ startImmediately: true })
      )
      yield* Deferred.succeed(go, undefined)
      const answer = yield* Deferred.await(answered)
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      return { answer, failures }
    }).pipe(Effect.scoped, Effect.provide([layer, options.hooks ?? denyAll]), Effect.provide(Logger.layer([])))
  })

const hookRequest = (id: string, request: Line): Line => ({ type: "control_request", request_id: id, request })

const decisionOf = (answer: Line) => {
  const response = answer.response as Line
  const body = response.response as { hookSpecificOutput?: { permissionDecision?: string } } | undefined
  return { subtype: response.subtype, requestId: response.request_id, decision: body?.hookSpecificOutput?.permissionDecision }
}

/** What the program is told of a refused request: the hook, its outcome, and the message's head. */
const toldOf = (failures: ReadonlyArray<HandlerFailure.HandlerFailed>) =>
  failures.map((failed) => ({ hookEvent: failed.hookEvent, outcome: failed.outcome, failure: failed.failure, message: failed.message }))

describe("hook requests the library cannot read", () => {
  it.effect("one whose input breaks the schema is refused by its PreToolUse guard, not answered with an error (no opinion)", () =>
    Effect.gen(function*() {
      const { transcript_path: _omitted, ...input } = preToolUse
      const { answer, failures } = yield* answerOf([
        hookRequest("hook-req-1", { subtype: "hook_callback", callback_id: "hook_0", input, tool_use_id: "toolu_1" })
      ])
      assert.deepStrictEqual(decisionOf(answer), { subtype: "success", requestId: "hook-req-1", decision: "deny" })
      assert.deepStrictEqual(toldOf(failures), [{
        hookEvent: "PreToolUse",
        outcome: "denied",
        failure: "invalid_input",
        message: "The PreToolUse hook (hook_0) failed: The library could not read this request: " +
          "control_request/hook_callback: Missing key at [\"request\"][\"input\"][\"transcript_path\"]; so the tool call was refused"
      }], JSON.stringify(toldOf(failures)))
    }))

  it.effect("one whose tool_use_id is not a string (the envelope breaks its schema) is refused as well, its handler not run", () =>
    Effect.gen(function*() {
      const { answer } = yield* answerOf(
        [hookRequest("hook-req-2", { subtype: "hook_callback", callback_id: "hook_0", input: preToolUse, tool_use_id: 7 })],
        { hooks: Hooks.layer(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allow()))) }
      )
      assert.deepStrictEqual(decisionOf(answer), { subtype: "success", requestId: "hook-req-2", decision: "deny" })
    }))

  it.effect("one over maxLineBytes (a Write of a large file, say) is refused by its guard, read from the line's head", () =>
    Effect.gen(function*() {
      const input = { ...preToolUse, tool_input: { command: `echo ${"x".repeat(20_000)}` } }
      const { answer, failures } = yield* answerOf(
        [hookRequest("hook-req-3", { subtype: "hook_callback", callback_id: "hook_0", input, tool_use_id: "toolu_1" })],
        { maxLineBytes: 4096 }
      )
      assert.deepStrictEqual(decisionOf(answer), { subtype: "success", requestId: "hook-req-3", decision: "deny" })
      assert.deepStrictEqual(toldOf(failures), [{
        hookEvent: "PreToolUse",
        outcome: "denied",
        failure: "invalid_input",
        message: "The PreToolUse hook (hook_0) failed: The library could not read this request: " +
          "a line of 20344 bytes is over the cap of 4096; so the tool call was refused"
      }], JSON.stringify(toldOf(failures)))
    }))

  it.effect("one whose callback id cannot be read, of a session with a guard, is refused as any guard event's (the turn stops)", () =>
    Effect.gen(function*() {
      // No `hook_event_name` either: whose hook it is, and for which event, is unknown.
      const { hook_event_name: _event, ...input } = preToolUse
      const { answer, failures } = yield* answerOf([hookRequest("hook-req-4", { subtype: "hook_callback", input })])
      const response = answer.response as Line
      // Before: an error answer, which the CLI reads as "no opinion": the tool ran.
      assert.strictEqual(response.subtype, "success", JSON.stringify(response))
      assert.strictEqual(response.request_id, "hook-req-4")
      const body = response.response as Line
      assert.strictEqual(body.continue, false)
      assert.strictEqual(body.decision, "block")
      assert.include(String(body.reason), "The library could not read this request")
      assert.strictEqual(body.stopReason, body.reason)
      assert.deepStrictEqual(toldOf(failures), [{
        hookEvent: undefined,
        outcome: "denied",
        failure: "invalid_input",
        message: "A hook request (callback id unreadable) failed: The library could not read this request: " +
          "control_request/hook_callback: Missing key at [\"request\"][\"callback_id\"]; so it was refused, " +
          "as a guard's of any event is (the turn stops)"
      }], JSON.stringify(toldOf(failures)))
    }))

  it.effect("one whose callback id cannot be read, for a guard event it names, gets that event's refusal", () =>
    Effect.gen(function*() {
      const { answer } = yield* answerOf([hookRequest("hook-req-6", { subtype: "hook_callback", callback_id: 0, input: preToolUse })])
      assert.deepStrictEqual(decisionOf(answer), { subtype: "success", requestId: "hook-req-6", decision: "deny" })
    }))

  it.effect("one over maxLineBytes whose callback id is not in the line's head is refused as well", () =>
    Effect.gen(function*() {
      const input = { ...preToolUse, tool_input: { command: `echo ${"x".repeat(20_000)}` } }
      // The input before the callback id: the head ends before it.
      const { answer } = yield* answerOf(
        [hookRequest("hook-req-7", { subtype: "hook_callback", input, callback_id: "hook_0", tool_use_id: "toolu_1" })],
        { maxLineBytes: 4096 }
      )
      const response = answer.response as Line
      assert.strictEqual(response.subtype, "success", JSON.stringify(response))
      assert.strictEqual((response.response as Line).continue, false)
      assert.strictEqual((response.response as Line).decision, "block")
    }))

  it.effect("one whose callback id cannot be read, of a session with no guard, is answered with an error naming the problem", () =>
    Effect.gen(function*() {
      const { answer, failures } = yield* answerOf(
        [hookRequest("hook-req-8", { subtype: "hook_callback", input: { ...preToolUse, hook_event_name: "PostToolUse" } })],
        { hooks: Hooks.layer(Hooks.on("PostToolUse", () => Effect.succeed(Hooks.allow()))) }
      )
      const response = answer.response as Line
      assert.strictEqual(response.subtype, "error")
      assert.strictEqual(response.request_id, "hook-req-8")
      assert.include(String(response.error), "The library could not read this request")
      assert.deepStrictEqual(toldOf(failures).map((told) => told.outcome), ["continued"])
    }))

  it.effect("one whose callback id cannot be read, naming an event no guard of the session is on, is answered with an error", () =>
    Effect.gen(function*() {
      const { answer } = yield* answerOf([
        hookRequest("hook-req-9", { subtype: "hook_callback", input: { ...preToolUse, hook_event_name: "PostToolUse" } })
      ])
      assert.strictEqual((answer.response as Line).subtype, "error")
    }))

  it.effect("one for a hook that guards nothing (PostToolUse) is answered with an error: the CLI goes on, as for any failure of it", () =>
    Effect.gen(function*() {
      const { transcript_path: _omitted, ...input } = { ...preToolUse, hook_event_name: "PostToolUse", tool_response: {} }
      const { answer } = yield* answerOf(
        [hookRequest("hook-req-5", { subtype: "hook_callback", callback_id: "hook_0", input, tool_use_id: "toolu_1" })],
        { hooks: Hooks.layer(Hooks.on("PostToolUse", () => Effect.succeed(Hooks.allow()))) }
      )
      const response = answer.response as Line
      assert.strictEqual(response.subtype, "error")
      assert.strictEqual(
        response.error,
        "The library could not read this request: control_request/hook_callback: Missing key at [\"request\"][\"input\"][\"transcript_path\"]"
      )
    }))

  it.effect("an unreadable request that reuses the id of one still running is not answered: one answer an id", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const answers = yield* Deferred.make<ReadonlyArray<Line>>()
      const stop = { ...preToolUse, hook_event_name: "Stop", stop_hook_active: false }
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit(hookRequest("dup-1", { subtype: "hook_callback", callback_id: "hook_0", input: stop, tool_use_id: "u1" }))
          yield* Deferred.await(started)
          // The same id again, unreadable this time (no callback_id).
          yield* cli.emit(hookRequest("dup-1", { subtype: "hook_callback", input: stop }))
          const first = yield* cli.nextMatching((m) => m.type === "control_response")
          yield* Deferred.succeed(gate, undefined)
          const second = yield* cli.nextMatching((m) => m.type === "control_response")
          yield* Deferred.succeed(answers, [first, second])
          return yield* Effect.never
        })
      )
      const stopHook = Hooks.layer(Hooks.on("Stop", () =>
        Effect.andThen(Deferred.succeed(started, undefined), Effect.as(Deferred.await(gate), Hooks.allow()))))
      const fiber = yield* Effect.gen(function*() {
        yield* Claude.open()
        yield* Deferred.await(started)
        // The second request is read, then the handler of the first answers.
        for (let i = 0; i < 50; i++) yield* Effect.yieldNow
        yield* Deferred.succeed(gate, undefined)
        return yield* Deferred.await(answers).pipe(Effect.timeoutOption("1 second"))
      }).pipe(Effect.scoped, Effect.provide([cli, stopHook]), Effect.provide(Logger.layer([])), Effect.forkChild)
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("2 seconds")
      const both = yield* Fiber.join(fiber)
      assert.strictEqual(both._tag, "None", `dup-1 answered twice: ${both._tag === "Some" ? JSON.stringify(both.value) : ""}`)
    }))
})
