/**
 * The SQL store on the embedded SQLite database (node:sqlite, in this process): the store contract,
 * durability across reopenings of the file, and its typed errors. PostgreSQL runs the same contract
 * in SessionStoreSqlLive.test.ts (it starts a server).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Fs from "node:fs"
import { DatabaseSync } from "node:sqlite"
import * as Os from "node:os"
import * as Path from "node:path"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import { sessionStoreContract } from "./support/sessionStoreContract.ts"
import { makeTempDir } from "./support/tempDir.ts"

const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-sqlite-contract-"))
let counter = 0
afterAll(() => Fs.rmSync(dir, { recursive: true, force: true }))

sessionStoreContract({
  name: "SQLite (a temp file, pages of 7 rows)",
  fresh: () => SessionStoreSql.layerSqlite({ filename: Path.join(dir, `store-${counter++}.db`), pageSize: 7 }),
  longSession: 250
})

sessionStoreContract({
  name: "SQLite (in memory, default pages)",
  fresh: () => SessionStoreSql.layerSqlite({ filename: ":memory:" }),
  longSession: 1234
})

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>) => {
  if (Exit.isSuccess(exit)) return undefined
  const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
  return fail?._tag === "Fail" ? fail.error.reason : undefined
}

describe("SessionStoreSql on SQLite", () => {
  it.effect("a session outlives the layer: a second store on the same file reads it", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-sqlite-")
      const filename = Path.join(tmp, "sessions.db")
      const key = { projectKey: "-p", sessionId: "s" }
      const write = Effect.flatMap(Effect.service(SessionStore.SessionStore), (store) =>
        store.append(key, [{ type: "user", uuid: "u1" }, { type: "assistant", uuid: "a1" }]))
      yield* write.pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })))
      // A retry from another process after a restart: still no duplicate.
      yield* write.pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })))
      const loaded = yield* Effect.flatMap(Effect.service(SessionStore.SessionStore), (store) =>
        Stream.runCollect(store.load(key))).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })))
      assert.deepStrictEqual(loaded.map((e) => e.uuid), ["u1", "a1"])
    }))

  it.effect("two stores with different table prefixes in one database do not see each other", () =>
    Effect.gen(function*() {
      const client = SessionStoreSql.layerSqliteClient({ filename: ":memory:" })
      const both = Effect.gen(function*() {
        const a = yield* SessionStoreSql.make({ tablePrefix: "a_" })
        const b = yield* SessionStoreSql.make({ tablePrefix: "b_" })
        yield* a.append({ projectKey: "-p", sessionId: "s" }, [{ type: "user", uuid: "u" }])
        return [yield* a.list(undefined), yield* b.list(undefined)] as const
      })
      const [inA, inB] = yield* both.pipe(Effect.provide(client))
      assert.strictEqual(inA.length, 1)
      assert.strictEqual(inB.length, 0)
    }))

  it.effect("a table prefix that is not an identifier is a StoreFailed, before any SQL runs", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(SessionStoreSql.layerSqlite({ filename: ":memory:", tablePrefix: "x; DROP TABLE y" }))
      )
      const reason = reasonOf(exit)
      assert.strictEqual(reason?._tag, "StoreFailed")
      assert.include(reason?.message ?? "", "tablePrefix")
    }))

  it.effect("a page size that is not a positive integer is a StoreFailed", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(SessionStoreSql.layerSqlite({ filename: ":memory:", pageSize: 0 })))
      assert.strictEqual(reasonOf(exit)?._tag, "StoreFailed")
    }))

  it.effect("a database file that cannot be opened is a StoreFailed naming the file", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-sqlite-")
      const filename = Path.join(tmp, "missing-dir", "sessions.db")
      const reason = reasonOf(yield* Effect.exit(Layer.build(SessionStoreSql.layerSqlite({ filename }))))
      assert.strictEqual(reason?._tag, "StoreFailed")
      assert.include(reason?.message ?? "", "missing-dir")
    }))

  it.effect("a row holding JSON that is not an entry (null, 42, an array, no string type) is a StoreFailed naming the row (T1)", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        const store = yield* SessionStoreSql.make({ tablePrefix: "t_" })
        const sql = yield* SqlClient.SqlClient
        const key = { projectKey: "-p", sessionId: "s" }
        yield* store.append(key, [{ type: "user", uuid: "u" }])
        const reasons = []
        for (const text of ["null", "42", "[1]", "{\"type\":7}", "\"user\""]) {
          yield* sql`UPDATE t_entries SET entry = ${text}`
          reasons.push(reasonOf(yield* Effect.exit(Stream.runCollect(store.load(key)))))
        }
        return reasons
      })
      const reasons = yield* program.pipe(Effect.provide(SessionStoreSql.layerSqliteClient({ filename: ":memory:" })))
      for (const reason of reasons) {
        assert.strictEqual(reason?._tag, "StoreFailed")
        assert.include(reason?.message ?? "", "row 1")
      }
    }))

  it.effect("another connection holds the write lock: append waits without blocking the process, and lands once it is released (F9)", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-sqlite-")
      const filename = Path.join(tmp, "busy.db")
      const key = { projectKey: "-p", sessionId: "s" }
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [{ type: "user", uuid: "u0" }])
        const other = new DatabaseSync(filename)
        yield* Effect.addFinalizer(() => Effect.sync(() => other.isOpen && other.close()))
        other.exec("BEGIN IMMEDIATE")
        other.exec("INSERT INTO claude_session_sessions (project_key, session_id, mtime) VALUES ('-q', 't', 1)")
        // Started at once: a store that blocks the thread while it waits for the lock would be done
        // (failed) before the next line runs, since the lock holder could never run to release it.
        const append = yield* Effect.forkChild(store.append(key, [{ type: "user", uuid: "u1" }]), { startImmediately: true })
        yield* Effect.yieldNow
        assert.isUndefined(append.pollUnsafe(), "append waits for the lock")
        other.exec("COMMIT")
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(append)
        const loaded = yield* Stream.runCollect(store.load(key))
        assert.deepStrictEqual(loaded.map((e) => e.uuid), ["u0", "u1"])
      }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })))
    }).pipe(Effect.scoped))

  it.effect("a write lock never released: append gives up after a bounded wait with a StoreFailed (F9)", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-sqlite-")
      const filename = Path.join(tmp, "busy.db")
      const key = { projectKey: "-p", sessionId: "s" }
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [{ type: "user", uuid: "u0" }])
        const other = new DatabaseSync(filename)
        yield* Effect.addFinalizer(() => Effect.sync(() => other.isOpen && other.close()))
        other.exec("BEGIN IMMEDIATE")
        const append = yield* Effect.forkChild(Effect.exit(store.append(key, [{ type: "user", uuid: "u1" }])), {
          startImmediately: true
        })
        yield* TestClock.adjust("10 seconds")
        const reason = reasonOf(yield* Fiber.join(append))
        assert.strictEqual(reason?._tag, "StoreFailed")
        assert.include(reason?.message ?? "", "append")
        other.exec("ROLLBACK")
      }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })))
    }).pipe(Effect.scoped))

  it.effect("a failing database surfaces as StoreFailed naming the operation, and a corrupt row as one too", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        const store = yield* SessionStoreSql.make({ tablePrefix: "t_" })
        const sql = yield* SqlClient.SqlClient
        const key = { projectKey: "-p", sessionId: "s" }
        yield* store.append(key, [{ type: "user", uuid: "u" }])
        yield* sql`UPDATE t_entries SET entry = 'not json'`
        const corrupt = reasonOf(yield* Effect.exit(Stream.runCollect(store.load(key))))
        yield* sql`DROP TABLE t_entries`
        const append = reasonOf(yield* Effect.exit(store.append(key, [{ type: "user", uuid: "v" }])))
        return [corrupt, append] as const
      })
      const [corrupt, append] = yield* program.pipe(Effect.provide(SessionStoreSql.layerSqliteClient({ filename: ":memory:" })))
      assert.strictEqual(corrupt?._tag, "StoreFailed")
      assert.include(corrupt?.message ?? "", "load")
      assert.strictEqual(append?._tag, "StoreFailed")
      assert.include(append?.message ?? "", "append")
    }))
})
