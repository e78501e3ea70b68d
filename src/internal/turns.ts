/**
 * Which user turn each event of the CLI belongs to.
 *
 * Every user message the library writes carries a uuid, and the CLI (2.1) echoes it: a
 * `command_lifecycle` line when the message is queued, started, completed or cancelled, and
 * `user_message_uuid(s)` on `system/init`, `system/status`, `stream_event`s, `assistant` lines and
 * the `result` of the turn that answers it (several uuids when it merged queued messages into one
 * turn, or folded one into a running turn).
 *
 * Invariants:
 * - A user turn ends at the first `result` that names it, or that ends the CLI turn it ran in;
 *   a result with `origin` (a turn the CLI started by itself) ends only the user turns folded
 *   into it (those it names). On a CLI that echoes uuids, a result that names none of the
 *   running CLI turn's user messages (a late or repeated one) ends only those it names.
 * - The lines the CLI writes between the start of a CLI turn and its result go to the user turns
 *   it runs (a background task's lines that arrive then too: the protocol does not say whose
 *   they are), and to none while it is an automatic turn (a `system/init` that names no user
 *   message, from a CLI that echoes uuids; or from one that echoes none while no user turn is
 *   open: a message is registered before it is written) until a user message is folded into it.
 * - A CLI that echoes nothing (2.1.0, 2.1.200, a scripted fake) is served first in, first out: a
 *   CLI turn belongs to the oldest user turn that has not ended. Such a CLI merges the messages
 *   queued while a turn runs into one turn with one result, which could not be told apart: so a
 *   user message is written to it only once no turn of the library's is waiting there
 *   ({@link Turns.whenWritable}; one the library gave up on once the CLI started it aside), and
 *   the CLI never holds two.
 *   A turn the library gave up on (its interrupt ran past `interruptTimeout`) keeps its place
 *   there as a stand-in that delivers nowhere, so that its late lines and result never go to the
 *   next turn (started or not: nothing was merged into it); one it abandoned (timed out,
 *   stalled) holds back the next message until the CLI started it.
 * - A turn's events reach its queue in the order the CLI wrote them, the result last; the queue
 *   then ends (or fails, when the turn failed). Results are completed after the batch that holds
 *   them is published.
 * - The lines of a prompt's own hooks (`system/hook_*` of `UserPromptSubmit` and
 *   `UserPromptExpansion`, with `includeHookEvents`) come before the turn's `system/init`. Between
 *   CLI turns, on a CLI that echoes uuids, they are held until the next CLI turn starts and go to
 *   its user turns first (a CLI that writes `command_lifecycle` has started the turn already);
 *   a result or an automatic turn first drops them (they went to `events` all the same).
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Exit from "effect/Exit"
import type * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"
import type { Event, TurnResult } from "../Events.ts"
import type * as Protocol from "../Protocol.ts"
import type { Mailbox } from "./mailbox.ts"

/** One user message the library wrote, until the turn that answers it ends. */
export interface Turn {
  readonly uuid: string
  /** The turn's own events, for `turn`; undefined for `send`, whose events only go to `events`. */
  readonly queue: Mailbox<Event, ClaudeError.ClaudeError> | undefined
  /** Its result, or why it has none. */
  readonly result: Deferred.Deferred<TurnResult, ClaudeError.ClaudeError>
  /** Done once the CLI started it (or it ended without starting). */
  readonly started: Deferred.Deferred<void>
  /** The span handler calls made during this turn are parented to. */
  readonly span: Tracer.AnySpan | undefined
  /** Set when the library stopped caring for the turn's events (stalled, timed out). */
  abandoned: boolean
  /**
   * On a stand-in for a turn given up before the CLI started it: the CLI is to interrupt it when
   * it starts, so nothing is written until its result (the interrupt names no turn, and must not
   * land on the next message).
   */
  readonly interruptOnStart?: true | undefined
  /** This read's events for the queue. */
  batch: Array<Event>
}

/**
 * How `turn` ended, once its `result` is completed (with an `Exit`, in `Turns.complete`, before
 * its waiters run), read where no effect can await it.
 */
export const outcomeOf = (turn: Turn): Exit.Exit<TurnResult, ClaudeError.ClaudeError> | undefined => {
  const done = turn.result.effect
  // Its `result` is only ever completed with an `Exit` of its own types.
  return done !== undefined && Exit.isExit(done) ? done as Exit.Exit<TurnResult, ClaudeError.ClaudeError> : undefined
}

