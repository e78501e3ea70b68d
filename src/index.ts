/**
 * effect-claude-code: drive the `claude` CLI (Claude Code) over its stream-json protocol from
 * Effect programs.
 *
 * @packageDocumentation
 * @since 0.1.0
 */

/** Sessions, turns, events and the control requests of the CLI. @since 0.1.0 */
export * as Claude from "./Claude.ts"
/** The supported `claude` CLI versions, and the version check. @since 0.1.0 */
export * as CliVersion from "./CliVersion.ts"
/** The session as a service: `make`, `layer`, `layerConfig`. @since 0.1.0 */
export * as ClaudeSession from "./ClaudeSession.ts"
/** What a session's streams carry. @since 0.1.0 */
export * as Events from "./Events.ts"
/** MCP elicitations (`elicitation`) as a service provided by a Layer. @since 0.2.0 */
export * as Elicitation from "./Elicitation.ts"
/** The library's one error, with a reason. @since 0.1.0 */
export * as ClaudeError from "./ClaudeError.ts"
/** NDJSON framing (bytes to lines, with a cap). @since 0.1.0 */
export * as Framing from "./Framing.ts"
/** What the program learns when a hook or permission handler fails. @since 0.1.0 */
export * as HandlerFailure from "./HandlerFailure.ts"
/** Hook event schemas. @since 0.1.0 */
export * as HookEvents from "./HookEvents.ts"
/** Hooks as a service provided by Layers. @since 0.1.0 */
export * as Hooks from "./Hooks.ts"
/** Launch options to argv and environment. @since 0.1.0 */
export * as Launch from "./Launch.ts"
/** In-process MCP servers as a service provided by Layers. @since 0.1.0 */
export * as McpServers from "./McpServers.ts"
/** Tool permissions (`can_use_tool`) as a service provided by a Layer. @since 0.1.0 */
export * as Permissions from "./Permissions.ts"
/** Host dialogs (`request_user_dialog`) as a service provided by a Layer. @since 0.2.0 */
export * as UserDialogs from "./UserDialogs.ts"
/** Where session transcripts live (memory, a directory, SQL): the store contract. @since 0.2.0 */
export * as SessionStore from "./SessionStore.ts"
/** Past sessions: list, read, rename, tag, fork and delete them, over any SessionStore. @since 0.2.0 */
export * as Sessions from "./Sessions.ts"
/** Every message of the stream-json protocol, both ways, as Schema. @since 0.1.0 */
export * as Protocol from "./Protocol.ts"
/** What a turn said: its text as it streams, its final text, its tool calls with their results. @since 0.2.0 */
export * as Turn from "./Turn.ts"
/** A transcript as a timeline of turns (the model of the `view` command's page). @since 0.2.0 */
export * as Timeline from "./Timeline.ts"
/** Spans and metrics of sessions, through the program's Effect `Tracer` and `Metric`. @since 0.2.0 */
export * as Tracing from "./Tracing.ts"
/** Transcripts: record (redacted) and read. @since 0.1.0 */
export * as Transcript from "./Transcript.ts"
/** The seam between sessions and processes. @since 0.1.0 */
export * as Transport from "./Transport.ts"
