import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "session-options"

const cli = () => {
  const launches: Array<FakeCli.FakeCliHandle> = []
  const layer = FakeCli.layer((handle) => {
    launches.push(handle)
    return FakeCli.conversation({ sessionId: SESSION, onUser: (_text, _index, cli) => cli.emit(FakeCli.result({ sessionId: SESSION })) })(handle)
  })
  return { launches, layer }
}

/** What `Claude.query` fails with for `options`, and how many CLIs it started. */
const refusal = (options: Claude.SessionOptions) =>
  Effect.gen(function*() {
    const { launches, layer } = cli()
    const exit = yield* Effect.exit(Claude.query("Hi", options).pipe(Effect.provide(layer)))
    assert.isTrue(Exit.isFailure(exit))
    const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
    assert.isTrue(ClaudeError.isClaudeError(error))
    const reason = (error as ClaudeError.ClaudeError).reason
    assert.strictEqual(reason._tag, "InvalidInput")
    assert.lengthOf(launches, 0)
    return (reason as ClaudeError.InvalidInput).description
  })

// What a JavaScript caller (or a config file) can pass that the types refuse.
const loose = (input: unknown) => input as Duration.Input

describe("the session's own options", () => {
  it.effect("a bad line cap or duration is InvalidInput naming it, before any CLI starts", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Claude.SessionOptions, string]> = [
        [{ maxLineBytes: Number.NaN }, "maxLineBytes must be a positive integer of bytes (got NaN)"],
        [{ maxLineBytes: 0 }, "maxLineBytes must be a positive integer of bytes (got 0)"],
        [{ maxLineBytes: -1 }, "maxLineBytes must be a positive integer of bytes (got -1)"],
        [{ maxLineBytes: 1.5 }, "maxLineBytes must be a positive integer of bytes (got 1.5)"],
        [{ closeGrace: Number.NaN }, "closeGrace must be a duration of zero or more (got NaN)"],
        [{ closeGrace: "-1 seconds" }, "closeGrace must be a duration of zero or more (got \"-1 seconds\")"],
        [{ closeGrace: loose("5 secs") }, "closeGrace must be a duration of zero or more (got \"5 secs\")"],
        [{ controlTimeout: 0 }, "controlTimeout must be a duration of more than zero (got 0)"],
        [{ initializeTimeout: Number.NaN }, "initializeTimeout must be a duration of more than zero (got NaN)"],
        [{ interruptTimeout: -5 }, "interruptTimeout must be a duration of more than zero (got -5)"],
        [{ stallTimeout: loose({}) }, "stallTimeout must be a duration of more than zero (got [object Object])"],
        [{ turnTimeout: loose("soon") }, "turnTimeout must be a duration of more than zero (got \"soon\")"]
      ]
      for (const [options, expected] of cases) {
        const description = yield* refusal(options)
        assert.include(description, "Invalid session options: ")
        assert.include(description, expected)
      }
    }))

  it.effect("lists every problem at once", () =>
    Effect.gen(function*() {
      const description = yield* refusal({ maxLineBytes: -1, turnTimeout: 0 })
      assert.strictEqual(
        description,
        "Invalid session options: maxLineBytes must be a positive integer of bytes (got -1); " +
          "turnTimeout must be a duration of more than zero (got 0)"
      )
    }))

  it.effect("takes the edges that mean something: no grace, no deadline on control requests, a smaller cap", () =>
    Effect.gen(function*() {
      const { launches, layer } = cli()
      const result = yield* Claude.query("Hi", {
        maxLineBytes: 1024 * 1024,
        closeGrace: 0,
        controlTimeout: "Infinity",
        turnTimeout: "10 seconds",
        stallTimeout: 60_000
      }).pipe(Effect.provide(layer))
      assert.strictEqual(result.subtype, "success")
      assert.lengthOf(launches, 1)
    }))
})
