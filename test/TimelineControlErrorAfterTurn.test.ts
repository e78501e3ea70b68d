/**
 * A control request of the program's made after a turn ended (between turns: `rewindFiles` on a
 * CLI without file checkpointing, a reconnect of an unknown MCP server) and refused by the CLI
 * turned that finished, successful turn into a failed one: red on the page, counted in the head's
 * "failed"; so did an API error a background subagent reported after the result. Both are still
 * shown (after the turn's result), the turn's outcome its result's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Timeline from "../src/Timeline.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import { recv, send } from "./support/timelineLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"

const lines: ReadonlyArray<Transcript.Line> = [
  send({ type: "user", message: { role: "user", content: "hello" }, parent_tool_use_id: null, session_id: "", uuid: A }, 1),
  recv({
    type: "assistant",
    message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [{ type: "text", text: "hi" }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
    parent_tool_use_id: null,
    session_id: SESSION,
    uuid: "a-1",
    user_message_uuid: A
  }, 2),
  recv({
    type: "result",
    subtype: "success",
    is_error: false,
    session_id: SESSION,
    uuid: "r-1",
    num_turns: 1,
    duration_ms: 100,
    duration_api_ms: 50,
    total_cost_usd: 0.01,
    usage: { input_tokens: 10, output_tokens: 5 },
    modelUsage: {},
    permission_denials: [],
    result: "hi",
    user_message_uuid: A,
    user_message_uuids: [A]
  }, 3),
  // Between turns: the program's request, refused.
  send({ type: "control_request", request_id: "req_9", request: { subtype: "rewind_files", user_message_id: A } }, 4),
  recv({ type: "control_response", response: { subtype: "error", request_id: "req_9", error: "File rewinding is not enabled." } }, 5)
]

describe("Timeline: a refused request between turns", () => {
  it("is shown, and leaves the finished turn's outcome as its result said", () => {
    const timeline = Timeline.fromLines(lines)
    assert.strictEqual(timeline.turns.length, 1)
    const turn = timeline.turns[0]!
    const refused = turn.items.find((item) => item.kind === "control")
    assert.strictEqual(refused?.kind === "control" ? refused.decision?.summary : undefined, "error")
    assert.strictEqual(turn.status, "ok")
    assert.include(Page.renderHead(timeline), "0 failed")
  })

  it("an API error a background subagent reports after the turn's result leaves it as its result said", () => {
    const late = recv({
      type: "assistant",
      message: { id: "msg_sub", type: "message", role: "assistant", model: "<synthetic>", content: [{ type: "text", text: "API Error: 500" }], stop_reason: "stop_sequence", usage: { input_tokens: 0, output_tokens: 0 } },
      parent_tool_use_id: "toolu_agent",
      session_id: SESSION,
      uuid: "a-sub",
      error: "server_error",
      is_api_error_message: true
    }, 6)
    const timeline = Timeline.fromLines([lines[0]!, lines[1]!, lines[2]!, late])
    const turn = timeline.turns[0]!
    assert.isTrue(turn.items.some((item) => item.kind === "error"))
    assert.strictEqual(turn.status, "ok")
  })

  it("a request refused while its turn runs still fails that turn", () => {
    const running = [lines[0]!, lines[1]!, lines[3]!, lines[4]!, lines[2]!]
    const timeline = Timeline.fromLines(running)
    assert.strictEqual(timeline.turns[0]!.status, "error")
  })
})
