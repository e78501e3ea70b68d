/**
 * The session's redaction of each result it gave that may stand for a failure (kept beside the
 * result, a weak map): a failure read from a result later (`Turn.finalText`) takes the session's
 * secrets out of its text and its copy of the result, as the session's own failure of that turn
 * does. A success is not kept: nothing reads its redaction, and an entry a turn is work for the
 * garbage collector all through a long session.
 */
import type { TurnResult } from "../Events.ts"
import { mayFail } from "./turnOutcome.ts"

/** A value with the session's secrets taken out of its strings (a copy where one was in it). */
export type RedactValue = <A>(value: A) => A

const redactors = new WeakMap<object, RedactValue>()

/** Records, for a result that may stand for a failure, that its session's secrets are `redact`'s. */
export const remember = <A extends TurnResult>(result: A, redact: RedactValue): A => {
  if (mayFail(result)) redactors.set(result, redact)
  return result
}

/** The redaction of the session `result` came from, when it came from one. */
export const redactorOf = (result: object): RedactValue | undefined => redactors.get(result)
