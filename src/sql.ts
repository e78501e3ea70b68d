/**
 * effect-claude-code's SQL session store: `SessionStoreSql`, the `SessionStore` on Effect's SQL
 * clients, with an embedded SQLite database (Node's built-in `node:sqlite`) as the default that
 * needs no server. An entry of its own, so the main entry never loads a database client.
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** The `SessionStore` on any `SqlClient` (`layer`), or in a SQLite file (`layerSqlite`). @since 0.2.0 */
export * as SessionStoreSql from "./SessionStoreSql.ts"
