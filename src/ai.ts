/**
 * effect-claude-code in `effect/ai`: `ClaudeCodeLanguageModel`, Claude Code sessions as an
 * `effect/ai` `LanguageModel`. An entry of its own because `effect/ai/LanguageModel` is the
 * heaviest module of `effect/ai` to load (tens of milliseconds): a program that does not use it
 * never pays for it. (`McpServers.toolkit`, which serves an `effect/ai` `Toolkit`, stays in the
 * main entry: `Tool` and `Toolkit` are light.)
 *
 * @packageDocumentation
 * @since 0.2.0
 */

/** Claude Code as an `effect/ai` `LanguageModel`: `generateText`, `streamText`, `generateObject` and `Chat` on sessions. @since 0.2.0 */
export * as ClaudeCodeLanguageModel from "./ClaudeCodeLanguageModel.ts"
