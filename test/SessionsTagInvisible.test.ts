/**
 * `Sessions.tag` with characters that show nothing: a tag of only a zero-width space (or a
 * bidi override) was accepted and set a tag that looks empty, and one with them inside kept them
 * (a tag that reads as another). The official SDK's `tagSession` removes them (Unicode format
 * characters, NFKC) and refuses what is then empty; so does `tag` now (found by a review).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"

const S = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a11"
const projectKey = Sessions.projectKey("/srv/project")
const withMemory = Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory))

describe("Sessions.tag and invisible characters", () => {
  it.effect("a tag of only format characters is InvalidInput; inside a tag they are removed, as by the SDK", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey, sessionId: S }, [{
        type: "user",
        uuid: "u1",
        parentUuid: null,
        sessionId: S,
        timestamp: "2026-12-07T10:00:00.000Z",
        cwd: "/srv/project",
        message: { role: "user", content: "hello" }
      }])
      const sessions = yield* Sessions.Sessions
      for (const invisible of ["\u200b", "\u202e", " \ufeff\u2060 "]) {
        const result = yield* Effect.result(sessions.tag(S, invisible))
        assert.isTrue(Result.isFailure(result) && result.failure.reason._tag === "InvalidInput", JSON.stringify(invisible))
      }
      assert.isUndefined((yield* sessions.info(S)).tag)
      // What the SDK's tagSession writes for this tag: "todo".
      yield* sessions.tag(S, "to\u200bdo\u202e")
      assert.strictEqual((yield* sessions.info(S)).tag, "todo")
    }).pipe(Effect.provide(withMemory)))
})
