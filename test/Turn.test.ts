/**
 * The `Turn` helpers on scripted turns of the in-memory fake CLI: text deltas, the final text,
 * tool calls paired with their results.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Turn from "../src/Turn.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const usage = { input_tokens: 10, output_tokens: 5 }
let serial = 0
const uuid = () => `${SESSION}-${++serial}`

const init = FakeCli.textTurn({ sessionId: SESSION, text: "" })[0]!

const delta = (delta: Record<string, unknown>, parent: string | null = null) => ({
  type: "stream_event",
  event: { type: "content_block_delta", index: 0, delta },
  session_id: SESSION,
  parent_tool_use_id: parent,
  uuid: uuid()
})

const assistant = (messageId: string, content: ReadonlyArray<Record<string, unknown>>, parent: string | null = null) => ({
  type: "assistant",
  message: {
    id: messageId,
    type: "message",
    role: "assistant",
    model: "claude-fake-1",
    content,
    stop_reason: null,
    stop_sequence: null,
    usage
  },
  session_id: SESSION,
  parent_tool_use_id: parent,
  uuid: uuid()
})

const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name, input })

const toolResult = (toolUseId: string, content: string, isError = false) => ({
  type: "user",
  message: {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: toolUseId, content, ...(isError ? { is_error: true } : {}) }]
  },
  session_id: SESSION,
  parent_tool_use_id: null,
  uuid: uuid()
})

/** A CLI that answers every user turn with `lines`, then a result carrying `resultText`. */
const scripted = (lines: ReadonlyArray<unknown>, resultText = "") =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_text, _index, cli) =>
      Effect.forEach([init, ...lines, FakeCli.result({ sessionId: SESSION, text: resultText })], cli.emit)
  }))

/** A turn that writes text, calls two tools (one fails), then writes its answer. */
const toolTurn = [
  delta({ type: "thinking_delta", thinking: "I should look." }),
  assistant("msg_1", [{ type: "thinking", thinking: "I should look.", signature: "s" }]),
  delta({ type: "text_delta", text: "Let me " }),
  delta({ type: "text_delta", text: "check." }),
  assistant("msg_1", [{ type: "text", text: "Let me check." }]),
  assistant("msg_1", [toolUse("toolu_a", "Bash", { command: "ls" })]),
  assistant("msg_1", [toolUse("toolu_b", "Read", { file_path: "/nope" })]),
  // Results in the other order: tools may finish out of order.
  toolResult("toolu_b", "File does not exist.", true),
  toolResult("toolu_a", "a.txt\nb.txt"),
  // A subagent's text is not the main agent's.
  delta({ type: "text_delta", text: "(subagent)" }, "toolu_task"),
  assistant("msg_sub", [{ type: "text", text: "(subagent)" }], "toolu_task"),
  delta({ type: "text_delta", text: "There are " }),
  delta({ type: "text_delta", text: "two files." }),
  assistant("msg_2", [{ type: "text", text: "There are two files." }])
]

