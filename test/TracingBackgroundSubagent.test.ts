/**
 * A background subagent (an `Agent` tool use whose `system/task_started` says `is_backgrounded`:
 * its `tool_result` comes at once, the subagent goes on after its turn's `result`, CLI 2.1.332
 * `c4-subagent-background`),
 * while the program runs its next turn:
 * - its lines after the result opened a `claude.turn` span of their own (kind `automatic`), which
 *   the program's next turn's result then ended with that turn's usage and cost: the turn counted
 *   twice in the trace;
 * - its tool use running across the result was ended there as unfinished, and its result, when it
 *   came, was counted by `claude.tool.calls` as a tool named `unknown`;
 * - its model requests were under the turn, not under its `Agent` tool use (as a foreground
 *   subagent's are).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { metricSnapshots, named, only, parentName, tracedSession } from "./support/spans.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { AGENT, init, result, SESSION, sub } from "./support/backgroundLines.ts"


describe("Tracing: a background subagent", () => {
  it.effect("its lines after its turn's result open no turn span; its tool use ends at its result, counted by name", () =>
    Effect.gen(function*() {
      const { spans, value: tools } = yield* tracedSession(
        SESSION,
        (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            yield* cli.emit(init(uuid))
            if (index === 0) {
              yield* cli.emit(assistantLine(SESSION, "msg_1", [{
                type: "tool_use",
                id: AGENT,
                name: "Agent",
                input: { prompt: "look around" }
              }], { userMessageUuid: uuid }))
              yield* cli.emit({
                type: "system",
                subtype: "task_started",
                task_id: "a1",
                tool_use_id: AGENT,
                description: "look around",
                is_backgrounded: true,
                session_id: SESSION,
                uuid: "t1"
              })
              yield* cli.emit(toolResultLine(SESSION, AGENT, "Async agent launched successfully."))
              // The subagent starts a tool before the turn ends.
              yield* cli.emit(sub(assistantLine(SESSION, "msg_sub_1", [{ type: "tool_use", id: "toolu_sub_bash", name: "Bash", input: {} }])))
              yield* cli.emit(assistantLine(SESSION, "msg_2", [{ type: "text", text: "started" }], { userMessageUuid: uuid }))
              yield* cli.emit(result(uuid, 0.1))
              // After the result: the subagent's next model request.
              yield* cli.emit(sub(assistantLine(SESSION, "msg_sub_2", [{ type: "text", text: "thinking on" }])))
            } else {
              yield* cli.emit(assistantLine(SESSION, "msg_3", [{ type: "text", text: "other" }], { userMessageUuid: uuid }))
              // The subagent's tool finishes during the program's next turn.
              yield* cli.emit(sub(toolResultLine(SESSION, "toolu_sub_bash", "ok")))
              yield* cli.emit(sub(assistantLine(SESSION, "msg_sub_3", [{ type: "text", text: "found it" }])))
              // The task's end ends its last model request.
              yield* cli.emit({
                type: "system",
                subtype: "task_notification",
                task_id: "a1",
                tool_use_id: AGENT,
                status: "completed",
                output_file: "a1.output",
                summary: "found it",
                session_id: SESSION,
                uuid: "n1"
              })
              yield* TestClock.adjust("1 second")
              yield* cli.emit(result(uuid, 0.3))
            }
          }),
        (session) =>
          session.run("start a background agent").pipe(
            Effect.andThen(session.run("meanwhile, something else")),
            Effect.andThen(metricSnapshots("claude.tool.calls"))
          )
      )
      const tree = spans.map((span) => `${span.name} < ${parentName(span)}`).join("\n")
      // The program's two turns, and no other.
      const turns = named(spans, "claude.turn")
      assert.strictEqual(turns.length, 2, tree)
      assert.closeTo(Number(turns[0]!.attributes.get("claude.cost_usd")), 0.1, 1e-9)
      assert.closeTo(Number(turns[1]!.attributes.get("claude.cost_usd")), 0.2, 1e-9)
      // The subagent's requests and tool use are under its Agent tool use, as a foreground one's.
      const chat = (id: string) => named(spans, "chat").find((span) => span.attributes.get("gen_ai.response.id") === id)!
      assert.strictEqual(parentName(chat("msg_sub_1")), "execute_tool Agent", tree)
      assert.strictEqual(parentName(chat("msg_sub_2")), "execute_tool Agent", tree)
      // The subagent's tool use ended when its result came, not as unfinished at the first result.
      const bash = only(spans, "execute_tool Bash")
      assert.strictEqual(parentName(bash), "execute_tool Agent", tree)
      assert.isFalse(bash.attributes.has("claude.tool.unfinished"), tree)
      assert.strictEqual(bash.status._tag === "Ended" && bash.status.exit._tag, "Success")
      // Counted by its name.
      const counted = tools.map((snapshot) => `${String((snapshot.attributes as Record<string, unknown>)?.["gen_ai.tool.name"])}`)
      assert.notInclude(counted, "unknown")
      assert.include(counted, "Bash")
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended", `${span.name} did not end`)
      const ended = (span: (typeof spans)[number]) => span.status._tag === "Ended" ? span.status.endTime : -1n
      assert.isTrue(ended(chat("msg_sub_3")) < ended(turns[1]!), "the subagent's last request ends with its task")
    }))
})
