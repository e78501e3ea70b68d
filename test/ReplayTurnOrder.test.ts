/**
 * Replay of a program that sends a recorded prompt out of its turn: it skips a turn the recording
 * has first (or, recorded with several sessions in one file, opens its second session, which
 * replays the file from its start). The prompt matched the later recorded turn, whose answer is
 * gated behind the skipped one, so the turn waited for ever; now it is a `ReplayMismatch` naming
 * the turn the recording expects.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as Transcript from "../src/Transcript.ts"
import type { Transport } from "../src/Transport.ts"
import type * as Scope from "effect/Scope"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

type Recorder = { readonly record: (dir: "send" | "recv", msg: unknown) => void }
type Program<A> = (transcript?: Recorder) => Effect.Effect<A, ClaudeError.ClaudeError, Transport | Scope.Scope>

const open = (transcript?: Recorder) => Claude.open(transcript === undefined ? {} : { transcript })

/** Runs `program` against the echoing FakeCli with a recorder: the recorded lines. */
const record = <A>(program: Program<A>) =>
  Effect.gen(function*() {
    const lines: Array<Transcript.Line> = []
    const recorder: Recorder = { record: (dir, msg) => void lines.push({ dir, msg }) }
    yield* Effect.scoped(program(recorder)).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
    return lines
  })

const mismatchOf = (exit: Exit.Exit<unknown, unknown>) => {
  assert.isTrue(Exit.isFailure(exit), "the replayed turn fails")
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
  assert.instanceOf(error, ClaudeError.ClaudeError)
  const reason = (error as ClaudeError.ClaudeError).reason
  assert.strictEqual(reason._tag, "ReplayMismatch")
  return reason as ClaudeError.ReplayMismatch
}

const replay = <A>(lines: ReadonlyArray<Transcript.Line>, program: Program<A>) =>
  Effect.exit(Effect.scoped(program())).pipe(
    Effect.provide(Replay.layer(lines)),
    // A hang is what this guards against: well under the unit test's own 5 s.
    Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.succeed(Exit.fail("hung" as const)) })
  )

describe("Replay: a prompt sent out of its recorded turn", () => {
  it.live("a program that skips the first recorded turn fails with ReplayMismatch naming it, not a hang", () =>
    Effect.gen(function*() {
      const lines = yield* record((transcript) =>
        Effect.gen(function*() {
          const session = yield* open(transcript)
          yield* session.run("first question")
          yield* session.run("second question")
        })
      )
      const exit = yield* replay(lines, () => Effect.flatMap(open(), (session) => session.run("second question")))
      const mismatch = mismatchOf(exit)
      assert.include(mismatch.expected, "first question")
      assert.include(mismatch.actual, "second question")
    }))

  it.live("two sessions recorded in one file: the second session's other prompt is a mismatch, not a hang", () =>
    Effect.gen(function*() {
      const program: Program<unknown> = (transcript) =>
        Effect.gen(function*() {
          yield* Effect.scoped(Effect.flatMap(open(transcript), (session) => session.run("one")))
          return yield* Effect.scoped(Effect.flatMap(open(transcript), (session) => session.run("two")))
        })
      const lines = yield* record(program)
      const mismatch = mismatchOf(yield* replay(lines, program))
      assert.include(mismatch.expected, "\"one\"")
      assert.include(mismatch.actual, "\"two\"")
    }))

  it.live("the turns in their recorded order still replay", () =>
    Effect.gen(function*() {
      const program = (transcript?: Recorder) =>
        Effect.gen(function*() {
          const session = yield* open(transcript)
          const a = yield* session.run("first question")
          const b = yield* session.run("second question")
          return [a.result, b.result]
        })
      const lines = yield* record(program)
      const exit = yield* replay(lines, program)
      assert.deepStrictEqual(exit, Exit.succeed(["echo: first question", "echo: second question"]))
    }))
})
