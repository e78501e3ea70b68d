/** Reading a stderr stream in tests (unit and live tiers): into a queue, a line at a time, to its end. */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { Connection } from "../../src/Transport.ts"

/** True when the stream behind `lines` has ended and every line was taken. */
export const ended = (lines: Queue.Dequeue<string, Cause.Done>) =>
  Queue.take(lines).pipe(
    Effect.timeout("5 seconds"),
    Effect.match({ onFailure: Cause.isDone, onSuccess: () => false })
  )

/** Forks a reader of `connection.stderr` into a queue; the queue ends when the stream does. */
export const listen = (connection: Connection) =>
  Effect.gen(function*() {
    const lines = yield* Queue.unbounded<string, Cause.Done>()
    yield* connection.stderr.pipe(
      Stream.runForEach((line) => Queue.offer(lines, line)),
      Effect.ensuring(Queue.end(lines)),
      Effect.forkScoped
    )
    return lines
  })

export const nextLine = (lines: Queue.Dequeue<string, Cause.Done>) =>
  Queue.take(lines).pipe(
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error("no stderr line within 10 s")) })
  )
