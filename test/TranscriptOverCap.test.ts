/**
 * A line over `maxLineBytes` in a transcript. Its bytes are never kept, so a transcript records
 * what the session knew of it (`Framing.OversizedLine`: its size, message type, head and tail),
 * and a replay plays a line of that size again: the replayed session fails the same turn the same
 * way. Before, such a line was not recorded at all (found by a reviewing helper): the replayed
 * turn waited for a result that never came.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { outcomeOf } from "./support/outcomes.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"


describe("a line over maxLineBytes in a transcript", () => {
  it.live("is recorded as its size, type, head and tail; replayed, the turn fails the same way", () =>
    Effect.gen(function*() {
      const lines: Array<Transcript.Line> = []
      const recorder = { record: (dir: "send" | "recv", msg: unknown) => void lines.push({ dir, msg }) }
      const text = "x".repeat(3000)
      const recorded = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ transcript: recorder, maxLineBytes: 1000, closeGrace: "300 millis" })
        return yield* Effect.exit(session.run("hi"))
      })).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, message) =>
          Effect.forEach(
            FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: message.uuid as string }),
            (line) => cli.emit(line),
            { discard: true }
          )
      }))))
      const overCap = lines.filter((line) => (line.msg as { type?: unknown }).type === Framing.oversizedLineType)
      // The assistant line and the result, both over the cap of 1000 bytes.
      assert.deepStrictEqual(
        overCap.map((line) => [line.dir, (line.msg as Framing.OversizedLine).messageType]),
        [["recv", "assistant"], ["recv", "result"]]
      )
      const result = overCap[1]!.msg as Framing.OversizedLine
      assert.isAbove(result.bytes, 3000)
      assert.isTrue(result.head.startsWith(`{"type":"result"`), result.head.slice(0, 40))
      assert.isTrue(result.tail.endsWith("}"))

      const replayed = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ maxLineBytes: 1000, closeGrace: "300 millis" })
        return yield* Effect.exit(session.run("hi").pipe(Effect.timeout("3 seconds")))
      })).pipe(Effect.provide(Replay.layer(lines)))
      assert.match(outcomeOf(recorded), /^ProtocolViolation: a line of \d+ bytes is over the cap of 1000$/)
      assert.strictEqual(outcomeOf(replayed), outcomeOf(recorded), "the replayed turn")
    }), 20_000)

  it("played again, a recorded line is its size, with its head and tail, whatever their overlap", () => {
    const line = (bytes: number) => `{"type":"user","pad":"${"y".repeat(bytes - 24)}"}`
    for (const bytes of [600, 3000, 70_000, 200_000]) {
      const original = line(bytes)
      assert.strictEqual(Buffer.byteLength(original), bytes)
      const splitter = new Framing.LineSplitter(500)
      const frames: Array<Framing.Frame> = []
      splitter.push(Buffer.from(original + "\n"), frames)
      const frame = frames[0] as Framing.Oversized
      const played = Buffer.concat(Framing.oversizedLineChunks(Framing.toOversizedLine(frame)))
      assert.strictEqual(played.length, bytes, `${bytes} bytes`)
      assert.isTrue(played.toString().startsWith(frame.head), `${bytes}: head`)
      assert.isTrue(played.toString().endsWith(frame.tail), `${bytes}: tail`)
      // Framed again with the same cap, it is the same frame.
      const again: Array<Framing.Frame> = []
      new Framing.LineSplitter(500).push(Buffer.concat([played, Buffer.from("\n")]), again)
      assert.deepStrictEqual(again, [frame])
    }
  })
})