/** A message of the CLI that is an event (everything but the control channel's own lines). */
export type Message = Exclude<Event, TurnResult | Protocol.ResultMessage> | Protocol.ResultMessage

export interface TurnsOptions {
  /**
   * The result with its turn's usage, kind (`automatic`: the CLI started it by itself) and uuids;
   * `closes`: whether it ends the running CLI turn (a late result, naming none of its messages,
   * does not).
   */
  readonly toTurnResult: (
    result: Protocol.ResultMessage,
    userMessageUuids: ReadonlyArray<string>,
    automatic: boolean,
    closes: boolean
  ) => TurnResult
  /** How a result ends its turn's queue: cleanly, or failed after the result (a failed turn). */
  readonly verdict: (result: TurnResult) => ClaudeError.ClaudeError | undefined
  /**
   * A CLI turn ended without a result to read (`failCurrent`): what was asked of it (an
   * interrupt) is forgotten there, as `toTurnResult` forgets it at a result.
   */
  readonly unreadResult?: (() => void) | undefined
}

interface UuidCarrier {
  readonly user_message_uuid?: string | undefined
  readonly user_message_uuids?: ReadonlyArray<string> | undefined
}

/**
 * `command_lifecycle` states that end a message; before its `started`, the CLI will never run it
 * (`cancelled` ends it at any time, handled on its own).
 */
const droppedStates: ReadonlySet<string> = new Set(["completed", "discarded", "refused"])

/** A `system/hook_*` line of a hook that runs on the prompt, before its turn's `system/init`. */
const isPromptHookLine = (event: Protocol.SystemMessage): boolean =>
  (event.subtype === "hook_started" || event.subtype === "hook_progress" || event.subtype === "hook_response") &&
  (event.hook_event === "UserPromptSubmit" || event.hook_event === "UserPromptExpansion")

const uuidsOf = (message: UuidCarrier) =>
  message.user_message_uuids ?? (message.user_message_uuid === undefined ? undefined : [message.user_message_uuid])

export class Turns {
  /**
   * Written and not ended, in the order they were written: an array, not a `Map`. A `Map` that
   * gains and loses an entry a turn rehashes, and V8 links each old table to the next (see
   * `touched`). The running turn is the oldest, so a lookup ends at the first entry except
   * when messages are queued.
   */
  private readonly open: Array<Turn> = []
  /** The user turns of the CLI turn that runs now. */
  private running: Array<Turn> = []
  /** True between a `system/init` that names no user message and the next result. */
  private automatic = false
  /** True after a result: the next start marker begins a new CLI turn. */
  private between = true
  /** True once the CLI has echoed a uuid: from then on, turns are matched by uuid alone. */
  private echoes = false
  /** Prompt hook lines read between CLI turns, for the user turns of the next one. */
  private early: Array<Event> = []
  /**
   * The turns this read touched (a few). An array emptied with `length = 0`, never a `Set` and
   * `clear()`: V8 links a cleared table to its successor, so once one table is in the old
   * generation every later one, and the turns they held, survives each scavenge until a full GC
   * (docs/CONTRIBUTING.md, "Per-turn collections").
   */
  private readonly touched: Array<Turn> = []
  private readonly waking: Array<Mailbox<Event, ClaudeError.ClaudeError>> = []
  private readonly endings: Array<{ readonly turn: Turn; readonly exit: Exit.Exit<TurnResult, ClaudeError.ClaudeError> }> = []
  /** Writers waiting for {@link whenWritable}; woken (all, to check again) when it may hold. */
  private writers: Array<Deferred.Deferred<void>> = []

  private readonly options: TurnsOptions

  constructor(options: TurnsOptions) {
    this.options = options
  }

  register(turn: Turn): void {
    this.open.push(turn)
  }

  /**
   * Whether a user message may be written now: always on a CLI that echoes uuids; on one that
   * echoes none (or has not yet), once no turn the CLI started by itself runs and no written turn
   * is open there but those the library stopped caring for once the CLI started them (abandoned,
   * or given up: their stand-ins), so that the CLI never holds two messages it would merge.
   */
  writable(): boolean {
    if (this.echoes) return true
    // A turn the CLI started by itself: a message written now would be merged into it.
    if (this.automatic) return false
    for (let i = 0; i < this.open.length; i++) {
      const turn = this.open[i]!
      // One abandoned (timed out, stalled) or given up on before the CLI started it still waits
      // there: a message written now would be merged into its turn.
      if (!turn.abandoned || !Deferred.isDoneUnsafe(turn.started)) return false
    }
    return true
  }

