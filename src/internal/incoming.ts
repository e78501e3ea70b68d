/**
 * CLI → host control requests. Each runs in its own fiber, kept by `request_id` while it runs (what
 * `effect/FiberMap` does, in a few lines: that module is 25 KB of start-up), in a scope and a span
 * of its own (parented to the turn that caused it), so a `control_cancel_request` interrupts
 * exactly the handler it names. Closing the session's scope interrupts those still running and
 * waits for them to stop, within `stopWithin` (the session's `closeGrace`), alongside the CLI's
 * end and joined after it (`awaitAfter`): one stuck where it cannot be interrupted is then left to
 * stop in the background (a fiber, no process), with a warning, and the close goes on.
 *
 * Invariants:
 * - Every request the CLI sends gets exactly one control_response, except one that the CLI
 *   cancelled (it waits for none): an unknown subtype gets the CLI's own `unsupported_request`
 *   error, a request that breaks its schema an error naming the problem, a handler's failure or
 *   defect an error response. Nothing a handler does reaches the reader.
 * - Nothing here makes the reader wait: `dispatch` forks, `cancel` interrupts without waiting
 *   for the handler's finalizers, and answers are queued on stdin.
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Protocol from "../Protocol.ts"
import * as Lines from "../protocol/lines.ts"
import { describeCause } from "./describeCause.ts"
import { ServingTheCli } from "./services.ts"
import { SmallMap } from "./smallMap.ts"
import * as SpanExits from "./spanExits.ts"
import type { Write } from "./stdinWriter.ts"
import type { SessionTracing } from "./tracing.ts"

/** A request's fiber while it runs. */
interface Running {
  readonly fiber: Fiber.Fiber<unknown, unknown>
  readonly subtype: string
}

/** A handler for one request subtype: the request body in, the success response body out. */
export type Handler = (
  request: Record<string, unknown>,
  requestId: string,
  /** Why the library could not read the request, when it could not (see `dispatch`). */
  unreadable: string | undefined
) => Effect.Effect<unknown, ClaudeError.ClaudeError, Scope.Scope>

export interface Incoming {
  /** Runs the handler of `request` in a fiber of its own; returns at once. */
  /**
   * `unreadable`: why the library could not read the request (a `hook_callback` whose callback
   * id it read: its hook answers it, see `reader.ts`).
   */
  readonly dispatch: (
    requestId: string,
    request: Record<string, unknown>,
    parent: Tracer.AnySpan | undefined,
    unreadable?: string
  ) => void
  /** Answers a request that could not be decoded, with the reason. */
  readonly reject: (requestId: unknown, description: string) => void
  /** Interrupts the handler of `requestId`, without waiting for it. */
  readonly cancel: (requestId: string) => void
}

const errorText = (cause: Cause.Cause<ClaudeError.ClaudeError>): string => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error.message
  const defect = cause.reasons.find(Cause.isDieReason)
  if (defect !== undefined) return `The handler died: ${describeCause(cause)}`
  return "The handler was interrupted"
}

class Unsupported {
  readonly _tag = "Unsupported"
  readonly subtype: string
  constructor(subtype: string) {
    this.subtype = subtype
  }
}

