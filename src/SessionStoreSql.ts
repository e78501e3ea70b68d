/**
 * The `SessionStore` on Effect's SQL clients (`effect/sql`): sessions in a database, so a session
 * run on one machine can be listed, read and resumed on another.
 *
 * - `layer` runs on the `SqlClient` in the context: SQLite or PostgreSQL, both tested (MySQL and
 *   SQL Server are not supported: the statements use `ON CONFLICT`).
 * - `layerSqlite` is the default that needs no server: an embedded SQLite database in one file, on
 *   Node's built-in `node:sqlite` (nothing native to build). The Effect 4 SQLite client for Node
 *   is `@effect/sql-sqlite-node`, but its only Effect 4 releases (4.0.0-beta.x, the newest
 *   4.0.0-beta.102) import `effect/unstable/...` paths that Effect 4.1 no longer has, so they do
 *   not load next to `effect` 4.1; `layerSqlite` builds the same client (one serialized
 *   connection, WAL) from Effect 4.1's own `effect/sql` pieces instead. Any other `SqlClient`
 *   works through `layer`.
 * - PostgreSQL: `SessionStorePg.layer` (entry `effect-claude-code/pg`, on `@effect/sql-pg`). On a
 *   `PgClient` of your own, give it a `maxMessageSize` above the largest entry: `@effect/sql-pg`
 *   reads no row over 16 MiB by default, so such an entry is stored but never loaded
 *   (`SessionStorePg` sets 1 GiB).
 *
 * **Details**
 *
 * Two tables, created by the layer when missing (`<prefix>entries`, `<prefix>sessions`; the
 * prefix is `claude_session_` unless told): one row per entry with a sequence column that keeps
 * the order of appends, a unique index on `(project, session, subpath, uuid)` so a retried batch
 * never duplicates a line (rows without a uuid are never deduplicated; a uuid a text column would
 * not keep as it is, with NUL or a lone surrogate, is stored as its JSON text), and one row per session
 * with its last modification time for `list`. `load` reads in pages of `pageSize` rows (by
 * sequence, not offset), so a session of any size streams in bounded memory.
 *
 * @since 0.2.0
 */
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as ClaudeError from "./ClaudeError.ts"
import { describeError } from "./internal/describeCause.ts"
import { entryTexts, subpathGiven } from "./internal/storeInputs.ts"
import * as sqliteNode from "./internal/sqliteNode.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * How the SQL store lays out and reads its tables.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * Prefix of the two tables' names; letters, digits and `_` only, and on PostgreSQL at most 51
   * characters (the longest name made from it, its unique index's, then fits PostgreSQL's 63).
   * Default `claude_session_`.
   */
  readonly tablePrefix?: string | undefined
  /** Rows per page when `load` streams a transcript. Default 500. */
  readonly pageSize?: number | undefined
  /** The store's `name` in messages and errors. Default: the SQL driver's dialect (`sqlite`, `pg`). */
  readonly name?: string | undefined
}

const insertChunk = 200

/**
 * The longest table prefix: PostgreSQL cuts names at 63 bytes, so that a longer prefix would
 * give the unique index (`<prefix>entries_uuid`) the entries table's own name, and two prefixes
 * alike in their first 63 characters the same tables.
 */
const maxPrefix = 63 - "entries_uuid".length

/**
 * The `uuid` column's value: the uuid itself when a text column keeps it as it is, else its JSON
 * text. PostgreSQL's text refuses NUL, and a driver writes a lone surrogate as U+FFFD (two such
 * uuids would be one). One-to-one: a uuid kept as it is never starts with `"`, its JSON text
 * always does.
 */
const uuidColumn = (uuid: string): string =>
  !textRefused.test(uuid) && !uuid.startsWith("\"") ? uuid : JSON.stringify(uuid)

/** NUL, or a lone surrogate (with the `u` flag a pair is one code point; one alone is `Cs`). */
const textRefused = /[\p{Cs}\0]/u

/** Why `key` cannot be a row's key (NUL, a lone surrogate, an empty part), if it cannot. */
const keyProblem = (key: Partial<SessionStore.SessionKey>): string | undefined => {
  for (const [part, value] of [["projectKey", key.projectKey], ["sessionId", key.sessionId], ["subpath", key.subpath]] as const) {
    if (value === undefined || value === "" && part === "subpath") continue
    if (value === "") return `its ${part} is empty`
    if (textRefused.test(value)) return `its ${part} holds NUL or a lone surrogate`
  }
  return undefined
}

