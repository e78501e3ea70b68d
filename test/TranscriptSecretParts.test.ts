/**
 * Secrets in a transcript, in pieces and inside numbers (found by a reviewing helper; each test
 * failed before its fix):
 * - a secret streamed over several `text_delta` lines (`streamEvents: true`) was in the
 *   transcript in pieces, which together spell it: such deltas are now joined until the secret
 *   is whole in one line, then redacted;
 * - the head of a line over `maxLineBytes`, cut mid-secret, held most of it, in the transcript
 *   and in the `ProtocolViolation` reported for the line;
 * - a secret of digits was replaced inside a number too (`"duration_ms":[redacted]23`), and the
 *   transcript could no longer be read: secrets are replaced inside strings only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const API_KEY = "sk-test-secret-0123456789abcdefghijklmnopqrstuvwxyz"

const tempFile = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-transcript-parts-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => Path.join(dir, "t.ndjson")))

/** A CLI answering the first turn with the lines `lines` makes. */
const cliWith = (lines: (uuid: string) => ReadonlyArray<Record<string, unknown>>) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const user = yield* cli.nextMatching((m) => m.type === "user")
      for (const line of lines(String(user.uuid))) yield* cli.emit(line)
      return yield* Effect.exit(cli.next).pipe(Effect.as(0))
    })
  )

const record = (
  cli: ReturnType<typeof cliWith>,
  options: Claude.SessionOptions,
  recorderOptions?: Transcript.RecorderOptions
) =>
  Effect.gen(function*() {
    const file = yield* tempFile
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toFile(file, recorderOptions)
      const session = yield* Claude.open({ ...options, transcript: recorder, closeGrace: "300 millis" })
      yield* Effect.exit(session.run("print the env").pipe(Effect.timeout("3 seconds")))
    })).pipe(Effect.provide(cli))
    return { file, written: Fs.readFileSync(file, "utf8") }
  })

