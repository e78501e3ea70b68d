/**
 * An `initialize` answer over `maxLineBytes` is recorded as what is known of it (an over-cap
 * marker, its head and tail). The recorder holds its lines back until it knows the account
 * e-mail from that answer; it did not take the marker for the answer, so it wrote the e-mail in
 * the marker's tail in clear (found by a security review). The marker is the answer now: the
 * e-mail is read out of its head or tail, and when a cut leaves it unreadable, the marker's head
 * and tail are dropped (no part of it left).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Framing from "../src/Framing.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const EMAIL = "alice.account@example.com"

/** A temporary directory, removed when the test's scope closes (a failing assertion too). */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-probe-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The transcript of a session whose CLI answers `initialize` with `answer(request)`. */
const recorded = (answer: (request: Record<string, unknown>) => unknown) =>
  Effect.gen(function*() {
    const file = Path.join(yield* tempDir, "t.ndjson")
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const request = yield* cli.nextMatching((m) => m.type === "control_request")
        yield* cli.emit(answer(request))
        return yield* Effect.exit(cli.next).pipe(Effect.as(0))
      })
    )
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toFile(file)
      const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis", maxLineBytes: 8192 })
      yield* Effect.exit(session.initializeResult.pipe(Effect.timeout("3 seconds")))
    })).pipe(Effect.provide(cli))
    return Fs.readFileSync(file, "utf8")
  })

/** An initialize answer to `request` with the e-mail, `pad` bytes before it and `after` bytes after it. */
const answerWithEmail = (request: Record<string, unknown>, pad: number, after: number) =>
  FakeCli.success(request, {
    ...FakeCli.initializeResponse,
    models: ["m".repeat(pad)],
    account: { email: EMAIL },
    extra: "y".repeat(after)
  })

/** Where the e-mail starts in the line of `answerWithEmail`, and how long the line is (a request id as the library's). */
const layout = (pad: number, after: number) => {
  const line = JSON.stringify(answerWithEmail({ request_id: "req_1_0123abcd" }, pad, after))
  return { at: line.indexOf(EMAIL), bytes: line.length }
}

describe("the e-mail of an initialize answer over the cap", () => {
  it.live("an initialize answer over maxLineBytes: the account e-mail in the transcript", () =>
    Effect.gen(function*() {
      const commands = Array.from({ length: 200 }, (_, i) => ({ name: `cmd-${i}`, description: "x".repeat(60), argumentHint: "" }))
      const written = yield* recorded((request) =>
        FakeCli.success(request, { ...FakeCli.initializeResponse, commands, account: { email: EMAIL } })
      )
      assert.include(written, "effect-claude-code/oversized-line")
      assert.notInclude(written, EMAIL)
      assert.include(written, "[redacted]")
    }), 20_000)

  it.live("an e-mail a cut leaves unreadable: the marker keeps no head or tail, no part of the e-mail is left", () =>
    Effect.gen(function*() {
      const HEAD = 2048
      const TAIL = 64 * 1024
      const plain = layout(0, 0)
      // The e-mail across the end of the head (its first 10 characters in it), then across the
      // start of the tail (its last 15 in it); the line is longer than head and tail together.
      const cuts = [
        { pad: HEAD - 10 - plain.at, after: 100_000, kept: EMAIL.slice(0, 10) },
        { pad: 5000, after: TAIL + 10 - (plain.bytes - plain.at), kept: EMAIL.slice(10) }
      ]
      const [headCut, tailCut] = cuts.map((cut) => layout(cut.pad, cut.after))
      assert.strictEqual(headCut!.at, HEAD - 10)
      assert.strictEqual(tailCut!.bytes - tailCut!.at, TAIL + 10)
      assert.isAbove(tailCut!.bytes, HEAD + TAIL)
      for (const cut of cuts) {
        const written = yield* recorded((request) => answerWithEmail(request, cut.pad, cut.after))
        const lines = yield* Transcript.parse(written)
        const markers = lines.map((line) => line.msg as Framing.OversizedLine).filter((msg) => msg.type === Framing.oversizedLineType)
        assert.strictEqual(markers.length, 1)
        assert.strictEqual(markers[0]!.messageType, "control_response")
        assert.deepStrictEqual([markers[0]!.head.length, markers[0]!.tail.length], [0, 0])
        assert.notInclude(written, cut.kept)
      }
    }), 20_000)
})
