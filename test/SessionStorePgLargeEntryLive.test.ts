/**
 * An entry larger than 16 MiB (a base64 PDF or image a prompt carried, a huge tool result) went
 * into the PostgreSQL store, but `@effect/sql-pg` refuses any message from the server larger than
 * its `maxMessageSize` (16 MiB by default), so loading the session failed for good: the session
 * was stored and could never be resumed. `SessionStorePg.layer` reads back whatever PostgreSQL
 * took (a text value holds up to 1 GB).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import { pgConnection, postgresForFile } from "./support/postgres.ts"

const { running } = postgresForFile()
const key = { projectKey: "-repo-app", sessionId: "5e551011-0000-4000-8000-0000000000b1" }

describe("SessionStorePg: large entries", () => {
  it.live("an entry of 20 MiB appended is loaded back whole", () =>
    Effect.gen(function*() {
      const content = "x".repeat(20 * 1024 * 1024)
      const loaded = yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [{ type: "user", uuid: "u1", content }, { type: "assistant", uuid: "a1" }])
        return yield* Stream.runCollect(store.load(key))
      }).pipe(Effect.provide(SessionStorePg.layer({ connection: pgConnection(running()), tablePrefix: "large_" })))
      assert.deepStrictEqual(loaded.map((entry) => entry.uuid), ["u1", "a1"])
      assert.strictEqual((loaded[0]!.content as string).length, content.length)
    }), { timeout: 120_000 })
})
