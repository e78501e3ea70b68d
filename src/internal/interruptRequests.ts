/**
 * Whether the program asked the CLI to abort its running turn since the CLI's last result, read
 * from the lines the session writes: an `interrupt` control request, or an answer with
 * `interrupt: true` (a permission's denial, a `PermissionRequest` hook's) or a dialog answered
 * `interrupt`. A turn the CLI ends as interrupted (`terminal_reason` `aborted_*`) without one was
 * not the program's doing (a signal from outside, the CLI's own abort): a failure
 * (`turnOutcome.ts`).
 *
 * One ask covers the CLI's turn it was written in: {@link InterruptRequests.take} forgets it at
 * each result, one that could not be read too (`Turns.failCurrent`). An interrupt written while
 * no turn is in progress and no message waits (the CLI aborts nothing then) asks nothing: it
 * would cover the next turn, whatever happened in it.
 */
import type * as Protocol from "../Protocol.ts"
import { isRecord } from "./json.ts"

/**
 * Whether a control answer's body asks for an abort: `interrupt: true` in it or in its decision,
 * or a dialog answered `interrupt` (`auto_mode_end_offer`, `auto_mode_server_fallback`).
 */
const asksInterrupt = (body: unknown): boolean => {
  if (!isRecord(body)) return false
  if (body.interrupt === true || (body.behavior === "completed" && body.result === "interrupt")) return true
  const specific = body.hookSpecificOutput
  return isRecord(specific) && isRecord(specific.decision) && specific.decision.interrupt === true
}

export class InterruptRequests {
  private asked = false
  private readonly inProgress: () => boolean

  /** `inProgress`: whether a turn is in progress on the CLI, or a message waits for one. */
  constructor(inProgress: () => boolean) {
    this.inProgress = inProgress
  }

  /** Notes a line the session writes to the CLI. */
  written(message: Protocol.StdinMessage): void {
    if (this.asked) return
    if (message.type === "control_request") this.asked = message.request.subtype === "interrupt" && this.inProgress()
    else if (message.type === "control_response" && message.response.subtype === "success") {
      this.asked = asksInterrupt(message.response.response)
    }
  }

  /** Whether an abort was asked since the last result, kept. */
  get pending(): boolean {
    return this.asked
  }

  /** Whether an abort was asked since the last result; forgets it (a result ends the CLI's turn). */
  take(): boolean {
    const asked = this.asked
    this.asked = false
    return asked
  }
}