  /**
   * Done the next time {@link writable} may have become true (a turn ended, the CLI echoed a
   * uuid, the session ended): a writer checks again, and registers its turn in the same step.
   */
  whenWritable(): Deferred.Deferred<void> {
    const waiter = Deferred.makeUnsafe<void>()
    // Writable by now (the writer may have yielded since it checked): no wake would come.
    if (this.writable()) Deferred.doneUnsafe(waiter, Exit.void)
    else this.writers.push(waiter)
    return waiter
  }

  /** Forgets a waiter that stopped waiting (its writer was interrupted). */
  forgetWaiter(waiter: Deferred.Deferred<void>): void {
    const index = this.writers.indexOf(waiter)
    if (index !== -1) this.writers.splice(index, 1)
  }

  /** Wakes the waiting writers to check again: when writable, or `always` (the input ended). */
  wakeWriters(always = false): void {
    if (this.writers.length === 0 || !(always || this.writable())) return
    const writers = this.writers
    this.writers = []
    for (let i = 0; i < writers.length; i++) Deferred.doneUnsafe(writers[i]!, Exit.void)
  }

  /**
   * Whether `turn` has ended for the engine: its result (or its end) was routed, though its
   * `result` is completed only once the read is published (`complete`).
   */
  hasEnded(turn: Turn): boolean {
    return !this.open.includes(turn)
  }

  /** Whether a turn written with `uuid` has not ended. */
  isOpen(uuid: string): boolean {
    return this.find(uuid) !== undefined
  }

  /**
   * The program's turn the CLI is to start next (open, not running, not one the library gave up
   * on), when none runs, not even one the CLI started by itself.
   */
  get next(): Turn | undefined {
    if (this.automatic) return undefined
    for (const turn of this.open) if (!this.running.includes(turn) && !turn.abandoned && turn.interruptOnStart !== true) return turn
    return undefined
  }

  /** Forgets a turn that was withdrawn (never written, or cancelled before it started). */
  withdraw(turn: Turn, error: ClaudeError.ClaudeError): void {
    if (!this.forget(turn)) return
    this.running = this.running.filter((t) => t !== turn)
    this.end(turn, Exit.fail(error))
    // Outside the reader's read: settled now.
    this.publish()
    this.complete()
  }

  /**
   * Ends a written turn the library stopped waiting for (its interrupt ran past its deadline)
   * with `error`. A CLI that echoes uuids tells its late lines apart. One that echoes none serves
   * turns first in, first out: the turn owes a result (it was interrupted, or will run: it was
   * written alone, so nothing merged it), so a stand-in keeps its place and takes its CLI turn's
   * lines and result, for no one; returned, for the caller to interrupt it on the CLI when it
   * starts (`interruptOnStart`).
   */
  giveUp(turn: Turn, error: ClaudeError.ClaudeError): Turn | undefined {
    const index = this.open.indexOf(turn)
    if (index === -1) return undefined
    if (this.echoes) {
      this.withdraw(turn, error)
      return undefined
    }
    const started = Deferred.isDoneUnsafe(turn.started)
    const standIn: Turn = {
      uuid: turn.uuid,
      queue: undefined,
      span: undefined,
      result: Deferred.makeUnsafe(),
      // Its own when the CLI has not started it: ending the turn marks the turn's started.
      started: started ? turn.started : Deferred.makeUnsafe(),
      abandoned: true,
      batch: [],
      ...(started ? {} : { interruptOnStart: true as const })
    }
    this.open[index] = standIn
    const running = this.running.indexOf(turn)
    if (running !== -1) this.running[running] = standIn
    this.end(turn, Exit.fail(error))
    // Outside the reader's read: settled now.
    this.publish()
    this.complete()
    return standIn
  }

  /**
   * Whether a turn is unfinished: a message written and not answered, or a CLI turn begun (one
   * it started by itself too) and not over.
   */
  get unfinished(): boolean {
    // A turn the CLI started by itself is not between turns either (`startAutomatic`).
    return this.open.length > 0 || !this.between
  }

  /** The user turns the CLI runs now (empty between turns and during an automatic turn). */
  get current(): ReadonlyArray<Turn> {
    return this.running
  }

