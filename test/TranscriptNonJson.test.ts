/**
 * A line the CLI writes on stdout that is not JSON is recorded (`Transcript.NonJsonLine`): the
 * transcript is every line a session writes and reads. Before, the reader counted it and left it
 * out (found by a security review). Its text is redacted as every recorded line is, a replay
 * writes it again, and the timeline shows it as a problem.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Claude from "../src/Claude.ts"
import * as Timeline from "../src/Timeline.ts"
import * as Framing from "../src/Framing.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import type { Transport } from "../src/Transport.ts"

const EMAIL = "alice.account@example.com"

/** A temporary directory, removed when the test's scope closes (a failing assertion too). */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-probe-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A CLI that prints `raw` on stdout in the middle of its one turn. */
const cliPrinting = (raw: string) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, { account: { email: EMAIL } })
      const user = yield* cli.nextMatching((m) => m.type === "user")
      yield* cli.emitRaw(raw)
      for (const line of FakeCli.textTurn({ sessionId: "s-1", text: "done", userMessageUuid: String(user.uuid) })) yield* cli.emit(line)
      return yield* Effect.exit(cli.next).pipe(Effect.as(0))
    })
  )

/** Runs one turn ("hi") recorded into `file`, over `transport`. */
const runRecorded = <E>(file: string, transport: Layer.Layer<Transport, E>) =>
  Effect.scoped(Effect.gen(function*() {
    const recorder = yield* Transcript.toFile(file)
    const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
    yield* session.run("hi").pipe(Effect.timeout("3 seconds"))
  })).pipe(Effect.provide(transport))

describe("every line read is recorded", () => {
  it.live("a line the CLI wrote on stdout that is not JSON is in the transcript", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const user = yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emitRaw("Warning: something the CLI printed on stdout\n")
          for (const line of FakeCli.textTurn({ sessionId: "s-1", text: "done", userMessageUuid: String(user.uuid) })) yield* cli.emit(line)
          return yield* Effect.exit(cli.next).pipe(Effect.as(0))
        })
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file)
        const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
        yield* session.run("hi")
      })).pipe(Effect.provide(cli))
      const written = Fs.readFileSync(file, "utf8")
      assert.include(written, "\"type\":\"result\"")
      assert.include(written, "something the CLI printed on stdout")
    }), 20_000)

  it.live("its text is redacted, a replay writes it again, the timeline shows it as a problem", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      yield* runRecorded(file, cliPrinting(`Warning: signed in as ${EMAIL}\n`))
      const written = Fs.readFileSync(file, "utf8")
      assert.notInclude(written, EMAIL)
      const lines = yield* Transcript.parse(written)
      const markers = lines.filter((line) => (line.msg as { type?: unknown }).type === Framing.nonJsonLineType)
      assert.deepStrictEqual(markers.map((line) => [line.dir, line.msg]), [
        ["recv", { type: Framing.nonJsonLineType, text: "Warning: signed in as [redacted]" }]
      ])
      // Played again, the line is read again: a recording of the replay has it too.
      const again = Path.join(dir, "again.ndjson")
      yield* runRecorded(again, Replay.layer(file))
      assert.include(Fs.readFileSync(again, "utf8"), "Warning: signed in as [redacted]")
      const problems = Timeline.fromLines(lines).turns.flatMap((turn) => turn.items).filter((item) => item.kind === "problem")
      assert.deepStrictEqual(problems.map((item) => item.kind === "problem" ? [item.description, item.line] : []), [
        ["a line on the CLI's stdout that is not JSON: skipped", "Warning: signed in as [redacted]"]
      ])
    }), 20_000)
})
