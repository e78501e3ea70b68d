/**
 * The kinds of stdout line the real-CLI recording of test/fixtures/messages/ keeps
 * (test/support/messageRecording.ts records them; unit and live tests read them). Starts nothing.
 */

/** The kinds (`type` or `system/<subtype>`) the recording keeps. */
export const recordedKinds: ReadonlyArray<string> = [
  "system/hook_started",
  "system/hook_progress",
  "system/hook_response",
  "system/session_state_changed",
  "conversation_reset"
]

/** `type`, or `system/<subtype>`, of a stdout line. */
export const kindOf = (line: unknown): string => {
  const o = line as { readonly type?: unknown; readonly subtype?: unknown }
  return o.type === "system" ? `system/${String(o.subtype)}` : String(o.type)
}

