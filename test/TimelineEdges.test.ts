/**
 * The timeline (`src/Timeline.ts`) and its page (`src/viewer/`) on what the CLI writes around
 * the prompts: a turn it starts by itself, a queued prompt withdrawn, a request it cancels, a
 * subagent's items, and a transcript whose recorder died mid-line. Two read real CLI 2.1.332
 * recordings from testdata/protocol (`{"t","dir","msg"}`, plus `meta` lines that are not
 * transcript lines), turned into transcript lines here.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Framing from "../src/Framing.ts"
import * as Timeline from "../src/Timeline.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"
import { assistant, recv, result, send, SESSION, user } from "./support/timelineLines.ts"

const protocol = Path.resolve(import.meta.dirname, "../testdata/protocol")

/** A protocol recording as transcript lines (its `t` as `ts`; its `meta` lines left out). */
const recording = (name: string): ReadonlyArray<Transcript.Line> => {
  const out: Array<Transcript.Line> = []
  for (const raw of Fs.readFileSync(Path.join(protocol, name), "utf8").split("\n")) {
    if (raw.trim() === "") continue
    const line = JSON.parse(raw) as { readonly t: number; readonly dir: string; readonly msg: unknown }
    if (line.dir === "send" || line.dir === "recv") out.push({ dir: line.dir, ts: line.t, msg: line.msg })
  }
  return out
}

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
const C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
const lifecycle = (commandUuid: string, state: string) => ({
  type: "command_lifecycle",
  command_uuid: commandUuid,
  state,
  uuid: `l-${commandUuid}-${state}`,
  session_id: SESSION
})

