/**
 * The lines the tracing tests of a background subagent script: a turn's `system/init` and
 * `result` (naming the user message they answer) and a line of the subagent (naming its Agent
 * tool use), in one session.
 */
import * as FakeCli from "../../src/testing/FakeCli.ts"

export const SESSION = "11111111-2222-4333-8444-555555555555"

/** The Agent tool use the background subagent runs under. */
export const AGENT = "toolu_agent"

/** The `system/init` of the turn answering user message `uuid`. */
export const init = (uuid: string) => FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0]

/** A line of the background subagent (its lines name their Agent tool use). */
export const sub = (line: Record<string, unknown>) => ({ ...line, parent_tool_use_id: AGENT })

/** The `result` of the turn answering user message `uuid`, the session's cost so far `totalCostUsd`. */
export const result = (uuid: string, totalCostUsd: number) => ({
  ...FakeCli.result({ sessionId: SESSION, text: "done", totalCostUsd }),
  user_message_uuid: uuid,
  user_message_uuids: [uuid]
})
