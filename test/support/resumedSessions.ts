/**
 * A fake CLI for the `conversation: "resume"` tests of `ClaudeCodeLanguageModel`: each launch
 * starts session-<n>, or goes on with the session it resumes, and the launches are kept.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Chat from "effect/ai/Chat"
import * as FakeCli from "../../src/testing/FakeCli.ts"
import type { LaunchSpec } from "../../src/Transport.ts"

/** The value of `flag` in a launch's arguments (`--flag value` or `--flag=value`). */
export const argValue = (spec: LaunchSpec, flag: string): string | undefined => {
  const index = spec.args.indexOf(flag)
  if (index >= 0) return spec.args[index + 1]
  return spec.args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1)
}

/** The session a launch runs: the one it resumes, else the one it names (`--session-id`). */
export const launchedSession = (spec: LaunchSpec): string | undefined =>
  argValue(spec, "--resume") ?? argValue(spec, "--session-id")

/** A CLI that starts session-<n> on its n-th launch, or goes on with the session it resumes. */
export const sessionPerLaunch = () => {
  const launches: Array<LaunchSpec> = []
  const transport = FakeCli.layer((cli) => {
    launches.push(cli.spec)
    const resumed = argValue(cli.spec, "--resume")
    return FakeCli.conversation({ sessionId: resumed ?? `session-${launches.length}` })(cli)
  })
  return { launches, transport }
}

/** The session each launch resumed. */
export const resumed = (launches: ReadonlyArray<LaunchSpec>) => launches.map((spec) => argValue(spec, "--resume"))

/** Two Chats made by `chat`, taking turns: A1, B1, A2, B2. */
export const interleave = <E, R>(chat: Effect.Effect<Chat.Chat, E, R>) =>
  Effect.gen(function*() {
    const a = yield* chat
    const b = yield* chat
    yield* a.generateText({ prompt: "A1" })
    yield* b.generateText({ prompt: "B1" })
    yield* a.generateText({ prompt: "A2" })
    yield* b.generateText({ prompt: "B2" })
  })

/** The history of a Chat after its first turn ("Pick a number."), which a session answered. */
export const firstTurnHistory = Effect.gen(function*() {
  const chat = yield* Chat.empty
  yield* chat.generateText({ prompt: "Pick a number." })
  return yield* Ref.get(chat.history)
})
