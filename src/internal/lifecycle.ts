/**
 * How a session ends, and why: one reason per death, whatever the timing.
 *
 * Invariants:
 * - `death` is set once: `ProcessExited` (code, signal, stderr tail) when the CLI exited, unless
 *   it exited cleanly (code 0) after the program had ended its input: that is the program's end
 *   of the session, `SessionClosed`, as when the program closed the session's scope first;
 *   `StdoutClosed` when its stdout ended and the process was still alive `closeGrace` later; the
 *   read failure (the transport's own error, a replay mismatch, or a defect in reading) at once
 *   when reading failed: nobody reads the CLI any more, so its exit is not waited for (the close
 *   ends it; `ended` is set when it exits). Every operation after it fails with it.
 * - The end of stdout is clean (the event streams end without error) when the program ended
 *   the CLI's input (or closed the scope) first, or the CLI exited with code 0 between turns; a
 *   CLI that died by itself (another code, a signal, stdout closed while alive, a failed read, a
 *   code 0 with a turn unfinished) fails them with the reason.
 * - Closing takes at most `closeGrace` in all: stdin EOF, then (from the transport) SIGTERM and
 *   SIGKILL within the same budget, counted from the first EOF, so a program that ended the input
 *   and waited does not wait again.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as ClaudeError from "../ClaudeError.ts"
import { type Connection, eofShare, type ExitStatus } from "../Transport.ts"
import { type ExitContext, explainExit } from "./exitReason.ts"

export class Lifecycle {
  /** False once the program ended stdin or closed the scope. */
  inputOpen = true
  /** When stdin was ended first (epoch millis), for the close budget. */
  private inputEndedAt: number | undefined
  /** Why the session can do nothing more; set once. */
  readonly death = Deferred.makeUnsafe<ClaudeError.ClaudeError>()
  /** How the CLI ended (or what closing did to it). */
  readonly ended = Deferred.makeUnsafe<ExitStatus>()
  /** Set when reading stdout failed (the transport's error, or a defect in reading), before `onStdoutEnd`. */
  readFailure: ClaudeError.ClaudeError | undefined

  /** The reason of the death, once known. */
  reason: ClaudeError.ClaudeError | undefined
  /** Set when the session ended itself (an unsupported CLI): every operation fails with it. */
  private aborted: ClaudeError.ClaudeError | undefined

  private readonly connection: Connection
  private readonly closeGrace: Duration.Duration
  private readonly exitContext: ExitContext

  constructor(connection: Connection, closeGrace: Duration.Duration, exitContext: ExitContext) {
    this.connection = connection
    this.closeGrace = closeGrace
    this.exitContext = exitContext
  }

  private die(reason: ClaudeError.ClaudeError): void {
    if (this.reason !== undefined) return
    this.reason = reason
    Deferred.doneUnsafe(this.death, Exit.succeed(reason))
  }

  /** Ends the session for `reason` (an unsupported CLI): every later operation fails with it. */
  abort(reason: ClaudeError.ClaudeError): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.aborted = reason
      this.die(reason)
      return this.endInput
    })
  }

  readonly endInput: Effect.Effect<void> = Effect.suspend(() => {
    this.inputOpen = false
    return Clock.currentTimeMillis.pipe(
      Effect.tap((now) => Effect.sync(() => this.inputEndedAt ??= now)),
      Effect.andThen(this.connection.endInput)
    )
  })

  /**
   * Called once stdout has ended, `midTurn` when a turn was unfinished then: sets the reason of
   * the death, the read failure at once, else after waiting (bounded) for the process. Returns
   * that reason when the end was not clean (reading failed, or the CLI died by itself), undefined
   * when the program had ended its input.
   */
  onStdoutEnd(midTurn: boolean): Effect.Effect<ClaudeError.ClaudeError | undefined> {
    return Effect.gen({ self: this }, function*() {
      // Read when stdout ended: an input ended after that did not end this session.
      const inputOpen = this.inputOpen
      // A failed read is the reason, whatever the process does: nobody reads it any more, so an
      // exit is not waited for here (`awaitLateExit` and the close still see it).
      if (this.readFailure !== undefined) {
        this.die(this.readFailure)
        return this.readFailure
      }
      const waited = yield* this.connection.exit.pipe(Effect.timeoutOption(this.closeGrace))
      // The clean exit the program asked for (it ended the input) is the program's end of the
      // session: what still waited fails with `SessionClosed`, not as if the CLI had died.
      const asked = !inputOpen && Option.isSome(waited) && waited.value.code === 0
      const cause = asked
        ? ClaudeError.make(new ClaudeError.SessionClosed({ operation: "the session's input ended" }))
        : Option.isSome(waited)
        ? ClaudeError.make(explainExit(waited.value, this.exitContext))
        : ClaudeError.make(new ClaudeError.StdoutClosed({ waitedMillis: Duration.toMillis(this.closeGrace) }))
      this.die(cause)
      if (Option.isSome(waited)) Deferred.doneUnsafe(this.ended, Exit.succeed(waited.value))
      // Died by itself: stdout closed under a live process, or an exit that was not a clean one
      // (code 0 between turns) while the program still had the input open.
      const clean = Option.isSome(waited) && waited.value.code === 0 && !midTurn
      return inputOpen && !clean ? cause : undefined
    })
  }

  /**
   * After {@link onStdoutEnd}: a process still alive then (its stdout closed early, or held open
   * by another process) ends `ended` (and so `Session.exit`) when it does exit, not only at the
   * close.
   */
  readonly awaitLateExit: Effect.Effect<void> = Effect.suspend(() =>
    Deferred.isDoneUnsafe(this.ended)
      ? Effect.void
      : Effect.flatMap(this.connection.exit, (status) => Deferred.succeed(this.ended, status))
  )

  /**
   * The error of an operation that cannot be done: `SessionClosed` when the program ended the
   * input (or closed the session), else the reason of the CLI's death, once known.
   */
  failure(operation: string): Effect.Effect<never, ClaudeError.ClaudeError> {
    if (this.aborted !== undefined) return Effect.fail(this.aborted)
    const closed = ClaudeError.make(new ClaudeError.SessionClosed({ operation }))
    if (!this.inputOpen) return Effect.fail(closed)
    return Effect.flatMap(
      Deferred.await(this.death).pipe(Effect.timeoutOption(this.closeGrace)),
      (death) =>
        Effect.fail(
          Option.isSome(death) && death.value.reason._tag !== "SessionClosed" ? death.value : closed
        )
    )
  }

  /**
   * The scope's finalizer: ends stdin, and lets the reader serve the CLI's last lines (a Stop
   * hook) for the EOF share of the close budget; the transport then escalates within the rest.
   */
  readonly close: Effect.Effect<void> = Effect.gen({ self: this }, function*() {
    yield* this.endInput
    const now = yield* Clock.currentTimeMillis
    const budget = eofShare(this.closeGrace) - (now - (this.inputEndedAt ?? now))
    // The reader's end (its last lines served), or the process's exit when something else holds
    // its stdout open (then the reader gets a moment for what is buffered).
    const exited = Effect.tap(
      this.connection.exit,
      () => Deferred.await(this.ended).pipe(Effect.timeoutOption(Duration.millis(200)))
    )
    const status = yield* Effect.raceFirst(Deferred.await(this.ended), exited).pipe(
      Effect.timeoutOption(Duration.millis(Math.max(0, budget)))
    )
    if (Option.isSome(status)) Deferred.doneUnsafe(this.ended, Exit.succeed(status.value))
    this.die(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "the session's scope closed" })))
    // Not exited within the EOF share: the transport's finalizer, next, ends it.
    Deferred.doneUnsafe(this.ended, Exit.succeed({
      code: null,
      signal: "SIGTERM",
      stderrTail: `(the CLI did not exit within its share of closeGrace (${Duration.format(this.closeGrace)}) after stdin EOF; the transport ended it)`
    }))
  })
}
