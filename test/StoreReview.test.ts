/**
 * Session stores and `Sessions`, where a reviewing helper found them wanting (each test failed
 * before its fix): a fork whose copy failed part way left the half-copied session in the store,
 * listed like any other; the memory store's keys collided (`a\0b`/`c` and `a`/`b\0c`); a
 * directory store instance read a file another instance had replaced from its old offset, losing
 * and doubling entries.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import { makeTempDir } from "./support/tempDir.ts"

const node = Layer.merge(NodeFileSystem.layer, NodePath.layer)
const S1 = "11111111-1111-4111-8111-111111111111"
const loadAll = (store: SessionStore.SessionStore["Service"], key: SessionStore.SessionKey) => Stream.runCollect(store.load(key))

const line = (uuid: string, parent: string | null, type: "user" | "assistant", text: string): SessionStore.Entry => ({
  type,
  uuid,
  parentUuid: parent,
  sessionId: S1,
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
  message: type === "user"
    ? { role: "user", content: text }
    : {
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 }
    }
})

describe("Sessions.fork", () => {
  it.effect("a fork whose copy fails part way leaves no half-copied session behind; the failure is the store's", () =>
    Effect.gen(function*() {
      const memory = yield* SessionStore.makeMemory
      let appends = 0
      const flaky = SessionStore.SessionStore.of({
        ...memory,
        append: (key, entries) =>
          key.sessionId !== S1 && ++appends === 2
            ? Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "flaky", operation: "append", description: "disk full" })))
            : memory.append(key, entries)
      })
      const history: Array<SessionStore.Entry> = []
      let parent: string | null = null
      for (let i = 0; i < 1200; i++) {
        const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
        history.push(line(uuid, parent, i % 2 === 0 ? "user" : "assistant", `turn ${i}`))
        parent = uuid
      }
      yield* memory.append({ projectKey: "p", sessionId: S1 }, history)
      const sessions = yield* Sessions.make.pipe(Effect.provideService(SessionStore.SessionStore, flaky))
      const exit = yield* Effect.exit(sessions.fork(S1))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      assert.include(String((error as { error?: unknown } | undefined)?.error), "disk full")
      const listed = yield* sessions.list()
      assert.deepStrictEqual(listed.map((s) => `${s.sessionId} ${s.title}`), [`${S1} turn 0`], "a half-copied fork is listed")
    }))
})

describe("the memory store's keys", () => {
  it.effect("keys whose parts hold NUL do not collide", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.makeMemory
      yield* store.append({ projectKey: "a\u0000b", sessionId: "c" }, [{ type: "user", uuid: "1" }])
      const exit = yield* Effect.exit(loadAll(store, { projectKey: "a", sessionId: "b\u0000c" }))
      assert.isTrue(Exit.isFailure(exit), "another key's transcript was loaded")
    }))
})

describe("the directory store with another instance on the same directory", () => {
  it.effect("a file replaced by another instance (delete, then a longer file): nothing lost, nothing doubled", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-")
      const a = yield* SessionStore.makeDirectory(dir)
      const b = yield* SessionStore.makeDirectory(dir)
      const key = { projectKey: "p", sessionId: S1 }
      yield* a.append(key, [{ type: "user", uuid: "u1" }, { type: "assistant", uuid: "u2" }])
      yield* b.delete(key)
      yield* b.append(key, [
        { type: "user", uuid: "v1", pad: "x".repeat(100) },
        { type: "assistant", uuid: "v2", pad: "y".repeat(100) }
      ])
      yield* a.append(key, [{ type: "user", uuid: "u1" }, { type: "user", uuid: "v1" }])
      assert.deepStrictEqual((yield* loadAll(b, key)).map((e) => e.uuid), ["v1", "v2", "u1"])
    }).pipe(Effect.provide(node), Effect.scoped))
})
