/**
 * A late or repeated `result` (naming none of the running turn's user messages, on a CLI that
 * echoes uuids) no longer ends the running turn (`TurnsStrayResult.test.ts`); its spans did end
 * there: the running tool use was ended "unfinished", and the repeated result's figures were
 * counted again in the turn metrics.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { metricSnapshots, only, tracedSession } from "./support/spans.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("Tracing: a late result during a turn", () => {
  it.effect("leaves the running turn's tool span open until its result, and counts no turn twice", () =>
    Effect.gen(function*() {
      let firstResult: Record<string, unknown> | undefined
      const { spans, value: durations } = yield* tracedSession(
        SESSION,
        (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            const lines = FakeCli.textTurn({ sessionId: SESSION, text: `answer ${index}`, userMessageUuid: uuid })
            if (index === 0) {
              firstResult = lines[lines.length - 1]
              return yield* Effect.forEach(lines, cli.emit, { discard: true })
            }
            yield* cli.emit(lines[0])
            yield* cli.emit(assistantLine(SESSION, "msg_tool", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }], { userMessageUuid: uuid }))
            // The first turn's result again, while the tool runs.
            yield* cli.emit(firstResult!)
            yield* cli.emit(toolResultLine(SESSION, "toolu_1", "done"))
            yield* cli.emit(lines[lines.length - 1])
          }),
        (session) =>
          session.run("one").pipe(
            Effect.andThen(session.run("two")),
            Effect.andThen(metricSnapshots("claude.turn.duration"))
          )
      )
      const bash = only(spans, "execute_tool Bash")
      assert.isUndefined(bash.attributes.get("claude.tool.unfinished"), "ended as unfinished by the late result")
      // Two turns, each counted once.
      const counts = durations.map((series) => (series.state as { readonly count?: number }).count ?? 0)
      assert.strictEqual(counts.reduce((a, b) => a + b, 0), 2, JSON.stringify(durations))
    }))
})
