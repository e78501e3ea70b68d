/**
 * A transcript recorder that keeps every line both ways in memory, and checks on what went over
 * the wire, shared by the live tests.
 */
import { assert } from "@effect/vitest"
import type * as Claude from "../../src/Claude.ts"

export interface WireLine {
  readonly direction: "send" | "recv"
  readonly message: Record<string, unknown>
}

/** Every line both ways, as the session's `transcript` option reports them. */
export const wireLog = (): { readonly lines: Array<WireLine>; readonly transcript: Claude.Recorder } => {
  const lines: Array<WireLine> = []
  return {
    lines,
    transcript: { record: (direction, message) => lines.push({ direction, message: message as Record<string, unknown> }) }
  }
}

/**
 * The CLI sent a `control_request` of `subtype`, then a `control_cancel_request` for it; the host
 * never answered it; and the turn ended aborted in its tools.
 */
export const assertCancelledWithoutAnswer = (lines: ReadonlyArray<WireLine>, subtype: string): void => {
  const request = lines.find((l) =>
    l.direction === "recv" && l.message.type === "control_request" &&
    (l.message.request as { subtype?: unknown }).subtype === subtype
  )
  assert.isDefined(request, `a ${subtype} request`)
  const requestId = request!.message.request_id
  assert.isTrue(
    lines.some((l) => l.direction === "recv" && l.message.type === "control_cancel_request" && l.message.request_id === requestId),
    "a control_cancel_request for it"
  )
  assert.isFalse(
    lines.some((l) =>
      l.direction === "send" && l.message.type === "control_response" &&
      (l.message.response as { request_id?: unknown }).request_id === requestId
    ),
    "no answer to a cancelled request"
  )
  const aborted = lines.find((l) => l.direction === "recv" && l.message.type === "result")
  assert.strictEqual(aborted?.message.subtype, "error_during_execution")
  assert.strictEqual(aborted?.message.terminal_reason, "aborted_tools")
}