const describeSql = (error: SqlError.SqlError): string => {
  const cause = error.reason.cause
  const detail = typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? `: ${cause.message}`
    : ""
  return `${error.reason._tag}${detail}`
}

const failed = (store: string, operation: string) => (error: SqlError.SqlError | ClaudeError.ClaudeError) =>
  ClaudeError.isClaudeError(error)
    ? error
    : ClaudeError.make(new ClaudeError.StoreFailed({ store, operation, description: describeSql(error) }))

const badOptions = (description: string) =>
  ClaudeError.make(new ClaudeError.StoreFailed({ store: "sql", operation: "open", description }))

interface EntryRow {
  readonly seq: number | string | bigint
  readonly entry: string
}

interface SessionRow {
  readonly project_key: string
  readonly session_id: string
  readonly mtime: number | string | bigint
}

/**
 * Builds the store on the `SqlClient` in the context, creating its tables when missing.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = Effect.fn("SessionStoreSql.make")(function*(options: Options = {}) {
  const sql = yield* SqlClient.SqlClient
  const prefix = options.tablePrefix ?? "claude_session_"
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    return yield* Effect.fail(badOptions(`tablePrefix must be letters, digits and _, got ${JSON.stringify(prefix)}`))
  }

  const pageSize = options.pageSize ?? 500
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    return yield* Effect.fail(badOptions(`pageSize must be a positive integer, got ${pageSize}`))
  }
  const dialect = sql.onDialectOrElse({ pg: () => "pg", mysql: () => "mysql", mssql: () => "mssql", orElse: () => "sqlite" })
  if (dialect === "pg" && prefix.length > maxPrefix) {
    return yield* Effect.fail(
      badOptions(`tablePrefix must be at most ${maxPrefix} characters on PostgreSQL, got ${prefix.length}`)
    )
  }
  const name = options.name ?? dialect
  const entries = sql(`${prefix}entries`)
  const sessions = sql(`${prefix}sessions`)

  const ddl = [
    sql.onDialectOrElse({
      pg: () =>
        sql`CREATE TABLE IF NOT EXISTS ${entries} (seq BIGSERIAL PRIMARY KEY, project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL, uuid TEXT, entry TEXT NOT NULL)`,
      orElse: () =>
        sql`CREATE TABLE IF NOT EXISTS ${entries} (seq INTEGER PRIMARY KEY AUTOINCREMENT, project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL, uuid TEXT, entry TEXT NOT NULL)`
    }),
    sql`CREATE UNIQUE INDEX IF NOT EXISTS ${sql(`${prefix}entries_uuid`)} ON ${entries} (project_key, session_id, subpath, uuid)`,
    sql`CREATE INDEX IF NOT EXISTS ${sql(`${prefix}entries_key`)} ON ${entries} (project_key, session_id, subpath, seq)`,
    sql`CREATE TABLE IF NOT EXISTS ${sessions} (project_key TEXT NOT NULL, session_id TEXT NOT NULL, mtime BIGINT NOT NULL, PRIMARY KEY (project_key, session_id))`
  ]
  // Two processes starting together (a cluster) must not race on CREATE TABLE: PostgreSQL takes an
  // advisory lock for the transaction; SQLite's writer lock already serializes them.
  yield* sql.withTransaction(Effect.gen(function*() {
    if (dialect === "pg") yield* sql`SELECT pg_advisory_xact_lock(7123090416)`
    for (const statement of ddl) yield* statement
  })).pipe(Effect.mapError(failed(name, "create its tables")))

  const checkKey = (key: Partial<SessionStore.SessionKey>): Effect.Effect<void, ClaudeError.ClaudeError> => {
    const problem = keyProblem(key)
    return problem === undefined ? subpathGiven(name, key) : Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: `${name}: ${JSON.stringify(key)} is not a session key: ${problem}`
    })))
  }

  // One generator function per store, not one per append (docs/CONTRIBUTING.md).
  const insertRows = Effect.fnUntraced(function*(
    key: SessionStore.SessionKey,
    rows: ReadonlyArray<{ readonly project_key: string; readonly session_id: string; readonly subpath: string; readonly uuid: string | null; readonly entry: string }>,
    mtime: number
  ) {
    // The session's row first, as `delete` does: on PostgreSQL its row lock orders an append to
    // the main transcript and a delete of the session, so that a delete never removes the row
    // while missing the entries such an append is writing (left in a session listed nowhere). A
    // subagent's append racing a delete ends as if it came after it. Listed are the sessions with
    // a main transcript, as the other stores list them: a session with a subagent's entries alone
    // (its main batches not landed yet) is not one to resume.
    if (key.subpath === undefined) {
      yield* sql`INSERT INTO ${sessions} ${
        sql.insert({ project_key: key.projectKey, session_id: key.sessionId, mtime })
      } ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = excluded.mtime`
    } else if (dialect === "pg") {
      // A subagent's transcript has no row to lock: a lock of the transaction's on the key keeps
      // two appends to it from interleaving their chunks (SQLite's writer lock does already).
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${JSON.stringify([key.projectKey, key.sessionId, key.subpath])}))`
    }
    for (let i = 0; i < rows.length; i += insertChunk) {
      const chunk = rows.slice(i, i + insertChunk)
      if (Arr.isArrayNonEmpty(chunk)) {
        yield* sql`INSERT INTO ${entries} ${sql.insert(chunk)} ON CONFLICT DO NOTHING`
      }
    }
  })

  const append = Effect.fn("SessionStoreSql.append")(
    function*(key: SessionStore.SessionKey, batch: ReadonlyArray<SessionStore.Entry>) {
      yield* checkKey(key)
      if (batch.length === 0) return
      const texts = yield* entryTexts(name, batch)
      const subpath = key.subpath ?? ""
      const rows = batch.map((entry, i) => ({
        project_key: key.projectKey,
        session_id: key.sessionId,
        subpath,
        uuid: typeof entry.uuid === "string" ? uuidColumn(entry.uuid) : null,
        entry: texts[i]!
      }))
      const mtime = yield* Clock.currentTimeMillis
      yield* sql.withTransaction(insertRows(key, rows, mtime)).pipe(Effect.mapError(failed(name, "append")))
    }
  )

  const page = (key: SessionStore.SessionKey, after: number) =>
    sql<EntryRow>`SELECT seq, entry FROM ${entries} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${
      key.subpath ?? ""
    } AND seq > ${after} ORDER BY seq LIMIT ${pageSize}`.pipe(Effect.mapError(failed(name, "load")))

  const corrupt = (row: EntryRow, why: string) =>
    Effect.fail(ClaudeError.make(
      new ClaudeError.StoreFailed({ store: name, operation: "load", description: `row ${row.seq} ${why}` })
    ))

  // A row is what `append` wrote, unless something else wrote the table: checked, never cast.
  const parse = (row: EntryRow): Effect.Effect<SessionStore.Entry, ClaudeError.ClaudeError> => {
    let parsed: unknown
    try {
      parsed = JSON.parse(row.entry)
    } catch {
      return corrupt(row, "is not JSON")
    }
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) &&
        typeof (parsed as { readonly type?: unknown }).type === "string"
      ? Effect.succeed(parsed as SessionStore.Entry)
      : corrupt(row, "is not a transcript entry (a JSON object with a string `type`)")
  }

  const load = (key: SessionStore.SessionKey): Stream.Stream<SessionStore.Entry, ClaudeError.ClaudeError> =>
    Stream.unwrap(Effect.as(checkKey(key), loadPages(key)))

  const loadPages = (key: SessionStore.SessionKey): Stream.Stream<SessionStore.Entry, ClaudeError.ClaudeError> =>
    Stream.paginate(-1, (after: number) =>
      Effect.gen(function*() {
        const rows = yield* page(key, Math.max(after, 0))
        if (after === -1 && rows.length === 0) {
          return yield* Effect.fail(
            ClaudeError.make(new ClaudeError.SessionNotFound({ sessionId: key.sessionId, searched: name }))
          )
        }
        const parsed = yield* Effect.forEach(rows, parse)
        const last = rows.at(-1)
        const next = rows.length < pageSize || last === undefined ? Option.none<number>() : Option.some(Number(last.seq))
        return [parsed, next] as const
      })).pipe(Stream.withSpan("SessionStoreSql.load"))

  const list = Effect.fn("SessionStoreSql.list")(function*(projectKey: string | undefined) {
    const rows = yield* (projectKey === undefined
      ? sql<SessionRow>`SELECT project_key, session_id, mtime FROM ${sessions}`
      : sql<SessionRow>`SELECT project_key, session_id, mtime FROM ${sessions} WHERE project_key = ${projectKey}`)
      .pipe(Effect.mapError(failed(name, "list")))
    return rows.map((row): SessionStore.StoredSession => ({
      projectKey: row.project_key,
      sessionId: row.session_id,
      mtime: Number(row.mtime)
    }))
  })

  const listSubkeys = Effect.fn("SessionStoreSql.listSubkeys")(
    function*(key: { readonly projectKey: string; readonly sessionId: string }) {
      yield* checkKey(key)
      const rows = yield* sql<{ readonly subpath: string }>`SELECT DISTINCT subpath FROM ${entries} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath <> ''`
        .pipe(Effect.mapError(failed(name, "listSubkeys")))
      return rows.map((row) => row.subpath)
    }
  )

  const delete_ = Effect.fn("SessionStoreSql.delete")(function*(key: SessionStore.SessionKey) {
    yield* checkKey(key)
    yield* sql.withTransaction(
      key.subpath === undefined
        ? Effect.andThen(
          // The session's row first, as `append` does (see there).
          sql`DELETE FROM ${sessions} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`,
          sql`DELETE FROM ${entries} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
        )
        : sql`DELETE FROM ${entries} WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${key.subpath}`
    ).pipe(Effect.mapError(failed(name, "delete")))
  })

  return SessionStore.SessionStore.of({ name, append, load, list, listSubkeys, delete: delete_ })
})

/**
 * The store on the `SqlClient` the program provides.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<SessionStore.SessionStore, ClaudeError.ClaudeError, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore)(make(options))

/**
 * Options of the embedded SQLite store.
 *
 * @since 0.2.0
 * @category models
 */
