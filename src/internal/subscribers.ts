/**
 * Fan-out of session events to the streams that read them (`session.events`, each run its own
 * subscription).
 *
 * Mailboxes are unbounded on purpose: the reader must never wait on a consumer, or a hook or MCP
 * request queued behind a slow consumer's events would go unanswered (the CLI waits on it). A
 * slow consumer therefore costs memory, the events it has not read yet; a consumer that reads
 * nothing costs nothing, since events with no subscriber are not kept.
 *
 * Publishing is two steps: `publish` queues a batch, `wake` then hands it to the consumers
 * waiting, at once. Each subscriber reads a `Mailbox` (`mailbox.ts`), as a turn does, not an Effect
 * `Queue`: an offer to a queue with a waiting taker schedules the taker's release (a
 * `setImmediate`) even when the batch is then handed over at once, and a waiting taker joins the
 * queue's set of takers and leaves it when woken, which makes V8 replace the set's table on every
 * read (in the old generation, the set being the long-lived queue's). Left to the queue alone,
 * the wake-up took two scheduler ticks, in which the reader read and decoded the next chunk: every
 * batch waited a whole read in memory (measured at 1M events of `npm run bench`: peak RSS 164 MB
 * with the queue's wake-up, 135 MB woken at once).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as ClaudeError from "../ClaudeError.ts"
import { Mailbox } from "./mailbox.ts"

export interface Subscriber<A> {
  readonly mailbox: Mailbox<A, ClaudeError.ClaudeError>
}

export class Subscribers<A> {
  private readonly all = new Set<Subscriber<A>>()
  private ended: { readonly error: ClaudeError.ClaudeError | undefined } | undefined

  /** A subscription for the life of the current scope. */
  readonly subscribe: Effect.Effect<Subscriber<A>, never, Scope.Scope> = Effect.acquireRelease(
    Effect.sync(() => {
      const subscriber: Subscriber<A> = { mailbox: new Mailbox() }
      if (this.ended === undefined) this.all.add(subscriber)
      else this.finish(subscriber, this.ended.error)
      return subscriber
    }),
    (subscriber) =>
      Effect.sync(() => {
        this.all.delete(subscriber)
        // A pull still waiting on it, or made later, is interrupted: nothing will wake it again.
        subscriber.mailbox.shutdown()
      })
  )

  get size(): number {
    return this.all.size
  }

  /** Queues a batch for every subscriber; `wake` hands it over. */
  publish(events: ReadonlyArray<A>): void {
    if (events.length === 0) return
    for (const subscriber of this.all) subscriber.mailbox.offerAll(events)
  }

  /**
   * Resumes the consumers waiting on their mailboxes now: each runs until it waits again (or its
   * fiber yields), inside the caller's turn. Call it last, once the caller's own state is
   * consistent, since a consumer may call back into the session.
   */
  wake(): void {
    for (const subscriber of this.all) subscriber.mailbox.wake()
  }

  /** Ends every subscription, now and later: with `error`, or as a clean end. */
  end(error: ClaudeError.ClaudeError | undefined): void {
    if (this.ended !== undefined) return
    this.ended = { error }
    for (const subscriber of this.all) this.finish(subscriber, error)
  }

  private finish(subscriber: Subscriber<A>, error: ClaudeError.ClaudeError | undefined): void {
    if (error === undefined) subscriber.mailbox.end()
    else subscriber.mailbox.failCause(Cause.fail(error))
    subscriber.mailbox.wake()
  }
}
