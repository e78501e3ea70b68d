/**
 * The session's redaction of each result it gave (kept beside the result, a weak map): a
 * failure read from a result later (`Turn.finalText`) takes the session's secrets out of its
 * text and its copy of the result, as the session's own failure of that turn does.
 */

/** A value with the session's secrets taken out of its strings (a copy where one was in it). */
export type RedactValue = <A>(value: A) => A

const redactors = new WeakMap<object, RedactValue>()

/** Records that `result` came from a session whose secrets `redact` takes out. */
export const remember = <A extends object>(result: A, redact: RedactValue): A => {
  redactors.set(result, redact)
  return result
}

/** The redaction of the session `result` came from, when it came from one. */
export const redactorOf = (result: object): RedactValue | undefined => redactors.get(result)
