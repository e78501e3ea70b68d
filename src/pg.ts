/**
 * effect-claude-code's PostgreSQL session store: `SessionStorePg`, on `@effect/sql-pg` (an optional
 * peer of the package, needed only by this entry).
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** The `SessionStore` in a PostgreSQL database (`layer`). @since 0.2.0 */
export * as SessionStorePg from "./SessionStorePg.ts"
