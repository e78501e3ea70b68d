/**
 * `claude.turn.tool_calls` counts the tool uses each turn made. A background subagent (an `Agent`
 * tool use whose `system/task_started` says `is_backgrounded`) goes on after its turn's result:
 * its tool uses after that result were counted in the program's next turn, which made none (a
 * text-only turn read as one with tool uses). A background subagent's tool uses are its own, not a
 * turn's; its `Agent` tool use is its turn's (`claude.tool.calls` counts every use by name).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { metricSnapshots, tracedSession } from "./support/spans.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { AGENT, init, result, SESSION, sub } from "./support/backgroundLines.ts"


interface HistogramState {
  readonly count: number
  readonly sum: number
}

describe("Tracing: a background subagent's tool uses", () => {
  it.effect("are not counted in the tool uses of the program's next turn", () =>
    Effect.gen(function*() {
      const { value: histograms } = yield* tracedSession(
        SESSION,
        (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            yield* cli.emit(init(uuid))
            if (index === 0) {
              yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: AGENT, name: "Agent", input: { prompt: "look" } }], {
                userMessageUuid: uuid
              }))
              yield* cli.emit({
                type: "system",
                subtype: "task_started",
                task_id: "a1",
                tool_use_id: AGENT,
                description: "look",
                is_backgrounded: true,
                session_id: SESSION,
                uuid: "t1"
              })
              yield* cli.emit(toolResultLine(SESSION, AGENT, "Async agent launched successfully."))
              yield* cli.emit(assistantLine(SESSION, "msg_2", [{ type: "text", text: "started" }], { userMessageUuid: uuid }))
              yield* cli.emit(result(uuid, 0.1))
              // After the result: the subagent runs three tools.
              for (const id of ["toolu_sub_1", "toolu_sub_2", "toolu_sub_3"]) {
                yield* cli.emit(sub(assistantLine(SESSION, `msg_${id}`, [{ type: "tool_use", id, name: "Bash", input: {} }])))
                yield* cli.emit(sub(toolResultLine(SESSION, id, "ok")))
              }
            } else {
              // The program's next turn uses no tool.
              yield* cli.emit(assistantLine(SESSION, "msg_3", [{ type: "text", text: "just text" }], { userMessageUuid: uuid }))
              yield* cli.emit(result(uuid, 0.2))
            }
          }),
        (session) =>
          session.run("start a background agent").pipe(
            Effect.andThen(session.run("only answer")),
            Effect.andThen(metricSnapshots("claude.turn.tool_calls"))
          )
      )
      const states = histograms.map((series) => series.state as unknown as HistogramState)
      const count = states.reduce((total, state) => total + state.count, 0)
      const sum = states.reduce((total, state) => total + state.sum, 0)
      assert.strictEqual(count, 2, JSON.stringify(histograms))
      // The first turn's Agent use; the second turn's none.
      assert.strictEqual(sum, 1, JSON.stringify(histograms))
    }))
})
