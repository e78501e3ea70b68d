/**
 * What a session takes from `McpServers.ts` when it loads it on request (`import()`, see
 * `internal/services.ts`): a module of its own, so that a bundler keeps only these exports of it.
 */
export { connect, registerAll } from "../../McpServers.ts"
