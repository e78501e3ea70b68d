/**
 * Two replay defects (found by a review):
 * - an over-cap `control_response` was played with its recorded request id (only uuids were
 *   rewritten in an over-cap line's head and tail), so the reader failed no request and the
 *   replayed request waited for its timeout where the recorded one failed at once;
 * - `streamText` made up `text_delta`s for every `assistant` line, even one whose real deltas the
 *   transcript holds (recorded with `streamEvents: true`): the replayed text streamed twice.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import * as Turn from "../src/Turn.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { outcomeOf } from "./support/outcomes.ts"


/** A temporary directory, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-replay-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * Records a session whose initialize answer carries `commands` commands, over the cap of 2000
 * bytes (its request id in its head), then replays it: the outcomes of `initializeResult`.
 */
const recordThenReplayOverCap = (commands: number) =>
  Effect.gen(function*() {
    const lines: Array<Transcript.Line> = []
    const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const initialize = yield* cli.nextMatching((m) => m.type === "control_request")
        const list = Array.from({ length: commands }, (_, i) => ({ name: `command-${i}`, description: "a command", argumentHint: "" }))
        yield* cli.emit(FakeCli.success(initialize, { commands: list, models: [], account: {} }))
        return yield* Effect.exit(cli.next).pipe(Effect.as(0))
      })
    )
    // Short: a replayed request left waiting fails by it (ControlTimeout), quickly.
    const options = { maxLineBytes: 2000, initializeTimeout: "1 second", closeGrace: "300 millis" } as const
    const recorded = yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ ...options, transcript: recorder })
      return yield* Effect.exit(session.initializeResult)
    })).pipe(Effect.provide(cli))
    const replayed = yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open(options)
      return yield* Effect.exit(session.initializeResult)
    })).pipe(Effect.provide(Replay.layer(lines)))
    return { recorded: outcomeOf(recorded), replayed: outcomeOf(replayed) }
  })

const overCap = /^ProtocolViolation: The CLI's answer to initialize breaks the protocol: a line of (\d+) bytes is over the cap of 2000$/

describe("replay of an over-cap control response", () => {
  it.live("the replayed request fails at once as the recorded one did, not by its timeout", () =>
    Effect.gen(function*() {
      // Under 64 KiB: the recorded tail is the whole line.
      const { recorded, replayed } = yield* recordThenReplayOverCap(100)
      assert.match(recorded, overCap)
      // The same reason and size (today's request id is as long as the recorded one).
      assert.strictEqual(replayed, recorded)
    }), 20_000)

  it.live("so it does for a line whose middle was not kept (over 66 KiB)", () =>
    Effect.gen(function*() {
      const { recorded, replayed } = yield* recordThenReplayOverCap(2000)
      assert.isAbove(Number(overCap.exec(recorded)?.[1]), 66 * 1024, recorded)
      assert.strictEqual(replayed, recorded)
    }), 20_000)
})

describe("Replay with streamText over a transcript with stream events", () => {
  it.live("the replayed deltas spell the answer once", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "t.ndjson")
      const recorded = yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file, { streamEvents: true })
        const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
        return yield* session.turn("hi").pipe(Turn.textDeltas, Stream.runCollect)
      })).pipe(Effect.provide(FakeCli.replying(() => "hello world")))
      assert.strictEqual(recorded.join(""), "hello world")

      const replayed = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "300 millis" })
        return yield* session.turn("hi").pipe(Turn.textDeltas, Stream.runCollect, Effect.timeout("3 seconds"))
      })).pipe(Effect.provide(Replay.layer(file, { streamText: true })))
      assert.strictEqual(replayed.join(""), "hello world")
    }).pipe(Effect.scoped))

  it.live("a transcript with the deltas of one turn only: each turn's text streams once", () =>
    Effect.gen(function*() {
      const lines: Array<Transcript.Line> = []
      const recorder = {
        record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }),
        streamEvents: true
      }
      const answers = ["first answer", "second answer"]
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
        yield* session.run("one")
        yield* session.run("two")
      })).pipe(Effect.provide(FakeCli.replying((_prompt, index) => answers[index]!)))
      // The first turn's stream events dropped: its text is made up, the second's is as recorded.
      const firstResult = lines.findIndex((line) => (line.msg as { type?: unknown }).type === "result")
      const mixed = lines.filter((line, i) => i > firstResult || (line.msg as { type?: unknown }).type !== "stream_event")
      assert.isBelow(mixed.length, lines.length)

      const replayed = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "300 millis" })
        const one = yield* session.turn("one").pipe(Turn.textDeltas, Stream.runCollect)
        const two = yield* session.turn("two").pipe(Turn.textDeltas, Stream.runCollect)
        return [one.join(""), two.join("")]
      })).pipe(Effect.timeout("3 seconds"), Effect.provide(Replay.layer(mixed, { streamText: true, chunks: 3 })))
      assert.deepStrictEqual(replayed, answers)
    }))
})