export interface SqliteOptions extends Options {
  /** The database file (created when missing), or `:memory:`. */
  readonly filename: string
}

/**
 * The SQLite client (`effect/sql`'s `SqlClient`) `layerSqlite` runs on, for programs that want the
 * same database for their own tables.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSqliteClient = (
  options: {
    /** The database file (created when missing), or `:memory:`. */
    readonly filename: string
  }
): Layer.Layer<SqlClient.SqlClient, ClaudeError.ClaudeError> =>
  Layer.effect(SqlClient.SqlClient)(
    Effect.andThen(createPrivate(options.filename), sqliteNode.make(options)).pipe(
      Effect.mapError(failed(`sqlite ${options.filename}`, "open"))
    )
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * Creates the database file, when missing, readable by its owner only (it holds every stored
 * transcript); SQLite gives its WAL and journal the database's mode. An existing file is left as
 * it is. Not for `:memory:`, a temporary database (`""`) or a `file:` URI.
 */
const createPrivate = (filename: string): Effect.Effect<void, ClaudeError.ClaudeError> =>
  filename === "" || filename === ":memory:" || filename.startsWith("file:")
    ? Effect.void
    : Effect.try({
      try: () => {
        try {
          Fs.closeSync(Fs.openSync(filename, Fs.constants.O_CREAT | Fs.constants.O_EXCL | Fs.constants.O_WRONLY, 0o600))
        } catch (error) {
          // There already: opened by SQLite as it is.
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
        }
      },
      catch: (cause) =>
        ClaudeError.make(new ClaudeError.StoreFailed({
          store: `sqlite ${filename}`,
          operation: "open",
          description: `cannot create ${filename}: ${describeError(cause)}`
        }))
    })

/**
 * The store in an embedded SQLite database file: no server, nothing native to build.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { SessionStore } from "effect-claude-code"
 * import { SessionStoreSql } from "effect-claude-code/sql"
 *
 * const sessions = Effect.gen(function*() {
 *   const store = yield* SessionStore.SessionStore
 *   return yield* store.list(undefined)
 * }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename: "sessions.db" })))
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<SessionStore.SessionStore, ClaudeError.ClaudeError> =>
  layer({ ...options, name: options.name ?? `sqlite ${options.filename}` }).pipe(
    Layer.provide(layerSqliteClient({ filename: options.filename }))
  )