describe("the timeline", () => {
  it("an automatic turn's result (origin: a background agent finished) does not replace the summary of the user turn before it", () => {
    // Real CLI 2.1.332: the user turn's result at t=689 ($0.00142 so far), then the CLI runs a
    // turn of its own when the background agent is done, whose result (t=1235) has `origin`.
    const timeline = Timeline.fromLines(recording("c4-subagent-background.ndjson"))
    const first = timeline.turns[0]!
    assert.strictEqual(first.prompt, "Use a subagent")
    assert.strictEqual(first.summary?.ts, 689, "the user turn's summary is its own result's, not the automatic turn's")
    assert.closeTo(first.summary?.costUsd ?? -1, 0.00142, 1e-9)
    // The CLI's own turn is an entry of its own, with what started it and its own result.
    const own = timeline.turns[1]!
    assert.strictEqual(timeline.turns.length, 2)
    assert.strictEqual(own.origin, "task-notification")
    assert.strictEqual(own.prompt, "")
    assert.strictEqual(own.summary?.ts, 1235)
    assert.strictEqual(own.status, "ok")
    assert.include(Page.renderTurn(own), "started by the CLI, not by a prompt (task-notification)")
  })

  it("a result before any turn (its prompt not in the transcript) is shown in a turn of its own, with its failure", () => {
    // Found by a review: with no turn to end, the result was dropped; the page showed nothing of
    // it, its reason neither.
    const timeline = Timeline.fromLines([
      recv(result(0.003, { subtype: "error_max_turns", is_error: true, errors: ["Reached maximum number of turns (1)"] }), 5)
    ])
    assert.strictEqual(timeline.turns.length, 1)
    const turn = timeline.turns[0]!
    assert.strictEqual(turn.status, "error")
    assert.strictEqual(turn.summary?.subtype, "error_max_turns")
    assert.closeTo(turn.summary?.costUsd ?? -1, 0.003, 1e-9)
    assert.include(Page.renderTurn(turn), "Reached maximum number of turns (1)")
  })

  it("a line over maxLineBytes, recorded as what is known of it, is a problem of its turn naming its type and size", () => {
    const uuid = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
    const lines = recording("c4-subagent-background.ndjson")
    const first = lines.findIndex((line) => line.dir === "send" && (line.msg as { type?: unknown }).type === "user")
    const overCap: Framing.OversizedLine = {
      type: Framing.oversizedLineType,
      bytes: 300_000_000,
      messageType: "assistant",
      head: `{"type":"assistant","message":{"content":[{"type":"text","text":"${"z".repeat(3000)}`,
      tail: `"}]},"user_message_uuid":"${uuid}"}`
    }
    const timeline = Timeline.fromLines([...lines.slice(0, first + 1), { dir: "recv", ts: 5, msg: overCap }])
    const problems = timeline.turns[0]!.items.filter((item) => item.kind === "problem")
    assert.deepStrictEqual(problems.map((item) => item.kind === "problem" ? [item.description, item.line] : []), [
      ["an assistant line of 300000000 bytes, over the session's maxLineBytes: not read, its bytes not kept", overCap.head]
    ])
  })

  it("a prompt sent without a uuid after one the CLI echoed is a user turn, not one the CLI started (real CLI 2.1.332)", () => {
    const timeline = Timeline.fromLines(recording("i3-replay-user-messages.ndjson"))
    assert.strictEqual(timeline.turns.length, 2, "no turn of the CLI's own")
    const second = timeline.turns[1]!
    assert.strictEqual(second.prompt, "no uuid given")
    assert.strictEqual(second.status, "ok")
    assert.strictEqual(second.summary?.ts, 641)
  })

  it("a result that names a prompt and has no origin is that prompt's, though an init naming none came first", () => {
    const timeline = Timeline.fromLines([
      send(user("first", A), 1_000),
      recv({ type: "system", subtype: "status", status: "requesting", session_id: SESSION, uuid: "s-1", user_message_uuids: [A] }, 1_005),
      // An init that names no prompt (FakeCli's, without `user_message_uuids`).
      recv(FakeCli.textTurn({ sessionId: SESSION, text: "" })[0], 1_010),
      recv(assistant([{ type: "text", text: "reply" }]), 1_100),
      recv(result(0.01, { user_message_uuids: [A] }), 1_200)
    ])
    const [first, taken] = timeline.turns
    assert.strictEqual(first!.summary?.ts, 1_200)
    assert.strictEqual(first!.status, "ok")
    assert.strictEqual(taken!.mergedInto, 1, "the turn taken for the CLI's own ends, answered with the prompt's")
    assert.strictEqual(taken!.status, "ok")
  })

  it("a queued prompt the CLI withdrew (cancel_async_message, command_lifecycle cancelled) ends, and a later turn's permission request goes to that later turn", () => {
    const timeline = Timeline.fromLines([
      send(user("first", A), 1_000),
      recv(lifecycle(A, "started"), 1_010),
      send(user("second", B), 1_100),
      recv(lifecycle(B, "queued"), 1_110),
      send({ type: "control_request", request_id: "req_2_x", request: { subtype: "cancel_async_message", message_uuid: B } }, 1_200),
      recv({ type: "control_response", response: { subtype: "success", request_id: "req_2_x", response: { cancelled: true } } }, 1_210),
      recv(lifecycle(B, "cancelled"), 1_210),
      recv(assistant([{ type: "text", text: "reply to first" }], { user_message_uuids: [A] }), 1_300),
      recv(result(0.01, { user_message_uuids: [A] }), 1_400),
      send(user("third", C), 2_000),
      recv(lifecycle(C, "started"), 2_010),
      recv(assistant([{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }], { user_message_uuids: [C] }), 2_100),
      recv({ type: "control_request", request_id: "p-1", request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_1" } }, 2_200),
      send({ type: "control_response", response: { subtype: "success", request_id: "p-1", response: { behavior: "allow", updatedInput: { command: "ls" } } } }, 2_210),
      recv(result(0.02, { user_message_uuids: [C] }), 2_400)
    ])
    const [, second, third] = timeline.turns
    assert.strictEqual(second!.prompt, "second")
    assert.strictEqual(second!.status, "cancelled", "the withdrawn prompt never runs: it is not shown running forever")
    assert.include(Page.renderTurn(second!), "cancelled before it ran")
    assert.isFalse(second!.items.some((i) => i.kind === "permission"), "turn 2 (withdrawn) got turn 3's permission request")
    assert.isTrue(third!.items.some((i) => i.kind === "permission"), "turn 3's permission request is in turn 3")
  })

  it("a queued prompt withdrawn on a CLI that writes no command_lifecycle lines ends at the answer {cancelled: true}", () => {
    const timeline = Timeline.fromLines([
      send(user("first", A), 1_000),
      send(user("second", B), 1_100),
      send({ type: "control_request", request_id: "req_2_x", request: { subtype: "cancel_async_message", message_uuid: B } }, 1_200),
      recv({ type: "control_response", response: { subtype: "success", request_id: "req_2_x", response: { cancelled: true } } }, 1_210),
      recv(result(0.01), 1_400)
    ])
    const [first, second] = timeline.turns
    assert.strictEqual(second!.status, "cancelled")
    assert.strictEqual(first!.status, "ok")
    assert.strictEqual(first!.summary?.ts, 1_400, "the result is the first prompt's")
  })

  it("a permission request the CLI cancelled (control_cancel_request) is shown cancelled, not waiting for the program's answer", () => {
    // Real CLI 2.1.332: a can_use_tool request left unanswered, an interrupt, then the CLI's
    // control_cancel_request for it (line 22).
    const timeline = Timeline.fromLines(recording("l3-cancel-can-use-tool-unanswered.ndjson"))
    const permission = timeline.turns[0]!.items.find((i): i is Timeline.PermissionItem => i.kind === "permission")
    assert.isDefined(permission)
    assert.isDefined(permission!.decision, "the cancel line was dropped: the request still reads as pending")
    assert.strictEqual(permission!.decision?.summary, "cancelled")
  })
})

describe("the page", () => {
  it("a subagent's tool call and thinking are told apart from the main agent's (as its text is)", () => {
    const render = (block: unknown, parent: string | null) => {
      const timeline = Timeline.fromLines([
        send(user("go", A), 1_000),
        recv(assistant([block], { parent_tool_use_id: parent }), 1_000)
      ])
      return Page.renderTurn(timeline.turns[0]!)
    }
    const blocks = {
      "text (already told apart)": { type: "text", text: "done" },
      "tool call": { type: "tool_use", id: "toolu_same", name: "Bash", input: { command: "rm -rf build" } },
      "thinking": { type: "thinking", thinking: "let me think", signature: "" }
    }
    const same = Object.entries(blocks).filter(([, block]) => render(block, "toolu_agent") === render(block, null)).map(([name]) => name)
    assert.deepStrictEqual(same, [], "shown exactly as the main agent's when a subagent (parent_tool_use_id) wrote it")
  })

  it.effect("--html of a transcript whose last line was cut (the recorder died mid-write) writes the page of what is there, with a note", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-audit-")
      const path = Path.join(dir, "t.ndjson")
      const whole = [
        send(user("kept prompt", A), 1_000),
        recv(assistant([{ type: "text", text: "kept answer" }], { user_message_uuids: [A] }), 1_100),
        recv(result(0.01, { user_message_uuids: [A] }), 1_200)
      ].map((l) => JSON.stringify(l)).join("\n")
      Fs.writeFileSync(path, `${whole}\n{"dir":"recv","ts":1300,"msg":{"type":"assis`)
      const out = Path.join(dir, "out.html")
      const exit = yield* Effect.exit(Server.writeHtml(path, out))
      assert.isTrue(Exit.isSuccess(exit), "the whole page was refused for one cut line")
      const html = Fs.readFileSync(out, "utf8")
      assert.include(html, "kept answer")
      assert.include(html, "protocol problem")
    }))

  it.effect("--html of a file that is no transcript (one whole JSON line, no newline) is still InvalidInput", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-timeline-")
      const path = Path.join(dir, "notes.json")
      Fs.writeFileSync(path, `{"hello":"world"}`)
      const error = yield* Effect.flip(Server.writeHtml(path, Path.join(dir, "out.html")))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, "is not a transcript")
    }))
})