  /**
   * Routes one message to the turns it belongs to, and returns it as the event every `events`
   * subscriber gets (a result with its usage).
   */
  route(event: Message): Event {
    switch (event.type) {
      case "command_lifecycle": {
        const turn = this.find(event.command_uuid)
        this.echoes = true
        if (turn === undefined) return event
        if (event.state === "started") this.start([turn])
        else if (event.state === "cancelled") {
          this.forget(turn)
          this.end(turn, Exit.fail(ClaudeError.make(new ClaudeError.TurnCancelled({ uuid: turn.uuid }))))
        } else if (droppedStates.has(event.state) && !Deferred.isDoneUnsafe(turn.started)) {
          // Ended without a start: the CLI will never run it (a folded message says `completed`
          // after its `started`, before the result that names it, and keeps its turn).
          this.forget(turn)
          this.end(turn, Exit.fail(ClaudeError.make(new ClaudeError.TurnCancelled({ uuid: turn.uuid, lifecycle: event.state }))))
        }
        return event
      }
      case "system": {
        if (event.subtype === "init") {
          const uuids = uuidsOf(event)
          if (uuids !== undefined) {
            this.echoes = true
            this.start(this.lookup(uuids))
          } else if (this.echoes) {
            // A CLI turn that answers no user message: the CLI started it by itself.
            this.startAutomatic()
          } else if (this.between || this.running.length === 0) {
            // A CLI that echoes nothing: the oldest waiting turn, unless a line read since the
            // last result (a background task's) started it already. With none open, the CLI
            // started it by itself: a user message is registered before it is written, so one
            // written later is not what this turn answers.
            const oldest = this.oldest()
            if (oldest !== undefined) this.start([oldest])
            else this.startAutomatic()
          }
        } else if (this.echoes && this.running.length === 0 && !this.automatic && isPromptHookLine(event)) {
          this.early.push(event)
        } else {
          this.follow(event as UuidCarrier)
        }
        break
      }
      case "result":
        return this.finish(event)
      case "stream_event":
      case "assistant":
        this.follow(event)
        break
      default:
        if (!this.echoes && this.running.length === 0 && !this.automatic) this.startOldest()
    }
    for (let i = 0; i < this.running.length; i++) this.deliver(this.running[i]!, event)
    return event
  }

  /**
   * Hands this read's events to the turns' queues and ends the turns whose result came; then
   * completes their results. Called once per read, after `events` got the same batch.
   */
  publish(): void {
    for (const turn of this.touched) {
      if (turn.queue === undefined) continue
      // The queue copies the batch, so the array is reused.
      if (turn.batch.length > 0) turn.queue.offerAll(turn.batch)
      turn.batch.length = 0
      this.waking.push(turn.queue)
    }
    this.touched.length = 0
    for (let i = 0; i < this.endings.length; i++) {
      const { exit, turn } = this.endings[i]!
      if (turn.queue !== undefined) {
        if (Exit.isSuccess(exit)) {
          const failure = this.options.verdict(exit.value)
          if (failure === undefined) turn.queue.end()
          else turn.queue.failCause(Cause.fail(failure))
        } else {
          turn.queue.failCause(exit.cause)
        }
      }
    }
  }

  /**
   * Completes the results of this read, then hands the queued events to the consumers waiting
   * on the turns' queues, at once (see `subscribers.ts` for why not on a later tick).
   */
  complete(): void {
    for (let i = 0; i < this.endings.length; i++) {
      const { exit, turn } = this.endings[i]!
      Deferred.doneUnsafe(turn.started, Exit.void)
      Deferred.doneUnsafe(turn.result, exit)
    }
    this.endings.length = 0
    this.wakeWriters()
    if (this.waking.length === 0) return
    // A copy: a consumer resumed here may call back in (withdraw, report) and wake again.
    const waking = this.waking.splice(0)
    for (let i = 0; i < waking.length; i++) waking[i]!.wake()
  }

  /** Delivers an event of the library's own (a protocol problem) to the running user turns. */
  note(event: Event): void {
    if (!this.echoes && this.running.length === 0 && !this.automatic) this.startOldest()
    for (let i = 0; i < this.running.length; i++) this.deliver(this.running[i]!, event)
  }

  /** Ends the user turns of the running CLI turn with `error` (its result could not be read). */
  failCurrent(error: ClaudeError.ClaudeError): void {
    this.options.unreadResult?.()
    let failed: ReadonlyArray<Turn> = this.running
    if (failed.length === 0 && !this.echoes && !this.automatic) {
      const oldest = this.oldest()
      failed = oldest === undefined ? [] : [oldest]
    }
    for (const turn of failed) {
      this.forget(turn)
      this.end(turn, Exit.fail(error))
    }
    this.running = []
    this.automatic = false
    this.between = true
    this.early = []
  }

