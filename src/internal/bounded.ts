/**
 * An effect's outcome, or another's at a deadline, never waiting past the deadline for the effect
 * to stop: one stuck where it cannot be interrupted (an `acquireRelease`'s acquire waiting on a
 * server, `@effect/sql-pg` on a connection whose server stopped answering) is interrupted in the
 * background and may outlive its caller (a fiber, no process; its finalizers run when it stops).
 * It must touch nothing its caller releases meanwhile.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

const interruptInBackground = (fiber: Fiber.Fiber<unknown, unknown>): Effect.Effect<void> =>
  Effect.asVoid(Effect.forkDetach(Fiber.interrupt(fiber)))

/**
 * `effect`'s outcome, or `orElse`'s at `deadline`. Interrupting this interrupts `effect` too:
 * waiting for it to stop (`onInterrupt: "wait"`, its finalizers run first: a handler the session's
 * close bounds by itself), or in the background (`"background"`: nothing waits on a stuck store).
 */
export const bounded = <A, E, A2, E2>(
  effect: Effect.Effect<A, E>,
  deadline: Duration.Duration,
  orElse: () => Effect.Effect<A2, E2>,
  onInterrupt: "wait" | "background"
): Effect.Effect<A | A2, E | E2> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(effect, { startImmediately: true }), (fiber) =>
      restore(Effect.timeoutOrElse(Fiber.join(fiber), {
        duration: deadline,
        orElse: () => Effect.andThen(interruptInBackground(fiber), orElse())
      })).pipe(Effect.onInterrupt(() => onInterrupt === "wait" ? Fiber.interrupt(fiber) : interruptInBackground(fiber))))
  )
