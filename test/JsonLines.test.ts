/**
 * `internal/jsonLines.ts`: the whole lines of a chunk parsed with one `JSON.parse`, and the line
 * by line path whenever that would not give exactly one value a line.
 *
 * - any stream of lines (messages, lines that are not JSON, empty lines, CRLF, a byte order mark,
 *   two objects on one line, lines over the cap), cut anywhere, gives the values the splitter and
 *   `parseJson` give line by line, in order;
 * - a chunk of well-formed lines is parsed in one piece, and each case that must not be is not;
 * - a line of a run that fails its schema is reported with its own text (session, FakeCli).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import fc from "fast-check"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import { type JsonFrame, JsonLines, ParsedRun } from "../src/internal/jsonLines.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const utf8 = new TextEncoder()

/** What a frame reads as: a line's JSON value (undefined: not JSON), or the oversized line. */
type Read = { readonly json: unknown } | Framing.Oversized

const readLineByLine = (chunks: ReadonlyArray<Uint8Array>, cap: number): Array<Read> => {
  const splitter = new Framing.LineSplitter(cap)
  const frames: Array<Framing.Frame> = []
  for (const chunk of chunks) splitter.push(chunk, frames)
  splitter.end(frames)
  return frames.map((frame) => typeof frame === "string" ? { json: Framing.parseJson(frame) } : frame)
}

const framesOf = (chunks: ReadonlyArray<Uint8Array>, cap: number): Array<JsonFrame> => {
  const lines = new JsonLines(cap)
  const frames: Array<JsonFrame> = []
  for (const chunk of chunks) lines.push(chunk, frames)
  lines.end(frames)
  return frames
}

const readTogether = (frames: ReadonlyArray<JsonFrame>): Array<Read> =>
  frames.flatMap((frame): Array<Read> =>
    frame instanceof ParsedRun
      ? frame.values.map((json) => ({ json }))
      : [typeof frame === "string" ? { json: Framing.parseJson(frame) } : frame]
  )

const runs = (frames: ReadonlyArray<JsonFrame>) => frames.filter((f): f is ParsedRun => f instanceof ParsedRun)

const chunksOf = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut > start && cut < bytes.length) {
      chunks.push(bytes.slice(start, cut))
      start = cut
    }
  }
  chunks.push(bytes.slice(start))
  return chunks
}

const message = (text: string) => JSON.stringify({ type: "stream_event", event: { type: "content_block_delta", delta: { type: "text_delta", text } } })

/** A line as the CLI writes it, or one of the lines it does not write. */
const anyLine: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map(message) },
  { weight: 1, arbitrary: fc.constantFrom("", "\r", "not json", "{", "}", "{}", "{},{}", "{\"a\":[{}", "{}]}", "[1,2]", "1", "\uFEFF{}") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((text) => message(text) + "\r") },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) }
)

const anyStream = fc.array(anyLine, { minLength: 1, maxLength: 40 }).chain((lines) => {
  const bytes = utf8.encode(lines.map((line) => line + "\n").join(""))
  return fc.record({
    bytes: fc.constant(bytes),
    cuts: fc.array(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 12 }),
    cap: fc.oneof(fc.constant(Framing.defaultMaxLineBytes), fc.integer({ min: 8, max: 400 }))
  })
})

describe("JsonLines", () => {
  it("any stream cut anywhere reads as it does line by line", () =>
    fc.assert(
      fc.property(anyStream, ({ bytes, cuts, cap }) => {
        const chunks = chunksOf(bytes, cuts)
        assert.deepStrictEqual(readTogether(framesOf(chunks, cap)), readLineByLine(chunks, cap))
      }),
      { numRuns: 1000 }
    ))

  it("the whole lines of a chunk are parsed in one piece, the line still open before it on its own", () => {
    const lines = ["é", "b", "c", "→ 漢字 🎉"].map(message)
    const frames = framesOf([utf8.encode(lines[0]!.slice(0, 10)), utf8.encode(lines[0]!.slice(10) + "\n" + lines.slice(1).join("\n") + "\n")], 1024)
    assert.strictEqual(frames.length, 2)
    assert.strictEqual(frames[0], lines[0])
    const [run] = runs(frames)
    assert.deepStrictEqual(run!.values, lines.slice(1).map((line) => JSON.parse(line)))
    assert.strictEqual(run!.line(2), lines[3])
  })

  it("a chunk that is not all one object a line goes line by line, and reads the same", () => {
    const good = [message("a"), message("b")]
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["a line that is not JSON", [good[0], "not json", good[1]].join("\n")],
      ["two objects on one line", [good[0], "{},{}", good[1]].join("\n")],
      ["an empty line", [good[0], "", good[1]].join("\n")],
      ["CRLF", good.join("\r\n") + "\r"],
      ["a byte order mark", [good[0], "\uFEFF" + good[1]].join("\n")],
      ["an array, not an object", [good[0], "[1]", good[1]].join("\n")]
    ]
    for (const [label, text] of cases) {
      const chunks = [utf8.encode("{}\n" + text + "\n")]
      const frames = framesOf(chunks, 1024)
      assert.strictEqual(runs(frames).length, 0, label)
      assert.deepStrictEqual(readTogether(frames), readLineByLine(chunks, 1024), label)
    }
  })

  it("a run over the cap on one line, or over a pipe's read, goes line by line", () => {
    const small = [utf8.encode("{}\n" + [message("a"), message("b")].join("\n") + "\n")]
    assert.strictEqual(runs(framesOf(small, 1024)).length, 1)
    assert.strictEqual(runs(framesOf(small, 60)).length, 0)
    assert.deepStrictEqual(readTogether(framesOf(small, 60)), readLineByLine(small, 60))

    const line = message("x".repeat(1000))
    const big = [utf8.encode("{}\n" + Array.from({ length: 70 }, () => line).join("\n") + "\n")]
    assert.strictEqual(runs(framesOf(big, Framing.defaultMaxLineBytes)).length, 0)
    assert.strictEqual(readTogether(framesOf(big, Framing.defaultMaxLineBytes)).length, 71)
  })

  it.effect("a line of a run that breaks its schema is reported with its own text", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({})
      const events = yield* session.turn("x").pipe(Stream.runCollect)
      const problems = events.filter((e): e is Claude.ProtocolProblem => e.type === "protocol_problem")
      assert.strictEqual(problems.length, 1)
      assert.strictEqual(problems[0]!.error.line, BROKEN)
      assert.strictEqual(problems[0]!.messageType, "assistant")
      assert.strictEqual(events.at(-1)!.type, "result")
    }).pipe(Effect.scoped, Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: "s-1",
      onUser: (text, _index, cli) => {
        const lines = FakeCli.textTurn({ sessionId: "s-1", text }).map((line) => JSON.stringify(line))
        // One chunk: the broken line between well-formed ones.
        return cli.emitRaw([lines[0], BROKEN, ...lines.slice(1)].join("\n") + "\n")
      }
    })))))
})

const BROKEN = JSON.stringify({ type: "assistant", message: { oops: true }, session_id: "s-1" })
