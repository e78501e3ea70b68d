/**
 * Reading the CLI's stdout for the life of a session, and what its end settles.
 *
 * Invariants:
 * - The read loop is forked before the close's finalizer is added: a scope runs its finalizers
 *   last first, so the close (stdin EOF, then the wait for the EOF share of `closeGrace`) runs
 *   while the loop still serves the CLI's last lines (a Stop hook) as it exits; the loop is
 *   stopped after, before the transport's own finalizer signals a CLI still running.
 * - Whichever ends first, stdout or the session's scope, everything still waiting fails with the
 *   lifecycle's reason and the event streams end (failed with the reason when the CLI died by
 *   itself); `settle` is idempotent, both ends run it.
 * - A transport that fails its stream with a `ClaudeError` (a replay mismatch) is the reason of
 *   the end, and a defect in reading is one too (a `ProtocolViolation` naming it): what waits
 *   fails with it at once, not after `closeGrace` (the CLI, no longer read, is ended by the close);
 *   a defect in reading the last lines is logged and the session still ends, never hangs.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Events from "../Events.ts"
import type { Connection } from "../Transport.ts"
import { describeCause } from "./describeCause.ts"
import type { Lifecycle } from "./lifecycle.ts"
import type { Outgoing } from "./outgoing.ts"
import type { Reader } from "./reader.ts"
import type { Subscribers } from "./subscribers.ts"
import type { SessionTracing } from "./tracing.ts"
import type { Turns } from "./turns.ts"

export interface ReadLoopInput {
  readonly connection: Connection
  readonly reader: Reader
  readonly lifecycle: Lifecycle
  readonly outgoing: Outgoing
  readonly turns: Turns
  /** The session's id, failed with the reason if the CLI never told it. */
  readonly sessionId: Deferred.Deferred<string, ClaudeError.ClaudeError>
  readonly subscribers: Subscribers<Events.Event>
  readonly tracing: SessionTracing
}

export interface ReadLoopHandle {
  /** When the CLI last wrote anything (epoch millis): what a turn's stall is measured from. */
  readonly lastActivity: () => number
}

/** Forks the read loop in the session's scope and adds the close, in that order (see above). */
export const start = Effect.fnUntraced(function*(input: ReadLoopInput): Effect.fn.Return<ReadLoopHandle, never, Scope.Scope> {
  const { connection, lifecycle, reader } = input
  const clock = yield* Clock.Clock
  let lastActivity = clock.currentTimeMillisUnsafe()

  yield* connection.incoming.pipe(
    Stream.runForEachArray((chunks) => {
      lastActivity = clock.currentTimeMillisUnsafe()
      reader.push(chunks)
      return Effect.void
    }),
    // Any failure is the reason of the end, a defect too (a throw from the program's code the
    // reader calls): never `StdoutClosed`, which blames the CLI for what it did not do.
    Effect.catchCause((cause) => {
      const failure = cause.reasons.find(Cause.isFailReason)?.error
      lifecycle.readFailure = ClaudeError.isClaudeError(failure) ? failure : ClaudeError.make(
        new ClaudeError.ProtocolViolation({ description: `reading the CLI's stdout failed: ${describeCause(cause)}`, line: "" })
      )
      return Effect.logWarning("reading the CLI's stdout failed", cause)
    }),
    Effect.andThen(Effect.sync(() => reader.end()).pipe(
      Effect.catchCause((cause) => Effect.logError("reading the CLI's last lines failed", cause))
    )),
    Effect.andThen(stdoutEnded(input)),
    Effect.forkScoped
  )
  // A CLI that has not exited by the end of the EOF share is ended by the transport: the loop is
  // stopped before, so what waits is settled here.
  yield* Effect.addFinalizer(() =>
    Effect.andThen(
      lifecycle.close,
      Effect.sync(() => {
        settle(input, lifecycle.reason!, undefined)
        input.tracing.ended(lifecycle.reason)
      })
    )
  )
  return { lastActivity: () => lastActivity }
})

/** stdout ended: the lifecycle tells why, what waits is settled, and the CLI's exit awaited. */
const stdoutEnded = Effect.fnUntraced(function*(input: ReadLoopInput) {
  const { lifecycle, reader, turns } = input
  // Read first: `settle` ends the turns. A CLI that exits cleanly by itself mid-turn died.
  const crash = yield* lifecycle.onStdoutEnd(turns.unfinished)
  settle(input, lifecycle.reason!, crash)
  // The turn the CLI ran ends here, not at the close: its spans end, failed with the session's
  // reason (a clean exit while the program still had the input open is one too).
  input.tracing.turnOver(lifecycle.reason)
  if (reader.skippedLines > 0) yield* Effect.logDebug(`skipped ${reader.skippedLines} non-JSON lines from the CLI`)
  if (reader.unmatchedAnswers > 0) {
    yield* Effect.logDebug(`${reader.unmatchedAnswers} control responses answered no pending request`)
  }
  yield* lifecycle.awaitLateExit
})

/** Fails what waits with `reason`; the event streams end, failed with `crash` if there is one. */
const settle = (
  { outgoing, sessionId, subscribers, turns }: ReadLoopInput,
  reason: ClaudeError.ClaudeError,
  crash: ClaudeError.ClaudeError | undefined
): void => {
  outgoing.failAll(reason)
  turns.failAll(reason)
  if (!Deferred.isDoneUnsafe(sessionId)) Deferred.doneUnsafe(sessionId, Exit.fail(reason))
  subscribers.end(crash)
}
