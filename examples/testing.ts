/**
 * Testing an agent program without the CLI. The program needs a `Transport`; a test provides
 * one that is not a process:
 * - `FakeCli.layer(script)`: an in-memory CLI played by an Effect script (deterministic, runs
 *   under `TestClock`);
 * - `Replay.layer(transcript)`: a session recorded once (`Transcript.toFile`) played back, which
 *   checks that the program writes what it wrote when it was recorded.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Path from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type { Transport } from "../src/Transport.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"
import { isMain } from "./support.ts"

/** The agent program under test: asks something and returns the answer, in upper case. */
export const shout = (prompt: string): Effect.Effect<string, ClaudeError.ClaudeError, Transport> =>
  Effect.scoped(Effect.gen(function*() {
    const session = yield* Claude.open()
    const result = yield* session.run(prompt)
    return (result.result ?? "").toUpperCase()
  }))

/** A scripted CLI: every user turn is answered with a text turn. */
const ScriptedCli = FakeCli.layer(FakeCli.conversation({
  onUser: (text, index, cli) =>
    Effect.forEach(
      FakeCli.textTurn({ sessionId: "s-1", text: `you said: ${text}`, totalCostUsd: 0.001 * (index + 1) }),
      (line) => cli.emit(line),
      { discard: true }
    )
}))

/** A transcript recorded against the real CLI (`Say hello` → `Hello from the fake model.`). */
export const recorded = Path.resolve(import.meta.dirname, "../testdata/transcripts/plain-text.ndjson")

/** The same program, tested twice: against the scripted CLI and against the replayed transcript. */
export const program: Effect.Effect<
  { readonly scripted: string; readonly replayed: string },
  ClaudeError.ClaudeError
> = Effect.gen(function*() {
  const scripted = yield* shout("hi").pipe(Effect.provide(ScriptedCli))
  const replayed = yield* shout("Say hello").pipe(Effect.provide(Replay.layer(recorded)))
  yield* Console.log(`scripted: ${scripted}\nreplayed: ${replayed}`)
  return { scripted, replayed }
})

if (isMain(import.meta)) NodeRuntime.runMain(program)
