/**
 * A program that interrupts its turn on seeing a streamed text, recorded with `streamEvents: true`
 * and an `apiKey` (so a delta ending in "s", which may begin the key, is held back by the
 * recorder), then replayed: the transcript had the interrupt before the text that caused it, so
 * the replay played the text only after the interrupt, and the program, waiting for the text,
 * waited until its deadline. The transcript keeps the order now, and the replay plays it through.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

const KEY = "sk-ant-replay-order-0123456789abcdef"

const tempFile = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-replay-order-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => Path.join(dir, "t.ndjson")))

/** A CLI streaming "please s", then, once interrupted, "top" and an aborted result. */
const cli = FakeCli.layer((cli) =>
  Effect.gen(function*() {
    yield* FakeCli.answerInitialize(cli)
    const user = yield* cli.nextMatching((m) => m.type === "user")
    const uuid = String(user.uuid)
    const echo = { user_message_uuid: uuid, user_message_uuids: [uuid] }
    const [init, start, blockStart] = FakeCli.textTurn({ sessionId: "s-1", text: "x", userMessageUuid: uuid })
    for (const line of [init, start, blockStart]) yield* cli.emit(line)
    const delta = (text: string, i: number) => ({
      type: "stream_event",
      event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
      session_id: "s-1",
      parent_tool_use_id: null,
      uuid: `delta-${i}`,
      ...echo
    })
    yield* cli.emit(delta("please s", 1))
    const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
    yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
    yield* cli.emit(delta("top", 2))
    yield* cli.emit({
      ...FakeCli.result({ sessionId: "s-1", subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
      ...echo
    })
    return yield* Effect.exit(cli.next).pipe(Effect.as(0))
  })
)

/** Runs a turn, interrupting it once its text says "please". */
const program = (options: Claude.SessionOptions) =>
  Effect.scoped(Effect.gen(function*() {
    const session = yield* Claude.open({ ...options, apiKey: Redacted.make(KEY), closeGrace: "300 millis" })
    let interrupted = false
    yield* session.turn("go").pipe(
      Stream.runForEach((event) => {
        const e = event as { type: string; event?: { delta?: { text?: string } } }
        if (interrupted || e.type !== "stream_event" || !(e.event?.delta?.text ?? "").includes("please")) return Effect.void
        interrupted = true
        return session.interrupt
      }),
      Effect.ignore,
      Effect.timeout("3 seconds")
    )
    return interrupted
  }))

describe("Replay of a turn interrupted on a held text", () => {
  it.live("plays the text before the interrupt it caused", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const recorded = yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file, { streamEvents: true })
        return yield* program({ transcript: recorder, includePartialMessages: true })
      })).pipe(Effect.provide(cli))
      assert.isTrue(recorded)
      const replayed = yield* Effect.exit(program({ includePartialMessages: true }).pipe(Effect.provide(Replay.layer(file))))
      assert.isTrue(Exit.isSuccess(replayed), String(replayed))
      assert.isTrue(Exit.isSuccess(replayed) && replayed.value)
    }))
})
