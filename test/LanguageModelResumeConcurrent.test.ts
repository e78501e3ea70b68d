/**
 * `conversation: "resume"`: two calls at once that continue one answered prompt (two Chats forked
 * from one history, several continuations sampled in parallel) must not both resume its CLI
 * session. Both would append their turn to the one session, and the next turn of either branch
 * would resume a session holding the other's turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Chat from "effect/ai/Chat"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import { firstTurnHistory, resumed, sessionPerLaunch } from "./support/resumedSessions.ts"

describe("ClaudeCodeLanguageModel: resume with calls at once", () => {
  it.effect("two Chats forked from one history, their next turns at once: only one resumes the session", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      yield* Effect.gen(function*() {
        const history = yield* firstTurnHistory
        const a = yield* Chat.fromPrompt(history)
        const b = yield* Chat.fromPrompt(history)
        yield* Effect.all([a.generateText({ prompt: "A" }), b.generateText({ prompt: "B" })], { concurrency: 2 })
      }).pipe(Effect.provide(ClaudeCodeLanguageModel.layer({ conversation: "resume" }).pipe(Layer.provide(transport))))
      const resumes = resumed(launches).filter((id) => id === "session-1")
      assert.lengthOf(launches, 3)
      assert.lengthOf(resumes, 1, `session-1 resumed by ${resumes.length} calls at once`)
    }))
})
