/**
 * effect-claude-code on Effect Cluster: sessions addressed by id across processes and machines.
 * Its own entry because it imports the optional peer `@effect/platform-node`; its SQL clients come
 * from `effect-claude-code/sql` (SQLite) and `effect-claude-code/pg` (PostgreSQL).
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** A Claude Code session as a cluster entity: its RPCs, its runner-side layer, its client. @since 0.2.0 */
export * as ClaudeSessionEntity from "./ClaudeSessionEntity.ts"
/** The deployment shapes: embedded (SingleRunner, SQLite), runners (SocketRunner, PostgreSQL), client. @since 0.2.0 */
export * as ClaudeCluster from "./ClaudeCluster.ts"
