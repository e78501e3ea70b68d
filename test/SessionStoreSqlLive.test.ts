/**
 * The SQL store on PostgreSQL: the store contract (the same suite as SQLite's, in
 * SessionStoreSql.test.ts) against a throwaway server (test/support/postgres.ts: Debian's
 * PostgreSQL, a temp data directory, a free port), plus what only a server shows.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import { pgConnection, postgresForFile } from "./support/postgres.ts"
import { sessionStoreContract } from "./support/sessionStoreContract.ts"

const { running } = postgresForFile()
let counter = 0

/** A fresh store: the shared server, tables of their own. */
const fresh = (pageSize?: number) =>
  SessionStorePg.layer({
    connection: pgConnection(running()),
    tablePrefix: `t${counter++}_`,
    ...(pageSize === undefined ? {} : { pageSize })
  })

sessionStoreContract({ name: "PostgreSQL (pages of 7 rows)", fresh: () => fresh(7), longSession: 250 })

describe("SessionStorePg", () => {
  it.effect("two stores starting together on one database create the tables once and share them", () =>
    Effect.gen(function*() {
      const tablePrefix = `race${counter++}_`
      const layer = () => SessionStorePg.layer({ connection: pgConnection(running()), tablePrefix })
      const key = { projectKey: "-p", sessionId: "s" }
      const appendVia = (n: number) =>
        Effect.flatMap(Effect.service(SessionStore.SessionStore), (store) =>
          store.append(key, [{ type: "user", uuid: `u${n}` }])).pipe(Effect.provide(layer()))
      yield* Effect.all([appendVia(1), appendVia(2), appendVia(3)], { concurrency: "unbounded" })
      const loaded = yield* Effect.flatMap(Effect.service(SessionStore.SessionStore), (store) =>
        Stream.runCollect(store.load(key))).pipe(Effect.provide(layer()))
      assert.deepStrictEqual(loaded.map((e) => e.uuid).sort(), ["u1", "u2", "u3"])
    }))

  it.effect("a server that does not answer is a StoreFailed on building the layer", () =>
    Effect.gen(function*() {
      const layer = SessionStorePg.layer({
        connection: { host: "127.0.0.1", port: 1, username: "postgres", database: "postgres", connectTimeout: "2 seconds" }
      })
      const exit = yield* Effect.exit(Layer.build(layer))
      assert.isTrue(Exit.isFailure(exit))
      const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      assert.strictEqual(fail?._tag === "Fail" ? fail.error.reason._tag : undefined, "StoreFailed")
    }))
})
