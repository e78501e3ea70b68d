/**
 * What the program learns when one of its handlers (a hook or the permission callback) fails,
 * dies or runs past its deadline.
 *
 * A handler whose answer could let an action through (a `PreToolUse` or `PermissionRequest`
 * hook, the `can_use_tool` permission callback, ...) **fails closed**: the library answers the
 * CLI with a refusal that carries the reason, so the tool call (or prompt) does not happen. A
 * handler of another event keeps the non-blocking answer (an error control_response: the CLI
 * goes on as if the hook had said nothing). Either way the failure is logged as a warning and
 * reported as a {@link HandlerFailed} event. In a session, the session's secrets (the API key,
 * the `Redacted` env values, the account e-mail) are replaced by `[redacted]` in all of these
 * first: a handler's error may quote the tool input that holds one.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as ClaudeError from "./ClaudeError.ts"

/**
 * Which handler failed: a hook (with its event and callback id), the permission callback, the
 * `Elicitation` handler (`elicitation`) or the `UserDialogs` handler (`request_user_dialog`,
 * both since 0.2.0).
 *
 * @since 0.1.0
 * @category models
 */
export type HandlerKind = "hook" | "can_use_tool" | "elicitation" | "request_user_dialog"

/**
 * How the handler failed:
 *
 * - `failed`: it failed with an error (its own typed error, or a `ClaudeError`);
 * - `died`: a defect (it threw, or `Effect.die`);
 * - `interrupted`: it interrupted itself (not a `control_cancel_request`, which is no failure);
 * - `timed_out`: it ran past its deadline and was interrupted;
 * - `invalid_answer`: it answered something the CLI cannot read (breaks the event's schema);
 * - `invalid_input`: the CLI's request did not match its schema, so the handler was not run.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureKind = "failed" | "died" | "interrupted" | "timed_out" | "invalid_answer" | "invalid_input"

/**
 * What the CLI was answered: `denied` (a refusal carrying the reason: the action did not
 * happen) or `continued` (the non-blocking error answer: the CLI went on as if the handler had
 * said nothing); for an elicitation (since 0.2.0) `declined` (its answer's content broke the
 * schema asked for) or `cancelled` (nobody decided); for a user dialog `cancelled` (the CLI applies
 * the dialog's default).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = "denied" | "continued" | "declined" | "cancelled"

/**
 * A handler failed. Published on `session.events` and logged as a warning.
 *
 * @since 0.1.0
 * @category models
 */
export interface HandlerFailed {
  /** Tells it apart from the CLI's messages. */
  readonly type: "handler_failed"
  /** Which kind of handler failed: a hook, or the permission handler (`can_use_tool`). */
  readonly handler: HandlerKind
  /** The hook event (`PreToolUse`, `Stop`, ...); `undefined` for `can_use_tool`, or a hook request naming none that could be read. */
  readonly hookEvent: string | undefined
  /** The registration's callback id (`hook_0`, ...); `undefined` for `can_use_tool`, or a hook request whose id could not be read. */
  readonly callbackId: string | undefined
  /** The tool the request was about, when it was about one. */
  readonly toolName: string | undefined
  /** The request's `tool_use_id` (for a hook of a non-tool event, the CLI's random uuid). */
  readonly toolUseId: string | undefined
  /** The `request_id` of the control request, when the caller passed it. */
  readonly requestId: string | undefined
  /** How it failed. */
  readonly failure: FailureKind
  /** What the CLI was told: the tool call was denied, or the hook's failure was a non-blocking error. */
  readonly outcome: Outcome
  /** A readable sentence: which handler, what happened, what the CLI was told. */
  readonly message: string
  /** The error the failure became (what an error answer would carry). */
  readonly error: ClaudeError.ClaudeError
  /**
   * The handler's own cause (its failure, defect or interruption). In a session, a failure or
   * defect whose text holds a secret of the session (or cannot be read) is an `Error` of that
   * text with the secret replaced; a `ClaudeError` keeps its reason, the secret replaced.
   */
  readonly cause: Cause.Cause<unknown>
}

/**
 * Called synchronously for every handler failure, after it is logged. It must not throw: an
 * exception from it is caught and logged, and never changes the answer to the CLI.
 *
 * @since 0.1.0
 * @category models
 */
export type Report = (event: HandlerFailed) => void

/**
 * Calls `report` (if any) with `event`. A throw from it is logged as a warning and otherwise
 * ignored: it never changes the answer to the CLI.
 *
 * @since 0.1.0
 * @category internal
 * @internal
 */
export const callReport = (report: Report | undefined, event: HandlerFailed): Effect.Effect<void> =>
  report === undefined ? Effect.void : Effect.try({ try: () => report(event), catch: (error) => error }).pipe(
    Effect.catch((error) => Effect.logWarning("The handler-failure reporter threw", error))
  )
