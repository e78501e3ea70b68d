/**
 * One call of a program's handler for a CLI → host request (`can_use_tool`, `elicitation`,
 * `request_user_dialog`): what `Permissions`, `Elicitation` and `UserDialogs` share.
 *
 * - {@link captureHandler}: the handler runs in the context captured when its service was built
 *   (without the build's `Scope` and parent span: a call runs in a scope of its own, under the
 *   caller's span), its failures become a `ClaudeError` naming the handler, and an optional
 *   deadline fails it with `ControlTimeout` of the request's subtype.
 * - {@link guard}: classifies what the handler itself did wrong (failed, died, interrupted
 *   itself, timed out) for the report. Interrupting the caller's fiber (a
 *   `control_cancel_request`) never reaches `catchCause`: it stays an interruption.
 * - {@link writable}: an answer that passed its schema but cannot be written as JSON is an
 *   invalid one, refused like any other.
 * - {@link readAnswer}, {@link warnFailure}: a defect while reading the answer, or while logging
 *   the failure, still ends in the answer that fails closed.
 * - {@link redactFailure}: the session's secrets out of a failure before it is logged, reported,
 *   answered or ends a span (a handler's text may quote a tool input holding the API key).
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"
import type * as HandlerFailure from "../HandlerFailure.ts"
import { bounded } from "./bounded.ts"
import { describeCause, describeError } from "./describeCause.ts"
import { jsonDataProblem, jsonWriteError } from "./json.ts"
import { deadlineProblem } from "./sessionOptionsCheck.ts"

/** A failed call, before it is answered. */
export interface CallFailure {
  readonly failure: HandlerFailure.FailureKind
  readonly error: ClaudeError.ClaudeError
  readonly cause: Cause.Cause<unknown>
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

/**
 * `handler` made callable from any fiber, in the context this effect runs in. `who(input)` names
 * the handler in errors ("permission handler for Bash").
 */
export const captureHandler = <I, A, E, R>(
  handler: (input: I) => Effect.Effect<A, E, R>,
  options: {
    readonly subtype: string
    readonly timeout: Duration.Input | undefined
    readonly who: (input: I) => string
  }
): Effect.Effect<(input: I) => Effect.Effect<A, ClaudeError.ClaudeError>, ClaudeError.ClaudeError, R> => {
  // Read as Effect reads it, `NaN` or `-1` was zero or less: every call timed out at once.
  const problem = options.timeout === undefined ? undefined : deadlineProblem("timeout", options.timeout)
  if (problem !== undefined) return Effect.fail(invalid(`The ${options.subtype} handler's ${problem}`))
  return Effect.map(Effect.context<R>(), (captured) => {
    const context = Context.omit(Tracer.ParentSpan, Scope.Scope)(captured)
    const timeout = options.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout)
    return (input: I) => {
      const run = Effect.suspend(() => effectOf(handler(input), options.who(input))).pipe(
        Effect.provideContext(context),
        Effect.scoped,
        Effect.mapError((error) =>
          ClaudeError.isClaudeError(error)
            ? error
            : invalid(`The ${options.who(input)} failed: ${describeCause(Cause.fail(error))}`)
        )
      ) as Effect.Effect<A, ClaudeError.ClaudeError>
      return timeout === undefined ? run : answerBy(run, timeout, () =>
        Effect.fail(ClaudeError.make(
          new ClaudeError.ControlTimeout({ subtype: options.subtype, timeoutMillis: Duration.toMillis(timeout) })
        )))
    }
  })
}

/**
 * What a handler returned, when it is an Effect; else a defect saying so. A value that is no
 * Effect (a plain answer, a Promise: a JavaScript caller, a cast) ended the fiber running it past
 * every handler of its failure (Effect's run loop), so the CLI got no answer at all.
 */
export const effectOf = <A, E, R>(returned: Effect.Effect<A, E, R>, who: string): Effect.Effect<A, E, R> => {
  if (Effect.isEffect(returned)) return returned
  const value: unknown = returned
  const what = value === null ? "null"
    : value instanceof Promise ? "a Promise"
    : typeof value === "object" ? "an object"
    : typeof value
  return Effect.die(new TypeError(`The ${who} returned ${what}, not an Effect`))
}

