/**
 * The JSON-RPC side of the session's in-process MCP servers, as the session sees it: raw
 * messages in, `mcp_response` values out (tests of `McpServers` without a CLI).
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as ClaudeError from "../../src/ClaudeError.ts"
import * as McpServers from "../../src/McpServers.ts"

export interface Wire {
  readonly handle: (serverName: string, message: unknown) => Effect.Effect<unknown, ClaudeError.ClaudeError>
}

/** Connects to the servers of `layer`, within the test's scope. */
export const connectTo = <E, R>(layer: Layer.Layer<McpServers.McpServers, E, R>): Effect.Effect<Wire, E, R | Scope.Scope> =>
  Effect.flatMap(Effect.service(McpServers.McpServers), McpServers.connect).pipe(Effect.provide(layer))

/** A `tools/call` of `name` with `args`, its tool use `toolu_<id>`, as the CLI sends one. */
export const toolCall = (id: number, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: { "claudecode/toolUseId": `toolu_${id}` } }
})
