/**
 * `Sessions.messages` and `Sessions.fork` on the branch shapes CLI 2.1.332 writes that are not a
 * plain parent chain: one API message with several tool calls (one line per block, each tool
 * result a child of its own `tool_use` line), and `/compact` keeping messages after the summary
 * (`compactMetadata.preservedSegment` / `preservedMessages`). Every expected order is what the
 * official SDK's `getSessionMessages` (0.3.332) gives on the same file (found by a review).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"

const projectKey = Sessions.projectKey("/srv/project")
const S = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a11"
let clock = Date.parse("2026-12-07T10:00:00.000Z")
const at = () => new Date(clock += 1000).toISOString()
const chain = (type: string, uuid: string, parentUuid: string | null, extra: Record<string, unknown> = {}) => ({
  type, uuid, parentUuid, sessionId: S, timestamp: at(), cwd: "/srv/project", isSidechain: false, ...extra
})
const user = (uuid: string, parentUuid: string | null, content: unknown) =>
  chain("user", uuid, parentUuid, { message: { role: "user", content } })
const assistant = (uuid: string, parentUuid: string, id: string, content: ReadonlyArray<unknown>) =>
  chain("assistant", uuid, parentUuid, {
    message: { id, type: "message", role: "assistant", model: "claude-test", content, stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 1 } }
  })
const toolUse = (id: string) => ({ type: "tool_use", id, name: "Bash", input: { command: `echo ${id}` } })
const toolResult = (id: string) => [{ type: "tool_result", tool_use_id: id, content: id, is_error: false }]

const messagesOf = (entries: ReadonlyArray<SessionStore.Entry>) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    yield* store.append({ projectKey, sessionId: S }, entries)
    const sessions = yield* Sessions.Sessions
    return (yield* Stream.runCollect(sessions.messages(S, { includeSystem: true }))).map((m) => m.uuid)
  }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory))))

/** A session of two turns, compacted after the second; `compactMetadata` as given. */
const compacted = (compactMetadata: Record<string, unknown>) => [
  user("u1", null, "First question"),
  assistant("a1", "u1", "msg_1", [{ type: "text", text: "Answer to First question" }]),
  user("u2", "a1", "Second question"),
  assistant("a2", "u2", "msg_2", [{ type: "text", text: "Answer to Second question" }]),
  chain("system", "b1", null, {
    subtype: "compact_boundary", content: "Conversation compacted", logicalParentUuid: "a2",
    compactMetadata: { trigger: "manual", preTokens: 107, ...compactMetadata }
  }),
  chain("user", "s1", "b1", { isCompactSummary: true, message: { role: "user", content: "This session is being continued from a previous conversation. Summary: we talked." } }),
  user("u3", "s1", "Third question"),
  assistant("a3", "u3", "msg_3", [{ type: "text", text: "Answer to Third question" }])
]

