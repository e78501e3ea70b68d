/**
 * `conversation: "resume"` when the CLI no longer has the session, as CLI 2.1.332 says so: one
 * error `result` on stdout (`error_during_execution`, `num_turns: 0`,
 * `errors: ["No conversation found with session ID: <id>"]`), the same words on stderr, exit 1.
 * The call must give way to a fresh session with the whole prompt, not fail.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Chat from "effect/ai/Chat"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { argValue } from "./support/resumedSessions.ts"
import type { LaunchSpec } from "../src/Transport.ts"

/** The CLI's stdout line for `--resume` of a session it does not have (testdata g4-resume-unknown). */
const noConversationResult = (sessionId: string) => ({
  type: "result",
  subtype: "error_during_execution",
  duration_ms: 0,
  duration_api_ms: 0,
  is_error: true,
  num_turns: 0,
  stop_reason: null,
  session_id: sessionId,
  total_cost_usd: 0,
  usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  modelUsage: {},
  permission_denials: [],
  uuid: "18e6b8bf-717e-45f9-81e7-a96d8c0a6db5",
  errors: [`No conversation found with session ID: ${sessionId}`]
})

describe("ClaudeCodeLanguageModel: a resumed session the CLI no longer has", () => {
  it.effect("its error result on stdout, then exit 1: the turn runs on a fresh session with the whole prompt", () =>
    Effect.gen(function*() {
      const launches: Array<LaunchSpec> = []
      const users: Array<string> = []
      const transport = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          launches.push(cli.spec)
          const resumed = argValue(cli.spec, "--resume")
          if (resumed !== undefined) {
            yield* cli.emit(noConversationResult(resumed))
            yield* cli.stderr(`No conversation found with session ID: ${resumed}\n`)
            return 1
          }
          const sessionId = `session-${launches.length}`
          return yield* FakeCli.conversation({
            sessionId,
            onUser: (text, _index, cli) =>
              Effect.andThen(
                Effect.sync(() => users.push(text)),
                Effect.forEach(FakeCli.textTurn({ sessionId, text: `echo: ${text}` }), (line) => cli.emit(line), {
                  discard: true
                })
              )
          })(cli)
        })
      )
      const second = yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "My name is Ada." })
        return yield* chat.generateText({ prompt: "What is my name?" })
      }).pipe(
        Effect.provide(ClaudeCodeLanguageModel.layer({ conversation: "resume" }).pipe(Layer.provide(transport)))
      )
      assert.deepStrictEqual(launches.map((spec) => argValue(spec, "--resume")), [undefined, "session-1", undefined])
      assert.include(users[1]!, JSON.stringify({ role: "user", content: "My name is Ada." }))
      assert.include(second.text, "What is my name?")
    }))
})
