/**
 * Pick up where you left off: `Sessions.list` finds the sessions the CLI keeps for this working
 * directory (newest first, with their titles), and `resume` continues the last one with its
 * history.
 *
 * `node examples/resume-last.ts` runs it against the fake model: it first runs a short session
 * in the fake model's fresh HOME (so there is one to resume), and reads the sessions from that
 * HOME. In your own program, drop the first session and the `ConfigProvider` line:
 * `ClaudeNode.layerSessions` reads the CLI's config directory from your environment
 * (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeNode from "../src/ClaudeNode.ts"
import * as Sessions from "../src/Sessions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import type { Transport } from "../src/Transport.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** A fake model that remembers: it answers from the whole conversation the CLI sends it. */
const rememberingModel: FakeModel.Script = (request) => {
  const said = JSON.stringify(request.messages)
  if (FakeModel.lastUserText(request) === "Where were we?") {
    return FakeModel.text(said.includes("Plan the release") ? "We were planning the release." : "I do not know.")
  }
  return FakeModel.text("Let us plan it.")
}

/** What the example gives back: the session it picked, its title, and the resumed answer. */
export interface ResumeOutcome {
  readonly picked: string
  readonly title: string
  readonly answer: string
}

/** The last session of this directory, resumed. */
export const resumeLast = (
  options: Claude.SessionOptions
): Effect.Effect<ResumeOutcome, ClaudeError.ClaudeError, Sessions.Sessions | Transport> =>
  Effect.gen(function*() {
    const sessions = yield* Sessions.Sessions
    const [last] = yield* sessions.list({ cwd: options.cwd ?? process.cwd(), limit: 1 })
    if (last === undefined) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: "No session to resume here" })))
    }
    yield* Console.log(`Resuming "${last.title}" (${last.sessionId}, ${new Date(last.lastModified).toISOString()})`)
    const session = yield* Claude.open({ ...options, resume: last.sessionId })
    const result = yield* session.run("Where were we?")
    yield* Console.log(result.result)
    return { picked: last.sessionId, title: last.title, answer: result.result ?? "" }
  }).pipe(Effect.scoped)

/** Runs one session offline (so there is one to resume), then resumes the last one. */
export const program: Effect.Effect<ResumeOutcome & { readonly first: string }, ClaudeError.ClaudeError | Config.ConfigError> = Effect.gen(function*() {
  const { options } = yield* fakeModel(rememberingModel)
  const first = yield* Claude.query("Plan the release", options).pipe(Effect.map((r) => r.session_id))
  const env = Object.fromEntries(
    Object.entries(options.env ?? {}).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as const] : []))
  )
  const outcome = yield* resumeLast(options).pipe(
    Effect.provide(ClaudeNode.layerSessions),
    // Only for the offline run: the CLI's HOME is the fake model's, not yours.
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
  )
  return { ...outcome, first }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
