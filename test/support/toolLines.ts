/**
 * Lines of a turn with tool uses, as the CLI writes them: an `assistant` line with its content
 * blocks and a `user` line with a `tool_result`. Shared by the tests that script tool turns.
 */

/** The usage an `assistant` line carries, unless the test gives its own. */
const defaultUsage = { input_tokens: 1, output_tokens: 1 }

/**
 * An `assistant` line of session `sessionId` whose message `messageId` holds `content`; with
 * `userMessageUuid`, naming the user message it answers (as CLI 2.1.332 does).
 */
export const assistantLine = (
  sessionId: string,
  messageId: string,
  content: ReadonlyArray<Record<string, unknown>>,
  options: {
    readonly usage?: Record<string, number>
    readonly stopReason?: string | null
    readonly userMessageUuid?: string
  } = {}
) => ({
  type: "assistant",
  message: {
    id: messageId,
    type: "message",
    role: "assistant",
    model: "claude-fake-1",
    content,
    stop_reason: options.stopReason ?? null,
    stop_sequence: null,
    usage: options.usage ?? defaultUsage
  },
  parent_tool_use_id: null,
  session_id: sessionId,
  uuid: `${messageId}-line`,
  ...(options.userMessageUuid === undefined
    ? {}
    : { user_message_uuid: options.userMessageUuid, user_message_uuids: [options.userMessageUuid] })
})

/** The `user` line with the result of the tool use `toolUseId`. */
export const toolResultLine = (sessionId: string, toolUseId: string, content: unknown, isError = false) => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content, is_error: isError }] },
  parent_tool_use_id: null,
  session_id: sessionId,
  uuid: `${toolUseId}-result`
})
