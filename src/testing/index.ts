/**
 * Test doubles for programs built on effect-claude-code: an in-memory scripted CLI, a replayed
 * transcript, a fake Anthropic Messages API that the real CLI can talk to on 127.0.0.1, and an
 * offline session of the real CLI on that fake model.
 *
 * @packageDocumentation
 * @since 0.1.0
 */

/** An in-memory CLI driven by an Effect script; it can call the program's hooks, permission handler and MCP tools. @since 0.1.0 */
export * as FakeCli from "./FakeCli.ts"
/** A fake Anthropic Messages API (SSE) on loopback, scripted. @since 0.1.0 */
export * as FakeModel from "./FakeModel.ts"
/** Plays a recorded transcript as a fake CLI. @since 0.1.0 */
export * as Replay from "./Replay.ts"
/** A session against the real CLI and a fake model, offline, in a fresh HOME and cwd. @since 0.2.0 */
export * as Offline from "./Offline.ts"
