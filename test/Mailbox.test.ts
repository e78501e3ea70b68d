/**
 * The one-reader mailbox under a turn's stream, the stdin writer and each stderr reader
 * (`src/internal/mailbox.ts`): what was offered before the end is read before it, the first end
 * wins, a waiting reader is resumed by `wake` alone, and a bounded one drops its oldest items.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { Mailbox } from "../src/internal/mailbox.ts"

describe("Mailbox", () => {
  it.effect("items offered before a clean end are read, in order, then the stream ends", () =>
    Effect.gen(function*() {
      const mailbox = new Mailbox<number, string>()
      mailbox.offerAll([1, 2])
      mailbox.offer(3)
      mailbox.end()
      mailbox.offer(4) // after the end: ignored
      mailbox.failCause(Cause.fail("late")) // the first end wins
      const read = yield* Stream.runCollect(mailbox.stream)
      assert.deepStrictEqual(read, [1, 2, 3])
    }))

  it.effect("a failure comes after the items offered before it", () =>
    Effect.gen(function*() {
      const mailbox = new Mailbox<string, string>()
      mailbox.offerAll(["a", "b"])
      mailbox.failCause(Cause.fail("broken"))
      const seen: Array<string> = []
      const exit = yield* Effect.exit(Stream.runForEach(mailbox.stream, (s) => Effect.sync(() => seen.push(s))))
      assert.deepStrictEqual(seen, ["a", "b"])
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Cause.findErrorOption(exit.cause)
        assert.strictEqual(error._tag === "Some" ? error.value : undefined, "broken")
      }
    }))

  it.effect("a waiting reader gets a batch when woken, synchronously, and not before", () =>
    Effect.gen(function*() {
      const mailbox = new Mailbox<number, never>()
      const seen: Array<number> = []
      const fiber = yield* Stream.runForEach(mailbox.stream, (n) => Effect.sync(() => seen.push(n))).pipe(
        Effect.forkChild({ startImmediately: true })
      )
      mailbox.offerAll([1, 2])
      assert.deepStrictEqual(seen, [], "offered, not woken: nothing read")
      mailbox.wake()
      assert.deepStrictEqual(seen, [1, 2], "woken: read within the wake")
      mailbox.end()
      mailbox.wake()
      yield* Fiber.join(fiber)
    }))

  it.effect("a bounded mailbox keeps its newest items when its reader falls behind", () =>
    Effect.gen(function*() {
      const mailbox = new Mailbox<number, never>(3)
      mailbox.offerAll([1, 2, 3, 4, 5])
      mailbox.end()
      assert.deepStrictEqual(yield* Stream.runCollect(mailbox.stream), [3, 4, 5])
    }))
})
