/**
 * The SQL store on a throwaway PostgreSQL (test/support/postgres.ts) where PostgreSQL differs: a
 * table prefix its 63-byte names would cut, a delete racing an append (row locks), and uuids its
 * text refuses (NUL) or its driver changes (lone surrogates). Each was wrong before (found by an
 * audit); what SQLite shows of the same is in `StoreInputs.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import { reasonOf } from "./support/outcomes.ts"
import { pgConnection, postgresForFile } from "./support/postgres.ts"
import { withStore } from "./support/sessionStoreContract.ts"

const { running } = postgresForFile()
let counter = 0

/** A PostgreSQL store on tables of its own. */
const pg = (tablePrefix: string = `edges${counter++}_`) =>
  SessionStorePg.layer({ connection: pgConnection(running()), tablePrefix })

const key = { projectKey: "-repo-app", sessionId: "s1" }

describe("the SQL store on PostgreSQL", () => {
  // PostgreSQL cuts names to 63 bytes: with a 57-character prefix the unique index's name
  // (`<prefix>entries_uuid`) was cut to the entries table's own, so `CREATE UNIQUE INDEX IF NOT
  // EXISTS` was skipped and a retried batch was stored twice.
  it.effect("PG: a table prefix PostgreSQL would cut is refused at open; the longest allowed still deduplicates a retried batch", () =>
    Effect.gen(function*() {
      const tag = `p${String(counter++).padStart(3, "0")}_`
      const refused = yield* Effect.exit(withStore(pg(`${tag}${"x".repeat(52)}`), () => Effect.void))
      assert.strictEqual(reasonOf(refused)?._tag, "StoreFailed")
      assert.include(reasonOf(refused)?.message ?? "", "tablePrefix must be at most 51 characters on PostgreSQL")
      const uuids = yield* withStore(pg(`${tag}${"x".repeat(51 - tag.length)}`), (store) =>
        Effect.gen(function*() {
          const batch = [{ type: "user", uuid: "u1" }, { type: "assistant", uuid: "a1" }]
          yield* store.append(key, batch)
          yield* store.append(key, batch)
          return (yield* Stream.runCollect(store.load(key))).map((e) => e.uuid)
        }))
      assert.deepStrictEqual(uuids, ["u1", "a1"])
    }), { timeout: 30_000 })

  // append inserted the entries, then upserted the sessions row; delete removed the entries, then
  // the sessions row. A delete that landed between an append's two statements removed the row
  // the append had just touched while missing the entries it inserted: entries no session lists.
  it.live("PG: a delete racing an append leaves the session either gone or whole and listed", () =>
    Effect.gen(function*() {
      const tablePrefix = `race${counter++}_`
      const layer = Layer.merge(pg(tablePrefix), SessionStorePg.layerClient(pgConnection(running())))
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        const sql = yield* SqlClient.SqlClient
        yield* store.append(key, [{ type: "user", uuid: "u1" }])
        // Another transaction holds the session's row for a moment (widens the append's window).
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT 1 FROM ${sql(`${tablePrefix}sessions`)} WHERE session_id = ${key.sessionId} FOR UPDATE`
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(locked)
        const append = yield* Effect.forkChild(store.append(key, [{ type: "assistant", uuid: "a1" }]))
        yield* Effect.sleep("300 millis")
        const remove = yield* Effect.forkChild(store.delete(key))
        yield* Effect.sleep("300 millis")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        yield* Fiber.join(append)
        yield* Fiber.join(remove)
        const listed = (yield* store.list(key.projectKey)).map((s) => s.sessionId)
        const loaded = yield* Effect.exit(Stream.runCollect(store.load(key)))
        const uuids = Exit.isSuccess(loaded) ? loaded.value.map((e) => e.uuid) : []
        assert.isTrue(
          (listed.length === 0 && uuids.length === 0) || (listed.length === 1 && uuids.length > 0),
          `listed ${JSON.stringify(listed)}, loaded ${JSON.stringify(uuids)}`
        )
      }).pipe(Effect.provide(layer))
    }), { timeout: 30_000 })

  // The uuid column held the raw uuid: the driver writes a lone surrogate as U+FFFD (two distinct
  // uuids were one, and the second entry was dropped as a "duplicate"), and PostgreSQL's text
  // refuses NUL (the whole batch failed, and the mirror retried it forever).
  it.effect("PG: every distinct uuid is kept (lone surrogates, NUL), and a retried batch still stored once", () =>
    withStore(pg(), (store) =>
      Effect.gen(function*() {
        const uuids = ["\ud800", "\udc00", "a\u0000b", "\"\\ud800\""]
        for (const uuid of uuids) yield* store.append(key, [{ type: "user", uuid }])
        for (const uuid of uuids) yield* store.append(key, [{ type: "user", uuid }])
        const loaded = yield* Stream.runCollect(store.load(key))
        assert.deepStrictEqual(loaded.map((e) => e.uuid), uuids)
      })), { timeout: 30_000 })

  // A subagent's transcript took no lock: two appends to it at once, each inserted in chunks of
  // 200 rows, interleaved their rows (found by a reviewing helper: 426 runs for 10 batches).
  it.live("PG: concurrent appends from two pools keep each batch whole, in a subagent's transcript as in the main one", () =>
    Effect.gen(function*() {
      const tablePrefix = `batch${counter++}_`
      const batch = (tag: string, n: number) =>
        Array.from({ length: n }, (_, i) => ({ type: "user", uuid: `${tag}-${String(i).padStart(4, "0")}` }))
      const report: Array<string> = []
      for (const subpath of [undefined, "subagents/agent-x"]) {
        const where = { ...key, ...(subpath === undefined ? {} : { subpath }) }
        const writer = (tag: string) =>
          withStore(pg(tablePrefix), (store) =>
            Effect.forEach([0, 1, 2, 3], (i) => store.append(where, batch(`${tag}${i}`, 450)), { discard: true }))
        yield* Effect.all([writer("A"), writer("B")], { concurrency: 2 })
        const loaded = yield* withStore(pg(tablePrefix), (store) => Stream.runCollect(store.load(where)))
        const tags = loaded.map((e) => String(e.uuid).split("-")[0])
        let runs = tags.length === 0 ? 0 : 1
        for (let i = 1; i < tags.length; i++) if (tags[i] !== tags[i - 1]) runs++
        report.push(`${subpath ?? "main"}: ${loaded.length} entries, ${runs} runs`)
      }
      assert.deepStrictEqual(report, ["main: 3600 entries, 8 runs", "subagents/agent-x: 3600 entries, 8 runs"])
    }), { timeout: 120_000 })
})

