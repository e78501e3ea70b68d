/**
 * The account e-mail the CLI tells in its `initialize` answer (`account.email`): a secret of the
 * session from then on, kept out of spans, logs and transcripts. One reader for the session's
 * tracing and the transcript's recorder, so that both take the same value for it.
 */
import { isRecord } from "./json.ts"

/** The e-mail of an `account` object, when it names one (a string that is not empty). */
export const emailOfAccount = (account: unknown): string | undefined => {
  const email = isRecord(account) ? account.email : undefined
  return typeof email === "string" && email.length > 0 ? email : undefined
}

/** The account e-mail of an `initialize` answer's body, if it tells one. */
export const accountEmail = (body: unknown): string | undefined =>
  emailOfAccount(isRecord(body) ? body.account : undefined)