/**
 * `handler`'s outcome, or `orElse`'s at `deadline` without waiting for the handler to stop: one
 * stuck where it cannot be interrupted (an `acquireRelease`'s acquire waiting on a server) is
 * interrupted in the background, so that the CLI still gets its answer before its own deadline.
 * Such a handler may outlive its session (a fiber, no process; its finalizers run when it
 * stops). Interrupting this (a `control_cancel_request`: nobody waits for an answer; the session's
 * close) interrupts the handler and waits for it to stop, its finalizers run; the close waits
 * so within `closeGrace` only (`incoming.ts`).
 */
export const answerBy = <A, E, A2, E2>(
  handler: Effect.Effect<A, E>,
  deadline: Duration.Duration,
  orElse: () => Effect.Effect<A2, E2>
): Effect.Effect<A | A2, E | E2> => bounded(handler, deadline, orElse, "wait")

/** What the handler named `who` did wrong, for the request of `subtype`; its success passes. */
export const guard = <A>(effect: Effect.Effect<A, unknown>, subtype: string, who: string): Effect.Effect<A, CallFailure> =>
  Effect.catchCause(effect, (cause) => {
    const failure = Cause.findErrorOption(cause)
    const claudeError = Option.isSome(failure) && ClaudeError.isClaudeError(failure.value) ? failure.value : undefined
    const how = Cause.hasFails(cause) ? "failed" : Cause.hasDies(cause) ? "died" : "interrupted"
    const kind: HandlerFailure.FailureKind =
      claudeError?.reason._tag === "ControlTimeout" && claudeError.reason.subtype === subtype ? "timed_out" : how
    const error = claudeError ??
      invalid(`The ${who} ${how === "interrupted" ? "was interrupted" : how}: ${describeCause(cause)}`)
    return Effect.fail({ failure: kind, error, cause })
  })

/**
 * The reading of a handler's answer (its schema, the JSON checks) with a defect in it as the
 * `invalid_answer` of the handler named `who`: reading an answer runs its code (a getter that
 * throws, a revoked proxy), and a defect there skipped the answer that fails closed.
 */
export const readAnswer = <A>(reading: Effect.Effect<A, CallFailure>, who: string): Effect.Effect<A, CallFailure> =>
  Effect.catchDefect(reading, (defect) => {
    const cause = Cause.die(defect)
    return Effect.fail({
      failure: "invalid_answer",
      error: invalid(`The ${who} gave an answer that cannot be read: ${describeCause(cause)}`),
      cause
    })
  })

/** The session's secrets replaced in a text (`tracing.redact`). */
export type Redact = (text: string) => string

/**
 * `failed` with the session's secrets out of its error and its cause (see {@link redactCause}):
 * what is logged, reported, answered and ends the library's span. Outside a session (no
 * `redact`) it is `failed` as it is.
 */
export const redactFailure = <F extends CallFailure>(failed: F, redact: Redact | undefined): F =>
  redact === undefined
    ? failed
    : { ...failed, error: redactError(failed.error, redact), cause: redactCause(failed.cause, redact) }

/**
 * `error`, or where its fields hold a secret, the same reason with the secret replaced in them
 * (an `InvalidInput` of its redacted message when that reason cannot be rebuilt).
 */
const redactError = (error: ClaudeError.ClaudeError, redact: Redact): ClaudeError.ClaudeError => {
  try {
    const fields = JSON.stringify(error.reason)
    const redacted = redact(fields)
    if (redacted === fields) return error
    const Reason = error.reason.constructor as new(fields: unknown) => ClaudeError.Reason
    const rebuilt = ClaudeError.make(new Reason(JSON.parse(redacted)))
    // Where the error was made, not this copy.
    if (typeof error.stack === "string") rebuilt.stack = redact(error.stack)
    return rebuilt
  } catch {
    // Fields JSON cannot write (a BigInt), a secret across JSON syntax (a number), or fields
    // its schema no longer takes.
    return invalid(redact(describeError(error)))
  }
}

/**
 * `cause` as loggers show it (`Cause.pretty`), the session's secrets out: a failure or defect
 * whose text holds one becomes an `Error` of that text redacted (its name kept); one whose text
 * cannot be read (a `stack` getter that throws) an `Error` saying so, since nobody can tell
 * whether it holds one. Reasons without a secret are kept as they are (the program's own error,
 * for `HandlerFailed.cause`); a `ClaudeError` keeps its reason ({@link redactError}).
 */
export const redactCause = (cause: Cause.Cause<unknown>, redact: Redact): Cause.Cause<unknown> => {
  const reasons = cause.reasons.map((reason) => redactReason(reason, redact))
  return reasons.every((reason, i) => reason === cause.reasons[i]) ? cause : Cause.fromReasons(reasons)
}

