/** The Turn helpers on subagent calls, user lines with several results, and a subagent's text after the answer (checked by an audit, found right; kept as regression tests). */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Turn from "../src/Turn.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const usage = { input_tokens: 10, output_tokens: 5 }
let serial = 0
const uuid = () => `${SESSION}-${++serial}`
const init = FakeCli.textTurn({ sessionId: SESSION, text: "" })[0]!
const assistant = (id: string, content: ReadonlyArray<Record<string, unknown>>, parent: string | null = null) => ({
  type: "assistant",
  message: { id, type: "message", role: "assistant", model: "claude-fake-1", content, stop_reason: null, stop_sequence: null, usage },
  session_id: SESSION, parent_tool_use_id: parent, uuid: uuid()
})
const toolUse = (id: string, name: string) => ({ type: "tool_use", id, name, input: { id } })
const results = (ids: ReadonlyArray<string>, parent: string | null = null) => ({
  type: "user",
  message: { role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: `r-${id}` })) },
  session_id: SESSION, parent_tool_use_id: parent, uuid: uuid()
})
const scripted = (lines: ReadonlyArray<unknown>, resultText = "") =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_t, _i, cli) => Effect.forEach([init, ...lines, FakeCli.result({ sessionId: SESSION, text: resultText })], cli.emit)
  }))

const lines = [
  assistant("m1", [{ type: "text", text: "Main first." }]),
  assistant("m1", [toolUse("task", "Task")]),
  assistant("m1", [toolUse("p1", "Read")]),
  assistant("s1", [toolUse("sub1", "Grep")], "task"),
  assistant("s1", [toolUse("sub2", "Glob")], "task"),
  results(["sub2", "sub1"], "task"),
  results(["p1"]),
  assistant("s2", [{ type: "text", text: "subagent summary" }], "task"),
  results(["task"]),
  assistant("m2", [{ type: "text", text: "Main answer." }]),
  assistant("s3", [{ type: "text", text: "late subagent text" }], "task")
]

describe("Turn helpers: the edges", () => {
  it.effect("subagent calls pair by id; multi-result lines; subagent text never the final text", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const calls = yield* session.turn("go").pipe(Turn.toolCalls, Stream.runCollect)
      assert.deepStrictEqual(calls.map(({ toolUse, result }) => [toolUse.id, toolUse.name, result.content]), [
        ["sub2", "Glob", "r-sub2"], ["sub1", "Grep", "r-sub1"], ["p1", "Read", "r-p1"], ["task", "Task", "r-task"]
      ])
      const text = yield* session.turn("again").pipe(Turn.finalText)
      assert.strictEqual(text, "Main answer.")
    }).pipe(Effect.provide(scripted(lines, "Main answer."))))
})
