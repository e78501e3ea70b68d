/**
 * Resuming a mirrored session on a runner holding its own copy of the transcript, the entity
 * appends to the store the local lines the store lacks before the store's copy replaces the file.
 * A store keeps entries deep-equal, not byte-equal (PostgreSQL's JSONB orders an object's keys its
 * own way): the lines without a uuid it holds (a title, a tag) are not appended again, and one the
 * local file holds more times than the store is (found by a review; they were compared as JSON
 * text, so on such a store every resume appended each of them again).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { entityOn, mirroredSession, mirroringCli, S1, uuid } from "./support/clusterEntity.ts"
import { reordering, writeJsonLines } from "./support/stores.ts"

describe("resuming a mirrored session on a runner with its own copy, on a store keeping entries deep-equal", () => {
  it.effect("the lines without a uuid the store holds are not appended again; one the file holds once more is", () =>
    Effect.gen(function*() {
      const { sessionOptions, where, filePath } = yield* mirroredSession("ecc-entity-adopt-key-order-", true)
      const title = { type: "custom-title", customTitle: "Plan", sessionId: S1 }
      const memory = Effect.runSync(SessionStore.makeMemory)
      const store = reordering(memory)
      const { transport } = mirroringCli(filePath, (text) => `answer-${text}`, (text) => text === "one" ? [title] : [])
      const layer = entityOn(transport, store, { session: () => sessionOptions })
      const titles = Effect.map(
        Stream.runCollect(memory.load({ projectKey: where.projectKey, sessionId: S1 })),
        (entries) => entries.filter((entry) => entry.type === "custom-title").length
      )
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        yield* session.Close()
        assert.strictEqual(yield* titles, 1)
        // This runner's own copy: what the store holds, in the CLI's key order.
        const local = [
          { type: "user", uuid: uuid(1), message: { role: "user", content: "one" } },
          { type: "assistant", uuid: "answer-one", parentUuid: uuid(1), message: { role: "assistant", content: "ok" } },
          title
        ]
        writeJsonLines(filePath, local)
        yield* session.Run({ uuid: uuid(2), prompt: "two" })
        yield* session.Close()
        assert.strictEqual(yield* titles, 1, "a title the store held was appended again")
        // The title set again on this runner (the store never got it): appended, once.
        writeJsonLines(filePath, [...local, title])
        yield* session.Run({ uuid: uuid(3), prompt: "three" })
        assert.strictEqual(yield* titles, 2, "the title this runner's file holds once more than the store")
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped))
})
