/**
 * One recorder may record several sessions (an `effect/ai` program's calls, concurrently too):
 * each line of the second on is marked `"session":n`. The timeline read them as one session:
 * an assistant line of one session (it names no prompt) went to the oldest open turn, another
 * session's; and the head's total was the last result's running total, one session's only (a
 * CLI's `total_cost_usd` counts its own session), as was a turn's own cost on a CLI without
 * `model_usage_since_last_result` (the difference from another session's total, 0).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Timeline from "../src/Timeline.ts"
import type * as Transcript from "../src/Transcript.ts"
import { result as resultLine, user } from "./support/timelineLines.ts"

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"

/** A line of the recorder's `session`-th session (0: the first, unmarked). */
const line = (dir: "send" | "recv", session: number, msg: unknown, ts: number): Transcript.Line =>
  session === 0 ? { dir, ts, msg } : { dir, ts, msg, session }

const init = (sessionId: string, uuid: string) => ({ type: "system", subtype: "init", session_id: sessionId, uuid: `i-${uuid}`, tools: [], user_message_uuids: [uuid] })
const assistant = (sessionId: string, text: string) => ({
  type: "assistant",
  message: { id: `msg-${text}`, type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
  parent_tool_use_id: null,
  session_id: sessionId,
  uuid: `a-${text}`
})
/** A result without `model_usage_since_last_result` (a CLI before 2.1): its totals are its session's. */
const result = (sessionId: string, total: number, uuid: string) =>
  resultLine(total, { session_id: sessionId, uuid: `r-${uuid}`, user_message_uuids: [uuid] })

const S0 = "11111111-0000-4000-8000-000000000000"
const S1 = "22222222-0000-4000-8000-000000000000"

describe("Timeline: a transcript of several sessions", () => {
  it("two sessions at once: each one's lines are its own turn's; costs are each session's; the total is all of them", () => {
    const timeline = Timeline.fromLines([
      line("send", 0, user("question A", A), 1_000),
      line("send", 1, user("question B", B), 1_001),
      line("recv", 1, init(S1, B), 1_010),
      line("recv", 1, assistant(S1, "answer B"), 1_100),
      line("recv", 1, result(S1, 0.02, B), 1_200),
      line("recv", 0, init(S0, A), 1_300),
      line("recv", 0, assistant(S0, "answer A"), 1_400),
      line("recv", 0, result(S0, 0.05, A), 1_500)
    ])
    const [a, b] = timeline.turns
    const texts = (turn: Timeline.Turn) => turn.items.flatMap((i) => i.kind === "text" ? [i.text] : [])
    assert.deepStrictEqual(texts(a!), ["answer A"], "session 1's answer went to session 0's turn")
    assert.deepStrictEqual(texts(b!), ["answer B"])
    assert.closeTo(a!.summary?.costUsd ?? -1, 0.05, 1e-9)
    assert.closeTo(b!.summary?.costUsd ?? -1, 0.02, 1e-9)
    assert.closeTo(timeline.totalCostUsd, 0.07, 1e-9, "the total is one session's only")
  })

  it("two sessions one after the other: the second's first turn costs what its session says, the total both", () => {
    const timeline = Timeline.fromLines([
      line("send", 0, user("question A", A), 1_000),
      line("recv", 0, init(S0, A), 1_010),
      line("recv", 0, result(S0, 0.05, A), 1_100),
      line("send", 1, user("question B", B), 2_000),
      line("recv", 1, init(S1, B), 2_010),
      line("recv", 1, result(S1, 0.02, B), 2_100)
    ])
    assert.closeTo(timeline.turns[1]!.summary?.costUsd ?? -1, 0.02, 1e-9, "its cost was taken as 0 (0.02 - 0.05)")
    assert.closeTo(timeline.totalCostUsd, 0.07, 1e-9)
  })
})
