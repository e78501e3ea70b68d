/**
 * The session's named control requests (`setModel`, `stopTask`, those added in 0.2.0 by issue 15):
 * each builds its typed request body, checks what the CLI would take badly (`InvalidInput`, nothing
 * sent) and decodes the answer with its schema (a broken answer is `ProtocolViolation`, an error
 * answer `ControlRejected`).
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Path from "node:path"
import * as ClaudeError from "../ClaudeError.ts"
import * as Launch from "../Launch.ts"
import type * as McpServers from "../McpServers.ts"
import type * as Protocol from "../Protocol.ts"
import * as Control from "../protocol/control.ts"
import * as McpConnection from "./mcpConnection.ts"
import * as McpServerConfigs from "./mcpServerConfigs.ts"
import * as Services from "./services.ts"
import { deadlineProblem } from "./sessionOptionsCheck.ts"

/** The session's per-call options (`Claude.RequestOptions`). */
export interface RequestOptions {
  readonly timeout?: Duration.Input | undefined
}

/** The session's `request` (`Claude.Session["request"]`). */
export type Request = <S extends Schema.Top & { readonly DecodingServices: never }>(
  body: { readonly subtype: string } & Record<string, unknown>,
  responseSchema: S,
  options?: RequestOptions
) => Effect.Effect<S["Type"], ClaudeError.ClaudeError>

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

/**
 * The mode a `set_permission_mode` answer names, as a `Launch.PermissionMode`: the CLI calls
 * `default` `manual` there (as the official SDK reads it); a mode this library does not know is
 * none.
 */
const modeInEffect = (mode: string | undefined): Launch.PermissionMode | undefined => {
  const named = mode === "manual" ? "default" : mode
  return Launch.permissionModes.find((known) => known === named)
}

/**
 * The methods, over the session's `request` and its in-process MCP connection (their public
 * signatures and docs are on `Claude.Session`, which checks them).
 */
