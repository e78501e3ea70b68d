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
import { isRecord } from "./json.ts"
import * as McpConnection from "./mcpConnection.ts"
import { PermissionRequestGate } from "./permissionRequestGate.ts"
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
 * the in-process MCP servers' connection. `report` tells the session of a handler that failed;
 * `redact` is the session's (its secrets, the account e-mail once known), which takes them out of
 * a failure's text before it is logged, reported or answered.
 */
export const bind = Effect.fnUntraced(function*(
  services: HostServices,
  report: (event: HandlerFailure.HandlerFailed) => void,
  redact: (text: string) => string,
  /** How long the close waits for in-process MCP tool calls to stop (the session's `closeGrace`). */
  closeGrace?: Duration.Duration,
  /**
   * Why a `can_use_tool` answer, or a `PermissionRequest` hook's allow, is not sent: a mode switch
   * in it the session refuses (`ModeGuard.checkAnswer`). The call is denied instead.
   */
  refuseAnswer?: (answer: Record<string, unknown>) => string | undefined,
  /** The tool the model called under a tool use id (`Hooks.bind`'s `toolNameOf`). */
  toolNameOf?: (toolUseId: string) => string | undefined
): Effect.fn.Return<{
  readonly handlers: Record<string, Incoming.Handler>
  readonly hooks: Hooks.Bound | undefined
  readonly mcp: McpServers.McpConnection
}, never, Scope.Scope> {
  const { hooks, permissions, elicitation, userDialogs, mcpServers } = services
  const hooksModule = Option.isNone(hooks) ? undefined : yield* loadHooks
  const hookBinding = hooksModule === undefined || Option.isNone(hooks)
    ? undefined
    : hooksModule.bind(hooks.value, report, redact, toolNameOf)
  // The CLI asks a Permissions handler and the PermissionRequest hooks at once, and takes the
  // first decision: the handler's answer, and a hook's allow, wait for the hooks'
  // (`permissionRequestGate.ts`).
  const gate = hooksModule !== undefined && Option.isSome(hooks)
    ? new PermissionRequestGate(hooks.value.registrations, hooksModule.deadlineOf, refuseAnswer)
    : undefined
  const dispatchHook = hookBinding !== undefined
    ? hookBinding.dispatch
    : (...args: Parameters<Hooks.Bound["dispatch"]>) =>
      Effect.flatMap(loadHooks, (module) => module.bind(module.empty, report, redact).dispatch(...args))
  const mcp = yield* McpConnection.connect(mcpServers, { closeGrace, redact })
  const handlers: Record<string, Incoming.Handler> = {
    hook_callback: (request, requestId, unreadable) => {
      const toolUseId = typeof request.tool_use_id === "string" ? request.tool_use_id : undefined
      // Not a string only in a request the library could not read (`unreadable` says why).
      const callbackId = typeof request.callback_id === "string" ? request.callback_id : undefined
      const dispatched = dispatchHook(callbackId, request.input, toolUseId, requestId, unreadable)
      const event = isRecord(request.input) ? request.input.hook_event_name : undefined
      if (gate === undefined || event !== "PermissionRequest") return dispatched
      return gate.active && toolUseId !== undefined
        ? gate.hook(callbackId, toolUseId, request.input, dispatched)
        : Effect.flatMap(dispatched, (output) => gate.denyIfRefused(output))
    },
    mcp_message: (request) =>
      mcp.handle(String(request.server_name), request.message).pipe(
        Effect.map((response) => ({ mcp_response: response }))
      )
  }
  if (Option.isSome(permissions)) {
    const permissionsModule = yield* loadPermissions
    const binding = permissionsModule.bind(permissions.value, report, redact, refuseAnswer)
    handlers.can_use_tool = (request, requestId) =>
      gate?.active !== true ? binding.decide(request, requestId) : Effect.flatMap(
        gate.decidedBeforeHandler(request),
        // The hooks' decision (a guard's deny or refusal, an allow that rewrites the input) is this
        // answer too: the CLI takes whichever comes first.
        (decided) => decided === undefined ? binding.decide(request, requestId) : Effect.succeed(decided)
      )
  }
  if (Option.isSome(elicitation)) {
    const binding = (yield* loadElicitation).bind(elicitation.value, report, redact)
    handlers.elicitation = (request, requestId) => binding.respond(request, requestId)
  }
  if (Option.isSome(userDialogs)) {
    const binding = (yield* loadUserDialogs).bind(userDialogs.value, report, redact)
    handlers.request_user_dialog = (request, requestId) => binding.show(request, requestId)
  }
  return { handlers, hooks: hookBinding, mcp }
})
