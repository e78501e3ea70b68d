/**
 * Interrupting a turn from another fiber. A turn is a `Stream`; interrupting the fiber that
 * consumes it sends the CLI an `interrupt` and waits for that turn's (aborted) result, so the
 * session stays usable: the next turn runs on the same process.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** What happened: the aborted turn's result, how long the interruption took, the next turn. */
export interface InterruptOutcome {
  readonly deltasBeforeInterrupt: number
  readonly aborted: Claude.TurnResult | undefined
  readonly interruptMillis: number
  readonly next: string
}

/** A long answer streams; after a few deltas the main fiber interrupts the consuming fiber. */
export const program: Effect.Effect<InterruptOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const { options } = yield* fakeModel([
    FakeModel.text("lorem ipsum ".repeat(100), { chunks: 100, delayMs: 50 }),
    FakeModel.text("Short answer this time.")
  ])
  const session = yield* Claude.open(options)
  let deltas = 0
  // Results arrive on `session.events` too, interrupted turns included.
  const firstResult = yield* session.events.pipe(
    Stream.filter((event) => event.type === "result"),
    Stream.runHead,
    Effect.forkScoped
  )
  const turn = yield* session.turn("Talk for a long time.").pipe(
    Stream.runForEach((event) => Effect.sync(() => event.type === "stream_event" && deltas++)),
    Effect.forkScoped
  )
  while (deltas < 5) yield* Effect.sleep("20 millis")
  const before = Date.now()
  yield* Fiber.interrupt(turn) // returns once the CLI has ended the turn
  const interruptMillis = Date.now() - before
  const aborted = Option.getOrUndefined(yield* Fiber.join(firstResult))
  const next = yield* session.run("Now briefly.")
  yield* Console.log(
    `interrupted after ${deltas} deltas in ${interruptMillis} ms: ${aborted?.subtype} (${aborted?.terminal_reason}); next turn: ${next.result}`
  )
  return { deltasBeforeInterrupt: deltas, aborted, interruptMillis, next: next.result ?? "" }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
