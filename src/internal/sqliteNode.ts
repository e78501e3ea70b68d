/**
 * A `SqlClient` (`effect/sql`) on Node's built-in `node:sqlite`: one connection, serialized, WAL.
 *
 * Why not `@effect/sql-sqlite-node`: its only Effect 4 releases (4.0.0-beta.x, the newest
 * 4.0.0-beta.102) import `effect/unstable/sql/*` and `effect/unstable/reactivity/*`, paths that
 * Effect 4.1 moved to `effect/sql/*` and `effect/reactivity/*`, so the package does not load next
 * to `effect` 4.1. Its design is the right one (node:sqlite: nothing native to build, no server),
 * and this is that design on Effect 4.1's own pieces (`SqlClient.make`,
 * `SqlClient.makeSqliteAcquirers`, `Statement.makeCompilerSqlite`, `classifySqliteError`).
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import { classifySqliteError, SqlError } from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import { DatabaseSync } from "node:sqlite"
import type { SQLInputValue, StatementSync } from "node:sqlite"

/** @internal */
export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  readonly filename: string
}

const failure = (operation: string, message: string) => (cause: unknown): SqlError => {
  const withErrno = typeof cause === "object" && cause !== null && "errcode" in cause && !("errno" in cause)
    ? Object.assign(cause, { errno: (cause as { readonly errcode: unknown }).errcode })
    : cause
  return new SqlError({ reason: classifySqliteError(withErrno, { message, operation }) })
}

/** SQLITE_BUSY, or one of its extended codes: another connection holds the lock. */
const isBusy = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "errcode" in cause && typeof cause.errcode === "number" &&
  (cause.errcode & 0xff) === 5

class Busy extends Data.TaggedError("Busy")<{ readonly cause: unknown }> {}

/**
 * The waits (ms) between the attempts of a statement that found the database busy: about 5 s in
 * all, as the former `busy_timeout`, but sleeping (the process goes on) instead of blocking.
 */
const busyWaits: ReadonlyArray<number> = [5, 10, 20, 40, 80, 100, ...Array.from({ length: 47 }, () => 100)]

const toInput = (params: ReadonlyArray<unknown>): Array<SQLInputValue> =>
  params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p) as SQLInputValue)

/** @internal */
export const make = Effect.fnUntraced(function*(options: SqliteOptions) {
  const db = yield* Effect.acquireRelease(
    Effect.try({
      try: () => new DatabaseSync(options.filename),
      catch: failure("open", `Failed to open ${options.filename}`)
    }),
    (db) => Effect.sync(() => db.close())
  )
  yield* Effect.try({
    try: () => {
      db.exec("PRAGMA journal_mode = WAL")
      // node:sqlite is synchronous: SQLite's own busy wait would block the whole process (the
      // CLI's reader, the hook handlers) while another connection holds the write lock. It waits
      // nothing; `run` retries a busy statement after Effect.sleep instead (see `busyWaits`).
      db.exec("PRAGMA busy_timeout = 0")
    },
    catch: failure("open", "Failed to set the journal mode")
  })
  // A small cache of prepared statements: the store runs a handful of fixed statements.
  const prepared = new Map<string, StatementSync>()
  const prepare = (sql: string): StatementSync => {
    const cached = prepared.get(sql)
    if (cached !== undefined) return cached
    const statement = db.prepare(sql)
    if (prepared.size >= 100) prepared.clear()
    prepared.set(sql, statement)
    return statement
  }
  const attempt = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean, cache: boolean) =>
    Effect.try({
      try: () => {
        const statement = cache ? prepare(sql) : db.prepare(sql)
        statement.setReturnArrays(arrays)
        if (statement.columns().length > 0) return statement.all(...toInput(params)) as ReadonlyArray<unknown> as ReadonlyArray<never>
        statement.run(...toInput(params))
        return [] as ReadonlyArray<never>
      },
      catch: (cause) => isBusy(cause) && !db.isTransaction ? new Busy({ cause }) : failure("execute", "Failed to execute statement")(cause)
    })
  // A statement that found the database locked by another connection is tried again after a
  // sleep, unless it ran inside a transaction (its snapshot may be stale: the transaction fails
  // whole). Transactions begin IMMEDIATE, so it is their BEGIN that waits for the write lock.
  const run = (sql: string, params: ReadonlyArray<unknown>, arrays: boolean, cache: boolean) => {
    const loop = (waits: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<never>, SqlError> =>
      attempt(sql, params, arrays, cache).pipe(
        Effect.catchTag("Busy", (busy) => {
          const [wait, ...rest] = waits
          return wait === undefined
            ? Effect.fail(failure("execute", "Failed to execute statement")(busy.cause))
            : Effect.flatMap(Effect.sleep(Duration.millis(wait)), () => loop(rest))
        })
      )
    return loop(busyWaits)
  }
  const connection: SqlConnection.Connection = {
    execute: (sql, params, transformRows) =>
      transformRows ? Effect.map(run(sql, params, false, true), transformRows) : run(sql, params, false, true),
    executeRaw: (sql, params) => run(sql, params, false, true),
    executeValues: (sql, params) => run(sql, params, true, true),
    executeValuesUnprepared: (sql, params) => run(sql, params, true, false),
    executeUnprepared: (sql, params, transformRows) =>
      transformRows ? Effect.map(run(sql, params, false, false), transformRows) : run(sql, params, false, false),
    executeStream: (sql, params, transformRows) =>
      Stream.fromIterableEffect(
        transformRows ? Effect.map(run(sql, params, false, true), transformRows) : run(sql, params, false, true)
      )
  }
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore: yield* Semaphore.make(1),
    isTransaction: () => db.isTransaction
  })
  return yield* SqlClient.make({
    acquirer: acquirers.acquirer,
    borrower: acquirers.borrower,
    transactionAcquirer: acquirers.transactionAcquirer,
    onCommitFailure: acquirers.onCommitFailure,
    isTransaction: acquirers.isTransaction,
    beginTransaction: "BEGIN IMMEDIATE",
    compiler: Statement.makeCompilerSqlite(),
    driver: "sqlite",
    releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
    spanAttributes: [["db.system.name", "sqlite"]]
  })
})

