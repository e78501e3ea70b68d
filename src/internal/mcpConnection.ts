/**
 * A session's side of its in-process MCP servers, with `McpServers.ts` (and the `effect/ai`
 * modules it imports) loaded only when the session has such servers: a program that made one has
 * loaded that module already, and a session without any never loads it.
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type * as ClaudeError from "../ClaudeError.ts"
import type * as McpServers from "../McpServers.ts"
import type * as Services from "./services.ts"

const load = Effect.promise(() => import("./lazy/mcpServers.ts"))

/**
 * `McpServers.connect` for the session. With servers in the context, at once; without, at the
 * connection's first use (an `mcp_message`, a `setMcpServers` with `inProcess`), in the same
 * place in the session's scope, once: the answers are `McpServers.connect`'s either way.
 */
export const connect = Effect.fnUntraced(function*(
  service: Services.McpServers["Service"],
  options?: McpServers.ConnectOptions
) {
  if (service.servers.length > 0) return yield* Effect.flatMap(load, (M) => M.connect(service, options))
  // A scope of its own, forked now: the connection, opened later, is closed where it would have
  // been had it opened now (before the CLI's end, so tool calls made while it shuts down run).
  const scope = yield* Scope.fork(yield* Effect.scope)
  // Until it opens, it serves nothing and runs no call.
  let current: McpServers.McpConnection | undefined
  const opened = yield* Effect.cached(Scope.provide(
    Effect.flatMap(load, (M) => M.connect(service, options)).pipe(Effect.tap((mcp) => Effect.sync(() => current = mcp))),
    scope
  ))
  const connection: McpServers.McpConnection = {
    handle: (serverName, message) => Effect.flatMap(opened, (mcp) => mcp.handle(serverName, message)),
    add: (servers) => servers.length === 0 ? Effect.void : Effect.flatMap(opened, (mcp) => mcp.add(servers)),
    serves: (serverName) => current?.serves(serverName) ?? false,
    interruptCalls: (serverNames) => current === undefined ? Effect.void : current.interruptCalls(serverNames)
  }
  return connection
})

/** `McpServers.registerAll`, which needs nothing for no servers. */
export const registerAll = <const Servers extends ReadonlyArray<McpServers.Server<unknown>>>(
  servers: Servers
): Effect.Effect<
  ReadonlyArray<McpServers.RegisteredServer>,
  ClaudeError.ClaudeError,
  Exclude<McpServers.Server.Services<Servers[number]>, Scope.Scope>
> => servers.length === 0 ? Effect.succeed([]) : Effect.flatMap(load, (M) => M.registerAll(servers))
