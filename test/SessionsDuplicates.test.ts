/**
 * `Sessions.list` lists a session id held by two projects once, its newest copy, as the official
 * SDK's `listSessions` does (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"

const S1 = "11111111-1111-4111-8111-111111111111"

const prompt = (text: string, uuid: string) => ({
  type: "user",
  uuid,
  parentUuid: null,
  sessionId: S1,
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { role: "user", content: text }
})

describe("Sessions.list", () => {
  it.effect("a session id held by two projects is listed once (the newest), as the SDK's listSessions", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const sessions = yield* Sessions.Sessions
      yield* store.append({ projectKey: "-a", sessionId: S1 }, [prompt("older copy", "u1")])
      yield* store.append({ projectKey: "-b", sessionId: S1 }, [prompt("newer copy", "u2")])
      const listed = yield* sessions.list()
      assert.deepStrictEqual(listed.map((s) => `${s.projectKey} ${s.title}`), ["-b newer copy"])
    }).pipe(Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory)))))
})
