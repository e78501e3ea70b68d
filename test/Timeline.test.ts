/**
 * The timeline of a transcript (`Timeline`, a pure function of the lines), the page it renders
 * to (`viewer/page.ts`), reading a transcript file for the viewer (`viewer/server.ts` `load`),
 * and what the recorder writes for it (each line's `ts`, `stream_event`s when asked). The page
 * in a browser: test/ViewerLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as TestClock from "effect/testing/TestClock"
import * as Timeline from "../src/Timeline.ts"
import * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"

const transcripts = Path.resolve(import.meta.dirname, "../testdata/transcripts")

const send = (msg: unknown, ts?: number): Transcript.Line => (ts === undefined ? { dir: "send", msg } : { dir: "send", ts, msg })
const recv = (msg: unknown, ts?: number): Transcript.Line => (ts === undefined ? { dir: "recv", msg } : { dir: "recv", ts, msg })

const user = (content: unknown, uuid?: string) => ({
  type: "user",
  message: { role: "user", content },
  parent_tool_use_id: null,
  session_id: "",
  ...(uuid === undefined ? {} : { uuid })
})
const assistant = (content: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  type: "assistant",
  message: { id: "msg_1", type: "message", role: "assistant", model: "m", content, stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
  parent_tool_use_id: null,
  session_id: "s",
  uuid: "a-uuid",
  ...extra
})
const toolResult = (id: string, content: unknown, isError = false) => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
  parent_tool_use_id: null,
  session_id: "s",
  uuid: "r-uuid"
})
const result = (options: { cost: number; isError?: boolean; subtype?: string; uuids?: ReadonlyArray<string>; errors?: ReadonlyArray<string> }) => ({
  type: "result",
  subtype: options.subtype ?? "success",
  is_error: options.isError ?? false,
  session_id: "s",
  uuid: "res",
  num_turns: 1,
  duration_ms: 1234,
  duration_api_ms: 1000,
  total_cost_usd: options.cost,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 1 },
  modelUsage: {},
  permission_denials: [],
  ...(options.errors === undefined ? { result: "done" } : { errors: options.errors }),
  ...(options.uuids === undefined ? {} : { user_message_uuids: options.uuids })
})
const controlRequest = (id: string, request: Record<string, unknown>) => ({ type: "control_request", request_id: id, request })
const controlResponse = (id: string, response: unknown) => ({
  type: "control_response",
  response: { subtype: "success", request_id: id, response }
})

describe("Timeline.fromLines", () => {
  it.effect("an old transcript (no ts, recorded before 0.2.0) still reads: its turn, Bash call with result, tokens and cost", () =>
    Effect.gen(function*() {
      const lines = yield* Transcript.read(Path.join(transcripts, "bash-tool.ndjson"))
      assert.isTrue(lines.every((l) => l.ts === undefined))
      const timeline = Timeline.fromLines(lines)
      assert.strictEqual(timeline.turns.length, 1)
      const [turn] = timeline.turns
      assert.strictEqual(turn!.prompt, "Run echo hi")
      assert.strictEqual(turn!.status, "ok")
      const tools = turn!.items.filter((i) => i.kind === "tool")
      assert.strictEqual(tools.length, 1)
      assert.strictEqual(tools[0]!.name, "Bash")
      assert.deepStrictEqual((tools[0]!.input as { command: string }).command, "echo hi")
      assert.deepStrictEqual(tools[0]!.result, { text: "hi", isError: false, ts: undefined })
      assert.strictEqual(turn!.summary!.costUsd, 0.0011)
      assert.strictEqual(turn!.summary!.inputTokens, 200)
      assert.strictEqual(turn!.summary!.outputTokens, 15)
      assert.strictEqual(timeline.session.model, "claude-opus-5-5")
      assert.isTrue(timeline.preamble.some((i) => i.kind === "control" && i.subtype === "initialize" && i.decision?.ok === true))
    }))

  it.effect("a failed turn (an API error) is an error, with the reason", () =>
    Effect.gen(function*() {
      const timeline = Timeline.fromLines(yield* Transcript.read(Path.join(transcripts, "api-error.ndjson")))
      const [turn] = timeline.turns
      assert.strictEqual(turn!.status, "error")
      assert.isTrue(turn!.summary!.isError)
      assert.isTrue(turn!.items.some((i) => i.kind === "error" && i.text.startsWith("the turn failed")))
    }))

  it("hooks, permissions and other control requests with their answers; an error answer fails the turn", () => {
    const timeline = Timeline.fromLines([
      send(user("go")),
      recv(assistant([{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }])),
      recv(controlRequest("h1", {
        subtype: "hook_callback",
        callback_id: "hook_PreToolUse",
        input: { session_id: "s", transcript_path: "t.jsonl", cwd: ".", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" },
        tool_use_id: "t1"
      })),
      send(controlResponse("h1", { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } })),
      recv(controlRequest("p1", { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "t1" })),
      send(controlResponse("p1", { behavior: "allow", updatedInput: { command: "ls" } })),
      send(controlRequest("c1", { subtype: "set_model", model: "haiku" })),
      recv({ type: "control_response", response: { subtype: "error", request_id: "c1", error: "no such model" } }),
      recv(toolResult("t1", [{ type: "text", text: "a.txt" }]))
    ])
    const [turn] = timeline.turns
    const kinds = turn!.items.map((i) => i.kind)
    assert.deepStrictEqual(kinds, ["tool", "hook", "permission", "control"])
    const [tool, hook, permission, control] = turn!.items as [Timeline.Item, Timeline.Item, Timeline.Item, Timeline.Item]
    assert.deepStrictEqual(tool.kind === "tool" && tool.result, { text: "a.txt", isError: false, ts: undefined })
    assert.strictEqual(hook.kind === "hook" && hook.decision?.summary, "deny")
    assert.strictEqual(hook.kind === "hook" && hook.toolName, "Bash")
    assert.strictEqual(permission.kind === "permission" && permission.decision?.summary, "allow")
    assert.deepStrictEqual(control.kind === "control" && control.decision, { ok: false, summary: "error", body: "no such model", ts: undefined })
    assert.strictEqual(turn!.status, "error")
    assert.isUndefined(turn!.summary)
  })

  it("protocol problems: a line the schemas refuse, a message that is not an object; stream_events are left out", () => {
    const timeline = Timeline.fromLines([
      send(user("go")),
      recv({ type: "result", subtype: "success" }),
      recv(42),
      recv({ type: "stream_event", event: { type: "message_stop" }, session_id: "s", uuid: "u", parent_tool_use_id: null })
    ])
    const problems = timeline.turns[0]!.items.filter((i) => i.kind === "problem")
    assert.strictEqual(problems.length, 2)
    assert.include(problems[1]!.description, "not a JSON object")
    assert.strictEqual(timeline.turns[0]!.items.length, 2)
    assert.strictEqual(timeline.turns[0]!.status, "running")
  })

  it("turns in the order of their prompts: first in, first out; the uuids a result names win; own cost from running totals", () => {
    const fifo = Timeline.fromLines([
      send(user("one"), 1_000),
      send(user("two"), 1_100),
      recv(assistant([{ type: "text", text: "answer one" }]), 1_500),
      recv(result({ cost: 0.01 }), 2_000),
      recv(assistant([{ type: "thinking", thinking: "hmm", signature: "" }, { type: "text", text: "answer two" }]), 2_500),
      recv(result({ cost: 0.03, isError: true, subtype: "error_during_execution", errors: ["boom"] }), 3_000)
    ])
    assert.deepStrictEqual(fifo.turns.map((t) => [t.prompt, t.status, t.summary?.costUsd]), [["one", "ok", 0.01], ["two", "error", 0.03 - 0.01]])
    assert.deepStrictEqual(fifo.turns[1]!.items.map((i) => i.kind), ["thinking", "text", "error"])
    assert.include((fifo.turns[1]!.items[2] as { text: string }).text, "boom")
    assert.strictEqual(fifo.turns[0]!.items[0]!.ts, 1_500)
    assert.strictEqual(fifo.totalCostUsd, 0.03)

    // The CLI merged the queued "b" and "c" into one turn; its result names both.
    const merged = Timeline.fromLines([
      send(user("a", "u-a")),
      send(user("b", "u-b")),
      send(user("c", "u-c")),
      recv(result({ cost: 0.01, uuids: ["u-a"] })),
      recv(assistant([{ type: "text", text: "b and c" }], { user_message_uuids: ["u-b", "u-c"] })),
      recv(result({ cost: 0.02, uuids: ["u-b", "u-c"] }))
    ])
    assert.deepStrictEqual(merged.turns.map((t) => [t.status, t.mergedInto, t.items.length]), [["ok", undefined, 0], ["ok", undefined, 1], ["ok", 2, 0]])
  })

  it("line by line: push tells which turns changed (0: the session's head)", () => {
    const builder = Timeline.make()
    assert.deepStrictEqual(builder.push(send(controlRequest("i", { subtype: "initialize" }))), [0])
    assert.deepStrictEqual(builder.push(send(user("hi"))), [1])
    assert.deepStrictEqual(builder.push(recv({ type: "system", subtype: "init", session_id: "s", uuid: "x", model: "m", cwd: "c", tools: ["Bash"], claude_code_version: "2.1.332", permissionMode: "default", apiKeySource: "none", mcp_servers: [], slash_commands: [], output_style: "default", agents: [], skills: [], plugins: [] })), [0])
    assert.strictEqual(builder.timeline.session.tools, 1)
    assert.deepStrictEqual(builder.push(recv(result({ cost: 0.5 }))), [1])
    assert.strictEqual(builder.timeline.turns[0]!.status, "ok")
    assert.strictEqual(builder.timeline.lines, 4)
  })
})

describe("the page", () => {
  const timeline = Timeline.fromLines([
    send(user("<script>alert(1)</script> & more"), 1_000),
    recv(assistant([{ type: "text", text: Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") }]), 1_250),
    recv(result({ cost: 0.0123 }), 2_000)
  ])

  it("escapes what the transcript says, folds long text, shows time, duration, tokens and cost", () => {
    const html = Page.renderPage(timeline, { title: "a <b> title" })
    assert.include(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more")
    assert.notInclude(html, "<script>alert(1)")
    assert.include(html, "a &lt;b&gt; title")
    assert.match(html, /<details><summary>line 0 … <span class="dim">\(40 lines, \d+ chars\)<\/span><\/summary>/)
    assert.include(html, "+250 ms")
    assert.include(html, "1.23 s")
    assert.include(html, "10 in · 5 out · 2 cache read · 1 cache write")
    assert.include(html, "$0.0123")
  })

  it("a time outside the Date range renders as ? instead of failing the page (F8)", () => {
    const html = Page.renderPage(Timeline.fromLines([send(user("far"), 1e20), recv(result({ cost: 0 }), 8.64e15 + 1)]), { title: "t" })
    assert.include(html, "far")
    assert.include(html, `<span class="at">?</span>`)
  })

  it("a Content-Security-Policy that allows its own inline style and script (by hash) and no connection; with follow, its own server", () => {
    const html = Page.renderPage(timeline, { title: "t" })
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!
    assert.include(csp, "default-src 'none'")
    assert.include(csp, "connect-src 'none'")
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!
    const hash = (text: string) => `'sha256-${Crypto.createHash("sha256").update(text).digest("base64")}'`
    assert.include(csp, `script-src ${hash(script)}`)
    assert.include(csp, `style-src ${hash(style)}`)
    const follow = Page.renderPage(timeline, { title: "t", follow: { version: 7 } })
    assert.include(follow, "connect-src 'self'")
    assert.include(follow, `data-follow="1" data-version="7"`)
  })
})

describe("reading a transcript for the viewer", () => {
  it.effect("a missing file and a file that is not a transcript are InvalidInput, saying which", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-timeline-")
      const missing = yield* Effect.flip(Server.load(Path.join(dir, "missing.ndjson")))
      assert.strictEqual(missing.reason._tag, "InvalidInput")
      assert.include(missing.message + JSON.stringify(missing.reason), "cannot read the transcript")
      const notTranscript = Path.join(dir, "notes.txt")
      Fs.writeFileSync(notTranscript, "hello\n")
      const wrong = yield* Effect.flip(Server.load(notTranscript))
      assert.strictEqual(wrong.reason._tag, "InvalidInput")
      assert.include(JSON.stringify(wrong.reason), "is not a transcript")
      assert.include(JSON.stringify(wrong.reason), "line 1")
    }))

  it.effect("a ts that is not a time (outside the Date range) is InvalidInput, naming the line (F8)", () =>
    Effect.gen(function*() {
      for (const ts of [1e20, -8.64e15 - 1]) {
        const text = `${JSON.stringify(send(user("one"), 1))}\n${JSON.stringify({ dir: "send", ts, msg: {} })}\n`
        const error = yield* Effect.flip(Transcript.parse(text))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(JSON.stringify(error.reason), "line 2")
      }
      assert.lengthOf(yield* Transcript.parse(JSON.stringify(send(user("one"), 8.64e15)) + "\n"), 1)
    }))

  it.effect("partial: a last line without its newline (being written) is left for later", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-timeline-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, `${JSON.stringify(send(user("one")))}\n{"dir":"recv","ms`)
      const { builder, rest } = yield* Server.load(path, { partial: true })
      assert.strictEqual(builder.timeline.turns.length, 1)
      assert.strictEqual(rest, `{"dir":"recv","ms`)
      assert.isTrue(Exit.isFailure(yield* Effect.exit(Server.load(path))))
    }))
})

describe("the recorder, for the timeline", () => {
  it.effect("writes each line's time (the Clock's) as ts; leaves stream_events out unless streamEvents", () =>
    Effect.gen(function*() {
      const record = (options?: Transcript.RecorderOptions) =>
        Effect.gen(function*() {
          const written: Array<string> = []
          const scope = yield* Scope.make()
          const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))), options).pipe(
            Scope.provide(scope)
          )
          recorder.record("send", user("hi"))
          yield* TestClock.adjust("1500 millis")
          recorder.record("recv", { type: "stream_event", event: { type: "message_stop" } })
          recorder.record("recv", { type: "system", subtype: "status" })
          yield* Scope.close(scope, Exit.void)
          return written.map((l) => JSON.parse(l) as Transcript.Line)
        })
      const plain = yield* record()
      assert.deepStrictEqual(plain.map((l) => [l.dir, l.ts, (l.msg as { type: string }).type]), [["send", 0, "user"], ["recv", 1500, "system"]])
      const all = yield* record({ streamEvents: true })
      assert.deepStrictEqual(all.map((l) => (l.msg as { type: string }).type), ["user", "stream_event", "system"])
      // What it wrote parses back, ts and all.
      const parsed = yield* Transcript.parse(plain.map((l) => JSON.stringify(l)).join("\n"))
      assert.strictEqual(parsed[1]!.ts, 1500 + 0)
    }))
})