export const make = (
  request: Request,
  mcp: McpServers.McpConnection,
  session: {
    /** The names of the secret variables (`Launch.defaultSecretEnv`, the session's `secretEnv`). */
    readonly secretNames: ReadonlyArray<string>
    /** Makes values the session's secrets, before a line holding them is written. */
    readonly addSecrets: (values: ReadonlyArray<string>) => void
    /** Why these in-process servers are not given to the CLI now (`ModeGuard.admit`). */
    readonly servingRefusal: (servers: ReadonlyArray<Services.LaunchEntry>) => Effect.Effect<string | undefined>
  }
) => {
  /** A request answered with a bare acknowledgement. */
  const ack = (body: Protocol.OutgoingRequestBody & { readonly subtype: string }, options: RequestOptions | undefined) =>
    Effect.asVoid(request(body, Control.AcknowledgedResponse, options))
  // The names the last `setMcpServers` the CLI took gave external configs: it replaced the
  // servers of earlier calls and the in-process ones, so an in-process server of such a name is
  // one no more (and it may be reconnected).
  let madeExternal: ReadonlySet<string> = new Set()
  return {
    setModel: (model?: string, options?: RequestOptions): Effect.Effect<string, ClaudeError.ClaudeError> =>
      // A blank name: the CLI refuses "(unrecognized model name)", which does not say why.
      model !== undefined && model.trim() === ""
        ? Effect.fail(invalid("setModel: the model name is empty (undefined or \"default\" goes back to the default)"))
        : Effect.map(
          request({ subtype: "set_model", ...(model === undefined ? {} : { model }) }, Control.SetModelResponse, options),
          // An older CLI names none: the model asked for is the one it switched to (`undefined`:
          // back to the default, which it does not name either).
          (response) => response.model ?? model ?? "default"
        ),
    setPermissionMode: (
      mode: Launch.PermissionMode,
      options?: RequestOptions
    ): Effect.Effect<Launch.PermissionMode | undefined, ClaudeError.ClaudeError> =>
      // A mode that would let a tool run unasked is refused by the session's `request`
      // (`modeGuard.ts`), for this method and the raw request alike.
      Effect.map(
        request({ subtype: "set_permission_mode", mode }, Control.SetPermissionModeResponse, options),
        (response) => modeInEffect(response.mode)
      ),
    mcpStatus: (options?: RequestOptions) => request({ subtype: "mcp_status" }, Control.McpStatusResponse, options),
    contextUsage: (options?: RequestOptions & { readonly detail?: "summary" | "full" }) =>
      request(
        {
          subtype: "get_context_usage",
          ...(options?.detail === undefined ? {} : { detail: options.detail })
        } satisfies Protocol.GetContextUsageRequest,
        Control.ContextUsageResponse,
        options
      ),
    rewindFiles: (userMessageId: string, options?: RequestOptions & { readonly dryRun?: boolean }) =>
      request(
        {
          subtype: "rewind_files",
          user_message_id: userMessageId,
          ...(options?.dryRun === undefined ? {} : { dry_run: options.dryRun })
        },
        Control.RewindFilesResponse,
        options
      ),
    stopTask: (taskId: string, options?: RequestOptions): Effect.Effect<void, ClaudeError.ClaudeError> =>
      // A blank id: the CLI acknowledges it (as any unknown id) and stops nothing.
      taskId.trim() === ""
        ? Effect.fail(invalid("stopTask: the task id is empty"))
        : Effect.asVoid(request({ subtype: "stop_task", task_id: taskId }, Control.StopTaskResponse, options)),
    setMcpServers: <const Servers extends ReadonlyArray<McpServers.Server<unknown>> = readonly []>(
      servers: { readonly [name: string]: Launch.McpExternalServer },
      options?: RequestOptions & { readonly inProcess?: Servers }
    ): Effect.Effect<
      Protocol.McpSetServersResponse,
      ClaudeError.ClaudeError,
      Exclude<McpServers.Server.Services<Servers[number]>, Scope.Scope>
    > =>
      Effect.gen(function*() {
        // Checked before anything is served: a refused call changes nothing.
        const timeoutProblem = options?.timeout === undefined ? undefined : deadlineProblem("timeout", options.timeout)
        if (timeoutProblem !== undefined) return yield* invalid(`Invalid request options: ${timeoutProblem}`)
        const inProcess = options?.inProcess ?? []
        const registered = yield* McpConnection.registerAll(inProcess)
        const sdk: Record<string, Protocol.McpSdkServerConfig> = {}
        for (const server of registered) {
          if (Object.hasOwn(servers, server.name)) {
            return yield* invalid(`MCP server "${server.name}" is named both in servers and in inProcess`)
          }
          sdk[server.name] = { type: "sdk", name: server.name, ...(server.alwaysLoad ? { alwaysLoad: true } : {}) }
        }
        // CLI 2.1.332 fails a stdio server without `args` here ("Spread syntax requires ...iterable
        // not be null or undefined"), though it takes one at launch: `args: []`, as the launch reads it.
        const external: Record<string, Protocol.McpExternalServerConfig> = {}
        const revealed = Predicate.isObject(servers) ? McpServerConfigs.reveal(servers) : {}
        for (const [name, config] of Object.entries(revealed)) {
          if (name.length === 0) return yield* invalid("an MCP server name must not be empty")
          // Not an object (from JavaScript): refused below, by the launch option's checks.
          if (!Predicate.isObject(config)) continue
          const stdio = config.type === undefined || config.type === "stdio"
          if (stdio && config.command === "") return yield* invalid(`MCP server "${name}": command must not be empty`)
          external[name] = stdio && config.args === undefined ? { ...config, args: [] } : config
          if ((config.type === "sse" || config.type === "http") && !URL.canParse(config.url)) {
            return yield* invalid(`MCP server "${name}": url is not a URL: ${config.url}`)
          }
        }
        // The checks of the launch option `mcpServers` (a stdio, SSE or HTTP config, its command, an
        // http(s) URL, `args`, `env` and `headers` of strings): CLI 2.1.332 takes a config that
        // fails them, and fails the server with an error that does not name what is wrong.
        yield* Launch.validate({ mcpServers: servers }).pipe(
          Effect.mapError((error) =>
            error.reason._tag === "InvalidInput"
              ? ClaudeError.make(new ClaudeError.InvalidInput({
                description: error.reason.description.replace(/^Invalid launch options: /, "setMcpServers: ")
              }))
              : error
          )
        )
        // Last of the checks: an admitted tool that needs approval counts from here on.
        const refusal = yield* session.servingRefusal(registered.map(Services.launchEntry))
        if (refusal !== undefined) return yield* invalid(`setMcpServers: ${refusal}`)
        // Their secrets are the session's before the line that holds them is written.
        session.addSecrets(McpServerConfigs.secretsOf(servers, session.secretNames))
        // Served before the CLI hears of them: its first mcp_message may come before its answer.
        yield* mcp.add(registered)
        const body: Protocol.McpSetServersRequest = { subtype: "mcp_set_servers", servers: { ...external, ...sdk } }
        const answer = yield* request(body, Control.McpSetServersResponse, options)
        madeExternal = new Set(Object.keys(external))
        // The CLI closed its client for those: their running calls end here too.
        yield* mcp.interruptCalls(answer.removed)
        return answer
      }),
    reconnectMcpServer: (serverName: string, options?: RequestOptions) =>
      // Decided when it runs: `setMcpServers` may have changed what the name is since it was made.
      Effect.suspend(() =>
        mcp.serves(serverName) && !madeExternal.has(serverName)
          // CLI 2.1.332 refuses it with an internal error ("SDK servers should be handled in print.ts").
          ? invalid(
            `"${serverName}" is one of the session's in-process MCP servers, which the CLI cannot reconnect: ` +
              `toggleMcpServer("${serverName}", false) then toggleMcpServer("${serverName}", true) restarts it`
          )
          : ack({ subtype: "mcp_reconnect", serverName } satisfies Protocol.McpReconnectRequest, options)
      ),
    toggleMcpServer: (serverName: string, enabled: boolean, options?: RequestOptions) =>
      ack({ subtype: "mcp_toggle", serverName, enabled } satisfies Protocol.McpToggleRequest, options).pipe(
        // Disabled, the CLI closed its client: its running calls end here too.
        Effect.andThen(enabled ? Effect.void : mcp.interruptCalls([serverName]))
      ),
    readMcpResource: (serverName: string, uri: string, options?: RequestOptions) =>
      request(
        { subtype: "mcp_read_resource", serverName, uri } satisfies Protocol.McpReadResourceRequest,
        Control.McpReadResourceResponse,
        options
      ),
    setMcpPermissionModeOverride: (serverName: string, mode: "default" | "auto" | null, options?: RequestOptions) =>
      request(
        { subtype: "set_mcp_permission_mode_override", serverName, mode } satisfies Protocol.SetMcpPermissionModeOverrideRequest,
        Control.McpPermissionModeOverrideResponse,
        options
      ),
    setMaxThinkingTokens: (
      maxThinkingTokens: number | null,
      options?: RequestOptions & { readonly display?: "summarized" | "omitted" | "highlights" | null }
    ): Effect.Effect<void, ClaudeError.ClaudeError> =>
      maxThinkingTokens !== null && (!Number.isSafeInteger(maxThinkingTokens) || maxThinkingTokens < 0)
        ? invalid(`maxThinkingTokens must be a non-negative integer or null, got ${maxThinkingTokens}`)
        : ack(
          {
            subtype: "set_max_thinking_tokens",
            max_thinking_tokens: maxThinkingTokens,
            ...(options?.display === undefined ? {} : { thinking_display: options.display })
          } satisfies Protocol.SetMaxThinkingTokensRequest,
          options
        ),
    interruptRequest: (options?: RequestOptions & { readonly cancelQueued?: boolean }) =>
      request(
        {
          subtype: "interrupt",
          ...(options?.cancelQueued === undefined ? {} : { cancel_queued: options.cancelQueued })
        } satisfies Protocol.InterruptRequest,
        Control.InterruptResponse,
        options
      ),
    renameSession: (
      title: string,
      options?: RequestOptions & { readonly source?: "host" | "remote"; readonly sessionId?: string }
    ): Effect.Effect<void, ClaudeError.ClaudeError> =>
      title.trim().length === 0
        ? invalid("a session title must not be empty")
        : ack(
          {
            subtype: "rename_session",
            title,
            source: options?.source ?? "host",
            ...(options?.sessionId === undefined ? {} : { session_id: options.sessionId })
          } satisfies Protocol.RenameSessionRequest,
          options
        ),
    reloadPlugins: (
      options?: RequestOptions & {
        readonly holdOnCacheImpact?: boolean
        readonly addPlugins?: ReadonlyArray<string>
        readonly refuseIfBusy?: boolean
      }
    ): Effect.Effect<Protocol.ReloadPluginsResponse, ClaudeError.ClaudeError> => {
      const relative = options?.addPlugins?.find((path) => !Path.isAbsolute(path))
      if (relative !== undefined) return invalid(`reloadPlugins: addPlugins takes absolute paths, got ${relative}`)
      return request(
        {
          subtype: "reload_plugins",
          ...(options?.holdOnCacheImpact === true ? { hold_on_cache_impact: true } : {}),
          ...(options?.addPlugins !== undefined && options.addPlugins.length > 0
            ? { add_plugins: options.addPlugins.map((path) => ({ type: "local" as const, path })) }
            : {}),
          ...(options?.refuseIfBusy === true ? { refuse_if_busy: true } : {})
        } satisfies Protocol.ReloadPluginsRequest,
        Control.ReloadPluginsResponse,
        options
      )
    },
    reloadSkills: (options?: RequestOptions) =>
      request({ subtype: "reload_skills" } satisfies Protocol.ReloadSkillsRequest, Control.ReloadSkillsResponse, options),
    reloadOutputStyles: (options?: RequestOptions) =>
      request(
        { subtype: "reload_output_styles" } satisfies Protocol.ReloadOutputStylesRequest,
        Control.ReloadOutputStylesResponse,
        options
      ),
    applyFlagSettings: (settings: { readonly [key: string]: unknown }, options?: RequestOptions) =>
      // CLI 2.1.332 acknowledges an `effortLevel` that is no level and drops it (the effort stays).
      // `null` clears it; `undefined` is not written, so it changes nothing.
      Predicate.isObject(settings) && settings.effortLevel != null &&
        !Launch.effortLevels.some((level) => level === settings.effortLevel)
        ? invalid(
          `applyFlagSettings: effortLevel must be one of ${Launch.effortLevels.join(", ")} or null, ` +
            `got ${JSON.stringify(settings.effortLevel) ?? String(settings.effortLevel)}`
        )
        : ack({ subtype: "apply_flag_settings", settings } satisfies Protocol.ApplyFlagSettingsRequest, options),
    settings: (options?: RequestOptions) =>
      request({ subtype: "get_settings" } satisfies Protocol.GetSettingsRequest, Control.SettingsResponse, options),
    backgroundTasks: (options?: RequestOptions & { readonly toolUseId?: string }) =>
      Effect.map(
        request(
          {
            subtype: "background_tasks",
            ...(options?.toolUseId === undefined ? {} : { tool_use_id: options.toolUseId })
          } satisfies Protocol.BackgroundTasksRequest,
          Control.BackgroundTasksResponse,
          options
        ),
        (response) => response.backgrounded ?? true
      ),
    seedReadState: (
      path: string,
      mtime: number,
      options?: RequestOptions
    ): Effect.Effect<void, ClaudeError.ClaudeError> =>
      !Number.isFinite(mtime) || mtime < 0
        ? invalid(`seedReadState: mtime must be a non-negative number of milliseconds, got ${mtime}`)
        : ack({ subtype: "seed_read_state", path, mtime: Math.floor(mtime) } satisfies Protocol.SeedReadStateRequest, options),
    usage: (options?: RequestOptions & { readonly skipBehaviors?: boolean }) =>
      request(
        { subtype: "get_usage", ...(options?.skipBehaviors === true ? { skip_behaviors: true } : {}) } satisfies Protocol.GetUsageRequest,
        Control.UsageResponse,
        options
      ),
    updateSettings: (
      source: "localSettings" | "userSettings",
      settings: { readonly [key: string]: string },
      options?: RequestOptions
    ) => ack({ subtype: "update_settings", source, settings } satisfies Protocol.UpdateSettingsRequest, options),
    readFile: (
      path: string,
      options?: RequestOptions & { readonly maxBytes?: number; readonly encoding?: "utf-8" | "base64" }
    ): Effect.Effect<Protocol.ReadFileResponse, ClaudeError.ClaudeError> =>
      options?.maxBytes !== undefined && (!Number.isSafeInteger(options.maxBytes) || options.maxBytes <= 0)
        ? invalid(`readFile: maxBytes must be a positive integer, got ${options.maxBytes}`)
        : request(
          {
            subtype: "read_file",
            path,
            ...(options?.maxBytes === undefined ? {} : { max_bytes: options.maxBytes }),
            ...(options?.encoding === undefined ? {} : { encoding: options.encoding })
          } satisfies Protocol.ReadFileRequest,
          Control.ReadFileResponse,
          options
        ),
    sideQuestion: (question: string, options?: RequestOptions): Effect.Effect<string | null, ClaudeError.ClaudeError> =>
      question.trim().length === 0
        ? invalid("sideQuestion: the question must not be empty")
        : Effect.map(
          request({ subtype: "side_question", question } satisfies Protocol.SideQuestionRequest, Control.SideQuestionResponse, options),
          (answer) => answer.response
        ),
    status: (options?: RequestOptions) =>
      request({ subtype: "get_status" } satisfies Protocol.GetStatusRequest, Control.StatusResponse, options),
    exportConversation: (options?: RequestOptions) =>
      request(
        { subtype: "export_conversation" } satisfies Protocol.ExportConversationRequest,
        Control.ExportConversationResponse,
        options
      ),
    listModels: (options?: RequestOptions) =>
      Effect.map(
        request({ subtype: "list_models" } satisfies Protocol.ListModelsRequest, Control.ListModelsResponse, options),
        (response) => response.models
      )
  }
}