describe("secrets in a transcript, in pieces", () => {
  it.live("a secret streamed over several text deltas is not in the transcript, and the text is", () =>
    Effect.gen(function*() {
      const text = `your key is ${API_KEY}, keep it`
      const { file, written } = yield* record(
        cliWith((uuid) => FakeCli.textTurn({ sessionId: "s-1", text, chunks: 6, userMessageUuid: uuid })),
        { apiKey: Redacted.make(API_KEY) },
        { streamEvents: true }
      )
      const deltas = (yield* Transcript.read(file))
        .map((line) => line.msg as { type?: string; event?: { delta?: { type?: string; text?: string } } })
        .filter((msg) => msg.type === "stream_event" && msg.event?.delta?.type === "text_delta")
        .map((msg) => msg.event!.delta!.text!)
      assert.isFalse(deltas.join("").includes(API_KEY.slice(0, 12)), `the recorded deltas ${JSON.stringify(deltas)}`)
      assert.strictEqual(deltas.join(""), "your key is [redacted], keep it")
      assert.notInclude(written, "0123456789")
    }))

  it.live("nor when other lines come between its pieces (another agent's deltas, a control request)", () =>
    Effect.gen(function*() {
      const delta = (agent: string | null, text: string) => ({
        type: "stream_event",
        event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
        parent_tool_use_id: agent,
        uuid: `delta-${text.length}-${agent}`,
        session_id: "s-1"
      })
      const stop = (agent: string | null) => ({
        type: "stream_event",
        event: { type: "content_block_stop", index: 0 },
        parent_tool_use_id: agent,
        uuid: `stop-${agent}`,
        session_id: "s-1"
      })
      const { file, written } = yield* record(
        cliWith((uuid) => [
          delta("toolu_A", `A: your key is ${API_KEY.slice(0, 25)}`),
          delta("toolu_B", "B: hello"),
          { type: "control_request", request_id: "req-x", request: { subtype: "unknown_thing" } },
          delta("toolu_A", `${API_KEY.slice(25, 40)}`),
          delta("toolu_B", " again"),
          delta("toolu_A", `${API_KEY.slice(40)} done`),
          stop("toolu_A"),
          stop("toolu_B"),
          ...FakeCli.textTurn({ sessionId: "s-1", text: "ok", userMessageUuid: uuid }).filter((line) => line.type === "result")
        ]),
        { apiKey: Redacted.make(API_KEY) },
        { streamEvents: true }
      )
      const deltas = (yield* Transcript.read(file))
        .map((line) => line.msg as { type?: string; parent_tool_use_id?: string; event?: { delta?: { text?: string } } })
        .filter((msg) => msg.type === "stream_event" && msg.event?.delta?.text !== undefined)
      const of = (agent: string) => deltas.filter((msg) => msg.parent_tool_use_id === agent).map((msg) => msg.event!.delta!.text!).join("")
      assert.strictEqual(of("toolu_A"), "A: your key is [redacted] done")
      assert.strictEqual(of("toolu_B"), "B: hello again")
      assert.notInclude(written, API_KEY.slice(25, 40))
      assert.notInclude(written, API_KEY.slice(0, 12))
    }))

  it.live("a secret cut by the head of a line over the cap is not in the transcript", () =>
    Effect.gen(function*() {
      // A tool's printout, about 2 KiB in: the head kept of the line ends inside the key.
      const text = `${"x".repeat(1850)} ANTHROPIC_API_KEY=${API_KEY} ${"y".repeat(5000)}`
      const { written } = yield* record(
        cliWith((uuid) => FakeCli.textTurn({ sessionId: "s-1", text, userMessageUuid: uuid })),
        { apiKey: Redacted.make(API_KEY), maxLineBytes: 4096 }
      )
      assert.include(written, "effect-claude-code/oversized-line")
      assert.notInclude(written, API_KEY.slice(0, 12))
      assert.include(written, "ANTHROPIC_API_KEY=[redacted]")
    }))

  it.live("nor in the ProtocolViolation reported for that line", () =>
    Effect.gen(function*() {
      // Padded so that the first line over the cap (a stream event with the whole text) is cut
      // inside the key at the 2048 characters the error keeps of it.
      const withPadding = (pad: number) => `${"x".repeat(pad)} ANTHROPIC_API_KEY=${API_KEY} ${"y".repeat(5000)}`
      const firstLineWith = (text: string) =>
        FakeCli.textTurn({ sessionId: "s-1", text, userMessageUuid: "00000000-0000-4000-8000-000000000000" })
          .map((line) => JSON.stringify(line))
          .find((line) => line.includes(API_KEY))!
      const at = firstLineWith(withPadding(0)).indexOf(API_KEY)
      const text = withPadding(2048 - 20 - at)
      const problems = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(API_KEY), maxLineBytes: 4096, closeGrace: "300 millis" })
        const events = yield* session.events.pipe(
          Stream.filter((event) => event.type === "protocol_problem"),
          Stream.take(1),
          Stream.runCollect,
          Effect.forkScoped({ startImmediately: true })
        )
        yield* Effect.exit(session.run("print the env").pipe(Effect.timeout("3 seconds")))
        return yield* Fiber.join(events)
      }).pipe(Effect.scoped, Effect.provide(cliWith((uuid) => FakeCli.textTurn({ sessionId: "s-1", text, userMessageUuid: uuid }))))
      assert.strictEqual(problems.length, 1)
      const error = problems[0]!.type === "protocol_problem" ? problems[0]!.error : undefined
      assert.include(error?.line ?? "", "ANTHROPIC_API_KEY=[redacted]")
      assert.notInclude(error?.line ?? "", API_KEY.slice(0, 12))
    }))

  it.live("a secret of digits inside a number leaves the number alone: the transcript still reads", () =>
    Effect.gen(function*() {
      const pin = "20250611"
      const { file, written } = yield* record(
        cliWith((uuid) =>
          FakeCli.textTurn({ sessionId: "s-1", text: `the pin is ${pin}`, userMessageUuid: uuid }).map((line) =>
            line.type === "result" ? { ...line, duration_ms: 2025061123 } : line
          )
        ),
        { env: { DB_PASSWORD: Redacted.make(pin) } }
      )
      const lines = yield* Transcript.read(file)
      const result = lines.map((line) => line.msg as { type?: string; duration_ms?: number }).find((msg) => msg.type === "result")
      assert.strictEqual(result?.duration_ms, 2025061123)
      assert.include(written, "the pin is [redacted]")
      assert.notInclude(written.replace("2025061123", ""), pin)
    }))
})
