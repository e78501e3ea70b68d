/**
 * Start-up (issue 21): importing `Claude.ts` loads what every session uses; the modules a session
 * needs only on request are loaded by `import()` when it does (`Imports.test.ts` follows the
 * static imports, `StartupLive.test.ts` watches what Node loads).
 */
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
  // the protocol's schemas: the decoder of the CLI's lines and the schemas of control answers
  // (codec, control and what they import) loaded as a session opens, once its CLI is spawned and
  // has `initialize` (`internal/lazy/protocol.ts`); tools.ts only through `Protocol.ts`. What the
  // session writes is `protocol/lines.ts`, of the core.
  "src/internal/lazy/protocol.ts",
  "src/protocol/codec.ts",
  "src/protocol/content.ts",
  "src/protocol/control.ts",
  "src/protocol/hooks.ts",
  "src/protocol/internal.ts",
  "src/protocol/messages.ts",
  "src/protocol/permissions.ts",
  "src/protocol/stream.ts",
  "src/protocol/system.ts",
  "src/protocol/tools.ts"
]

/**
 * The packages' modules importing `Claude.ts` does not load: `effect/ai` (for in-process servers
 * made from toolkits), the schema JIT compiler (loaded as a session opens, `internal/schemaJit.ts`),
 * the configuration, file system and path services (the sessions on disk).
 */
export const packagesOnRequest = /^effect\/(ai|unstable)\/|^effect\/schema\/SchemaJITCompiler$|^effect\/(Config|ConfigProvider|FileSystem|Path)$|opentelemetry/
