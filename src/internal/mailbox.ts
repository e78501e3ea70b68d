/**
 * An unbounded mailbox with one reader, woken only when the writer says so: the events of a user
 * turn on their way to its stream and of the session to each `events` reader, the CLI's stdout
 * chunks on their way to the session, its stderr lines on their way to each reader (bounded: the
 * oldest dropped).
 *
 * Why not `Queue`: every offer to a `Queue` that has a waiting taker also schedules the taker's
 * release on the scheduler (a `setImmediate`), even when the writer then hands the batch over at
 * once (`Queue.flushUnsafe`): one more event-loop turn per read of the CLI's stdout, for nothing.
 * Here `offerAll` only queues, `wake` resumes the waiting reader, synchronously, and nothing is
 * scheduled. Nor does a waiting reader join a set (a `Queue`'s takers), whose table V8 would replace
 * on every wait (docs/CONTRIBUTING.md, "Per-turn collections").
 *
 * Semantics kept from `Queue` as the session used it: what was offered before the end is read
 * before it; the end is clean (`end`) or a failure (`failCause`), whichever came first; the
 * reader takes everything queued at once.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Pull from "effect/Pull"
import * as Stream from "effect/Stream"

const done = Exit.fail(Cause.Done())
const interrupted = Exit.failCause(Cause.interrupt())

export class Mailbox<A, E> {
  private items: Array<A> = []
  /** Items kept at most; past it the oldest are dropped (a reader that fell behind loses them). */
  private readonly capacity: number

  constructor(capacity = Number.POSITIVE_INFINITY) {
    this.capacity = capacity
  }
  private ended: Exit.Exit<never, E | Cause.Done> | undefined
  private waiter: (() => void) | undefined

  /** Queues `item`; ignored once ended. Call `wake` to hand it over. */
  offer(item: A): void {
    if (this.ended !== undefined) return
    if (this.items.length >= this.capacity) this.items.shift()
    this.items.push(item)
  }

  /** Queues `items` (copied); ignored once ended. Call `wake` to hand them over. */
  offerAll(items: ReadonlyArray<A>): void {
    for (let i = 0; i < items.length; i++) this.offer(items[i]!)
  }

  /** Ends the mailbox cleanly after what is queued (the first end wins). */
  end(): void {
    this.ended ??= done
  }

  /** Ends the mailbox with `cause` after what is queued (the first end wins). */
  failCause(cause: Cause.Cause<E>): void {
    this.ended ??= Exit.failCause(cause)
  }

  /**
   * Ends the mailbox now, whatever came before, dropping what is queued: its reader, waiting or
   * not, is interrupted (what `Queue.shutdown` does to its takers).
   */
  shutdown(): void {
    this.items = []
    this.ended = interrupted
    this.wake()
  }

  /** Resumes the reader now if it waits and something (items or the end) is there for it. */
  wake(): void {
    const waiter = this.waiter
    if (waiter === undefined || (this.items.length === 0 && this.ended === undefined)) return
    this.waiter = undefined
    waiter()
  }

  private poll(): Exit.Exit<Array<A>, E | Cause.Done> | undefined {
    if (this.items.length > 0) {
      const items = this.items
      this.items = []
      return Exit.succeed(items)
    }
    return this.ended
  }

  private wait(waiter: () => void): void {
    this.waiter = waiter
  }

  /** The mailbox's one reader, as a pull: everything queued (at least one item), or the end. */
  readonly pull: Pull.Pull<[A, ...Array<A>], E> = Effect.suspend(() =>
    this.poll() ??
      Effect.callback<Array<A>, E | Cause.Done>((resume) => {
        // As an argument: V8 allocates a closure written straight into a property in the old
        // generation (it takes it for a method), where it would keep this turn's objects alive
        // through scavenges until the next full GC; a minifier may fold a local back into the
        // property (docs/CONTRIBUTING.md, "Per-turn closures").
        this.wait(() => resume(this.poll()!))
        return Effect.sync(() => {
          this.waiter = undefined
        })
      })
  ) as Pull.Pull<[A, ...Array<A>], E>

  /**
   * The mailbox's one reader, as a stream; made when asked for, not with every mailbox (a turn's
   * reads its `pull`): a stream's channel would keep the mailbox alive (see `turnRunner.ts`, `turn`).
   */
  get stream(): Stream.Stream<A, E> {
    return Stream.fromPull(Effect.succeed(this.pull))
  }
}
