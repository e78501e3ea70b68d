/**
 * The exit a library span ends with. A span's exit reaches the tracer whole: OpenTelemetry
 * records its errors' messages as the span's exception and status, and a tracer of the program's
 * may record a success's value too.
 *
 * - A success ends the span with no value (`Exit.void`), with or without `Tracing.TraceContent`:
 *   the values are the program's, as the CLI and the model wrote them, the session's secrets in
 *   them (the `initialize` answer holds the account e-mail, a settings answer the environment,
 *   a turn's text what the model said, the session's scope the program's own result). What a
 *   trace shows of a success is in the span's attributes, redacted: the model's text
 *   (`gen_ai.output.messages`) when `TraceContent` is on. The account e-mail is personal data,
 *   not content: `TraceContent` does not let it in.
 * - A failure with `TraceContent` off: the messages of some reasons are the CLI's or the model's
 *   text (a failed turn's result text, a line that broke the protocol, the CLI's error text).
 *   Those become a `ClaudeError`-named error that keeps the reason's tag only; the other reasons
 *   (ids, counts, durations) are kept as they are. Secrets never reach a span either way: the
 *   session takes them out of every such text first.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"

/** `Tracing.TraceContent` (defined here, where the session's span reads it, with no metrics loaded). */
export const TraceContent: Context.Reference<boolean> = Context.Reference<boolean>(
  "effect-claude-code/Tracing/TraceContent",
  { defaultValue: () => false }
)

/** The reasons whose message carries the CLI's or the model's text. */
const textReasons: ReadonlySet<string> = new Set([
  "TurnFailed",
  "ApiError",
  "PromptTooLong",
  "NotAuthenticated",
  "Refused",
  "ProtocolViolation",
  "ControlRejected",
  // The CLI's stderr.
  "ProcessExited",
  "BypassRefused"
])

/** What a span records instead of such an error: its reason, and why the rest is not there. */
class WithheldError extends Error {
  readonly reason: string
  constructor(reason: string) {
    super(`${reason} (its text is left out of traces: TraceContent is off)`)
    this.name = "ClaudeError"
    this.reason = reason
  }
}

const withheld = (error: unknown): unknown =>
  ClaudeError.isClaudeError(error) && textReasons.has(error.reason._tag) ? new WithheldError(error.reason._tag) : error

/** `exit` as a span records it: a success without its value; with `content` off, the texts above left out. */
export const forSpan = <A, E>(exit: Exit.Exit<A, E>, content: boolean): Exit.Exit<void, unknown> =>
  Exit.isSuccess(exit) ? Exit.void : content ? exit : Exit.failCause(Cause.map(exit.cause, withheld))

/**
 * A span named `name`, ended when the scope closes with the scope's exit as {@link forSpan} gives
 * it (`Effect.makeSpanScoped`, with no success value and the texts left out).
 */
export const makeSpanScoped = (name: string): Effect.Effect<Tracer.Span, never, Scope.Scope> =>
  Effect.gen(function*() {
    const content = yield* TraceContent
    const span = yield* Effect.makeSpan(name, { root: false })
    yield* Effect.addFinalizer((exit) =>
      Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.end(now, forSpan(exit, content))))
    )
    return span
  })

/**
 * `effect` in a span named `name`, which ends with its exit as {@link forSpan} gives it (the
 * span `Effect.fn` makes, with no success value and the texts left out).
 */
export const withSpan = (name: string, options?: Tracer.SpanOptionsNoTrace) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const content = yield* TraceContent
      const span = yield* Effect.makeSpan(name, options)
      return yield* restore(Effect.withParentSpan(effect, span)).pipe(
        Effect.onExit((exit) =>
          Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.end(now, forSpan(exit, content))))
        )
      )
    })
  )
