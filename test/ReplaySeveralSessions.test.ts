/**
 * A transcript of several sessions: one recorder given to each (as `ClaudeCodeLanguageModel`'s
 * calls share the layer's), one after another or at once. Every session opened on the replay
 * played the file from its start, so the second session's prompt was a `ReplayMismatch` and a
 * recorded `effect/ai` program of two calls could not be replayed. The recorder now writes which
 * of its sessions each line is (`session`, from the second on), and the n-th session opened on
 * the replay plays the n-th session's lines (its number taken when the session opens its CLI, as
 * the replay takes its own, and passed to `record`, which a wrapping recorder passes on).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Chat from "effect/ai/Chat"
import * as Sink from "effect/Sink"
import type * as Scope from "effect/Scope"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Transcript from "../src/Transcript.ts"
import type { Transport } from "../src/Transport.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

type Program<A> = (transcript?: Transcript.TranscriptRecorder) => Effect.Effect<A, unknown, Transport | Scope.Scope>

/** Runs `program` against the echoing FakeCli with one `Transcript.toSink` recorder: the lines. */
const record = <A>(program: Program<A>) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
      yield* program(recorder)
    })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
    return yield* Transcript.parse(written.join(""))
  })

const replay = <A>(lines: ReadonlyArray<Transcript.Line>, program: Program<A>) =>
  Effect.exit(Effect.scoped(program())).pipe(
    Effect.provide(Replay.layer(lines)),
    Effect.timeoutOrElse({
      duration: "2 seconds",
      orElse: () => Effect.succeed<Exit.Exit<A, unknown>>(Exit.fail("hung"))
    })
  )

const ask = (transcript: Transcript.TranscriptRecorder | undefined, prompt: string) =>
  Effect.scoped(Effect.flatMap(Claude.open(transcript === undefined ? {} : { transcript }), (session) => session.run(prompt))).pipe(
    Effect.map((result) => result.result)
  )

describe("Replay: a transcript of several sessions", () => {
  it.live("two sessions one after the other: each replays its own lines", () =>
    Effect.gen(function*() {
      const program: Program<ReadonlyArray<string | undefined>> = (transcript) =>
        Effect.all([ask(transcript, "one"), ask(transcript, "two")])
      const lines = yield* record(program)
      assert.deepStrictEqual(lines.map((line) => line.session ?? 0).filter((n, i, all) => all.indexOf(n) === i), [0, 1])
      assert.deepStrictEqual(yield* replay(lines, program), Exit.succeed(["echo: one", "echo: two"]))
    }))

  it.live("two sessions at once, their lines interleaved: each replays its own lines", () =>
    Effect.gen(function*() {
      const program: Program<ReadonlyArray<string | undefined>> = (transcript) =>
        Effect.all([ask(transcript, "left"), ask(transcript, "right")], { concurrency: 2 })
      const lines = yield* record(program)
      assert.deepStrictEqual(yield* replay(lines, program), Exit.succeed(["echo: left", "echo: right"]))
    }))

  it.live("a program that opens more sessions than were recorded: the extra one is a mismatch, not a hang", () =>
    Effect.gen(function*() {
      const lines = yield* record((transcript) => Effect.all([ask(transcript, "one"), ask(transcript, "two")]))
      const exit = yield* replay(lines, () => Effect.all([ask(undefined, "one"), ask(undefined, "two"), ask(undefined, "three")]))
      const failed = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
      const error = failed?._tag === "Fail" ? failed.error : undefined
      assert.strictEqual((error as ClaudeError.ClaudeError | undefined)?.reason._tag, "ReplayMismatch", String(exit))
    }))

  it.live("an effect/ai Chat of two turns (a session a call), recorded through the layer's recorder, replays", () =>
    Effect.gen(function*() {
      const program: Program<ReadonlyArray<string>> = (transcript) =>
        Effect.gen(function*() {
          const chat = yield* Chat.empty
          const first = yield* chat.generateText({ prompt: "Pick a number." })
          const second = yield* chat.generateText({ prompt: "And another." })
          return [first.text, second.text]
        }).pipe(Effect.provide(ClaudeCodeLanguageModel.layer(transcript === undefined ? {} : { transcript })))
      const lines = yield* record(program)
      const replayed = yield* replay(lines, program)
      assert.isTrue(Exit.isSuccess(replayed), String(replayed))
      assert.lengthOf(Exit.isSuccess(replayed) ? replayed.value : [], 2)
    }))

  it.live("a recorder wrapping a Transcript recorder sees every line; passing session on, its recording replays", () =>
    Effect.gen(function*() {
      let seen = 0
      const program: Program<ReadonlyArray<string | undefined>> = (transcript) =>
        Effect.all([ask(transcript, "one"), ask(transcript, "two")])
      const written: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const inner = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
        // Before: the wrapper's `record` never ran (a method it spread from the inner one took the lines).
        const wrapper: Transcript.TranscriptRecorder = {
          ...inner,
          record: (direction, message, session) => {
            seen++
            inner.record(direction, message, session)
          }
        }
        yield* program(wrapper)
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({}))))
      assert.isAbove(seen, 0, "the wrapper's record was never called")
      const lines = yield* Transcript.parse(written.join(""))
      assert.deepStrictEqual(yield* replay(lines, program), Exit.succeed(["echo: one", "echo: two"]))
    }))
})
