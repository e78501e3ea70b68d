/**
 * effect-claude-code on Node: the real `claude` CLI, the CLI's sessions on disk and `runMain`. The
 * one entry that imports `@effect/platform-node` (an optional peer of the package).
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** The process transport (`ClaudeNode.layer`), the sessions on disk (`ClaudeNode.layerSessions`) and `ClaudeNode.runMain`. @since 0.2.0 */
export * as ClaudeNode from "./ClaudeNode.ts"
