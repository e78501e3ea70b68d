/**
 * `conversation: "resume"` with `effect/ai`'s `ResponseIdTracker` in the context: the library's own
 * record decides which session a Chat resumes. Before, the tracker's `previousResponseId` was
 * taken, and two Chats sharing a history (or a fork) resumed whichever session answered last,
 * seeing each other's turns (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Chat from "effect/ai/Chat"
import * as Prompt from "effect/ai/Prompt"
import * as ResponseIdTracker from "effect/ai/ResponseIdTracker"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import { interleave, resumed, sessionPerLaunch } from "./support/resumedSessions.ts"

const model = (transport: ReturnType<typeof sessionPerLaunch>["transport"]) =>
  ClaudeCodeLanguageModel.layer({ conversation: "resume" }).pipe(Layer.provide(transport))
const withTracker = Effect.provideServiceEffect(ResponseIdTracker.ResponseIdTracker, ResponseIdTracker.make)


describe("resume with a ResponseIdTracker in the context", () => {
  it.effect("two Chats from one history each start their own session, not the other's", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      const history = Prompt.make([
        { role: "user", content: "Hello." },
        { role: "assistant", content: [{ type: "text", text: "Hi." }] }
      ])
      yield* interleave(Chat.fromPrompt(history)).pipe(withTracker, Effect.provide(model(transport)))
      assert.deepStrictEqual(resumed(launches), [undefined, undefined, "session-1", "session-2"])
    }))

  it.effect("a Chat forked after a resumed turn does not resume the session the other branch moved on", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      yield* Effect.gen(function*() {
        const a = yield* Chat.empty
        yield* a.generateText({ prompt: "A1" })
        const fork = yield* Chat.fromPrompt(yield* Ref.get(a.history))
        yield* a.generateText({ prompt: "A2" })
        yield* fork.generateText({ prompt: "F2" })
      }).pipe(withTracker, Effect.provide(model(transport)))
      assert.deepStrictEqual(resumed(launches), [undefined, "session-1", undefined])
    }))
  it.effect("a Chat whose model is provided to each call (a layer built per call) still resumes its session", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      const chat = yield* Chat.empty
      yield* chat.generateText({ prompt: "A1" }).pipe(Effect.provide(model(transport)))
      yield* chat.generateText({ prompt: "A2" }).pipe(Effect.provide(model(transport)))
      assert.deepStrictEqual(resumed(launches), [undefined, "session-1"])
    }).pipe(withTracker))
})
