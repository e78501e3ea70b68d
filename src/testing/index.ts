/**
 * Test doubles for programs built on effect-claude-code: an in-memory scripted CLI, and a fake
 * Anthropic Messages API that the real CLI can talk to on 127.0.0.1.
 *
 * @packageDocumentation
 * @since 0.1.0
 */

/** An in-memory CLI driven by an Effect script. @since 0.1.0 */
export * as FakeCli from "./FakeCli.ts"
/** A fake Anthropic Messages API (SSE) on loopback, scripted. @since 0.1.0 */
export * as FakeModel from "./FakeModel.ts"
/** Plays a recorded transcript as a fake CLI. @since 0.1.0 */
export * as Replay from "./Replay.ts"