const redactReason = (reason: Cause.Reason<unknown>, redact: Redact): Cause.Reason<unknown> => {
  if (Cause.isInterruptReason(reason)) return reason
  const value = Cause.isFailReason(reason) ? reason.error : reason.defect
  let shown: unknown
  if (ClaudeError.isClaudeError(value)) {
    shown = redactError(value, redact)
  } else {
    try {
      const single = Cause.fromReasons([reason])
      const text = Cause.pretty(single)
      if (redact(text) === text) return reason
      const [pretty] = Cause.prettyErrors(single)
      const error = new Error(redact(pretty?.message ?? ""))
      error.name = pretty?.name ?? "Error"
      error.stack = redact(text)
      shown = error
    } catch {
      shown = new Error("A failure whose text cannot be read (left out: it might hold a secret)")
    }
  }
  if (shown === value) return reason
  return Cause.isFailReason(reason) ? Cause.makeFailReason(shown) : Cause.makeDieReason(shown)
}

/**
 * Logs a handler's failure with its cause, or without it when the logger cannot show it (a
 * defect whose `stack` getter throws): the refusal that follows must still be sent. In a session
 * both are redacted first ({@link redactFailure}).
 */
export const warnFailure = (message: string, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.logWarning(message, cause).pipe(
    Effect.catchCause(() => Effect.logWarning(`${message} (its cause cannot be shown)`)),
    Effect.catchCause(() => Effect.void)
  )

/**
 * `answer` as JSON writes it, when it is JSON data (written as JSON, it reads back as given, a
 * key whose value is `undefined` left out); else the `invalid_answer` of the handler named `who`.
 * The answers' schemas take any value where the CLI takes any JSON (`updatedInput`, a dialog's
 * `result`): a BigInt or a cycle there passed them, then failed the write, and the CLI got no
 * answer at all; a Map went out as `{}`. Checked on the handler's own answer, before its schema
 * writes it (which would turn the Map into `{}`), and read back as the CLI will read it: an
 * optional key set to `undefined` (which TypeScript allows without `exactOptionalPropertyTypes`)
 * is absent, not a value the schema refuses (a deny's own message was lost to its refusal). But
 * not a permission rule's `ruleContent`: absent, the rule covers every call of its tool
 * (`Bash(rm:*)` would become all of Bash), so an answer holding one set to `undefined` is refused.
 */
export const writable = <A>(answer: A, who: string): Effect.Effect<A, CallFailure> => {
  if (holdsUndefinedRuleContent(answer)) {
    return refuseAnswer(
      `The ${who} gave an invalid answer: a permission rule's ruleContent is undefined, which the CLI would read ` +
        "as a rule for every call of the tool (leave the key out to mean that)"
    )
  }
  const error = jsonWriteError(answer)
  if (error !== undefined) {
    return Effect.fail({
      failure: "invalid_answer",
      error: invalid(`The ${who} gave an answer that cannot be written as JSON: ${error.message}`),
      cause: Cause.fail(error)
    })
  }
  // Written, but not as given: a Map in `updatedInput` would reach the CLI as `{}`.
  const problem = jsonDataProblem(answer)
  return problem === undefined
    ? Effect.succeed(answer === undefined ? answer : JSON.parse(JSON.stringify(answer)) as A)
    : refuseAnswer(`The ${who} gave an answer that is not JSON data: ${problem}`)
}

/**
 * Whether a value holds an object with a `ruleContent` key set to `undefined` (a permission
 * rule's); a value that cannot be walked (a getter that throws) is left to the JSON checks.
 */
const holdsUndefinedRuleContent = (value: unknown): boolean => {
  try {
    return hasUndefinedRuleContent(value, 0)
  } catch {
    return false
  }
}

const hasUndefinedRuleContent = (value: unknown, depth: number): boolean => {
  if (typeof value !== "object" || value === null || depth > 8) return false
  if (Array.isArray(value)) return value.some((item) => hasUndefinedRuleContent(item, depth + 1))
  if (Object.hasOwn(value, "ruleContent") && (value as { readonly ruleContent?: unknown }).ruleContent === undefined) return true
  return Object.values(value).some((item) => hasUndefinedRuleContent(item, depth + 1))
}

/** The `invalid_answer` failure of a handler's answer, saying `description`. */
export const refuseAnswer = (description: string): Effect.Effect<never, CallFailure> => {
  const error = invalid(description)
  return Effect.fail({ failure: "invalid_answer", error, cause: Cause.fail(error) })
}
