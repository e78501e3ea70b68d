/**
 * Every message type of the official TypeScript SDK's `SDKMessage` union has a schema here:
 * the lines the real CLI 2.1.332 writes offline are decoded from its recording
 * (test/fixtures/messages/cli-2.1.332.ndjson, `npm run record:messages`), the others from lines
 * written by hand after the SDK's `sdk.d.ts` (test/fixtures/messages/sdk-0.3.332.ndjson).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { kindOf, recordedKinds } from "./support/messageKinds.ts"
import { sdkMessages } from "./support/sdkDeclarations.ts"

const fixture = (name: string): ReadonlyArray<Record<string, unknown>> =>
  Fs.readFileSync(Path.join(import.meta.dirname, "fixtures", "messages", name), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>)

const recorded = fixture("cli-2.1.332.ndjson")
const handMade = fixture("sdk-0.3.332.ndjson")

/** The kinds that arrived as `{ type: "unknown", raw }` before issue 15. */
const addedKinds = [
  "system/control_request_progress",
  "system/model_refusal_fallback",
  "system/model_refusal_no_fallback",
  "system/local_command_output",
  "system/hook_started",
  "system/hook_progress",
  "system/hook_response",
  "system/plugin_install",
  "tool_progress",
  "auth_status",
  "system/task_progress",
  "system/session_state_changed",
  "system/worker_shutting_down",
  "system/commands_changed",
  "system/files_persisted",
  "tool_use_summary",
  "system/memory_recall",
  "rate_limit_event",
  "system/elicitation_complete",
  "prompt_suggestion",
  "system/mirror_error",
  "conversation_reset",
  "system/session_writes_lost"
]

const decode = (line: unknown) => Protocol.decodeMessage(line)

describe("message types", () => {
  it("every member of the SDK's SDKMessage union is a kind the library decodes with a schema", () => {
    const sdk = sdkMessages()
    assert.strictEqual(sdk.length, 40)
    const missing = sdk.filter((m) => !Protocol.modelledMessageKinds.includes(m.kind))
    assert.deepStrictEqual(missing, [])
  })

  it("the recording of the real CLI holds one line of each kind it writes offline, each decoded as itself", () => {
    assert.deepStrictEqual(recorded.map(kindOf), recordedKinds)
    for (const line of recorded) {
      const message = Result.getOrThrow(decode(line))
      assert.notStrictEqual(message.type, "unknown", kindOf(line))
      assert.strictEqual(message, line)
    }
  })

  it("the hand-made lines (after sdk.d.ts) cover the other added kinds, each decoded as itself", () => {
    const covered = [...recorded, ...handMade].map(kindOf).sort()
    assert.deepStrictEqual(covered, [...addedKinds].sort())
    for (const line of handMade) {
      const message = Result.getOrThrow(decode(line))
      assert.notStrictEqual(message.type, "unknown", kindOf(line))
      assert.strictEqual(message, line)
    }
  })

  it("the typed lines narrow: a hook_response's outcome, a tool_progress's elapsed time", () => {
    const response = Result.getOrThrow(decode(recorded.find((l) => l.subtype === "hook_response")))
    if (response.type === "system" && response.subtype === "hook_response") {
      assert.strictEqual(response.outcome, "success")
      assert.strictEqual(response.hook_event, "PreToolUse")
      assert.strictEqual(response.exit_code, 0)
    } else assert.fail("not a hook_response")
    const progress = Result.getOrThrow(decode(handMade.find((l) => l.type === "tool_progress")))
    if (progress.type === "tool_progress") assert.strictEqual(progress.elapsed_time_seconds, 12)
    else assert.fail("not a tool_progress")
  })

  it("a line of an added kind that breaks its schema is an error naming the field, not an unknown line", () => {
    const response = recorded.find((l) => l.subtype === "hook_response")!
    const bad = Result.getFailure(decode({ ...response, outcome: 3 }))
    assert.isTrue(bad._tag === "Some" && bad.value.includes("system/hook_response") && bad.value.includes("outcome"))
    const { tool_name: _, ...noName } = handMade.find((l) => l.type === "tool_progress")!
    const missing = Result.getFailure(decode(noName))
    assert.isTrue(missing._tag === "Some" && missing.value.includes("tool_name"))
    const reset = recorded.find((l) => l.type === "conversation_reset")!
    const wrong = Result.getFailure(decode({ ...reset, new_conversation_id: null }))
    assert.isTrue(wrong._tag === "Some" && wrong.value.includes("new_conversation_id"))
  })

  it("a value the SDK does not list yet is accepted where the field is an open set", () => {
    const state = recorded.find((l) => l.subtype === "session_state_changed")!
    const later = { ...state, state: "paused" }
    assert.strictEqual<unknown>(Result.getOrThrow(decode(later)), later)
  })

  it.effect("on a session, every added line reaches the turn's stream as itself, not as unknown", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const events = Array.from(yield* Stream.runCollect(session.turn("go")))
      const added = events.filter((e) => e.type !== "unknown" && addedKinds.includes(kindOf(e)))
      assert.deepStrictEqual(added.map(kindOf), [...recorded, ...handMade].map(kindOf))
      assert.isFalse(events.some((e) => e.type === "unknown"))
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: "00000000-0000-4000-8000-000000000001",
      onUser: (text, index, cli, message) => {
        const lines = FakeCli.textTurn({
          sessionId: "00000000-0000-4000-8000-000000000001",
          text,
          totalCostUsd: 0.001 * (index + 1),
          userMessageUuid: String(message.uuid)
        })
        // After the turn's system/init, before its result.
        return Effect.forEach([lines[0], ...recorded, ...handMade, ...lines.slice(1)], cli.emit, { discard: true })
      }
    })))))

  it("a system subtype no schema names still decodes to unknown, untouched", () => {
    const raw = { type: "system", subtype: "brand_new_subtype", session_id: "s", uuid: "u" }
    assert.deepStrictEqual(Result.getOrThrow(decode(raw)), { type: "unknown", raw })
  })
})
