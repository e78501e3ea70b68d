/**
 * A program's tracer whose span `end` throws (a broken exporter): the turn whose span it was
 * still frees the session's turn slot, so the next turn runs, rather than waiting for ever.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "7b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"

/** A tracer whose first `claude.turn` span throws when it ends; every other span is plain. */
let turnSpans = 0
const throwingTurnEnds = Tracer.make({
  span: (options) => {
    const span = new Tracer.NativeSpan(options)
    if (options.name !== "claude.turn" || turnSpans++ > 0) return span
    const end = span.end.bind(span)
    span.end = (endTime, exit) => {
      end(endTime, exit)
      throw new Error("the exporter broke")
    }
    return span
  }
})

describe("a turn span whose end throws", () => {
  it.live("the turn ends with the tracer's defect, and the next turn still runs (the turn's slot is freed)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const first = yield* Effect.exit(Stream.runCollect(session.turn("one")))
      // The throw is the program's tracer's: the turn's stream ends with it, a defect.
      assert.isTrue(Exit.isFailure(first) && Cause.hasDies(first.cause))
      assert.include(Cause.pretty((first as Exit.Failure<unknown, unknown>).cause), "the exporter broke")
      const second = yield* Effect.exit(session.run("two").pipe(Effect.timeoutOption("2 seconds")))
      assert.isTrue(Exit.isSuccess(second) && second.value._tag === "Some", "the second turn waited for the first's slot")
    }).pipe(
      Effect.scoped,
      Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))),
      Effect.withTracer(throwingTurnEnds)
    ))
})
