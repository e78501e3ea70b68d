/**
 * Huge lines (issue 14, point 6): under the default cap a 100 MiB tool result crosses a real pipe
 * and is delivered whole, as the official TypeScript SDK delivers it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import { Transport } from "../src/Transport.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const MiB = 1024 * 1024

describe("huge lines through the process transport", () => {
  it.live("a 100 MiB tool result is delivered whole by default (no maxLineBytes), then the turn completes", () =>
    Effect.gen(function*() {
      const bytes = 100 * MiB
      assert.isAbove(Framing.defaultMaxLineBytes, bytes)
      const session = yield* Claude.open({
        executable: FAKE,
        env: { FAKE_CLAUDE_MODE: "huge-tool-result", FAKE_CLAUDE_HUGE_BYTES: String(bytes) }
      })
      let toolResultBytes = -1
      let problems = 0
      let result: Claude.TurnResult | undefined
      // Keep only sizes: the 100 MiB string is dropped as soon as it is measured.
      yield* session.turn("run the big command").pipe(
        Stream.runForEach((event) =>
          Effect.sync(() => {
            if (event.type === "user") {
              const content = event.message.content as ReadonlyArray<{ type: string; content?: unknown }>
              const block = content[0]
              if (block?.type === "tool_result" && typeof block.content === "string") {
                toolResultBytes = Buffer.byteLength(block.content, "utf8")
              }
            } else if (event.type === "protocol_problem") problems++
            else if (event.type === "result") result = event
          })
        )
      )
      assert.strictEqual(problems, 0)
      assert.strictEqual(toolResultBytes, bytes)
      assert.strictEqual(result?.subtype, "success")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)
})

/** Runs fake-claude in `mode` for one turn on the bare transport and frames its stdout with `cap`. */
const framesOf = (mode: string, hugeBytes: number, cap: number) =>
  Effect.gen(function*() {
    const transport = yield* Transport
    const connection = yield* transport.open({
      executable: FAKE,
      args: [],
      env: { FAKE_CLAUDE_MODE: mode, FAKE_CLAUDE_HUGE_BYTES: String(hugeBytes) },
      closeGrace: Duration.seconds(2)
    })
    yield* connection.send(JSON.stringify({ type: "user", message: { role: "user", content: "go" } }))
    yield* connection.endInput
    const splitter = new Framing.LineSplitter(cap)
    const frames: Array<Framing.Frame> = []
    yield* connection.incoming.pipe(Stream.runForEach((chunk) => Effect.sync(() => splitter.push(chunk, frames))))
    splitter.end(frames)
    return frames
  })

describe("an over-cap line through a real pipe", () => {
  it.live("a result over the cap (its type after its text, as the CLI writes it) is an Oversized frame of type result", () =>
    Effect.gen(function*() {
      const frames = yield* framesOf("huge-result", 2 * MiB, MiB)
      const last = frames.at(-1)
      assert.isDefined(last)
      assert.notStrictEqual(typeof last, "string")
      const oversized = last as Framing.Oversized
      assert.strictEqual(oversized.type, "result")
      assert.isAbove(oversized.bytes, 2 * MiB)
      // The head alone does not show it: the CLI writes `type` after the result text.
      assert.isUndefined(Framing.headType(oversized.head))
      assert.strictEqual(Framing.tailType(oversized.tail), "result")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 60_000)

  it.live("is one Oversized frame carrying its message type (read from its head), and the lines after it go on", () =>
    Effect.gen(function*() {
      const frames = yield* framesOf("huge-tool-result", 100 * MiB, 64 * MiB)
      const oversized = frames.filter((f): f is Framing.Oversized => typeof f !== "string")
      assert.strictEqual(oversized.length, 1)
      assert.strictEqual(oversized[0]!.type, "user")
      assert.isAbove(oversized[0]!.bytes, 100 * MiB)
      const types = frames.filter((f): f is string => typeof f === "string").map((f) => (JSON.parse(f) as { type: string }).type)
      assert.strictEqual(types.at(-1), "result")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)
})
