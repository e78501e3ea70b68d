/**
 * What counts as the program's ask for an abort, read from the lines the session writes
 * (`internal/interruptRequests.ts`): an interrupt while a turn is in progress, an answer with
 * `interrupt: true`, and a dialog answered `interrupt` (`auto_mode_end_offer`,
 * `auto_mode_server_fallback`: found by a review, failing before). Each ask is taken by one result.
 */
import { assert, describe, it } from "@effect/vitest"
import { InterruptRequests } from "../src/internal/interruptRequests.ts"
import type * as Protocol from "../src/Protocol.ts"

const answer = (response: unknown) =>
  ({ type: "control_response", response: { subtype: "success", request_id: "r1", response } }) as Protocol.StdinMessage

describe("InterruptRequests", () => {
  it("asks: an interrupt during a turn, a denial with interrupt: true, a dialog answered interrupt", () => {
    for (
      const message of [
        { type: "control_request", request_id: "q1", request: { subtype: "interrupt" } } as Protocol.StdinMessage,
        answer({ behavior: "deny", message: "no", interrupt: true }),
        answer({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", interrupt: true } } }),
        answer({ behavior: "completed", result: "interrupt" })
      ]
    ) {
      const requests = new InterruptRequests(() => true)
      requests.written(message)
      assert.isTrue(requests.take(), JSON.stringify(message))
      assert.isFalse(requests.take(), "taken once")
    }
  })

  it("does not ask: an interrupt with no turn in progress, an allow, a dialog answered otherwise", () => {
    const idle = new InterruptRequests(() => false)
    idle.written({ type: "control_request", request_id: "q1", request: { subtype: "interrupt" } } as Protocol.StdinMessage)
    assert.isFalse(idle.take())
    for (const response of [{ behavior: "allow", updatedInput: {} }, { behavior: "completed", result: "stay" }, { behavior: "cancelled" }]) {
      const requests = new InterruptRequests(() => true)
      requests.written(answer(response))
      assert.isFalse(requests.take(), JSON.stringify(response))
    }
  })
})
