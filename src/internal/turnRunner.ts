/**
 * User turns: `send`, `turn`, `run` and `interrupt`.
 *
 * Invariants:
 * - Every user message carries a uuid (the caller's, or a fresh one) and is registered with
 *   `Turns` before it is written, so its events and result can only go to it.
 * - `turn`s are written one after another (the next once the previous one's stream has ended),
 *   so each is a turn of its own on the CLI; the wait for that is interruptible. `send` writes at
 *   once (the CLI queues the message), but to a CLI that echoes no uuid, which would merge queued
 *   messages into one turn: there every message waits until none of the session's is waiting on
 *   the CLI (`Turns.writable`), within the turn's `turnTimeout`; one written from a handler the
 *   CLI waits for fails instead (it would wait for itself).
 * - Interrupting a turn touches that turn alone: one still queued on the CLI is withdrawn
 *   (`cancel_async_message`), one that runs is interrupted (`interrupt`) and its result awaited;
 *   the whole is bounded by `interruptTimeout`. Nothing is sent once its result is in.
 *   `interrupt` fails when the CLI refused it (the turn runs on), never reads as done.
 * - A stall or a turn timeout fails the turn's stream at its deadline, whatever it waits for (to
 *   be written, a full pipe to drain, its result); the interrupt of the CLI then runs in the
 *   session's scope, not in the consumer's way.
 */
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import type * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"
import type { Event, TurnResult } from "../Events.ts"
import type * as Protocol from "../Protocol.ts"
import * as Control from "../protocol/control.ts"
import * as Lines from "../protocol/lines.ts"
import type { Lifecycle } from "./lifecycle.ts"
import { Mailbox } from "./mailbox.ts"
import type { Outgoing } from "./outgoing.ts"
import { ServingTheCli } from "./services.ts"
import type { Write } from "./stdinWriter.ts"
import type { SessionTracing } from "./tracing.ts"
import { outcomeOf, type Turn, type Turns } from "./turns.ts"
import { userTurnProblem } from "./userTurn.ts"

/** A user turn: text, or text with images and the caller's uuid. */
export type TurnInput = string | Protocol.UserTurnInput

export interface TurnRunnerOptions {
  readonly turns: Turns
  readonly outgoing: Outgoing
  readonly lifecycle: Lifecycle
  readonly write: Write
  /** Every user turn as written, unless it says otherwise (`SessionOptions.verbatimPrompts`). */
  readonly verbatimPrompts: boolean
  /** Done once user lines may be written; a failure fails the write with it. */
  readonly ready: Effect.Effect<void, ClaudeError.ClaudeError>
  /** The session's scope: where abandoned turns are interrupted; closed means closing. */
  readonly scope: Scope.Scope
  readonly interruptTimeout: Duration.Duration
  readonly stallTimeout: Duration.Duration | undefined
  readonly turnTimeout: Duration.Duration | undefined
  /**
   * When the CLI last wrote anything, or last got an answer from one of the program's handlers
   * (epoch millis); now while one runs (the CLI waits for it).
   */
  readonly lastActivity: () => number
  /** The session's spans: a turn's span is under the caller's span, else the session's. */
  readonly tracing?: { readonly sessionSpan: Tracer.AnySpan; readonly spans: SessionTracing } | undefined
  /**
   * What a turn's result becomes before its stream (and `run`) gives it, or why the turn fails
   * there (the session's structured output, `internal/structuredOutput.ts`).
   */
  readonly decodeResult?: ((result: TurnResult) => Result.Result<TurnResult, ClaudeError.ClaudeError>) | undefined
}

export interface TurnRunner {
  readonly send: (input: TurnInput) => Effect.Effect<string, ClaudeError.ClaudeError>
  readonly turn: (input: TurnInput) => Stream.Stream<Event, ClaudeError.ClaudeError>
  readonly run: (input: TurnInput) => Effect.Effect<TurnResult, ClaudeError.ClaudeError>
  readonly interrupt: Effect.Effect<void, ClaudeError.ClaudeError>
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))
const timedOut = (timeoutMillis: number) => ClaudeError.make(new ClaudeError.TurnTimedOut({ timeoutMillis }))
const stalled = (idleMillis: number) => ClaudeError.make(new ClaudeError.Stalled({ idleMillis }))

