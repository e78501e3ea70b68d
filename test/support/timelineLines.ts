/**
 * Transcript lines for the timeline tests (`src/Timeline.ts`, the viewer's page): a line sent or
 * received at a time, and the messages of a turn as the CLI writes them (of session
 * {@link SESSION} unless a test says otherwise). Starts nothing.
 */
import type * as Transcript from "../../src/Transcript.ts"

/** The session of the lines the CLI writes. */
export const SESSION = "11111111-2222-4333-8444-555555555555"

/** A line the program sent at `ts`. */
export const send = (msg: unknown, ts: number): Transcript.Line => ({ dir: "send", ts, msg })

/** A line the program received at `ts`. */
export const recv = (msg: unknown, ts: number): Transcript.Line => ({ dir: "recv", ts, msg })

/** The program's user line `uuid`. */
export const user = (content: string, uuid: string) => ({
  type: "user",
  message: { role: "user", content },
  parent_tool_use_id: null,
  session_id: "",
  uuid
})

/** An assistant line with `content` (a random uuid), `extra` over its fields. */
export const assistant = (content: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  type: "assistant",
  message: { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: `a-${Math.random()}`,
  ...extra
})

/** A successful result whose running total is `cost` (its uuid `r-<cost>`), `extra` over its fields. */
export const result = (cost: number, extra: Record<string, unknown> = {}) => ({
  type: "result",
  subtype: "success",
  is_error: false,
  session_id: SESSION,
  uuid: `r-${cost}`,
  num_turns: 1,
  duration_ms: 100,
  duration_api_ms: 50,
  total_cost_usd: cost,
  usage: { input_tokens: 10, output_tokens: 5 },
  modelUsage: {},
  permission_denials: [],
  result: "done",
  ...extra
})