export const make = Effect.fnUntraced(function*(options: {
  readonly handlers: Readonly<Record<string, Handler>>
  /** Queues one line on stdin; never waits on the CLI. */
  readonly send: Write
  /** Names each call's span and gives its attributes (the decision, or why it failed). */
  readonly tracing?: SessionTracing | undefined
  /** The session's identity, in the mark of the fibers that serve the CLI (`ServingTheCli`). */
  readonly session: object
  /** How long closing waits for the handlers still running to stop once interrupted. */
  readonly stopWithin: Duration.Duration
  /**
   * Given the wait for the handlers interrupted at the close, already under way, for the session
   * to join after the CLI is ended: a handler stuck where it cannot be interrupted never delays
   * the CLI's end. Without it, the close waits here.
   */
  readonly awaitAfter?: ((stopped: Effect.Effect<void>) => void) | undefined
}): Effect.fn.Return<Incoming, never, Scope.Scope> {
  // The fibers running, by key (a few at a time, one a request: `smallMap.ts`), each with its
  // request's subtype; none is started once the scope is closing.
  const inflight = new SmallMap<string, Running>()
  let closed = false
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      const running: Array<Running & { readonly key: string }> = []
      inflight.drain((entry, key) => running.push({ ...entry, key }))
      if (running.length === 0) return Effect.void
      for (const { fiber } of running) fiber.interruptUnsafe()
      // Waited for interruptibly: a finalizer runs uninterruptibly, and the deadline must end the wait.
      const stopped = Effect.interruptible(Fiber.awaitAll(running.map(({ fiber }) => fiber))).pipe(
        Effect.timeoutOption(options.stopWithin),
        Effect.flatMap((stopped) =>
          Option.isSome(stopped) ? Effect.void : Effect.forEach(
            running.filter(({ fiber }) => fiber.pollUnsafe() === undefined),
            ({ key, subtype }) =>
              Effect.logWarning(
                `closing the session: the handler of the CLI's ${subtype} request ${key} did not ` +
                  `stop within closeGrace (${Duration.format(options.stopWithin)}): left to stop in the background ` +
                  "(it is where it cannot be interrupted)"
              ),
            { discard: true }
          )
        )
      )
      if (options.awaitAfter === undefined) return stopped
      // Waited for from now, alongside the rest of the close (the CLI's end: a refusal that comes
      // in time still reaches it), and joined by the session once the CLI is gone.
      return Effect.map(Effect.forkDetach(stopped), (fiber) => options.awaitAfter!(Fiber.join(fiber)))
    })
  )
  const runFork = Effect.runForkWith(yield* Effect.context<never>())
  /** Runs `effect` in a fiber of its own under `key`, unless one runs under it already. */
  const run = (key: string, subtype: string, effect: Effect.Effect<void>): void => {
    if (closed || inflight.has(key)) return
    const fiber = runFork(effect)
    inflight.set(key, { fiber, subtype })
    fiber.addObserver(() => {
      if (inflight.get(key)?.fiber === fiber) inflight.delete(key)
    })
  }

  const answer = (requestId: string, exit: Exit.Exit<unknown, ClaudeError.ClaudeError | Unsupported>) => {
    if (Exit.isSuccess(exit)) {
      const body = exit.value
      return options.send(Lines.controlSuccess(
        requestId,
        typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
      )).pipe(
        // An answer that cannot be written (a value JSON cannot hold, in a handler's answer that
        // no check covers): the CLI still gets one, an error, and never waits on it.
        Effect.catch((error) =>
          error.reason._tag === "InvalidInput"
            ? options.send(Lines.controlError(requestId, error.message))
            : Effect.fail(error)
        )
      )
    }
    const unsupported = exit.cause.reasons.find(Cause.isFailReason)?.error
    if (unsupported instanceof Unsupported) {
      // The CLI's own words and code for a subtype it does not know (protocol page §3.2).
      return options.send(
        Lines.controlError(requestId, `Unsupported control request subtype: ${unsupported.subtype}`, "unsupported_request")
      )
    }
    return options.send(Lines.controlError(requestId, errorText(exit.cause as Cause.Cause<ClaudeError.ClaudeError>)))
  }

  const handle = (
    requestId: string,
    request: Record<string, unknown>,
    unreadable: string | undefined
  ): Effect.Effect<unknown, ClaudeError.ClaudeError | Unsupported> => {
    const subtype = String(request.subtype)
    // Own keys only: a subtype such as `constructor` names no handler.
    const handler = Object.hasOwn(options.handlers, subtype) ? options.handlers[subtype] : undefined
    if (handler === undefined) {
      return Effect.logWarning(`The CLI sent a control request the library does not handle: ${subtype}`).pipe(
        Effect.andThen(Effect.fail(new Unsupported(subtype)))
      )
    }
    // The CLI waits for this call (and for nothing its fibers do once it answered).
    const serving = { session: options.session, open: true }
    return Effect.scoped(Effect.suspend(() => handler(request, requestId, unreadable))).pipe(
      Effect.provideService(ServingTheCli, serving),
      Effect.ensuring(Effect.sync(() => {
        serving.open = false
      }))
    )
  }

  const dispatch: Incoming["dispatch"] = (requestId, request, parent, unreadable) => {
    const subtype = String(request.subtype)
    const { tracing } = options
    const named = tracing?.requestSpan(requestId, request) ?? {
      name: `claude.control_request ${subtype}`,
      attributes: { "claude.request_id": requestId, "claude.subtype": subtype }
    }
    const call = handle(requestId, request, unreadable).pipe(
      Effect.exit,
      // Interruption of this fiber (a control_cancel_request) skips the answer: the CLI has
      // stopped waiting for it.
      Effect.flatMap((exit) => {
        const annotated = tracing === undefined ? Effect.void : Effect.annotateCurrentSpan(tracing.answered(request, exit))
        if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return annotated
        return Effect.andThen(annotated, answer(requestId, exit)).pipe(
          // Not sent: the session is closing (stdin closed), or a defect, which is logged.
          Effect.catchCause((cause) =>
            Cause.hasDies(cause)
              ? Effect.logWarning(`Answering the CLI's ${subtype} request ${requestId} failed`, cause)
              : Effect.void
          ),
          // The span ends as the request did: failed when the CLI was answered with an error.
          Effect.andThen(Exit.isFailure(exit) ? Effect.failCause(exit.cause) : Effect.void)
        )
      }),
      // No success value, and the CLI's and the model's texts left out without `TraceContent`.
      SpanExits.withSpan(named.name, {
        attributes: named.attributes,
        ...(parent === undefined ? {} : { parent })
      }),
      // The failure was answered: nothing more to do.
      Effect.catchCause(() => Effect.void)
    )
    run(requestId, subtype, call)
  }

  const reject: Incoming["reject"] = (requestId, description) => {
    // The CLI matches answers by the id it sent, whatever its type; a request with no id at all
    // cannot be answered, and is only reported.
    if (requestId === undefined || requestId === null) return
    // Under the id's own key: while a request of that id runs, it alone answers (one answer an id).
    run(
      String(requestId),
      "unreadable",
      options.send({
        type: "control_response",
        response: { subtype: "error", request_id: requestId as string, error: description }
      }).pipe(Effect.ignore)
    )
  }

  const cancel: Incoming["cancel"] = (requestId) => {
    // Interrupted, not awaited: a handler's clean-up runs in its own fiber, never in the reader.
    inflight.get(requestId)?.fiber.interruptUnsafe()
  }

  return { dispatch, reject, cancel }
})
