/**
 * `internal/jsonLines.ts`: the whole lines of a chunk parsed with one `JSON.parse`, and the line
 * by line path whenever that would not give exactly one value a line.
 *
 * - any stream of lines (messages, lines that are not JSON, empty lines, CRLF, a byte order mark,
 *   invalid UTF-8, two objects on one line, a line that opens a string or an array, lines over
 *   the cap), cut anywhere, in chunks that are views into larger buffers, gives the values the
 *   splitter and `parseJson` give line by line, in order;
 * - a chunk of well-formed lines is parsed in one piece, and each case that must not be is not;
 * - what the module says it does not tell apart (lines written to pair up) is as it says;
 * - a line of a run that fails its schema is reported with its own text (session, FakeCli).
 */
import { assert, describe, it, vi } from "@effect/vitest"
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

/** `bytes` cut at `cuts`, each piece a view into a larger buffer (a non-zero `byteOffset`). */
const chunksOf = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const view = (from: number, to: number) => {
    const padded = new Uint8Array(to - from + 7)
    padded.set(bytes.subarray(from, to), 3)
    return padded.subarray(3, 3 + to - from)
  }
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut > start && cut < bytes.length) {
      chunks.push(view(start, cut))
      start = cut
    }
  }
  chunks.push(view(start, bytes.length))
  return chunks
}

const message = (text: string) => JSON.stringify({ type: "stream_event", event: { type: "content_block_delta", delta: { type: "text_delta", text } } })

/**
 * A line as the CLI writes it, or one of the lines it does not write: among those, lines that
 * open a string or an array and a line of two objects, but none that closes what another opened
 * (with both, lines can pair up, which the module says it does not tell apart: tested apart).
 */
const anyLine: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((text) => utf8.encode(message(text))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "\r", "not json", "{", "}", "{}", "{},{}", "{\"a\":[{}", "{\"a\":\"}", "[1,2]", "1", "\uFEFF{}")
      .map((line) => utf8.encode(line))
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map((text) => utf8.encode(message(text) + "\r")) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map((text) => utf8.encode(text)) },
  // Invalid UTF-8 inside a string: a lone continuation byte, a sequence cut short.
  { weight: 1, arbitrary: fc.constantFrom([0x80], [0xC3], [0xE2, 0x82], [0xFF]).map((bad) => Uint8Array.from([...utf8.encode("{\"t\":\"a"), ...bad, ...utf8.encode("b\"}")])) }
)

const anyStream = fc.array(anyLine, { minLength: 1, maxLength: 40 }).chain((lines) => {
  const bytes = Uint8Array.from(lines.flatMap((line) => [...line, 0x0A]))
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

  it("a run over the cap on one line goes line by line", () => {
    const small = [utf8.encode("{}\n" + [message("a"), message("b")].join("\n") + "\n")]
    assert.strictEqual(runs(framesOf(small, 1024)).length, 1)
    assert.strictEqual(runs(framesOf(small, 60)).length, 0)
    assert.deepStrictEqual(readTogether(framesOf(small, 60)), readLineByLine(small, 60))
  })

  it("a run over a pipe's read (64 KiB) goes line by line without a parse in one piece", () => {
    const line = message("x".repeat(1000))
    const big = [utf8.encode("{}\n" + Array.from({ length: 70 }, () => line).join("\n") + "\n")]
    const parse = vi.spyOn(JSON, "parse")
    try {
      const frames = framesOf(big, Framing.defaultMaxLineBytes)
      assert.strictEqual(runs(frames).length, 0)
      assert.strictEqual(parse.mock.calls.filter(([text]) => text.startsWith("[")).length, 0)
      assert.deepStrictEqual(readTogether(frames), readLineByLine(big, Framing.defaultMaxLineBytes))
    } finally {
      parse.mockRestore()
    }
  })

  it("lines written to pair up parse as the values they pair up into, as the module says", () => {
    // Neither of the first two lines is JSON; the third holds two objects: three lines, three
    // values. Line by line, all three are skipped.
    const lines = ["{\"a\":[{}", "{}]}", "{\"x\":1},{\"y\":2}"]
    const chunks = [utf8.encode("{}\n" + lines.join("\n") + "\n")]
    assert.deepStrictEqual(readLineByLine(chunks, 1024), [{ json: {} }, { json: undefined }, { json: undefined }, { json: undefined }])
    assert.deepStrictEqual(readTogether(framesOf(chunks, 1024)), [{ json: {} }, { json: { a: [{}, {}] } }, { json: { x: 1 } }, { json: { y: 2 } }])
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
        // One chunk: the broken line between well-formed ones, neither first nor last of its run.
        return cli.emitRaw([...lines.slice(0, 2), BROKEN, ...lines.slice(2)].join("\n") + "\n")
      }
    })))))
})

const BROKEN = JSON.stringify({ type: "assistant", message: { oops: true }, session_id: "s-1" })