/** What bounds a message's wait to be written (`whenWritable`); a `send` has no deadline. */
interface TurnLimits {
  /** The turn's `turnTimeout`, counted from its start. */
  readonly deadline?: { readonly at: number; readonly timeoutMillis: number } | undefined
  /** The session's `stallTimeout`, in ms. */
  readonly stallMillis?: number | undefined
}

export const make = Effect.fnUntraced(function*(options: TurnRunnerOptions): Effect.fn.Return<TurnRunner> {
  const { lifecycle, outgoing, turns } = options
  const lock = yield* Semaphore.make(1)
  /**
   * The uuids of the user messages handed to the CLI that the program had (it gave them, or
   * `send` returned them): the CLI drops a message under a uuid it has seen.
   */
  const writtenUuids = new Set<string>()
  /** Done when the last abandoned turn is over on the CLI (`interruptTurn` bounds it). */
  let settling: Deferred.Deferred<void> | undefined

  /** A turn's span is a child of the caller's span, or of the session's when the caller has none. */
  const turnSpanOptions: Effect.Effect<Tracer.SpanOptionsNoTrace> = options.tracing === undefined
    ? Effect.succeed({})
    : Effect.map(Effect.serviceOption(Tracer.ParentSpan), (parent) =>
      Option.isSome(parent) ? {} : { parent: options.tracing!.sessionSpan })

  /**
   * Done (with the silence in ms) once the CLI has written nothing for `limit` ms, counted from
   * `since` at the earliest.
   */
  const silence = Effect.fnUntraced(function*(limit: number, since: number) {
    const clock = yield* Clock.Clock
    while (true) {
      const idle = clock.currentTimeMillisUnsafe() - Math.max(options.lastActivity(), since)
      if (idle >= limit) return idle
      yield* Effect.sleep(Duration.millis(limit - idle))
    }
  })

  /**
   * `effect` within the turn's limits: its `turnTimeout`'s deadline (`TurnTimedOut`), and the
   * session's `stallTimeout` (the CLI silent that long meanwhile: `Stalled`); interrupted past one.
   */
  const withinTurnLimits = <A>(effect: Effect.Effect<A, ClaudeError.ClaudeError>, limits: TurnLimits) => {
    const { deadline, stallMillis } = limits
    if (deadline === undefined && stallMillis === undefined) return effect
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const unstalled = stallMillis === undefined ? effect : Effect.raceFirst(
        effect,
        Effect.flatMap(silence(stallMillis, now), (idle) => Effect.fail(stalled(idle)))
      )
      return deadline === undefined ? unstalled : Effect.timeoutOrElse(unstalled, {
        duration: Duration.millis(Math.max(0, deadline.at - now)),
        orElse: () => Effect.fail(timedOut(deadline.timeoutMillis))
      })
    })
  }

  /**
   * Waits until {@link Turns.writable} may hold, within the turn's limits: its `turnTimeout`'s
   * deadline, which covers the wait, and the session's `stallTimeout` (the CLI silent that long
   * while the turn waits: `Stalled`). Fails at once in a fiber that serves the CLI: the turn it
   * would wait for is waiting for it.
   */
  const whenWritable = (limits: TurnLimits) =>
    Effect.flatMap(Effect.service(ServingTheCli), (serving): Effect.Effect<void, ClaudeError.ClaudeError> => {
      if (serving !== undefined && serving.open && serving.session === lifecycle) {
        return Effect.fail(invalid(
          "a user message written while the CLI waits for this handler, on a CLI that takes one message at a time " +
            "(it echoes no uuid), would wait for the turn that waits for the handler: write it after the handler answered"
        ))
      }
      const waiter = turns.whenWritable()
      return withinTurnLimits(
        Effect.onInterrupt(Deferred.await(waiter), () => Effect.sync(() => turns.forgetWaiter(waiter))),
        limits
      )
    })

  /**
   * Registers `turn` (if any) and writes the user message; a turn not written is withdrawn. One
   * interrupted once its line was handed over (while a full pipe drains) is the CLI's: it is
   * given to `written`, for the caller to interrupt on the CLI.
   */
  const write = (
    input: TurnInput,
    operation: string,
    turn?: (uuid: string) => Turn,
    written?: (turn: Turn) => void,
    limits: TurnLimits = {}
  ): Effect.Effect<string, ClaudeError.ClaudeError> =>
    Effect.suspend((): Effect.Effect<string, ClaudeError.ClaudeError> => {
      if (!lifecycle.inputOpen || lifecycle.reason !== undefined) return lifecycle.failure(operation)
      const turnInput = typeof input === "string" ? { text: input } : input
      const problem = userTurnProblem(turnInput)
      if (problem !== undefined) return Effect.fail(invalid(problem))
      // Not a boolean (from JavaScript): the line would go without `client_composed`, and the
      // CLI would read the `@path` mentions the program meant to keep out.
      const verbatim: unknown = turnInput.verbatim
      if (verbatim !== undefined && typeof verbatim !== "boolean") {
        return Effect.fail(invalid(`verbatim must be a boolean (got a ${typeof verbatim})`))
      }
      // Two open turns under one uuid: the CLI's echoes could not tell them apart. And CLI 2.1.332
      // drops, without a word, a user message whose uuid it has seen in the session: a turn
      // written under an earlier turn's uuid would never end.
      if (turnInput.uuid !== undefined && turns.isOpen(turnInput.uuid)) {
        return Effect.fail(invalid(`uuid ${turnInput.uuid} is the uuid of a turn that has not ended`))
      }
      if (turnInput.uuid !== undefined && writtenUuids.has(turnInput.uuid)) {
        return Effect.fail(invalid(
          `uuid ${turnInput.uuid} is the uuid of an earlier user message of this session, which the CLI would drop ` +
            `without a word (the turn would never end): give each message a uuid of its own`
        ))
      }
      // A CLI that echoes no uuid gets one message at a time (`Turns.whenWritable`): checked and
      // registered in one step, so that of two writers woken together one goes, one waits again.
      if (!turns.writable()) {
        return Effect.andThen(whenWritable(limits), write(input, operation, turn, written, limits))
      }
      const uuid = turnInput.uuid ?? crypto.randomUUID()
      const registered = turn?.(uuid) ?? newTurn(uuid, undefined, undefined)
      turns.register(registered)
      let handedOver = false
      return options.ready.pipe(
        // Uninterruptible up to the transport's wait for a full pipe to drain, so that an
        // interruption finds the line either handed over or not written at all.
        Effect.andThen(Effect.uninterruptible(Effect.suspend(() => {
          handedOver = true
          // Those the program had: it gave it, or `send` hands it back. A uuid the library made for
          // `turn`/`run` is not kept: one a turn long session would keep them all, old.
          if (turnInput.uuid !== undefined || operation === "send") writtenUuids.add(uuid)
          return options.write(Lines.userTurn({ ...turnInput, uuid, verbatim: turnInput.verbatim ?? options.verbatimPrompts }))
        }))),
        Effect.as(uuid),
        // Not written (a failure, a defect, or the caller gave up waiting for `ready`): never left
        // open, where a CLI that echoes no uuid would give it the next turn's result, and would
        // hold every later message back (`Turns.writable`). One finalizer, as the interruption's
        // was: a failure is withdrawn with its error below; a defect (a throw before the line was
        // sent) and an interruption before the hand-over here.
        Effect.onExit((exit) => {
          if (Exit.isSuccess(exit) || Cause.hasFails(exit.cause)) return Effect.void
          return Effect.sync(() => {
            if (handedOver && !Cause.hasDies(exit.cause)) written?.(registered)
            else turns.withdraw(registered, ClaudeError.make(new ClaudeError.TurnCancelled({ uuid: registered.uuid })))
          })
        }),
        Effect.catch((error) => {
          turns.withdraw(registered, error)
          return error.reason._tag === "SessionClosed" ? lifecycle.failure(operation) : Effect.fail(error)
        })
      )
    })

  // The generator functions below are made once per session (`Effect.fnUntraced`), never per
  // call: each new generator function has a prototype object of its own, and V8 records every
  // new prototype in a weak list that only a full GC compacts (8-10 bytes a turn, copied through
  // every scavenge of a long session; `test/TurnHeapLive.test.ts`).

  /**
   * The interrupt of `turn`'s CLI turn, naming its messages (the CLI's turn may answer several:
   * those running with it, the one that opened it first), so that a CLI which has ended that turn
   * and started the next spares the next (CLI 2.1.332; older CLIs ignore the names).
   */
  const interruptOf = (turn: Turn): Control.InterruptRequest => {
    const running = turns.current
    const uuids = running.includes(turn) ? running.slice(0, 8).map((each) => each.uuid) : [turn.uuid]
    if (!uuids.includes(turn.uuid)) uuids[uuids.length - 1] = turn.uuid
    return { subtype: "interrupt", for_user_message_uuids: uuids }
  }

  /** Withdraws `turn` if the CLI has not started it, else interrupts it; waits for its end. */
  const interruptOnCli = Effect.fnUntraced(function*(turn: Turn) {
    if (!Deferred.isDoneUnsafe(turn.started)) {
      // Moot once the CLI started the turn (CLI 2.1.0 never answers the request): the rest of the
      // read that started it, which may hold the answer and the turn's result, is routed first.
      const withdrawn = yield* Effect.raceFirst(
        outgoing.request(
          { subtype: "cancel_async_message", message_uuid: turn.uuid },
          Control.CancelAsyncMessageResponse
        ).pipe(Effect.map((answer) => answer.cancelled), Effect.orElseSucceed(() => false)),
        Effect.as(Effect.andThen(Deferred.await(turn.started), Effect.yieldNow), false)
      )
      if (withdrawn) {
        turns.withdraw(turn, ClaudeError.make(new ClaudeError.TurnCancelled({ uuid: turn.uuid })))
        return
      }
      // Started, merged into the running turn, or an older CLI: wait until it runs.
      yield* Deferred.await(turn.started)
    }
    // Its result may be routed in the read that woke this, and completed only once it is published.
    if (Deferred.isDoneUnsafe(turn.result) || turns.hasEnded(turn)) return
    yield* outgoing.request(interruptOf(turn), Control.InterruptResponse)
    yield* Effect.exit(Deferred.await(turn.result))
  })

  /** Interrupts `standIn`'s CLI turn once the CLI starts it, in the session's scope; never fails. */
  const interruptWhenStarted = (standIn: Turn): Effect.Effect<void> =>
    Effect.asVoid(Effect.forkIn(
      Deferred.await(standIn.started).pipe(
        Effect.andThen(outgoing.request(interruptOf(standIn), Control.InterruptResponse, options.interruptTimeout)),
        Effect.catchCause((cause) => Effect.logWarning(`interrupting the given-up turn ${standIn.uuid} failed`, cause))
      ),
      options.scope
    ))

  /**
   * {@link interruptOnCli}, bounded by `interruptTimeout` (past it the turn is given up); fails as
   * its `interrupt` request did (the CLI refused it: the turn runs on).
   */
  const interruptTurnOrFail = (turn: Turn): Effect.Effect<void, ClaudeError.ClaudeError> =>
    interruptOnCli(turn).pipe(
      Effect.timeoutOption(options.interruptTimeout),
      Effect.flatMap((done) => {
        if (Option.isSome(done)) return Effect.void
        // Given up: the turn ends here, and its late result (if any) goes to `events` only and
        // never ends a later turn (`Turns.giveUp`).
        const standIn = turns.giveUp(
          turn,
          ClaudeError.make(
            new ClaudeError.TurnCancelled({ uuid: turn.uuid, gaveUpAfterMillis: Duration.toMillis(options.interruptTimeout) })
          )
        )
        const warned = Effect.logWarning(
          `the interrupted turn ${turn.uuid} did not end within ${Duration.format(options.interruptTimeout)}`
        )
        // Not started yet (a CLI that cannot withdraw it): interrupted when it starts, so that it
        // does not run through; nothing is written meanwhile (`Turn.interruptOnStart`).
        return standIn?.interruptOnStart === true ? Effect.andThen(warned, interruptWhenStarted(standIn)) : warned
      })
    )

  /** {@link interruptTurnOrFail} where no one can be told (a finalizer, the background); never fails. */
  const interruptTurn = (turn: Turn): Effect.Effect<void> =>
    interruptTurnOrFail(turn).pipe(
      Effect.catchCause((cause) => Effect.logWarning(`interrupting turn ${turn.uuid} failed`, cause))
    )

  /**
   * Fails the turn's stream now; the CLI's turn is interrupted in the session's scope. The
   * interrupt is forked first: failing the queue can wake the consumer at once, whose scope then
   * interrupts the watchdog fiber running this.
   */
  const abandon = (turn: Turn, error: ClaudeError.ClaudeError) =>
    Effect.suspend(() => {
      if (turn.abandoned || Deferred.isDoneUnsafe(turn.result)) return Effect.void
      turn.abandoned = true
      // The next turn is written once this one is over on the CLI (or given up), so that the CLI
      // never merges the two and the interrupt never lands on the next one.
      const over = Deferred.makeUnsafe<void>()
      settling = over
      return Effect.forkIn(Effect.ensuring(interruptTurn(turn), Deferred.succeed(over, undefined)), options.scope).pipe(
        Effect.andThen(Effect.sync(() => {
          if (turn.queue !== undefined) {
            turn.queue.failCause(Cause.fail(error))
            turn.queue.wake()
          }
        })),
        Effect.uninterruptible
      )
    })

  const watchStall = (turn: Turn, limit: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (since) =>
      Effect.flatMap(silence(limit, since), (idle) => abandon(turn, stalled(idle))))

  /** Whether nothing is to be done for a turn whose stream ended: over, given up, or no CLI to tell. */
  const settled = (turn: Turn): boolean =>
    Deferred.isDoneUnsafe(turn.result) || turns.hasEnded(turn) || turn.abandoned || !lifecycle.inputOpen ||
    lifecycle.reason !== undefined || options.scope.state._tag === "Closed"

  /** When a turn's stream ends before its result: interrupt it, unless nothing is to be done. */
  const settle = (turn: Turn) => Effect.suspend(() => settled(turn) ? Effect.void : interruptTurn(turn))

  /** Opens a turn in its stream's `scope`: waits for its slot, registers and writes it, and returns its stream. */
  const openTurn = Effect.fnUntraced(function*(
    input: TurnInput,
    operation: string,
    scope: Scope.Scope,
    restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  ) {
    yield* restore(Semaphore.take(lock, 1))
    // One finalizer for the turn's stream (one is cheaper to run than three, on every turn):
    // the turn is settled (interrupted on the CLI if its stream ended before its result), then
    // its span ends, then the next turn may be written. A turn whose result is in (the common
    // end) has nothing to settle: its span ends and its slot is freed in one step.
    let span: Tracer.Span | undefined
    let current: Turn | undefined
    // The turn's context: a turn settled on the CLI is interrupted in it (its control request's
    // span under the consumer's), not in that of the fiber that closes the stream's scope.
    const context = yield* Effect.context<never>()
    const clock = Context.get(context, Clock.Clock)
    const endSpan = (exit: Exit.Exit<unknown, unknown>) => {
      if (span === undefined || span.status._tag === "Ended") return
      const result = current === undefined ? undefined : outcomeOf(current)
      span.end(clock.currentTimeNanosUnsafe(), options.tracing?.spans.turnEnded(span, result, exit) ?? exit)
    }
    yield* Scope.addFinalizerExit(scope, (exit) => {
      if (current === undefined || settled(current)) {
        // The slot is freed whatever the span's end does (a program's tracer may throw there).
        try {
          endSpan(exit)
        } catch (defect) {
          return Effect.andThen(Semaphore.release(lock, 1), Effect.die(defect))
        }
        return Semaphore.release(lock, 1)
      }
      return settle(current).pipe(
        // Under the consumer's span; with none, under the turn's (not a trace of its own).
        span !== undefined && Option.isNone(Context.getOption(context, Tracer.ParentSpan))
          ? Effect.withParentSpan(span)
          : identity,
        Effect.provideContext(context),
        Effect.ensuring(Effect.sync(() => endSpan(exit))),
        Effect.ensuring(Semaphore.release(lock, 1))
      )
    })
    if (settling !== undefined) yield* restore(Deferred.await(settling))
    span = yield* Effect.makeSpan("claude.turn", yield* turnSpanOptions)
    options.tracing?.spans.turnStarted(span, input)
    const queue = new Mailbox<Event, ClaudeError.ClaudeError>()
    let registered: Turn | undefined
    // One deadline for the turn, from here: it covers a wait to be written (`whenWritable`).
    const deadline = options.turnTimeout === undefined ? undefined : {
      at: clock.currentTimeMillisUnsafe() + Duration.toMillis(options.turnTimeout),
      timeoutMillis: Duration.toMillis(options.turnTimeout)
    }
    // The limits cover the whole write: its wait to be written, and its wait for a full pipe to
    // drain (a large message to a CLI that stopped reading). Past one there, a line handed over
    // (`written`) is the CLI's: abandoned, interrupted there in the background.
    const uuid = yield* restore(
      withinTurnLimits(write(input, operation, (uuid) => registered = newTurn(uuid, queue, span), (turn) => current = turn), {
        deadline,
        stallMillis: options.stallTimeout === undefined ? undefined : Duration.toMillis(options.stallTimeout)
      })
    ).pipe(Effect.tapError((error) => current === undefined ? Effect.void : abandon(current, error)))
    span.attribute("claude.user_message_uuid", uuid)
    // Settled by the finalizer from here (or from `write`, when interrupted once the line was
    // handed over); a turn not written was withdrawn by `write`.
    current = registered!
    if (options.stallTimeout !== undefined) {
      yield* Effect.forkIn(watchStall(current, Duration.toMillis(options.stallTimeout)), scope)
    }
    if (deadline !== undefined) {
      yield* Effect.forkIn(
        Effect.andThen(
          Effect.sleep(Duration.millis(Math.max(0, deadline.at - clock.currentTimeMillisUnsafe()))),
          abandon(current, timedOut(deadline.timeoutMillis))
        ),
        scope
      )
    }
    return options.decodeResult === undefined ? queue.pull : decodingResult(queue.pull, options.decodeResult)
  })

  /**
   * The pull of one run of a turn's stream: the turn opens at the first pull (in the stream's
   * scope, where its finalizer goes), then each pull reads its mailbox.
   */
  const turnPull = (input: TurnInput, operation: string, scope: Scope.Scope): Pull.Pull<[Event, ...Array<Event>], ClaudeError.ClaudeError> => {
    let pull: Pull.Pull<[Event, ...Array<Event>], ClaudeError.ClaudeError> | undefined
    return Effect.suspend(() =>
      pull ?? Effect.flatMap(
        Effect.uninterruptibleMask((restore) => openTurn(input, operation, scope, restore)),
        (opened) => (pull = opened)
      )
    )
  }

  // One channel a turn, whose transform holds the input alone: what a run makes (the mailbox, the
  // turn, its span) is reachable from the run's pull only. `Stream.unwrap` over the mailbox's
  // `stream` made two channels a turn, and Effect's `Channel.fromTransform` writes its closure
  // straight into a property, which V8 allocates in the old generation: through it each turn's
  // mailbox and stream outlived every scavenge (`test/TurnHeapLive.test.ts`).
  const turn = (input: TurnInput, operation = "turn"): Stream.Stream<Event, ClaudeError.ClaudeError> =>
    Stream.fromChannel(Channel.fromTransform((_upstream, scope) => Effect.sync(() => turnPull(input, operation, scope))))

  const run = (input: TurnInput) =>
    turn(input, "run").pipe(
      Stream.runLast,
      Effect.flatMap((last) =>
        Option.isSome(last) && last.value.type === "result"
          ? Effect.succeed(last.value as TurnResult)
          : lifecycle.failure("run")
      )
    )

  const interrupt = Effect.suspend(() => {
    // After `endInput` nothing reaches the CLI: `SessionClosed`, as for a turn.
    if (!lifecycle.inputOpen) return lifecycle.failure("interrupt")
    // A refusal fails it, as with none running: the program is never told a turn was
    // interrupted while it runs on.
    const running = turns.current
    if (running.length > 0) return interruptTurnOrFail(running[0]!)
    // None runs, but one is written and not started yet (a Ctrl-C right after the prompt): it is
    // withdrawn, or interrupted once it starts, as when its fiber is interrupted. A bare
    // `interrupt` left it queued, and it ran to its end.
    const next = turns.next
    if (next !== undefined) return interruptTurnOrFail(next)
    return Effect.asVoid(outgoing.request({ subtype: "interrupt" }, Control.InterruptResponse, options.interruptTimeout))
  })

  // A `send` waits to be written within the session's `stallTimeout` too (it has no deadline).
  const sendLimits: TurnLimits = {
    stallMillis: options.stallTimeout === undefined ? undefined : Duration.toMillis(options.stallTimeout)
  }
  return { send: (input) => write(input, "send", undefined, undefined, sendLimits), turn: (input) => turn(input), run, interrupt }
})