describe("Sessions.messages on the CLI's branch shapes", () => {
  it.effect("parallel tool calls: the first tool result (a child of the first tool_use line) is a message of the conversation", () =>
    Effect.gen(function*() {
      const uuids = yield* messagesOf([
        user("u1", null, "Run both please"),
        chain("attachment", "at1", "u1", { attachment: { type: "todo" } }),
        assistant("a1", "at1", "msg_1", [{ type: "text", text: "Running two." }]),
        assistant("a2", "a1", "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo one" } }]),
        assistant("a3", "a2", "msg_1", [{ type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "echo two" } }]),
        user("r1", "a2", [{ type: "tool_result", tool_use_id: "toolu_1", content: "one", is_error: false }]),
        user("r2", "a3", [{ type: "tool_result", tool_use_id: "toolu_2", content: "two", is_error: false }]),
        chain("attachment", "at2", "r2", { attachment: { type: "todo" } }),
        assistant("a4", "at2", "msg_2", [{ type: "text", text: "Both printed." }])
      ])
      // The SDK's getSessionMessages on this file: u1, a1, a2, a3, r1, r2, a4.
      assert.deepStrictEqual(uuids, ["u1", "a1", "a2", "a3", "r1", "r2", "a4"])
    }))

  it.effect("parallel tool calls: the recovered results follow their assistant message, ordered by timestamp", () =>
    Effect.gen(function*() {
      const uuids = yield* messagesOf([
        user("u1", null, "Run three"),
        assistant("a1", "u1", "msg_1", [toolUse("t1")]),
        assistant("a2", "a1", "msg_1", [toolUse("t2")]),
        assistant("a3", "a2", "msg_1", [toolUse("t3")]),
        user("r2", "a2", toolResult("t2")),
        user("r1", "a1", toolResult("t1")),
        user("r3", "a3", toolResult("t3")),
        assistant("a4", "r3", "msg_2", [{ type: "text", text: "Done." }])
      ])
      // The SDK's getSessionMessages on this file.
      assert.deepStrictEqual(uuids, ["u1", "a1", "a2", "a3", "r2", "r1", "r3", "a4"])
    }))

  it.effect("parallel tool calls: a result under another line is found by its tool_use id; a block line off the chain is recovered too", () =>
    Effect.gen(function*() {
      const underAttachment = yield* messagesOf([
        user("u1", null, "Run both please"),
        assistant("a1", "u1", "msg_1", [{ type: "text", text: "Running two." }]),
        assistant("a2", "a1", "msg_1", [toolUse("t1")]),
        assistant("a3", "a2", "msg_1", [toolUse("t2")]),
        chain("attachment", "at3", "a2", { attachment: { type: "todo" } }),
        user("r1", "at3", toolResult("t1")),
        user("r2", "a3", toolResult("t2")),
        assistant("a4", "r2", "msg_2", [{ type: "text", text: "Both printed." }])
      ])
      assert.deepStrictEqual(underAttachment, ["u1", "a1", "a2", "a3", "r1", "r2", "a4"])
      // The chain runs a4 → r1 → a1: a2 (same API message) and its result r2 are spliced after a1.
      const offChain = yield* messagesOf([
        user("u1", null, "Run two"),
        assistant("a1", "u1", "msg_1", [toolUse("t1")]),
        assistant("a2", "a1", "msg_1", [toolUse("t2")]),
        user("r2", "a2", toolResult("t2")),
        user("r1", "a1", toolResult("t1")),
        assistant("a4", "r1", "msg_2", [{ type: "text", text: "Done." }])
      ])
      assert.deepStrictEqual(offChain, ["u1", "a1", "a2", "r2", "r1", "a4"])
    }))

  it.effect("after /compact: the assistant message the compaction preserved (preservedSegment) stays in the conversation", () =>
    Effect.gen(function*() {
      const uuids = yield* messagesOf([
        user("u1", null, "First question"),
        assistant("a1", "u1", "msg_1", [{ type: "text", text: "Answer to First question" }]),
        user("u2", "a1", "Second question"),
        assistant("a2", "u2", "msg_2", [{ type: "text", text: "Answer to Second question" }]),
        chain("system", "b1", null, {
          subtype: "compact_boundary", content: "Conversation compacted", logicalParentUuid: "a2",
          compactMetadata: {
            trigger: "manual", preTokens: 107,
            preservedSegment: { headUuid: "a2", anchorUuid: "s1", tailUuid: "a2" },
            preservedMessages: { anchorUuid: "s1", uuids: ["a2"], allUuids: ["a2"] }
          }
        }),
        chain("user", "s1", "b1", { isCompactSummary: true, message: { role: "user", content: "This session is being continued from a previous conversation. Summary: we talked." } }),
        user("u3", "s1", "Third question"),
        assistant("a3", "u3", "msg_3", [{ type: "text", text: "Answer to Third question" }])
      ])
      // The SDK's getSessionMessages on this file: b1, s1, a2, u3, a3.
      assert.deepStrictEqual(uuids, ["b1", "s1", "a2", "u3", "a3"])
    }))

  it.effect("after /compact with preservedSegment only: head to tail is relinked after the summary, in chain order", () =>
    Effect.gen(function*() {
      const uuids = yield* messagesOf(compacted({ preservedSegment: { headUuid: "u2", anchorUuid: "s1", tailUuid: "a2" } }))
      // The SDK's getSessionMessages on this file.
      assert.deepStrictEqual(uuids, ["b1", "s1", "u2", "a2", "u3", "a3"])
    }))

  it.effect("after /compact with preservedMessages only; one naming a missing line relinks nothing (the segment is not used instead)", () =>
    Effect.gen(function*() {
      const messages = yield* messagesOf(compacted({ preservedMessages: { anchorUuid: "s1", uuids: ["u2", "a2"], allUuids: ["u2", "a2"] } }))
      assert.deepStrictEqual(messages, ["b1", "s1", "u2", "a2", "u3", "a3"])
      const broken = yield* messagesOf(compacted({
        preservedMessages: { anchorUuid: "s1", uuids: ["gone"], allUuids: ["gone"] },
        preservedSegment: { headUuid: "u2", anchorUuid: "s1", tailUuid: "a2" }
      }))
      // The SDK's getSessionMessages on these files.
      assert.deepStrictEqual(broken, ["b1", "s1", "u3", "a3"])
    }))
})

