/**
 * Whether a turn failed, and why, read from its `result` as the CLI 2.1 writes it: `is_error`,
 * `subtype`, `terminal_reason`, `api_error_status`, `api_error_type` and the result text. An API
 * error comes back as `subtype: "success"` with `is_error: true`, so `subtype` alone says nothing;
 * a limit's subtype (`error_max_turns`, …) is a failure even with `is_error: false`, as CLI 2.1.0
 * writes it.
 * A turn that was interrupted (`terminal_reason` `aborted_*`) is not a failure when the program
 * (or its user) asked for it; one the CLI aborted though the program did not ask
 * (`turn.interruptRequested` false) failed.
 */
import * as ClaudeError from "../ClaudeError.ts"
import type { TurnResult } from "../Events.ts"
import { isRecord } from "./json.ts"
import type { RedactValue } from "./resultRedaction.ts"

const limitSubtypes = new Set(["error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"])
const limitReasons = new Set(["max_turns", "budget_exhausted", "structured_output_retry_exhausted"])

/**
 * Whether `result` may stand for a failure: `failureOf` reads nothing else of any other (it is a
 * success), and nothing needs its redaction.
 */
export const mayFail = (result: TurnResult): boolean => result.is_error || limitSubtypes.has(result.subtype)

const describe = (result: TurnResult): string =>
  result.result !== undefined && result.result.length > 0
    ? result.result
    : (result.errors ?? []).join("; ") || `${result.subtype}, ${result.terminal_reason ?? "no terminal reason"}`

const apiErrorText = /^API Error: (\d{3})\b/

/** The HTTP status of an `API Error: <status> <body>` result text, as CLI 2.1.0 writes it. */
const statusInText = (text: string): number | null => {
  const match = apiErrorText.exec(text)
  return match === null ? null : Number(match[1])
}

/** The `error.type` of that text's JSON body (`api_error`, `overloaded_error`, …), if it has one. */
const errorTypeInText = (text: string): string | null => {
  const body = text.replace(apiErrorText, "").trim()
  try {
    const parsed: unknown = JSON.parse(body)
    const type = isRecord(parsed) && isRecord(parsed.error) ? parsed.error.type : undefined
    return typeof type === "string" ? type : null
  } catch {
    return null
  }
}

/**
 * The failure a result stands for; undefined when the turn succeeded or was interrupted. It
 * carries the result, and its description the result's text, with the session's secrets taken
 * out by `redact`: the error reaches the program's logs and the exits of its spans.
 */
export const failureOf = (
  raw: TurnResult,
  redact?: RedactValue
): ClaudeError.ClaudeError | undefined => {
  // A limit's subtype stopped the turn short whatever `is_error` says: CLI 2.1.0 writes its error
  // subtypes with `is_error: false`.
  if (!mayFail(raw)) return undefined
  const result = redact === undefined ? raw : redact(raw)
  const terminal = result.terminal_reason
  const description = describe(result)
  if (terminal !== undefined && terminal.startsWith("aborted_")) {
    if (result.turn?.interruptRequested !== false) return undefined
    return ClaudeError.make(
      new ClaudeError.TurnFailed({
        result,
        description: `The CLI ended the turn as interrupted (${terminal}), which the program did not ask for: ${description}`
      })
    )
  }
  // CLI 2.1.0 writes neither `terminal_reason` nor `api_error_status`: the API's status is in the
  // text it writes, `API Error: 500 {...}`.
  const status = result.api_error_status ?? (terminal === undefined ? statusInText(description) : null)
  // No credentials at all: the CLI makes no request, so there is no HTTP status. A key the API
  // refused is an ApiError with status 401 (its `errorType` is `authentication_error`).
  if (status === null && /not logged in|please run \/login/i.test(description)) {
    return ClaudeError.make(new ClaudeError.NotAuthenticated({ result, description }))
  }
  // `blocking_limit`: the CLI itself refused a prompt over the context window (no request made).
  if (terminal === "prompt_too_long" || terminal === "blocking_limit" || /prompt is too long/i.test(description)) {
    return ClaudeError.make(new ClaudeError.PromptTooLong({ result, description }))
  }
  if (limitSubtypes.has(result.subtype) || (terminal !== undefined && limitReasons.has(terminal))) {
    return ClaudeError.make(new ClaudeError.LimitReached({ result, limit: limitSubtypes.has(result.subtype) ? result.subtype : terminal! }))
  }
  if (terminal === "api_error" || status !== null) {
    const errorType = result.api_error_type ?? (result.api_error_status === undefined ? errorTypeInText(description) : null)
    return ClaudeError.make(new ClaudeError.ApiError({ result, status, errorType, description }))
  }
  return ClaudeError.make(new ClaudeError.TurnFailed({ result, description }))
}
