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

// The 100 MiB lines take seconds (more on a busy machine): those tests have 30 s, the rest the unit tier's 5 s.
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

  it("decodes any bytes, split anywhere, in Buffers or plain arrays, as TextDecoder decodes each line (property)", () => {
    // The reference: each line of the whole stream decoded alone by the WHATWG decoder (invalid
    // bytes become U+FFFD; a byte order mark that opens a line is dropped).
    const reference = (bytes: Uint8Array) => {
      const lines: Array<string> = []
      let start = 0
      for (let i = 0; i <= bytes.length; i++) {
        if (i < bytes.length && bytes[i] !== 10) continue
        const line = new TextDecoder("utf-8").decode(bytes.subarray(start, i))
        if (line !== "" && line !== "\r") lines.push(line)
        start = i + 1
      }
      return lines
    }
    // Pieces, not single bytes, so that byte order marks, newlines and whole or cut characters
    // come often (three random bytes make a mark once in 16 million).
    const piece = fc.oneof(
      fc.constantFrom([10], [13, 10], [0xEF, 0xBB, 0xBF], [0xEF], [0xEF, 0xBB], [0xC3, 0xA9], [0xE2, 0x86, 0x92], [0xF0, 0x9D, 0x84, 0x9E], [0xF0, 0x9D]),
      fc.integer({ min: 0, max: 255 }).map((b) => [b])
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (pieces, cuts, asBuffers) => {
        const bytes = Uint8Array.from(pieces.flat())
        const chunks = splitAt(bytes, cuts).map((chunk) => asBuffers ? Buffer.from(chunk) : chunk.slice())
        assert.deepStrictEqual(frame(chunks), reference(bytes))
      }),
      { numRuns: 2000 }
    )
  })

  it("drops a byte order mark that opens a line, in one chunk or across chunks", () => {
    const bom = "\uFEFF"
    const bytes = encoder.encode(`${bom}{"a":1}\n${bom}{"b":2}\n`)
    assert.deepStrictEqual(frame([bytes]), ["{\"a\":1}", "{\"b\":2}"])
    assert.deepStrictEqual(frame(Array.from(bytes, (b) => Buffer.of(b))), ["{\"a\":1}", "{\"b\":2}"])
    // A mark after a cut character does not open the line: it stays, in one chunk or in two
    // (Node 24's streaming TextDecoder drops it unless `ignoreBOM` is set: found by the property
    // test on a version that decoded a line's pieces as they came).
    const cut = Uint8Array.of(0xEF, 0xBB, 0xEF, 0xBB, 0xBF, 10)
    assert.deepStrictEqual(frame([cut]), ["\uFFFD\uFEFF"])
    assert.deepStrictEqual(frame([cut.subarray(0, 2), cut.subarray(2)]), ["\uFFFD\uFEFF"])
  })

  it("decodes a line of megabytes in pieces, characters cut at their edges, as TextDecoder decodes it whole", () => {
    // A byte order mark opens it (dropped). Pieces of 64 KiB less a byte: against the text's
    // period of 16 bytes, many of them end inside a character.
    const text = "\uFEFF{\"t\":\"" + "é日→𝄞 a\\\"".repeat(200_000) + "\"}"
    const bytes = encoder.encode(text + "\n")
    const size = 65_535
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => Buffer.from(bytes.subarray(i * size, (i + 1) * size)))
    assert.isAbove(chunks.length, 40)
    // A piece that opens with a continuation byte: the character before it was cut.
    assert.isAbove(chunks.slice(1).filter((chunk) => (chunk[0]! & 0xC0) === 0x80).length, 10)
    const out = frame(chunks)
    assert.strictEqual(out.length, 1)
    assert.strictEqual(out[0], new TextDecoder("utf-8").decode(bytes.subarray(0, bytes.length - 1)))
    assert.strictEqual(out[0], text.slice(1))
  })

  it("decodes the line after an over-cap line cleanly, though part of a character was pending when the cap was passed", () => {
    const chunks = (...parts: Array<Array<number>>) => parts.map((part) => Uint8Array.from(part))
    // "abcd" and a cut "→" over a cap of 5: passed between chunks, then at the line's last piece.
    assert.deepStrictEqual(frame(chunks([0x61, 0x62, 0x63, 0x64, 0xE2], [0x86], [0x92, 10, 0x41], [0x42, 10]), 5).slice(1), ["AB"])
    assert.deepStrictEqual(frame(chunks([0x61, 0x62, 0x63, 0x64, 0xE2], [0x86, 10, 0x41], [0x42, 10]), 5).slice(1), ["AB"])
  })

  it("arbitrary bytes never throw and keep memory bounded by the cap (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 20 }), (chunks) => {
        const out = frame(chunks, 64)
        for (const piece of out) {
          // The cap is on the wire: a line's text is no longer than its bytes there (an invalid
          // byte becomes one U+FFFD, which UTF-8 writes in three: its text may re-encode larger).
          if (typeof piece === "string") assert.isAtMost(piece.length, 64)
          else assert.isAbove(piece.bytes, 64)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("a line over the cap read in small chunks keeps its last 64 KiB, where a result's type may be", () => {
    // A result line whose type is 3 KiB from its end (CLI 2.1.332 writes fields after it).
    const line = `{"result":"${"z".repeat(200_000)}","type":"result","after":"${"y".repeat(3000)}"}`
    const bytes = encoder.encode(`${line}\nnext\n`)
    for (const size of [100, 1024, 65_536]) {
      const pieces: Array<Uint8Array> = []
      for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size))
      const out = frame(pieces, 10_000)
      const oversized = out[0] as Framing.Oversized
      assert.strictEqual(oversized.type, "result", `chunks of ${size}`)
      assert.strictEqual(oversized.bytes, line.length)
      assert.strictEqual(oversized.tail, line.slice(-64 * 1024))
      assert.strictEqual(out[1], "next")
    }
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
      // The line's own bytes, none of the next line's (the cap is under the 2 KiB kept): all of it
      // when it came in one chunk, else what came before the cap was passed, and its end.
      if (chunks.length === 1) assert.strictEqual(oversized.head, big)
      assert.isTrue(big.startsWith(oversized.head) && oversized.head.length > 100)
      assert.strictEqual(oversized.tail, big)
      assert.strictEqual(out[2], "b")
    }
  })

  it("counts the cap in bytes, not characters", () => {
    // 40 three-byte characters: 40 UTF-16 units, 120 bytes.
    const out = frame([encoder.encode("→".repeat(40) + "\nok\n")], 100)
    assert.strictEqual((out[0] as Framing.Oversized).bytes, 120)
    assert.strictEqual(out[1], "ok")
  })

  it("frames a 100 MiB line when the cap is raised", { timeout: 30_000 }, () => {
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

  it("skips a 100 MiB line over a 64 MiB cap without keeping it", { timeout: 30_000 }, () => {
    const size = 100 * 1024 * 1024
    const payload = Buffer.alloc(64 * 1024, "b")
    const splitter = new Framing.LineSplitter(64 * 1024 * 1024)
    const out: Array<Framing.Frame> = []
    for (let offset = 0; offset < size; offset += payload.length) splitter.push(payload, out)
    splitter.push(encoder.encode("\n{\"after\":1}\n"), out)
    assert.strictEqual((out[0] as Framing.Oversized).bytes, size)
    assert.strictEqual(out[1], "{\"after\":1}")
  })

  it("the default cap is 256 MiB, lowered to V8's longest string when set higher; a 100 MiB line passes by default", { timeout: 30_000 }, () => {
    assert.strictEqual(Framing.defaultMaxLineBytes, 256 * 1024 * 1024)
    assert.strictEqual(new Framing.LineSplitter().maxLineBytes, 256 * 1024 * 1024)
    assert.isAtLeast(Framing.maxLineBytesLimit, 2 * Framing.defaultMaxLineBytes - 64)
    assert.strictEqual(new Framing.LineSplitter(4 * 1024 * 1024 * 1024).maxLineBytes, Framing.maxLineBytesLimit)
    const size = 100 * 1024 * 1024
    const splitter = new Framing.LineSplitter()
    const out: Array<Framing.Frame> = []
    splitter.push(encoder.encode("{\"type\":\"user\",\"t\":\""), out)
    const payload = Buffer.alloc(64 * 1024, "c")
    for (let offset = 0; offset < size; offset += payload.length) splitter.push(payload, out)
    splitter.push(encoder.encode("\"}\n"), out)
    assert.strictEqual(out.length, 1)
    assert.strictEqual((out[0] as string).length, size + 22)
  })

  describe("an over-cap line carries its message type", () => {
    const cap = 4096
    const huge = "é→".repeat(3000)
    // Shaped as the CLI writes them: a user line names its type first, a result line after its text.
    const userLine = JSON.stringify({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: huge }] },
      parent_tool_use_id: null
    })
    const resultLine = JSON.stringify({
      duration_api_ms: 1,
      usage: { input_tokens: 1, server_tool_use: { type: "nested" } },
      is_error: false,
      subtype: "success",
      result: huge,
      ttft_ms: 2,
      type: "result",
      uuid: "u",
      model_usage_since_last_result: { m: { inputTokens: 1 } }
    })
    const typeless = JSON.stringify({ content: [{ type: "text", text: huge }], more: { type: "inner" } })
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      [userLine, "user"],
      [resultLine, "result"],
      [typeless, undefined]
    ]

    it("whether the line comes whole in one chunk, split in many, or in bytes the splitter skips", () => {
      for (const [line, type] of cases) {
        const bytes = encoder.encode(`${line}\n{"type":"next"}\n`)
        for (const chunks of [[bytes], splitAt(bytes, [1, 100, 2047, 2049, 5000, 9000, bytes.length - 20])]) {
          const out = frame(chunks, cap)
          assert.strictEqual(out.length, 2)
          const oversized = out[0] as Framing.Oversized
          assert.strictEqual(oversized._tag, "Oversized")
          assert.strictEqual(oversized.bytes, Buffer.byteLength(line))
          assert.strictEqual(oversized.type, type, line.slice(0, 40))
          assert.isAtMost(Buffer.byteLength(oversized.head), 2048 * 2)
          assert.isTrue(line.endsWith(oversized.tail.slice(-500)))
          assert.strictEqual(out[1], `{"type":"next"}`)
        }
        // Without a trailing newline too (flushed by end).
        assert.strictEqual((frame([encoder.encode(line)], cap)[0] as Framing.Oversized).type, type)
      }
    })

    it("headType and tailType read only top-level members, through escapes and nesting", () => {
      assert.strictEqual(Framing.headType(`{"type":"user","message":{`), "user")
      assert.strictEqual(Framing.headType(` { "a" : [1, {"type":"x"}], "b":"q\\"\\\\","type" : "assistant", "c":`), "assistant")
      assert.strictEqual(Framing.headType(`{"message":{"type":"x","content":"aaaa`), undefined)
      assert.strictEqual(Framing.headType(`{"a":"type\\":\\"no","type":"yes"}`), "yes")
      assert.strictEqual(Framing.headType(`{"type":42}`), undefined)
      assert.strictEqual(Framing.headType(`[{"type":"x"}]`), undefined)
      assert.strictEqual(Framing.tailType(`aaa","type":"result","uuid":"u","x":{"type":"inner"}}`), "result")
      assert.strictEqual(Framing.tailType(`\\\\","type":"result"}\r`), "result")
      assert.strictEqual(Framing.tailType(`aaaa","x":{"type":"inner"}}`), undefined)
      assert.strictEqual(Framing.tailType(`{"type":"a","b":[1,2]}`), "a")
      assert.strictEqual(Framing.tailType(`"b":"c"}`), undefined)
      assert.strictEqual(Framing.tailType(`"type":"cut`), undefined)
    })

    it("property: from any head or tail of a JSON object, the type read is the object's or undefined, never another", () => {
      const value = fc.letrec((tie) => ({
        leaf: fc.oneof(fc.string({ unit: fc.constantFrom("a", "\"", "\\", "{", "}", "[", ":", ",", "é", " ") }), fc.integer(), fc.boolean(), fc.constant(null)),
        node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(fc.constantFrom("type", "a", "b\"", "c"), tie("node"), { maxKeys: 3 }))
      }))
      const object = fc.tuple(
        fc.dictionary(fc.constantFrom("a", "type\"", "x", "y"), value.node, { maxKeys: 4 }),
        fc.option(fc.constantFrom("user", "result", "ty\"pe", "é"), { nil: undefined }),
        fc.nat(4)
      ).map(([members, type, at]) => {
        const entries = Object.entries(members)
        if (type !== undefined) entries.splice(Math.min(at, entries.length), 0, ["type", type])
        return { json: JSON.stringify(Object.fromEntries(entries)), type }
      })
      fc.assert(fc.property(object, fc.nat(), ({ json, type }, cut) => {
        assert.strictEqual(Framing.headType(json), type)
        assert.strictEqual(Framing.tailType(json), type)
        const n = cut % (json.length + 1)
        const head = Framing.headType(json.slice(0, n))
        const tail = Framing.tailType(json.slice(n))
        if (head !== undefined) assert.strictEqual(head, type)
        if (tail !== undefined) assert.strictEqual(tail, type)
      }), { numRuns: 2000 })
    })
  })

  it("parseJson returns undefined for garbage and the value otherwise", () => {
    assert.isUndefined(Framing.parseJson("not json"))
    assert.isUndefined(Framing.parseJson("{\"truncated\":"))
    assert.deepStrictEqual(Framing.parseJson("{\"a\":1}"), { a: 1 })
    assert.strictEqual(Framing.parseJson("null"), null)
  })
})

describe("LineSplitter: a cap that is no positive number", () => {
  it("NaN, 0 and a negative cap throw a RangeError naming the value, where NaN let every line through whole", () => {
    for (const cap of [Number.NaN, 0, -1]) {
      assert.throws(() => new Framing.LineSplitter(cap), RangeError, "maxLineBytes must be a positive number")
    }
    assert.strictEqual(new Framing.LineSplitter(Infinity).maxLineBytes, Framing.maxLineBytesLimit)
  })
})
