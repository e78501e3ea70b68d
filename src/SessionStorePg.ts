/**
 * The `SessionStore` in PostgreSQL, on `@effect/sql-pg` (Effect's own PostgreSQL client, speaking
 * the wire protocol itself). An optional peer dependency: this module is reached only through the
 * entry `effect-claude-code/pg`, so programs that do not use it never load it.
 *
 * The tables and their semantics are `SessionStoreSql`'s.
 *
 * @since 0.2.0
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import * as ClaudeError from "./ClaudeError.ts"
import type * as SessionStore from "./SessionStore.ts"
import * as SessionStoreSql from "./SessionStoreSql.ts"

/**
 * The PostgreSQL connection (`@effect/sql-pg`'s pool settings: `url` or `host`/`port`/`database`/
 * `username`/`password`, pool limits) and the store's own options.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options extends SessionStoreSql.Options {
  /** Where and how to connect (`@effect/sql-pg`'s `PgPoolConfig`). */
  readonly connection: PgClient.PgPoolConfig
}

/**
 * The largest message the client reads from the server unless `maxMessageSize` is given: one row
 * of the entries table with the largest text PostgreSQL holds (1 GB), so that every entry the
 * store took is read back (`@effect/sql-pg`'s own default, 16 MiB, refused a larger entry on load).
 */
const readAnyRow = 2 ** 30 + 2 ** 16

/**
 * The PostgreSQL client (`effect/sql`'s `SqlClient`) with connection failures as `StoreFailed`,
 * reading rows of any size PostgreSQL stores (`maxMessageSize` 1 GiB unless given).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerClient = (
  connection: PgClient.PgPoolConfig
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, ClaudeError.ClaudeError> =>
  Layer.effectContext(
    PgClient.make({ ...connection, maxMessageSize: connection.maxMessageSize ?? readAnyRow }).pipe(
      Effect.mapError((error) =>
        ClaudeError.make(
          new ClaudeError.StoreFailed({ store: "pg", operation: "connect", description: error.message })
        )
      ),
      Effect.map((client) => Context.make(PgClient.PgClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
    )
  ).pipe(Layer.provide(Reactivity.layer))

/**
 * The store in a PostgreSQL database, its tables created when missing.
 *
 * @example
 * ```ts
 * import * as Redacted from "effect/Redacted"
 * import { SessionStorePg } from "effect-claude-code/pg"
 *
 * const StoreLive = SessionStorePg.layer({
 *   connection: { url: Redacted.make("postgres://claude@db.internal/sessions") }
 * })
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<SessionStore.SessionStore, ClaudeError.ClaudeError> =>
  SessionStoreSql.layer({ ...options, name: options.name ?? "pg" }).pipe(Layer.provide(layerClient(options.connection)))
