/**
 * A background subagent (an Agent tool use with `run_in_background`) goes on writing after its
 * turn's result. When the program sent its next prompt meanwhile, the subagent's lines (its text,
 * its tool uses, an API error it met, the permission request of its tool) went to that next turn,
 * the oldest one open: shown in a turn they are not of, and the subagent's API error failed that
 * next turn, whose own result was a success. They are its Agent tool use's turn's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Timeline from "../src/Timeline.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import { assistant, recv, result as resultLine, send, SESSION, user } from "./support/timelineLines.ts"

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
const AGENT = "toolu_agent"

const init = (uuid: string) => ({ type: "system", subtype: "init", session_id: SESSION, uuid: `i-${uuid}`, tools: [], user_message_uuids: [uuid] })
const toolResult = (id: string, text: string) => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: false }] },
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: `t-${id}`
})
/** The result of the turn of the user line `uuid`. */
const result = (cost: number, uuid: string) => resultLine(cost, { uuid: `r-${uuid}`, user_message_uuids: [uuid] })

const lines: ReadonlyArray<Transcript.Line> = [
  send(user("start a background agent", A), 1_000),
  recv(init(A), 1_010),
  recv(assistant([{ type: "tool_use", id: AGENT, name: "Agent", input: { prompt: "research", run_in_background: true } }]), 1_100),
  recv(toolResult(AGENT, "Async agent launched successfully."), 1_110),
  recv(assistant([{ type: "text", text: "started it" }]), 1_200),
  recv(result(0.01, A), 1_300),
  // The next prompt runs while the background agent still works.
  send(user("something else", B), 2_000),
  recv(init(B), 2_010),
  recv(assistant([{ type: "text", text: "sub: found it" }], { parent_tool_use_id: AGENT }), 2_100),
  recv(assistant([{ type: "tool_use", id: "toolu_sub_bash", name: "Bash", input: { command: "ls" } }], { parent_tool_use_id: AGENT }), 2_150),
  recv({ type: "control_request", request_id: "p-1", request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_sub_bash" } }, 2_160),
  send({ type: "control_response", response: { subtype: "success", request_id: "p-1", response: { behavior: "allow", updatedInput: { command: "ls" } } } }, 2_170),
  recv(assistant([{ type: "text", text: "API Error: 500" }], { parent_tool_use_id: AGENT, error: "server_error", is_api_error_message: true }), 2_200),
  recv(assistant([{ type: "text", text: "main: done with B" }]), 2_300),
  recv(result(0.02, B), 2_400)
]

describe("Timeline: a background subagent writing while a later turn runs", () => {
  it("its lines are its Agent tool use's turn's, and its API error does not fail the later turn", () => {
    const timeline = Timeline.fromLines(lines)
    const [first, second] = timeline.turns
    const texts = (turn: Timeline.Turn) => turn.items.flatMap((i) => i.kind === "text" ? [i.text] : [])
    assert.deepStrictEqual(texts(second!), ["main: done with B"], "the subagent's text went to the later turn")
    assert.deepStrictEqual(texts(first!), ["started it", "sub: found it", "API Error: 500"])
    assert.isFalse(second!.items.some((i) => i.kind === "permission" || i.kind === "error" || i.kind === "tool"))
    assert.isTrue(first!.items.some((i) => i.kind === "permission"), "its tool's permission request is with its tool")
    assert.strictEqual(second!.status, "ok", "the later turn's result was a success: it is not shown failed")
    assert.strictEqual(first!.status, "ok")
    assert.include(Page.renderHead(timeline), "0 failed")
  })
})