describe("Turn", () => {
  describe("textDeltas", () => {
    it.effect("the main agent's text deltas, in order; thinking and subagent deltas left out", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const texts = yield* session.turn("count the files").pipe(Turn.textDeltas, Stream.runCollect)
        assert.deepStrictEqual(texts, ["Let me ", "check.", "There are ", "two files."])
      }).pipe(Effect.provide(scripted(toolTurn, "There are two files."))))

    it.effect("a turn with no text: no deltas", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const texts = yield* session.turn("just run it").pipe(Turn.textDeltas, Stream.runCollect)
        assert.deepStrictEqual(texts, [])
      }).pipe(Effect.provide(scripted([
        delta({ type: "thinking_delta", thinking: "Running." }),
        assistant("msg_1", [toolUse("toolu_a", "Bash", { command: "make" })]),
        toolResult("toolu_a", "done")
      ]))))
  })

  describe("finalText", () => {
    it.effect("several assistant messages: the last one with text; thinking and subagents left out", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.turn("count the files").pipe(Turn.finalText), "There are two files.")
      }).pipe(Effect.provide(scripted(toolTurn, "There are two files."))))

    it.effect("the text blocks of one API message, written as several assistant lines, are joined", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.turn("hi").pipe(Turn.finalText), "Hello, world.")
      }).pipe(Effect.provide(scripted([
        assistant("msg_1", [{ type: "text", text: "Hello, " }]),
        assistant("msg_1", [{ type: "text", text: "world." }])
      ], "Hello, world."))))

    it.effect("a turn with no text: the empty string", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.turn("just run it").pipe(Turn.finalText), "")
      }).pipe(Effect.provide(scripted([
        assistant("msg_1", [toolUse("toolu_a", "Bash", { command: "make" })]),
        toolResult("toolu_a", "done")
      ]))))

    it.effect("no assistant text but a result that has one (a stream without assistant lines): the result's", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual(yield* session.turn("hi").pipe(Turn.finalText), "From the result.")
      }).pipe(Effect.provide(scripted([], "From the result."))))

    it.effect("a failed turn is never a text: its reason, on session.turn, with errorResults: \"return\" and on session.events", () =>
      Effect.gen(function*() {
        const failing = FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli) =>
            Effect.forEach([
              init,
              assistant("msg_1", [{ type: "text", text: "Working on it" }]),
              FakeCli.result({ sessionId: SESSION, subtype: "error_max_turns", text: "" })
            ], cli.emit)
        }))
        const onTurn = yield* Effect.scoped(Effect.flatMap(Claude.open(), (session) => session.turn("go").pipe(Turn.finalText, Effect.flip)))
          .pipe(Effect.provide(failing))
        assert.strictEqual(onTurn.reason._tag, "LimitReached")
        const returned = yield* Effect.scoped(
          Effect.flatMap(Claude.open({ errorResults: "return" }), (session) => session.turn("go").pipe(Turn.finalText, Effect.flip))
        ).pipe(Effect.provide(failing))
        assert.strictEqual(returned.reason._tag, "LimitReached")
        const onEvents = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open()
          const text = yield* Effect.forkChild(session.events.pipe(Turn.finalText, Effect.flip), { startImmediately: true })
          yield* session.send("go")
          return yield* Fiber.join(text)
        })).pipe(Effect.provide(failing))
        assert.strictEqual(onEvents.reason._tag, "LimitReached")
      }))

    it.effect("on session.events it stops at the first result", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const text = yield* Effect.forkChild(session.events.pipe(Turn.finalText), { startImmediately: true })
        yield* session.send("hi")
        assert.strictEqual(yield* Fiber.join(text), "echo: hi")
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))
  })

  describe("toolCalls", () => {
    it.effect("each tool use with its result, paired by tool_use_id, in the order the results arrive", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const calls = yield* session.turn("count the files").pipe(Turn.toolCalls, Stream.runCollect)
        assert.deepStrictEqual(
          calls.map(({ toolUse, result }) => [toolUse.name, toolUse.input, result.content, result.is_error === true]),
          [
            ["Read", { file_path: "/nope" }, "File does not exist.", true],
            ["Bash", { command: "ls" }, "a.txt\nb.txt", false]
          ]
        )
        for (const { toolUse, result } of calls) assert.strictEqual(result.tool_use_id, toolUse.id)
      }).pipe(Effect.provide(scripted(toolTurn, "There are two files."))))

    it.effect("a tool use whose result never arrives is not emitted; a result without its tool use neither", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const calls = yield* session.turn("run both").pipe(Turn.toolCalls, Stream.runCollect)
        assert.deepStrictEqual(calls.map(({ toolUse }) => toolUse.id), ["toolu_a"])
      }).pipe(Effect.provide(scripted([
        assistant("msg_1", [toolUse("toolu_a", "Bash", { command: "make" })]),
        assistant("msg_1", [toolUse("toolu_never", "Bash", { command: "sleep 1000" })]),
        toolResult("toolu_a", "done"),
        toolResult("toolu_unseen", "a result of a call this stream never saw")
        // The turn ends (interrupted, say) before toolu_never is answered.
      ]))))

    it.effect("a turn with no tool use: no calls", () =>
      Effect.gen(function*() {
        const session = yield* Claude.open()
        const calls = yield* session.turn("hi").pipe(Turn.toolCalls, Stream.runCollect)
        assert.deepStrictEqual(calls, [])
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))
  })
})
