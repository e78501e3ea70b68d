/**
 * `Sessions.messages` and `Sessions.entries` with an `agentId` the session has no transcript of
 * (a typo, an agent of another session): the error was `SessionNotFound` naming the session,
 * which exists (the README's "no project holds that id"). It is now `InvalidInput` naming the
 * agent and the session, as `fork` does for a message the session does not hold (found by a
 * review).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"

const S = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a11"
const projectKey = Sessions.projectKey("/srv/project")
const line = (uuid: string, isSidechain: boolean) => ({
  type: "user",
  uuid,
  parentUuid: null,
  sessionId: S,
  timestamp: "2026-12-07T10:00:00.000Z",
  cwd: "/srv/project",
  isSidechain,
  message: { role: "user", content: "hello" }
})

const withMemory = Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory))

describe("Sessions with an agentId the session has no transcript of", () => {
  it.effect("messages and entries fail with InvalidInput naming the agent, not SessionNotFound for a session that exists", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey, sessionId: S }, [line("u1", false)])
      yield* store.append({ projectKey, sessionId: S, subpath: "subagents/agent-a1" }, [line("s1", true)])
      const sessions = yield* Sessions.Sessions
      // The agent the session has reads.
      assert.deepStrictEqual((yield* Stream.runCollect(sessions.messages(S, { agentId: "a1" }))).map((m) => m.uuid), ["s1"])
      for (const read of [sessions.messages(S, { agentId: "a2" }), sessions.entries(S, { agentId: "a2" })]) {
        const error = yield* Effect.flip(Stream.runDrain(read))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "a2")
        assert.include(error.message, S)
      }
      // A session that does not exist is still SessionNotFound.
      const ghost = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a12"
      const error = yield* Effect.flip(Stream.runDrain(sessions.messages(ghost, { agentId: "a1" })))
      assert.strictEqual(error.reason._tag, "SessionNotFound")
    }).pipe(Effect.provide(withMemory)))
})
