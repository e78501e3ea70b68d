/**
 * effect-claude-code on Node: the real `claude` CLI with its platform services provided. The one
 * entry that imports `@effect/platform-node` (an optional peer of the package).
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** The process transport with Node's services (`ClaudeNode.layer`), and `ClaudeNode.runMain`. @since 0.2.0 */
export * as ClaudeNode from "./ClaudeNode.ts"
