/**
 * Whether a turn failed, and why, read from its `result` as the CLI 2.1 writes it: `is_error`,
 * `subtype`, `terminal_reason`, `api_error_status`, `api_error_type` and the result text. An API
 * error comes back as `subtype: "success"` with `is_error: true`, so `subtype` alone says nothing;
 * a limit's subtype (`error_max_turns`, …) is a failure even with `is_error: false`, as CLI 2.1.0
 * writes it.
 * A `terminal_reason` the CLI counts as failed (`turn_setup_failed`, …) is a failure whatever
 * `is_error` says.
 * A turn that was interrupted (`terminal_reason` `aborted_*`) is not a failure when the program
 * (or its user) asked for it; one the CLI aborted though the program did not ask
 * (`turn.interruptRequested` false) failed. CLI 2.1.0 writes no `terminal_reason`, and ends an
 * interrupted turn and one its own error cut short (an SSE `error` mid-stream) alike:
 * `error_during_execution` with `is_error: false`; only the program's interrupt tells them apart.
 */
import * as ClaudeError from "../ClaudeError.ts"
import type { TurnResult } from "../Events.ts"
import { isRecord } from "./json.ts"
import type { RedactValue } from "./resultRedaction.ts"

const limitSubtypes = new Set(["error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"])
const limitReasons = new Set(["max_turns", "budget_exhausted", "structured_output_retry_exhausted"])
/** Terminal reasons of a context too full to go on. */
const contextReasons = new Set(["prompt_too_long", "blocking_limit", "rapid_refill_breaker"])

/**
 * The terminal reasons CLI 2.1.332 itself counts as a failed turn (its own check, read from its
 * binary), whatever `is_error` says: it writes `turn_setup_failed` (a turn that never started)
 * with `is_error: false`. It counts `max_turns` as no failure; the library does (`LimitReached`,
 * by its subtype).
 */
const failedTerminalReasons = new Set([
  "blocking_limit",
  "rapid_refill_breaker",
  "prompt_too_long",
  "image_error",
  "model_error",
  "api_error",
  "malformed_tool_use_exhausted",
  "budget_exhausted",
  "structured_output_retry_exhausted",
  "tool_deferred_unavailable",
  "turn_setup_failed"
])

/** CLI 2.1.0's line for a turn interrupted or cut short by its own error (no `terminal_reason`). */
const cutShort = (result: TurnResult): boolean =>
  result.subtype === "error_during_execution" && !result.is_error && result.terminal_reason === undefined

/**
 * Whether `result` may stand for a failure: `failureOf` reads nothing else of any other (it is a
 * success), and nothing needs its redaction.
 */
export const mayFail = (result: TurnResult): boolean =>
  result.is_error || limitSubtypes.has(result.subtype) || cutShort(result) ||
  (result.terminal_reason !== undefined && failedTerminalReasons.has(result.terminal_reason))

const describe = (result: TurnResult): string =>
  result.result !== undefined && result.result.length > 0
    ? result.result
    : (result.errors ?? []).join("; ") || `${result.subtype}, ${result.terminal_reason ?? "no terminal reason"}`

const apiErrorText = /^API Error: (\d{3})\b/
const apiErrorPrefix = /^API Error:/
/** CLI 2.1.0's text for a refusal it gave up on (its result has no `stop_reason`). */
const refusalText = /unable to respond to this request, which appears to violate our Usage Policy/i

/**
 * CLI 2.1.0's text for a key the API refused (a 401), which names no status; with no key at all it
 * writes `Invalid API key · Please run /login` (`NotAuthenticated`).
 */
const invalidKeyText = /^Invalid API key\b(?!.*please run \/login)/i

/** The HTTP status of an `API Error: <status> <body>` result text, as CLI 2.1.0 writes it. */
const statusInText = (text: string): number | null => {
  const match = apiErrorText.exec(text)
  if (match !== null) return Number(match[1])
  return invalidKeyText.test(text) ? 401 : null
}

/**
 * The `error.type` of that text's JSON body (`api_error`, `overloaded_error`, …), if it has one
 * (CLI 2.1.0 may write a hint after it: `{...} · Please run /login` for a 403).
 */
const errorTypeInText = (text: string): string | null => {
  if (invalidKeyText.test(text)) return "authentication_error"
  const rest = text.replace(apiErrorText, "").trim()
  const body = rest.slice(0, rest.lastIndexOf("}") + 1)
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
  if ((terminal !== undefined && terminal.startsWith("aborted_")) || cutShort(result)) {
    if (result.turn?.interruptRequested !== false) return undefined
    return ClaudeError.make(
      new ClaudeError.TurnFailed({
        result,
        description: terminal === undefined
          ? `The CLI ended the turn short (error_during_execution: interrupted, or cut by an error), and the program asked for no interrupt: ${description}`
          : `The CLI ended the turn as interrupted (${terminal}), which the program did not ask for: ${description}`
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
  // The model's own stops the CLI gave up on end as `api_error` with no status, which would read
  // as an API that could not be reached (a retryable `ApiError`): a refusal (the CLI tried once
  // more; CLI 2.1.0 writes no `stop_reason`, only its text), a full context window, an answer
  // cut at the output-token maximum on every try.
  if (result.stop_reason === "refusal" || (status === null && refusalText.test(description))) {
    return ClaudeError.make(new ClaudeError.Refused({ result, description }))
  }
  // `blocking_limit`: the CLI itself refused a prompt over the context window (no request made).
  if (
    (terminal !== undefined && contextReasons.has(terminal)) ||
    /prompt is too long|reached its context window limit/i.test(description)
  ) {
    return ClaudeError.make(new ClaudeError.PromptTooLong({ result, description }))
  }
  if (limitSubtypes.has(result.subtype) || (terminal !== undefined && limitReasons.has(terminal))) {
    return ClaudeError.make(new ClaudeError.LimitReached({ result, limit: limitSubtypes.has(result.subtype) ? result.subtype : terminal! }))
  }
  if (result.api_error === "max_output_tokens" || (status === null && /output token maximum/i.test(description))) {
    return ClaudeError.make(new ClaudeError.LimitReached({ result, limit: "max_output_tokens" }))
  }
  // CLIs before `terminal_reason: "api_error"` (2.1.0 writes none, 2.1.200 `completed`) tell an
  // API error with no status (the API unreachable) by their text alone.
  const olderApiError = (terminal === undefined || terminal === "completed") && apiErrorPrefix.test(description)
  if (terminal === "api_error" || status !== null || olderApiError) {
    const errorType = result.api_error_type ?? (result.api_error_status === undefined ? errorTypeInText(description) : null)
    return ClaudeError.make(new ClaudeError.ApiError({ result, status, errorType, description }))
  }
  return ClaudeError.make(new ClaudeError.TurnFailed({ result, description }))
}
