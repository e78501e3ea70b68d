import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Framing from "../src/Framing.ts"

const encoder = new TextEncoder()

const frame = (chunks: ReadonlyArray<Uint8Array>, maxLineBytes?: number): Array<Framing.Frame> => {
  const splitter = new Framing.LineSplitter(maxLineBytes)
  const out: Array<Framing.Frame> = []
  for (const chunk of chunks) splitter.push(chunk, out)
  return splitter.end(out)
}

const splitAt = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const point of points) {
    chunks.push(bytes.subarray(start, point))
    start = point
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

// Lines with multi-byte characters (2, 3 and 4 bytes in UTF-8) so that cuts land inside them.
const lineArbitrary = fc.string({ unit: fc.constantFrom("a", "é", "→", "日", "𝄞", "{", "\"", " ", "\\"), minLength: 1 })
  .filter((s) => s.trim().length > 0)

describe("Framing", () => {
  it("splits lines and keeps a last line without a newline", () => {
    const out = frame([encoder.encode("one\ntwo\nthree")])
    assert.deepStrictEqual(out, ["one", "two", "three"])
  })

  it("drops empty lines and a lone carriage return", () => {
    assert.deepStrictEqual(frame([encoder.encode("a\n\n\r\nb\r\n")]), ["a", "b\r"])
  })

  it("joins a line split across many chunks, also inside a multi-byte character", () => {
    const bytes = encoder.encode("{\"text\":\"日本語 → 𝄞\"}\n{\"b\":1}\n")
    const chunks = Array.from(bytes, (b) => Uint8Array.of(b))
    assert.deepStrictEqual(frame(chunks), ["{\"text\":\"日本語 → 𝄞\"}", "{\"b\":1}"])
  })

  it("any split of any stream gives the same lines (property)", () => {
    fc.assert(
      fc.property(fc.array(lineArbitrary, { minLength: 1, maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (lines, cuts) => {
        const bytes = encoder.encode(lines.join("\n") + "\n")
        assert.deepStrictEqual(frame(splitAt(bytes, cuts)), lines.filter((l) => l !== "\r"))
      }),
      { numRuns: 500 }
    )
  })

  it("arbitrary bytes never throw and keep memory bounded by the cap (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 20 }), (chunks) => {
        const out = frame(chunks, 64)
        for (const piece of out) {
          if (typeof piece === "string") assert.isAtMost(Buffer.byteLength(piece), 64)
          else assert.isAbove(piece.bytes, 64)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("reports a line over the cap, skips it, and goes on", () => {
    const big = "x".repeat(1000)
    for (const chunks of [[encoder.encode(`a\n${big}\nb\n`)], splitAt(encoder.encode(`a\n${big}\nb\n`), [3, 50, 500, 990])]) {
      const out = frame(chunks, 100)
      assert.strictEqual(out.length, 3)
      assert.strictEqual(out[0], "a")
      const oversized = out[1] as Framing.Oversized
      assert.strictEqual(oversized._tag, "Oversized")
      assert.strictEqual(oversized.bytes, 1000)
      assert.isTrue(oversized.head.startsWith("xxx"))
      assert.strictEqual(out[2], "b")
    }
  })

  it("counts the cap in bytes, not characters", () => {
    // 40 three-byte characters: 40 UTF-16 units, 120 bytes.
    const out = frame([encoder.encode("→".repeat(40) + "\nok\n")], 100)
    assert.strictEqual((out[0] as Framing.Oversized).bytes, 120)
    assert.strictEqual(out[1], "ok")
  })

  it("frames a 100 MiB line when the cap is raised", () => {
    const size = 100 * 1024 * 1024
    const payload = Buffer.alloc(size, "a")
    const splitter = new Framing.LineSplitter(128 * 1024 * 1024)
    const out: Array<Framing.Frame> = []
    splitter.push(encoder.encode("{\"t\":\""), out)
    for (let offset = 0; offset < size; offset += 64 * 1024) splitter.push(payload.subarray(offset, offset + 64 * 1024), out)
    splitter.push(encoder.encode("\"}\n{\"next\":true}\n"), out)
    assert.strictEqual(out.length, 2)
    assert.strictEqual((out[0] as string).length, size + 8)
    assert.strictEqual(out[1], "{\"next\":true}")
  })

  it("skips a 100 MiB line under the default cap of 64 MiB without keeping it", () => {
    const size = 100 * 1024 * 1024
    const payload = Buffer.alloc(64 * 1024, "b")
    const splitter = new Framing.LineSplitter()
    const out: Array<Framing.Frame> = []
    for (let offset = 0; offset < size; offset += payload.length) splitter.push(payload, out)
    splitter.push(encoder.encode("\n{\"after\":1}\n"), out)
    assert.strictEqual((out[0] as Framing.Oversized).bytes, size)
    assert.strictEqual(out[1], "{\"after\":1}")
  })

  it("parseJson returns undefined for garbage and the value otherwise", () => {
    assert.isUndefined(Framing.parseJson("not json"))
    assert.isUndefined(Framing.parseJson("{\"truncated\":"))
    assert.deepStrictEqual(Framing.parseJson("{\"a\":1}"), { a: 1 })
    assert.strictEqual(Framing.parseJson("null"), null)
  })
})
