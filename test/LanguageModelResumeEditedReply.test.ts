/**
 * `conversation: "resume"`: a history whose last reply the program edited (a `Chat` whose
 * assistant message was replaced, a reply corrected before the next turn) must not resume the CLI
 * session that answered its prompt: that session holds the original reply, so the model would
 * go on from words the conversation no longer has. It starts afresh with the whole history; an
 * unedited history resumes as before.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Chat from "effect/ai/Chat"
import * as Prompt from "effect/ai/Prompt"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import { firstTurnHistory, resumed, sessionPerLaunch } from "./support/resumedSessions.ts"

/** The history of a first turn, with its reply replaced by `edit` (given the reply) when given. */
const nextTurnResumes = (edit?: (reply: Prompt.AssistantMessage) => Prompt.AssistantMessage) =>
  Effect.gen(function*() {
    const { launches, transport } = sessionPerLaunch()
    yield* Effect.gen(function*() {
      const history = yield* firstTurnHistory
      const messages = history.content.map((message) =>
        edit !== undefined && message.role === "assistant" ? edit(message) : message
      )
      const next = yield* Chat.fromPrompt(Prompt.fromMessages(messages))
      yield* next.generateText({ prompt: "And another." })
    }).pipe(Effect.provide(ClaudeCodeLanguageModel.layer({ conversation: "resume" }).pipe(Layer.provide(transport))))
    return resumed(launches)
  })

describe("ClaudeCodeLanguageModel: resume after an edited reply", () => {
  it.effect("the reply as the session gave it: the next turn resumes the session", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* nextTurnResumes(), [undefined, "session-1"])
    }))

  it.effect("the reply's text edited: the next turn starts afresh", () =>
    Effect.gen(function*() {
      const edited = yield* nextTurnResumes((reply) =>
        Prompt.assistantMessage({ content: [Prompt.textPart({ text: "Seven, I said." })], options: reply.options })
      )
      assert.deepStrictEqual(edited, [undefined, undefined])
    }))

  it.effect("the same reply in a new message object: the next turn still resumes (what it says is what counts)", () =>
    Effect.gen(function*() {
      const copied = yield* nextTurnResumes((reply) => Prompt.assistantMessage({ content: [...reply.content], options: reply.options }))
      assert.deepStrictEqual(copied, [undefined, "session-1"])
    }))

  it.effect("a tool call added to the reply (its text kept): the next turn starts afresh", () =>
    Effect.gen(function*() {
      const edited = yield* nextTurnResumes((reply) =>
        Prompt.assistantMessage({
          content: [...reply.content, Prompt.toolCallPart({ id: "call_added", name: "Lookup", params: {}, providerExecuted: true })],
          options: reply.options
        })
      )
      assert.deepStrictEqual(edited, [undefined, undefined])
    }))
})
