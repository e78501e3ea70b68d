/**
 * Recording a transcript: `Transcript.toFile(path)` gives a recorder for the session's
 * `transcript` option; every line both ways (but `stream_event`s) is written as
 * `{"dir":"send"|"recv","msg":...}`. The file is a bug report, and a test: `Replay.layer(path)`
 * plays it back without the CLI, as done here.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Path from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Replay from "../src/testing/Replay.ts"
import { fakeModel, isMain, processLayer, tempDir } from "./support.ts"

const PROMPT = "Print hi with Bash."

/** What was recorded, and what the replay of it gave. */
export interface TranscriptOutcome {
  readonly lines: number
  readonly sent: ReadonlyArray<string>
  readonly received: ReadonlyArray<string>
  readonly answer: string
  readonly replayedAnswer: string
}

/** A recorded line is the JSON as it was written (`unknown`): its `type`, when it has one. */
const typeOf = (line: Transcript.Line): string =>
  typeof line.msg === "object" && line.msg !== null && "type" in line.msg ? String(line.msg.type) : ""

/** Records a session with a Bash call to a file, reads it back, and replays it. */
export const program: Effect.Effect<TranscriptOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const dir = yield* tempDir("ecc-transcript-")
  const path = Path.join(dir, "session.ndjson")
  const answer = yield* Effect.scoped(Effect.gen(function*() {
    const recorder = yield* Transcript.toFile(path)
    const { options } = yield* fakeModel([
      FakeModel.toolUse("Bash", { command: "echo hi", description: "Print hi" }),
      FakeModel.text("It printed hi.")
    ], { transcript: recorder })
    const session = yield* Claude.open(options)
    return (yield* session.run(PROMPT)).result ?? ""
  })).pipe(Effect.provide(processLayer))
  // The recorder's scope has closed: the file is complete.
  const lines = yield* Transcript.read(path)
  const replayedAnswer = yield* Effect.scoped(Effect.gen(function*() {
    const session = yield* Claude.open()
    return (yield* session.run(PROMPT)).result ?? ""
  })).pipe(Effect.provide(Replay.layer(path)))
  yield* Console.log(`${lines.length} lines recorded in ${path}; replayed without the CLI: ${replayedAnswer}`)
  return {
    lines: lines.length,
    sent: lines.filter((l) => l.dir === "send").map(typeOf),
    received: lines.filter((l) => l.dir === "recv").map(typeOf),
    answer,
    replayedAnswer
  }
}).pipe(Effect.scoped)

if (isMain(import.meta)) NodeRuntime.runMain(program)
