/**
 * Property tests of framing and decoding, through the session (FakeCli `emitRaw`):
 *
 * - any split of any valid stream (real lines from the recorded transcripts, plus deltas with
 *   arbitrary Unicode text) gives the same events as the stream written line by line;
 * - arbitrary bytes never throw out of the splitter or the decoder, and never end the session:
 *   a normal turn still completes after them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import fc from "fast-check"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { readProtocolLines } from "./support/protocolTranscripts.ts"

const NUM_RUNS = 100

type Json = Record<string, unknown>

/** Every message the real CLI wrote (`recv`) in the recorded transcripts. */
const recorded: ReadonlyArray<Json> = readProtocolLines().filter((l) => l.dir === "recv").map((l) => l.msg)

const controlTypes = new Set(["control_request", "control_response", "control_cancel_request", "keep_alive"])

/** A text delta as the CLI writes it, with any text (every code point, so 1- to 4-byte UTF-8). */
const deltaTemplate = recorded.find((m) =>
  m.type === "stream_event" && (m.event as Json).type === "content_block_delta" &&
  ((m.event as Json).delta as Json).type === "text_delta"
)!

const anyDelta = fc.string({ unit: "binary", minLength: 1, maxLength: 40 }).map((text): Json => ({
  ...deltaTemplate,
  event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }
}))

const anyMessage: fc.Arbitrary<Json> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...recorded) },
  { weight: 1, arbitrary: anyDelta }
)

/** A stream: messages as lines (some with CRLF), and where to cut its bytes. */
const anySplitStream = fc.array(fc.tuple(anyMessage, fc.boolean()), { minLength: 1, maxLength: 30 }).chain((lines) => {
  const bytes = Buffer.from(lines.map(([m, crlf]) => JSON.stringify(m) + (crlf ? "\r\n" : "\n")).join(""), "utf8")
  // Positions inside a multi-byte character (continuation bytes): cuts there are the hard case.
  const inside: Array<number> = []
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) inside.push(i)
  return fc.tuple(
    fc.array(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 30 }),
    fc.array(fc.nat(), { maxLength: inside.length === 0 ? 0 : 10 })
  ).map(([anywhere, picks]) => ({
    messages: lines.map(([m]) => m),
    bytes,
    cuts: [...new Set([...anywhere, ...picks.map((p) => inside[p % inside.length]!)])].sort((a, b) => a - b)
  }))
})

const chunksOf = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const cut of cuts) {
    if (cut > start && cut < bytes.length) {
      chunks.push(bytes.slice(start, cut))
      start = cut
    }
  }
  chunks.push(bytes.slice(start))
  return chunks
}

/** The event as the session's stream carries it, minus the library's own `turn` usage. */
const comparable = (event: Claude.Event): unknown => {
  if (event.type === "result") {
    const { turn: _turn, ...rest } = event
    return rest
  }
  return event
}

const utf8 = new TextEncoder()

/** The recorded control requests (hooks, MCP) are answered with errors and logged: not here. */
const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, References.MinimumLogLevel, "None")

/**
 * Opens a session on a fake CLI that, on the first user message, writes `chunks` as they are,
 * then ends stdout; returns every event the session's `events` stream carried.
 */
const eventsOfChunks = (chunks: ReadonlyArray<Uint8Array>) =>
  Effect.scoped(Effect.gen(function*() {
    const session = yield* Claude.open({ closeGrace: "1 second" })
    const events: Array<Claude.Event> = []
    // The stream ends cleanly, or fails when the recorded lines leave a turn unfinished as the
    // fake exits (a clean exit mid-turn is a death): the events read until then are compared.
    const collected = yield* session.events.pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push(event))),
      Effect.exit,
      Effect.forkChild({ startImmediately: true })
    )
    yield* session.send("go")
    yield* Fiber.join(collected)
    return events
  })).pipe(
    Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* cli.nextMatching((m) => m.type === "user")
        for (const chunk of chunks) yield* cli.emitRaw(chunk)
        return 0
      })
    ))
  )

// fast-check runs: seconds of CPU, more on a busy machine; the unit tier's 5 s is for the rest.
describe("framing and decoding properties", { timeout: 30_000 }, () => {
  it.live("any split of a valid stream gives the same events as the stream itself (session, FakeCli emitRaw)", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(anySplitStream, ({ messages, bytes, cuts }) =>
          Effect.runPromise(quiet(Effect.gen(function*() {
            const events = yield* eventsOfChunks(chunksOf(bytes, cuts))
            const expected = messages.flatMap((m) => {
              if (controlTypes.has(m.type as string)) return []
              const decoded = Protocol.decodeMessage(m)
              assert.strictEqual(decoded._tag, "Success", `a recorded message does not decode: ${JSON.stringify(m).slice(0, 200)}`)
              return [decoded._tag === "Success" ? decoded.success : undefined]
            })
            assert.deepStrictEqual(events.map(comparable), expected)
            assert.isFalse(events.some((e) => e.type === "protocol_problem"))
          })))
        ),
        { numRuns: NUM_RUNS }
      )
    ), { timeout: 60_000 })

  it("the split generator does cut inside multi-byte characters", () => {
    // Guards the property above against a generator that never exercises the interesting case.
    const samples = fc.sample(anySplitStream, { numRuns: NUM_RUNS, seed: 42 })
    const insideChar = samples.filter(({ bytes, cuts }) => cuts.some((c) => c < bytes.length && (bytes[c]! & 0xc0) === 0x80))
    assert.isAbove(insideChar.length, NUM_RUNS / 2)
  })

  it.live("arbitrary bytes never throw out of the splitter or the decoder", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 }), fc.integer({ min: 16, max: 4096 }), (chunks, cap) => {
          const splitter = new Framing.LineSplitter(cap)
          const frames: Array<Framing.Frame> = []
          for (const chunk of chunks) splitter.push(chunk, frames)
          splitter.end(frames)
          for (const frame of frames) {
            if (typeof frame !== "string") {
              assert.isAbove(frame.bytes, cap)
              continue
            }
            const json = Framing.parseJson(frame)
            if (json !== undefined) Protocol.decodeMessage(json)
          }
        }),
        { numRuns: 500 }
      )
    ))

  it.live("arbitrary bytes never end the session: a normal turn completes after them", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(utf8.encode("null\n"), utf8.encode("[]\n"))), { maxLength: 10 }),
          (garbage) =>
            Effect.runPromise(quiet(Effect.scoped(Effect.gen(function*() {
              const session = yield* Claude.open({ closeGrace: "1 second" })
              const first = yield* session.run("garbage please")
              assert.strictEqual(first.result, "echo: garbage please")
              const result = yield* session.run("hello")
              assert.strictEqual(result.subtype, "success")
              assert.strictEqual(result.result, "echo: hello")
            })).pipe(
              Effect.provide(FakeCli.layer(FakeCli.conversation({
                onUser: (text, index, cli) =>
                  Effect.gen(function*() {
                    if (index === 0) {
                      for (const chunk of garbage) yield* cli.emitRaw(chunk)
                      // The garbage's last line ends here; then a proper turn.
                      yield* cli.emitRaw("\n")
                    }
                    for (const line of FakeCli.textTurn({ sessionId: "s-1", text: `echo: ${text}` })) yield* cli.emit(line)
                  })
              }))),
              Effect.timeout("5 seconds")
            )))
        ),
        { numRuns: NUM_RUNS }
      )
    ), { timeout: 60_000 })
})
