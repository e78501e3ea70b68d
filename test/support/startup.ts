/**
 * Start-up (issue 21): importing `Claude.ts` loads what opening a session needs up to the spawn;
 * the session engine (loaded as a session opens, once its CLI is spawned) and the modules a
 * session needs only on request are loaded by `import()` when it does (`Imports.test.ts`
 * follows the static imports, `StartupLive.test.ts` watches what Node loads).
 */

/**
 * The session engine and the protocol's schemas: every session loads them as it opens, once its
 * CLI is spawned (`internal/sessionEngine.ts`, with what it imports): the reader and its framing,
 * the turns, the control channel, the session's end, tracing, the lines it writes.
 */
export const loadedAfterSpawn = [
  "src/internal/sessionEngine.ts",
  "src/internal/readLoop.ts",
  "src/internal/reader.ts",
  "src/internal/jsonLines.ts",
  "src/Framing.ts",
  "src/internal/turns.ts",
  "src/internal/turnRunner.ts",
  "src/internal/turnOutcome.ts",
  "src/internal/turnUsage.ts",
  "src/internal/userTurn.ts",
  "src/internal/stdinWriter.ts",
  "src/internal/outgoing.ts",
  "src/internal/incoming.ts",
  "src/internal/hostHandlers.ts",
  "src/internal/cliAccepted.ts",
  "src/internal/controls.ts",
  "src/internal/mcpConnection.ts",
  "src/internal/lifecycle.ts",
  "src/internal/exitReason.ts",
  "src/internal/describeCause.ts",
  "src/internal/tracing.ts",
  "src/Tracing.ts",
  "src/internal/metrics.ts",
  "src/internal/smallMap.ts",
  "src/internal/schemaJit.ts",
  "src/protocol/lines.ts",
  "src/protocol/codec.ts",
  "src/protocol/content.ts",
  "src/protocol/control.ts",
  "src/protocol/hooks.ts",
  "src/protocol/internal.ts",
  "src/protocol/messages.ts",
  "src/protocol/permissions.ts",
  "src/protocol/stream.ts",
  "src/protocol/system.ts",
]

export const loadedOnRequest = [
  // in-process MCP servers, effect/ai toolkits
  "src/McpServers.ts",
  "src/internal/mcpJsonRpc.ts",
  // hooks, permissions, elicitation, host dialogs: loaded when their service is in the context
  "src/Hooks.ts",
  "src/HookEvents.ts",
  "src/Permissions.ts",
  "src/Elicitation.ts",
  "src/UserDialogs.ts",
  "src/internal/handlerCall.ts",
  // the sessions on disk (the node entry's `layerSessions`), the session store and its mirror
  "src/Sessions.ts",
  "src/SessionStore.ts",
  "src/internal/sessionStoreOpen.ts",
  "src/internal/mirror.ts",
  "src/internal/sessionStoreWiring.ts",
  "src/internal/directoryStores.ts",
  // structured output, the transcript recorder
  "src/internal/structuredOutput.ts",
  "src/Transcript.ts",
  // the session engine and the protocol's schemas (below); tools.ts only through `Protocol.ts`
  ...loadedAfterSpawn,
  "src/protocol/tools.ts"
]

/**
 * The packages' modules importing `Claude.ts` does not load: `effect/ai` (for in-process servers
 * made from toolkits), the schema JIT compiler (loaded as a session opens, `internal/schemaJit.ts`),
 * the configuration, file system and path services (the sessions on disk).
 */
export const packagesOnRequest = /^effect\/(ai|unstable)\/|^effect\/schema\/SchemaJITCompiler$|^effect\/(Config|ConfigProvider|FileSystem|Path)$|opentelemetry/
