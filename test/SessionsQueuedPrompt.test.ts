/**
 * A prompt sent while a turn runs (`session.send`) is queued by the CLI 2.1.332 and written, once
 * delivered, as an `attachment` of type `queued_command` (its `source_uuid` the uuid `send`
 * returned), not as a `user` line. The official SDK's `getSessionMessages` (0.3.332) yields it as
 * the user message it is (uuid: `source_uuid`), and its `forkSession` finds it by that uuid.
 * `messages` left the prompt out (the model's answer to it then answered nothing; one not
 * answered yet, while its turn runs or after the session ended, was not shown at all), and
 * `fork({ upToMessageId })` of that uuid was `InvalidInput` (found by a review, against the SDK
 * on a transcript the real CLI wrote; the lines below are that transcript's chain).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"

const S = "aec67651-1123-4efc-934f-c3ba1dafe4b7"
const SENT = "f61176fe-3bd4-4718-8073-2a54928b9169"
const u = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`
const at = (n: number) => `2026-12-07T19:15:${String(40 + n).padStart(2, "0")}.000Z`
const common = (n: number, parent: number | null) => ({
  uuid: u(n),
  parentUuid: parent === null ? null : u(parent),
  sessionId: S,
  timestamp: at(n),
  cwd: "/srv/demo-project",
  isSidechain: false
})
const assistant = (n: number, parent: number, content: ReadonlyArray<object>) => ({
  type: "assistant",
  ...common(n, parent),
  message: {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: null,
    usage: { input_tokens: 1, output_tokens: 1 }
  }
})

const transcript: ReadonlyArray<SessionStore.Entry> = [
  { type: "user", ...common(1, null), message: { role: "user", content: "Slow one please" } },
  { type: "attachment", ...common(2, 1), attachment: { type: "date", date: "2026-12-07" } },
  assistant(3, 2, [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "sleep 3" } }]),
  {
    type: "user",
    ...common(4, 3),
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "done" }] },
    sourceToolAssistantUUID: u(3)
  },
  { type: "attachment", ...common(5, 4), attachment: { type: "prompt_snapshot" } },
  {
    type: "attachment",
    ...common(6, 5),
    attachment: {
      type: "queued_command",
      prompt: "Queued follow-up",
      source_uuid: SENT,
      commandMode: "prompt",
      hostsOwnTurn: true
    }
  },
  assistant(7, 6, [{ type: "text", text: "Answer to Queued follow-up" }]),
  { type: "user", ...common(8, 7), message: { role: "user", content: "Last" } },
  assistant(9, 8, [{ type: "text", text: "Answer to Last" }])
]

const textOf = (m: Sessions.Message): string => {
  if (m.type === "system") return "system"
  const content = m.message.content
  if (typeof content === "string") return `${m.type}: ${content}`
  return `${m.type}: ${content.map((b) => (b.type === "text" ? b.text : b.type)).join(" | ")}`
}

describe("Sessions and a prompt the CLI queued", () => {
  it.effect("messages yields the queued prompt as a user message with the uuid send returned; fork finds it by that uuid", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey: Sessions.projectKey("/srv/demo-project"), sessionId: S }, transcript)
      const sessions = yield* Sessions.Sessions
      const messages = yield* Stream.runCollect(sessions.messages(S))
      assert.deepStrictEqual(messages.map(textOf), [
        "user: Slow one please",
        "assistant: tool_use",
        "user: tool_result",
        "user: Queued follow-up",
        "assistant: Answer to Queued follow-up",
        "user: Last",
        "assistant: Answer to Last"
      ])
      const queued = messages[3]!
      assert.strictEqual(queued.uuid, SENT)
      assert.strictEqual(queued.parentUuid, u(5))
      assert.strictEqual(queued.timestamp, at(6))

      // Forked up to it (by the uuid send returned): the history up to the queued prompt.
      const forkId = yield* sessions.fork(S, { upToMessageId: SENT })
      const copied = yield* Stream.runCollect(sessions.entries(forkId))
      assert.deepStrictEqual(
        copied.flatMap((l) => Sessions.isProblem(l) ? ["problem"] : [l.type]),
        ["user", "attachment", "assistant", "user", "attachment", "attachment", "custom-title"]
      )
      const last = copied[5]!
      assert.isTrue(!Sessions.isProblem(last) && (last.type as string) === "attachment" && JSON.stringify(last).includes("Queued follow-up"))
      // A uuid that is in neither is still InvalidInput.
      const missing = yield* sessions.fork(S, { upToMessageId: u(99) }).pipe(Effect.flip)
      assert.strictEqual(missing.reason._tag, "InvalidInput")
    }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory)))))

  it.effect("queued prompts not answered yet (the session ended, or its turn still runs) follow the conversation, as the SDK shows them", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const second = "a61176fe-3bd4-4718-8073-2a54928b9169"
      yield* store.append({ projectKey: Sessions.projectKey("/srv/demo-project"), sessionId: S }, [
        ...transcript.slice(0, 6),
        {
          type: "attachment",
          ...common(10, 6),
          attachment: { type: "queued_command", prompt: "Second queued", source_uuid: second, commandMode: "prompt" }
        }
      ])
      const messages = yield* Stream.runCollect((yield* Sessions.Sessions).messages(S))
      assert.deepStrictEqual(messages.map(textOf), [
        "user: Slow one please",
        "assistant: tool_use",
        "user: tool_result",
        "user: Queued follow-up",
        "user: Second queued"
      ])
      assert.deepStrictEqual(messages.slice(3).map((m) => m.uuid), [SENT, second])
    }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory)))))
})