describe("Sessions.fork of a compacted session", () => {
  it.effect("the fork's compactMetadata, queued command and deferred tools name the fork's own uuids, as the SDK's forkSession", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const sessions = yield* Sessions.Sessions
      yield* store.append({ projectKey, sessionId: S }, [
        user("u1", null, "First question"),
        assistant("a1", "u1", "msg_1", [{ type: "text", text: "Answer to First question" }]),
        user("u2", "a1", "Second question"),
        assistant("a2", "u2", "msg_2", [{ type: "text", text: "Answer to Second question" }]),
        chain("attachment", "q1", "a2", { attachment: { type: "queued_command", prompt: "later", source_uuid: "u2" } }),
        chain("attachment", "d1", "q1", { attachment: { type: "deferred_tools_record", nameOnlyAnnouncements: ["u1", "not-a-line"] } }),
        chain("system", "b1", null, {
          subtype: "compact_boundary", content: "Conversation compacted", logicalParentUuid: "d1",
          compactMetadata: {
            trigger: "manual", preTokens: 107,
            preservedSegment: { headUuid: "u2", anchorUuid: "s1", tailUuid: "a2" },
            preservedMessages: { anchorUuid: "s1", uuids: ["u2", "a2"], allUuids: ["u1", "u2", "a2", "elsewhere"] },
            runningTurnSends: ["u2"]
          }
        }),
        chain("user", "s1", "b1", { isCompactSummary: true, message: { role: "user", content: "Summary: we talked." } }),
        user("u3", "s1", "Third question"),
        assistant("a3", "u3", "msg_3", [{ type: "text", text: "Answer to Third question" }]),
        chain("system", "v1", "a3", { subtype: "voice_call_talk", content: "hi", fold: { command: { source_uuid: "u3", prompt: "x" }, other: 1 } })
      ])
      const forkId = yield* sessions.fork(S)
      const lines = yield* Stream.runCollect(store.load({ projectKey, sessionId: forkId }))
      // The fork's uuid of each source line (forkedFrom names the source line).
      const fresh = new Map<string, string>()
      for (const line of lines) {
        const from = (line as any).forkedFrom?.messageUuid
        if (typeof from === "string") fresh.set(from, line.uuid as string)
      }
      const of = (uuid: string) => fresh.get(uuid)!
      const byOrigin = (uuid: string) => lines.find((l) => (l as any).forkedFrom?.messageUuid === uuid) as any
      assert.deepStrictEqual(byOrigin("b1").compactMetadata, {
        trigger: "manual",
        preTokens: 107,
        // A uuid the fork does not hold is kept as it is; runningTurnSends is dropped, as by the SDK.
        preservedSegment: { headUuid: of("u2"), anchorUuid: of("s1"), tailUuid: of("a2") },
        preservedMessages: { anchorUuid: of("s1"), uuids: [of("u2"), of("a2")], allUuids: [of("u1"), of("u2"), of("a2"), "elsewhere"] }
      })
      assert.strictEqual(byOrigin("b1").logicalParentUuid, of("d1"))
      assert.deepStrictEqual(byOrigin("q1").attachment, { type: "queued_command", prompt: "later", source_uuid: of("u2") })
      // As the SDK: an announcement naming no line of the fork is left out.
      assert.deepStrictEqual(byOrigin("d1").attachment, { type: "deferred_tools_record", nameOnlyAnnouncements: [of("u1")] })
      assert.deepStrictEqual(byOrigin("v1").fold, { command: { source_uuid: of("u3"), prompt: "x" }, other: 1 })

      // Read back, the fork's conversation is the source's, preserved messages included.
      const source = (yield* Stream.runCollect(sessions.messages(S, { includeSystem: true }))).map((m) => m.uuid)
      assert.deepStrictEqual(source, ["b1", "s1", "u2", "a2", "u3", "a3"])
      const forked = (yield* Stream.runCollect(sessions.messages(forkId, { includeSystem: true }))).map((m) => m.uuid)
      assert.deepStrictEqual(forked, source.map(of))
    }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory)))))

  it.effect("up to the compaction's summary or its boundary: the fork ends there, its earlier history whole, as the SDK's forkSession", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const sessions = yield* Sessions.Sessions
      // As CLI 2.1.332 compacts: the kept message (a2) before the boundary, relinked after the summary (s1).
      yield* store.append({ projectKey, sessionId: S }, compacted({
        postTokens: 20,
        preservedSegment: { headUuid: "a2", anchorUuid: "s1", tailUuid: "a2" },
        preservedMessages: { anchorUuid: "s1", uuids: ["a2"], allUuids: ["a2"] }
      }))
      const forkUpTo = (uuid: string) =>
        Effect.gen(function*() {
          const forkId = yield* sessions.fork(S, { upToMessageId: uuid })
          const lines = yield* Stream.runCollect(store.load({ projectKey, sessionId: forkId }))
          const messages = yield* Stream.runCollect(sessions.messages(forkId, { includeSystem: true }))
          return {
            boundary: lines.find((l) => l.subtype === "compact_boundary"),
            messages: messages.map((m) => (m as any).forkedFrom?.messageUuid)
          }
        })
      // Up to the summary: the message it kept comes after it in the conversation, so is not the
      // fork's (it was relinked after the summary, past the cut); the boundary keeps nothing.
      const toSummary = yield* forkUpTo("s1")
      assert.deepStrictEqual(toSummary.messages, ["b1", "s1"])
      assert.deepStrictEqual(toSummary.boundary?.compactMetadata, { trigger: "manual", preTokens: 107 })
      // Up to the boundary: the copy ends before it (it relinked a2 to a summary the fork lacks, cut
      // off from u1, a1, u2).
      const toBoundary = yield* forkUpTo("b1")
      assert.deepStrictEqual(toBoundary.messages, ["u1", "a1", "u2", "a2"])
      assert.isUndefined(toBoundary.boundary)
      // Past the summary, the kept message is the fork's as it is the source's.
      assert.deepStrictEqual((yield* forkUpTo("u3")).messages, ["b1", "s1", "a2", "u3"])
    }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory)))))
})
