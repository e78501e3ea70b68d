/**
 * The host's side of the CLI's requests: a handler for each request subtype the session serves,
 * made from the services in the context (hooks, permissions, elicitation, host dialogs, in-process
 * MCP servers). A service's module is loaded (`import()`) only when the service is given; without
 * hooks, nothing is registered in `initialize`, and a `hook_callback` (which no CLI sends then) is
 * answered by `Hooks.bind` of no hooks when it comes.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as HandlerFailure from "../HandlerFailure.ts"
import type * as Hooks from "../Hooks.ts"
import type * as McpServers from "../McpServers.ts"
import type * as Incoming from "./incoming.ts"
import * as McpConnection from "./mcpConnection.ts"
import type * as Services from "./services.ts"

const loadHooks = Effect.promise(() => import("./lazy/hooks.ts"))
const loadPermissions = Effect.promise(() => import("./lazy/permissions.ts"))
const loadElicitation = Effect.promise(() => import("./lazy/elicitation.ts"))
const loadUserDialogs = Effect.promise(() => import("./lazy/userDialogs.ts"))

/** The services a session found in its context. */
export interface HostServices {
  readonly hooks: Option.Option<Services.Hooks["Service"]>
  readonly permissions: Option.Option<Services.Permissions["Service"]>
  readonly elicitation: Option.Option<Services.Elicitation["Service"]>
  readonly userDialogs: Option.Option<Services.UserDialogs["Service"]>
  readonly mcpServers: Services.McpServers["Service"]
}

/**
 * The handlers by request subtype, the hooks' binding (its registrations go in `initialize`) and
 * the in-process MCP servers' connection. `report` tells the session of a handler that failed.
 */
export const bind = Effect.fnUntraced(function*(
  services: HostServices,
  report: (event: HandlerFailure.HandlerFailed) => void,
  /** How long the close waits for in-process MCP tool calls to stop (the session's `closeGrace`). */
  closeGrace?: Duration.Duration
): Effect.fn.Return<{
  readonly handlers: Record<string, Incoming.Handler>
  readonly hooks: Hooks.Bound | undefined
  readonly mcp: McpServers.McpConnection
}, never, Scope.Scope> {
  const { hooks, permissions, elicitation, userDialogs, mcpServers } = services
  const hookBinding = Option.isNone(hooks) ? undefined : (yield* loadHooks).bind(hooks.value, report)
  const dispatchHook = hookBinding !== undefined
    ? hookBinding.dispatch
    : (...args: Parameters<Hooks.Bound["dispatch"]>) =>
      Effect.flatMap(loadHooks, (module) => module.bind(module.empty, report).dispatch(...args))
  const mcp = yield* McpConnection.connect(mcpServers, { closeGrace })
  const handlers: Record<string, Incoming.Handler> = {
    hook_callback: (request, requestId, unreadable) =>
      dispatchHook(
        String(request.callback_id),
        request.input,
        typeof request.tool_use_id === "string" ? request.tool_use_id : undefined,
        requestId,
        unreadable
      ),
    mcp_message: (request) =>
      mcp.handle(String(request.server_name), request.message).pipe(
        Effect.map((response) => ({ mcp_response: response }))
      )
  }
  if (Option.isSome(permissions)) {
    const binding = (yield* loadPermissions).bind(permissions.value, report)
    handlers.can_use_tool = (request, requestId) => binding.decide(request, requestId)
  }
  if (Option.isSome(elicitation)) {
    const binding = (yield* loadElicitation).bind(elicitation.value, report)
    handlers.elicitation = (request, requestId) => binding.respond(request, requestId)
  }
  if (Option.isSome(userDialogs)) {
    const binding = (yield* loadUserDialogs).bind(userDialogs.value, report)
    handlers.request_user_dialog = (request, requestId) => binding.show(request, requestId)
  }
  return { handlers, hooks: hookBinding, mcp }
})
