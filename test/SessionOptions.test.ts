import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import type * as CliVersion from "../src/CliVersion.ts"
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
  it.effect("a bad line cap, duration or choice is InvalidInput naming it, before any CLI starts", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Claude.SessionOptions, string]> = [
        [{ maxLineBytes: Number.NaN }, "maxLineBytes must be a positive integer of bytes, or Infinity (got NaN)"],
        [{ maxLineBytes: 0 }, "maxLineBytes must be a positive integer of bytes, or Infinity (got 0)"],
        [{ maxLineBytes: -1 }, "maxLineBytes must be a positive integer of bytes, or Infinity (got -1)"],
        [{ maxLineBytes: 1.5 }, "maxLineBytes must be a positive integer of bytes, or Infinity (got 1.5)"],
        [{ closeGrace: Number.NaN }, "closeGrace must be a finite duration of zero or more (got NaN)"],
        [{ closeGrace: "-1 seconds" }, "closeGrace must be a finite duration of zero or more (got \"-1 seconds\")"],
        [{ closeGrace: loose("5 secs") }, "closeGrace must be a finite duration of zero or more (got \"5 secs\")"],
        [{ closeGrace: "Infinity" }, "closeGrace must be a finite duration of zero or more (got \"Infinity\")"],
        // Objects and pairs Effect reads as zero: a misspelt unit, no unit, a NaN.
        [{ closeGrace: loose({ second: 30 }) }, "closeGrace must be a finite duration of zero or more (got { second: 30 })"],
        [{ closeGrace: {} }, "closeGrace must be a finite duration of zero or more (got {})"],
        [{ controlTimeout: [Number.NaN, 0] }, "controlTimeout must be a positive duration (got [NaN, 0])"],
        [{ controlTimeout: 0 }, "controlTimeout must be a positive duration (got 0)"],
        [{ initializeTimeout: Number.NaN }, "initializeTimeout must be a positive duration (got NaN)"],
        [{ interruptTimeout: -5 }, "interruptTimeout must be a positive duration (got -5)"],
        [{ interruptTimeout: { seconds: Number.NaN } }, "interruptTimeout must be a positive duration (got { seconds: NaN })"],
        [{ stallTimeout: 0n }, "stallTimeout must be a positive duration, or unset for none (got 0n)"],
        [{ turnTimeout: loose("soon") }, "turnTimeout must be a positive duration, or unset for none (got \"soon\")"],
        // A misspelt choice: `errorResults` read it as "return", so failed turns came back as results.
        [{ errorResults: "failed" as "fail" }, 'errorResults must be "fail" or "return" (got "failed")'],
        [{ verbatimPrompts: "yes" as unknown as boolean }, 'verbatimPrompts must be a boolean (got "yes")'],
        [{ cliVersionPolicy: { onUnsupported: "warning" as "warn" } }, 'cliVersionPolicy.onUnsupported must be "fail" or "warn" (got "warning")'],
        [{ cliVersionPolicy: { range: { floor: "2.1", below: "2.2" } } }, 'cliVersionPolicy.range: a range\'s floor and below must be versions x.y.z (got "2.1" and "2.2")'],
        [{ cliVersionPolicy: { range: { floor: "2.2.0", below: "2.1.0" } } }, "cliVersionPolicy.range: a range's floor must be below its below (got 2.2.0 and 2.1.0)"],
        [{ cliVersionPolicy: { range: null as unknown as CliVersion.Range } }, "cliVersionPolicy.range: it must be { floor, below } (got null)"],
        // `Transcript.toFile(path)` itself (a scoped Effect), not the recorder it gives: the first
        // line died with "recorder.record is not a function" (found by a newcomer's run).
        [
          { transcript: Transcript.toFile("session.ndjson") as unknown as Claude.Recorder },
          "transcript must be a recorder: the value of `yield* Transcript.toFile(path)` (or `Transcript.toSink`), not the Effect that makes it"
        ]
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
        "Invalid session options: maxLineBytes must be a positive integer of bytes, or Infinity (got -1); " +
          "turnTimeout must be a positive duration, or unset for none (got 0)"
      )
    }))

  it.effect("takes the edges that mean something: no grace, no deadline on control requests, no cap but V8's", () =>
    Effect.gen(function*() {
      for (const options of [
        { maxLineBytes: Number.POSITIVE_INFINITY, closeGrace: 0, controlTimeout: "Infinity", turnTimeout: "10 seconds" },
        { maxLineBytes: 1024 * 1024, closeGrace: { seconds: 2 }, stallTimeout: 60_000, interruptTimeout: [5, 0] }
      ] satisfies ReadonlyArray<Claude.SessionOptions>) {
        const { launches, layer } = cli()
        const result = yield* Claude.query("Hi", options).pipe(Effect.provide(layer))
        assert.strictEqual(result.subtype, "success")
        assert.lengthOf(launches, 1)
      }
    }))

  it.effect("a control request's own timeout is checked the same way, and a bad one sends nothing", () =>
    Effect.gen(function*() {
      const { launches, layer } = cli()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        for (const [timeout, shownAs] of [[0, "0"], [Number.NaN, "NaN"], [loose("soon"), "\"soon\""], [{}, "{}"]] as const) {
          const exit = yield* Effect.exit(session.setModel("opus", { timeout }))
          const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
          assert.isTrue(ClaudeError.isClaudeError(error))
          const reason = (error as ClaudeError.ClaudeError).reason
          assert.strictEqual(reason._tag, "InvalidInput")
          assert.strictEqual(
            (reason as ClaudeError.InvalidInput).description,
            `Invalid request options: timeout must be a positive duration (got ${shownAs})`
          )
        }
        // A turn after them: its result comes once the CLI has read what was written before it.
        yield* session.run("Hi")
        const sent = launches[0]!.received.filter((m) => m.type === "control_request").map((m) => (m.request as { subtype: string }).subtype)
        assert.deepStrictEqual(sent, ["initialize"])
      }).pipe(Effect.provide(layer))
    }))
})
