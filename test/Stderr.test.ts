/**
 * Live stderr (issue 14, point 7): `Connection.stderr` streams the CLI's stderr line by line as it
 * arrives (here from the scripted fake; the real process in test/StderrLive.test.ts); the tail
 * still goes into the exit status.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { LineBuffer, MAX_LINE_CHARS, makeStderrFeed, REPLAY_LINES } from "../src/internal/stderrLines.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { type Connection, Transport } from "../src/Transport.ts"
import { ended, listen, nextLine } from "./support/stderrLines.ts"

describe("LineBuffer", () => {
  it("splits on \\n and \\r\\n, joins a line across chunks (also inside a character), keeps empty lines", () => {
    const buffer = new LineBuffer()
    const bytes = new TextEncoder().encode("café\r\nsecond")
    assert.deepStrictEqual(buffer.push(bytes.subarray(0, 4)), [])
    assert.deepStrictEqual(buffer.push(bytes.subarray(4)), ["café"])
    assert.deepStrictEqual(buffer.push(" half\n\nthird\n"), ["second half", "", "third"])
    assert.deepStrictEqual(buffer.push("no newline"), [])
    assert.deepStrictEqual(buffer.end(), ["no newline"])
    assert.deepStrictEqual(buffer.end(), [])
  })

  it("cuts a line longer than MAX_LINE_CHARS into pieces, also while it is still open", () => {
    const buffer = new LineBuffer()
    const long = "x".repeat(MAX_LINE_CHARS * 2 + 5)
    assert.deepStrictEqual(buffer.push(long).map((l) => l.length), [MAX_LINE_CHARS, MAX_LINE_CHARS])
    assert.deepStrictEqual(buffer.push("\n").map((l) => l.length), [5])
    assert.deepStrictEqual(buffer.push(long + "\n").map((l) => l.length), [MAX_LINE_CHARS, MAX_LINE_CHARS, 5])
  })
})

describe("the stderr feed", () => {
  it.effect("a stream started late gets the last lines written before it; every stream ends at the end", () =>
    Effect.gen(function*() {
      const feed = yield* makeStderrFeed
      for (let i = 0; i < REPLAY_LINES + 5; i++) yield* feed.push(`early ${i}\n`)
      yield* feed.push("last, unfinished")
      yield* feed.end
      yield* feed.push("after the end\n")
      const lines = yield* Stream.runCollect(feed.stream)
      assert.strictEqual(lines.length, REPLAY_LINES)
      assert.strictEqual(lines.at(-1), "last, unfinished")
      assert.strictEqual(lines[0], "early 6")
    }))
})

describe("Connection.stderr", () => {
  it.effect("FakeCli: handle.stderr feeds the stream as the script writes, and the exit status keeps the tail", () =>
    Effect.gen(function*() {
      const transport = yield* Transport
      const connection = yield* transport.open({ args: [], env: {}, closeGrace: Duration.seconds(1) })
      const lines = yield* listen(connection)
      yield* connection.send(JSON.stringify({ step: 1 }))
      assert.strictEqual(yield* nextLine(lines), "warming up")
      yield* connection.send(JSON.stringify({ step: 2 }))
      assert.strictEqual(yield* nextLine(lines), "partial then whole")
      yield* connection.endInput
      assert.strictEqual(yield* nextLine(lines), "unfinished")
      const status = yield* connection.exit
      assert.strictEqual(status.stderrTail, "warming up\npartial then whole\nunfinished")
      assert.isTrue(yield* ended(lines))
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* cli.next
        yield* cli.stderr("warming up\npartial")
        yield* cli.next
        yield* cli.stderr(" then whole\nunfinished")
        yield* Effect.exit(cli.next)
        return 0
      })
    ))))
})
