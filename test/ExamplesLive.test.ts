/**
 * Every example of `examples/` runs, against the real CLI (the pinned devDependency) and the
 * fake model, or without any CLI (FakeCli, Replay), and does what its comment says.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Chat from "../examples/chat.ts"
import * as FailedTurn from "../examples/failed-turn.ts"
import * as GuardBash from "../examples/guard-bash.ts"
import * as Interrupt from "../examples/interrupt.ts"
import * as McpTool from "../examples/mcp-tool.ts"
import * as OneShot from "../examples/one-shot.ts"
import * as Permissions from "../examples/permissions.ts"
import * as ResumeLast from "../examples/resume-last.ts"
import * as Testing from "../examples/testing.ts"
import * as Transcript from "../examples/transcript.ts"

describe("examples", { timeout: 120_000 }, () => {
  it.live("one-shot: one turn, its answer, its cost", () =>
    Effect.gen(function*() {
      const result = yield* OneShot.program
      assert.strictEqual(result.subtype, "success")
      assert.strictEqual(result.result, "The capital of France is Paris.")
      assert.isAbove(result.turn.costUsd, 0)
    }))

  it.live("chat: three turns on one session; the third sees the first; per-turn costs add up to the total", () =>
    Effect.gen(function*() {
      const outcome = yield* Chat.program
      assert.deepStrictEqual(outcome.answers, ["Nice to meet you, Ada.", "Noted.", "Your name is Ada."])
      assert.strictEqual(outcome.costs.length, 3)
      for (const cost of outcome.costs) assert.isAbove(cost, 0)
      assert.closeTo(outcome.costs.reduce((a, b) => a + b, 0), outcome.total, 1e-9)
    }))

  it.live("guard-bash: the PreToolUse hook denies `rm`, the model reads the reason, the file stays", () =>
    Effect.gen(function*() {
      const outcome = yield* GuardBash.program
      assert.deepStrictEqual(outcome.denied, ["rm -rf build"])
      assert.include(outcome.toolResult, "Deleting files is not allowed here.")
      assert.isTrue(outcome.fileStillThere)
      assert.strictEqual(outcome.answer, "Understood, I will not delete anything.")
    }))

  it.live("mcp-tool: the model is offered the typed tool from the first prompt and calls it; the handler gets decoded input", () =>
    Effect.gen(function*() {
      const outcome = yield* McpTool.program
      assert.isTrue(outcome.offeredToModel)
      assert.deepStrictEqual(outcome.calls, [{ city: "Paris", days: 2 }])
      assert.strictEqual(outcome.answer, "The forecast tool says: Paris: sunny for 2 days")
    }))

  it.live("permissions: in default mode the handler decides; the allowed command ran, the denied one did not", () =>
    Effect.gen(function*() {
      const outcome = yield* Permissions.program
      assert.deepStrictEqual(outcome.decisions, [
        { tool: "Bash", command: "mkdir out", allowed: true },
        { tool: "Bash", command: "curl https://example.com", allowed: false }
      ])
      assert.isTrue(outcome.madeDirectory)
      assert.include(outcome.toolResults[1]!, "No network from here: curl https://example.com")
      assert.strictEqual(outcome.denials, 1)
    }))

  it.live("resume-last: Sessions.list finds the last session of the directory with its title; resuming it continues with its history", () =>
    Effect.gen(function*() {
      const outcome = yield* ResumeLast.program
      assert.strictEqual(outcome.picked, outcome.first)
      assert.strictEqual(outcome.title, "Plan the release")
      assert.strictEqual(outcome.answer, "We were planning the release.")
    }))

  it.live("testing: the same agent program on a scripted FakeCli, a replayed transcript (streamed) and the real CLI offline; its guard asked by callHook", () =>
    Effect.gen(function*() {
      const outcome = yield* Testing.program
      assert.strictEqual(outcome.scripted, "YOU SAID: HI")
      assert.deepStrictEqual(outcome.replayed, { streamed: "HELLO FROM THE FAKE MODEL.", answer: "HELLO FROM THE FAKE MODEL." })
      assert.deepStrictEqual(outcome.offline, { streamed: "HELLO, OFFLINE.", answer: "HELLO, OFFLINE." })
      assert.strictEqual(outcome.wrongModel, "ApiError 404")
      assert.strictEqual(outcome.guard, "deny")
    }))

  it.live("transcript: the file holds both directions (initialize, the user turn, the tool call, the result) and replays", () =>
    Effect.gen(function*() {
      const outcome = yield* Transcript.program
      assert.strictEqual(outcome.answer, "It printed hi.")
      assert.strictEqual(outcome.lines, outcome.sent.length + outcome.received.length)
      assert.includeMembers([...outcome.sent], ["control_request", "user"])
      assert.includeMembers([...outcome.received], ["control_response", "system", "assistant", "user", "result"])
      assert.notInclude([...outcome.received], "stream_event")
      assert.strictEqual(outcome.replayedAnswer, "It printed hi.")
    }))

  it.live("failed-turn: a 529 fails run with ApiError, caught by name; the next turn answers; as data with errorResults", () =>
    Effect.gen(function*() {
      const outcome = yield* FailedTurn.program
      assert.deepStrictEqual(outcome.outcomes, [
        "API error 529 (overloaded_error), retryable: true",
        "answered: Now it works."
      ])
      assert.deepStrictEqual(outcome.asData, { isError: true, status: 529 })
    }))

  it.live("interrupt: interrupting the consuming fiber ends the turn as aborted within 2 s; the next turn works", () =>
    Effect.gen(function*() {
      const outcome = yield* Interrupt.program
      assert.isAtLeast(outcome.deltasBeforeInterrupt, 5)
      assert.strictEqual(outcome.aborted?.subtype, "error_during_execution")
      assert.strictEqual(outcome.aborted?.terminal_reason, "aborted_streaming")
      assert.isBelow(outcome.interruptMillis, 2000)
      assert.strictEqual(outcome.next, "Short answer this time.")
    }))
})