/**
 * `pull` with the result decoded by `decode`, in the batch that brings it (no effect an event, no
 * stream stage a turn). A result it refuses fails the turn there: the events before it in its
 * batch are given first, then the failure.
 */
const decodingResult = (
  pull: Pull.Pull<[Event, ...Array<Event>], ClaudeError.ClaudeError>,
  decode: (result: TurnResult) => Result.Result<TurnResult, ClaudeError.ClaudeError>
): Pull.Pull<[Event, ...Array<Event>], ClaudeError.ClaudeError> => {
  let failure: ClaudeError.ClaudeError | undefined
  return Effect.suspend(() =>
    failure !== undefined ? Effect.fail(failure) : Effect.flatMap(pull, (batch) => {
      const at = batch.findIndex((event) => event.type === "result")
      if (at === -1) return Effect.succeed(batch)
      const decoded = decode(batch[at] as TurnResult)
      if (Result.isFailure(decoded)) {
        // Every later pull fails with it too.
        failure = decoded.failure
        return at === 0 ? Effect.fail(failure) : Effect.succeed(batch.slice(0, at) as [Event, ...Array<Event>])
      }
      // The batch is the pull's own (the mailbox hands over its array and starts a new one).
      batch[at] = decoded.success
      return Effect.succeed(batch)
    })
  )
}

const newTurn = (
  uuid: string,
  queue: Turn["queue"],
  span: Turn["span"]
): Turn => ({
  uuid,
  queue,
  span,
  result: Deferred.makeUnsafe<TurnResult, ClaudeError.ClaudeError>(),
  started: Deferred.makeUnsafe<void>(),
  abandoned: false,
  batch: []
})