  /** Ends every open turn with `error` (the CLI is gone). */
  failAll(error: ClaudeError.ClaudeError): void {
    const open = this.open.splice(0)
    for (const turn of open) this.end(turn, Exit.fail(error))
    this.running = []
    this.automatic = false
    this.publish()
    this.complete()
  }

  /** A result ends the turns it names, and those of the CLI turn it closes. */
  private finish(result: Protocol.ResultMessage): TurnResult {
    const origin = result.origin
    // The CLI's own turn, no user turn folded into it (it would have named one).
    const own = origin !== undefined || (this.automatic && this.running.length === 0)
    const uuids = uuidsOf(result)
    let ended: Array<Turn>
    // Whether it ends the running CLI turn. Once the CLI echoes uuids (its running user turns
    // were matched by theirs), one that names none of them (a late or repeated result, or that of
    // a message that never ran) is not theirs: it ends those it names, and the running turn goes
    // on to its own result.
    let closes = true
    if (uuids !== undefined) {
      // Also an automatic turn's result, when the CLI folded a queued user message into it.
      closes = !this.echoes || this.running.length === 0 || uuids.length === 0 ||
        this.running.some((turn) => uuids.includes(turn.uuid))
      this.echoes = true
      ended = this.lookup(uuids)
      if (closes) for (const turn of this.running) if (!ended.includes(turn)) ended.push(turn)
    } else if (own) {
      ended = []
    } else if (this.running.length > 0 || this.echoes) {
      ended = this.running
    } else {
      const oldest = this.oldest()
      ended = oldest === undefined ? [] : [oldest]
    }
    const withUsage = this.options.toTurnResult(result, uuids ?? ended.map((turn) => turn.uuid), own, closes)
    for (let i = 0; i < ended.length; i++) {
      const turn = ended[i]!
      this.forget(turn)
      this.deliver(turn, withUsage)
      this.end(turn, Exit.succeed(withUsage))
    }
    if (!closes) return withUsage
    this.running = []
    this.automatic = false
    this.between = true
    this.early = []
    return withUsage
  }

  private follow(event: UuidCarrier) {
    const uuids = uuidsOf(event)
    if (uuids !== undefined) {
      this.echoes = true
      // A user message folded into the running turn (automatic or not) joins it from here on.
      this.start(this.lookup(uuids))
    } else if (!this.echoes && this.running.length === 0 && !this.automatic) {
      this.startOldest()
    }
  }

  private start(turns: ReadonlyArray<Turn>): void {
    if (this.between) {
      this.running = []
      this.between = false
    }
    this.automatic = false
    for (const turn of turns) {
      if (this.running.includes(turn)) continue
      this.running.push(turn)
      Deferred.doneUnsafe(turn.started, Exit.void)
      for (let i = 0; i < this.early.length; i++) this.deliver(turn, this.early[i]!)
    }
    this.early = []
  }

  /** A CLI turn the CLI started by itself: its lines go to no user turn until one is folded in. */
  private startAutomatic(): void {
    this.early = []
    this.running = []
    this.automatic = true
    this.between = false
  }

  private startOldest(): void {
    const oldest = this.oldest()
    if (oldest !== undefined) this.start([oldest])
  }

  private oldest(): Turn | undefined {
    for (const turn of this.open) if (!this.running.includes(turn)) return turn
    return undefined
  }

  private lookup(uuids: ReadonlyArray<string>): Array<Turn> {
    const found: Array<Turn> = []
    for (const uuid of uuids) {
      const turn = this.find(uuid)
      if (turn !== undefined) found.push(turn)
    }
    return found
  }

  private find(uuid: string): Turn | undefined {
    for (let i = 0; i < this.open.length; i++) if (this.open[i]!.uuid === uuid) return this.open[i]
    return undefined
  }

  /** Removes `turn` from the open turns; false when it was not open. */
  private forget(turn: Turn): boolean {
    const index = this.open.indexOf(turn)
    if (index === -1) return false
    this.open.splice(index, 1)
    return true
  }

  private deliver(turn: Turn, event: Event): void {
    if (turn.queue === undefined || turn.abandoned) return
    // A turn is touched once per read: its first event of the batch.
    if (turn.batch.push(event) === 1) this.touch(turn)
  }

  private touch(turn: Turn): void {
    if (!this.touched.includes(turn)) this.touched.push(turn)
  }

  private end(turn: Turn, exit: Exit.Exit<TurnResult, ClaudeError.ClaudeError>): void {
    this.touch(turn)
    this.endings.push({ turn, exit })
  }
}
