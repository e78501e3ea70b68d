/**
 * Testing an agent program with the testing kit (`effect-claude-code/testing`), three ways:
 * - `FakeCli.layer(script)`: an in-memory CLI played by an Effect script (deterministic, runs
 *   under `TestClock`). The script can also play the CLI's requests to the program:
 *   `FakeCli.callHook` fires the program's hook and returns its typed answer (`askPermission`
 *   and `callMcpTool` do the same for a permission handler and an MCP tool);
 * - `Replay.layer(transcript, { streamText: true })`: a session recorded once
 *   (`Transcript.toFile`) played back, its answers streamed as the CLI streams them;
 * - `Offline.open(script)`: the real `claude` CLI against a fake model, in a fresh HOME and cwd,
 *   all removed when the scope closes; `models: FakeModel.knownModels` makes a misspelled model
 *   fail as the API would.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Path from "node:path"
import * as Console from "effect/Console"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import * as Replay from "../src/testing/Replay.ts"
import { cliPath, isMain, processLayer } from "./support.ts"

/** What the program under test makes of one turn: the streamed text and the answer, shouted. */
export interface Shouted {
  readonly streamed: string
  readonly answer: string
}

/** The agent program under test: asks something and shouts the answer, as it streams and at the end. */
export const shout = (session: Claude.Session, prompt: string): Effect.Effect<Shouted, ClaudeError.ClaudeError> =>
  session.turn(prompt).pipe(
    Stream.runFold(() => ({ streamed: "", answer: "" }), (acc, event) => {
      if (event.type === "result") return { ...acc, answer: (event.result ?? "").toUpperCase() }
      return event.type === "stream_event" && event.event.type === "content_block_delta" &&
          event.event.delta.type === "text_delta"
        ? { ...acc, streamed: acc.streamed + event.event.delta.text.toUpperCase() }
        : acc
    })
  )

/** The program's guard: no `rm` in Bash. */
export const Guard = Hooks.layer(
  Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
    Effect.succeed(
      /(^|[\s;&|])rm\s/.test(String(input.tool_input.command))
        ? Hooks.deny("Deleting files is not allowed here.")
        : Hooks.allow()
    ))
)

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

/** The guard, asked by a scripted CLI as the real one would ask it: its decision on `rm -rf /`. */
const guardDecision = Effect.gen(function*() {
  const decided = yield* Deferred.make<string>()
  const cli = FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      const answer = yield* FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf /" } })
      yield* Deferred.succeed(decided, answer.hookSpecificOutput?.permissionDecision ?? "none")
      return yield* Effect.never
    })
  )
  yield* Claude.open().pipe(Effect.provide(cli))
  return yield* Deferred.await(decided)
}).pipe(Effect.provide(Guard), Effect.scoped)

/** The same program, tested against a scripted CLI, a replayed transcript and the real CLI offline. */
export const program: Effect.Effect<
  {
    readonly scripted: string
    readonly replayed: Shouted
    readonly offline: Shouted
    readonly wrongModel: string
    readonly guard: string
  },
  ClaudeError.ClaudeError
> = Effect.gen(function*() {
  const scripted = yield* Effect.scoped(Effect.flatMap(Claude.open(), (session) => shout(session, "hi"))).pipe(
    Effect.provide(ScriptedCli)
  )
  const replayed = yield* Effect.scoped(Effect.flatMap(Claude.open(), (session) => shout(session, "Say hello"))).pipe(
    Effect.provide(Replay.layer(recorded, { streamText: true }))
  )
  const offline = yield* Effect.scoped(Effect.gen(function*() {
    const { session } = yield* Offline.open([FakeModel.text("Hello, offline.")], {
      executable: cliPath,
      fakeModel: { models: FakeModel.knownModels }
    })
    return yield* shout(session, "Say hello")
  })).pipe(Effect.provide(processLayer))
  // The same program with a misspelled model fails as in production: an ApiError with status 404.
  const wrongModel = yield* Effect.scoped(Effect.gen(function*() {
    const { session } = yield* Offline.open([FakeModel.text("never sent")], {
      executable: cliPath,
      model: "claude-sonnet-55",
      fakeModel: { models: FakeModel.knownModels }
    })
    return yield* shout(session, "Say hello").pipe(
      Effect.map(() => "answered"),
      Effect.catchTag("ClaudeError", (error) =>
        Effect.succeed(error.reason._tag === "ApiError" ? `ApiError ${error.reason.status}` : error.reason._tag))
    )
  })).pipe(Effect.provide(processLayer))
  const guard = yield* guardDecision
  yield* Console.log(
    `scripted: ${scripted.answer}\nreplayed: ${replayed.streamed} (streamed)\noffline: ${offline.answer}\n` +
      `wrong model: ${wrongModel}\nguard on rm -rf /: ${guard}`
  )
  return { scripted: scripted.answer, replayed, offline, wrongModel, guard }
})

if (isMain(import.meta)) NodeRuntime.runMain(program)
