/**
 * In-process MCP servers: tools written as Effects that the `claude` CLI calls over its control
 * channel (`mcp_message` requests for `"type": "sdk"` servers in `--mcp-config`).
 *
 * - {@link tool} and {@link server} describe tools and servers; {@link toolkit} makes a server of an
 *   `effect/ai` `Toolkit` (one tool definition for a `LanguageModel` and a Claude Code session);
 *   {@link layer} registers servers in the {@link McpServers} service, capturing the services the
 *   tools need (a toolkit's handlers from `toolkit.toLayer(...)`).
 * - {@link launchEntries} gives the session the `--mcp-config` entries.
 * - {@link connect} opens the JSON-RPC side for one CLI process: the session hands every
 *   `mcp_message` to {@link McpConnection.handle} and writes the answer back as
 *   `{"mcp_response": <answer>}`.
 *
 * Why not `effect/ai`'s `McpServer` (Effect 4.1, `@stability unstable`): it serves ONE server per
 * `McpServer` service over a push-shaped `RpcServer.Protocol` (`run` feeds messages in, `send`
 * pushes answers out, a notification gets no answer at all). Here every incoming message is one
 * control request that must get exactly one answer, notifications included (an unanswered one
 * stalls the CLI for a minute, `d5`), and one session carries several servers. Bridging would take
 * a custom `Protocol` per server that parses JSON-RPC through `RpcSerialization`, correlates each
 * pushed answer back to its control request by JSON-RPC id and acks notifications itself: as much
 * code as this dispatcher, on top of an unstable API. Its own cancellation (an `Interrupt` for
 * `notifications/cancelled`) would work, but so does a `FiberMap` keyed by server and JSON-RPC id.
 * The RPC, HTTP, session-runtime, resource, prompt and elicitation machinery (about 11,000 lines
 * of `effect/ai/Mcp*` sources, none of it used: only tools are served) stays out of the bundle.
 * The JSON Schema of a tool's input comes from `Schema.toJsonSchemaDocument`, as in `effect/ai`.
 *
 * The measure, redone for `effect/ai` toolkits (0.2.0): serving a `Toolkit` here takes the
 * {@link toolkit} adapter (about 90 lines: each tool becomes a {@link Tool} whose call goes through
 * `Toolkit.handle`), and reuses the dispatcher as it is (`connect`, 136 lines, plus 294 lines of
 * JSON-RPC shapes in `internal/mcpJsonRpc.ts`). Serving `McpServer.toolkit` instead would need,
 * per server, an `McpServer.layer` with an `McpProtocol` adapter over a hand-made
 * `RpcServer.Protocol` (its nine members; Effect's own stdio protocol alone is 56 lines with its
 * framing done elsewhere), a table correlating each pushed answer to the control request that
 * waits for it, and acks for notifications: an estimated 150 to 200 lines of bridge, which would
 * save at most the 136 lines of `connect` (the JSON-RPC shapes stay for {@link tool}, whose
 * handlers return content blocks and decode through `Schema.toCodecJson`, unlike `Toolkit.handle`),
 * and would put about 10,000 lines of unstable sources (`McpServer`, `McpSchema`, `RpcServer`,
 * `RpcSerialization`) in the bundle. Resources, prompts and elicitation, the part of `McpServer`
 * this library lacks, are not what a session's in-process servers are used for. So the toolkit is
 * the thin adapter, onto the one dispatcher; {@link tool} stays as it is (making it a constructor
 * of an `effect/ai` `Tool` would change how its arguments decode and what its handler returns).
 *
 * @since 0.1.0
 */
import * as AiError from "effect/ai/AiError"
import * as AiTool from "effect/ai/Tool"
import * as AiToolkit from "effect/ai/Toolkit"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import type * as JsonSchema from "effect/JsonSchema"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as ClaudeError from "./ClaudeError.ts"
import { describeCause, describeError } from "./internal/describeCause.ts"
import { effectOf, redactCause } from "./internal/handlerCall.ts"
import { jsonWriteError } from "./internal/json.ts"
import * as Rpc from "./internal/mcpJsonRpc.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { McpServers } from "./internal/services.ts"

// -----------------------------------------------------------------------------
// Tool results
// -----------------------------------------------------------------------------

/**
 * A text block of a tool result.
 *
 * @since 0.1.0
 * @category models
 */
export type TextContent = typeof Rpc.TextContent.Type

/**
 * An image block of a tool result: base64 `data` and its `mimeType` (`image/png`, …).
 *
 * @since 0.1.0
 * @category models
 */
export type ImageContent = typeof Rpc.ImageContent.Type

/**
 * One block of a tool result.
 *
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = TextContent | ImageContent

/**
 * A full MCP tool result, as sent on the wire. `structuredContent` is an optional JSON object
 * next to the blocks; `isError: true` reports a failure the model should see (the CLI shows
 * the blocks to the model as an erroring tool result). With `structuredContent` and no `isError`,
 * CLI 2.1.332 gives the model the JSON text of `structuredContent` in place of the text blocks
 * (image blocks still go); the program sees it in the `user` event's `tool_use_result`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResult = Rpc.CallToolResult

/**
 * What a tool handler returns: a string (one text block), one block, several blocks, or a full
 * {@link ToolResult}.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolContent = string | ContentBlock | ReadonlyArray<ContentBlock> | ToolResult

/**
 * A text block.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): TextContent => ({ type: "text", text })

/**
 * An image block. `data` is the image bytes, or already base64-encoded text (not a `data:` URL:
 * the CLI refuses a whole result with an image it cannot read as base64, so such a result is the
 * tool's defect, answered "Tool <name> failed: …" and logged).
 *
 * @since 0.1.0
 * @category constructors
 */
export const image = (options: {
  /** The image bytes, or their base64 text. */
  readonly data: Uint8Array | string
  /** The image's media type (`image/png`, …). */
  readonly mimeType: string
}): ImageContent => ({
  type: "image",
  data: Predicate.isString(options.data) ? options.data : Base64.encode(options.data),
  mimeType: options.mimeType
})

/**
 * A result carrying `structuredContent`, with the JSON text of the value as its text block (MCP
 * asks for both, for clients that only read blocks), or `options.text` instead. The model reads
 * the value's JSON either way: CLI 2.1.332 sends it in place of the text block (see
 * {@link ToolResult}), so `options.text` reaches only clients that read the blocks.
 *
 * @since 0.1.0
 * @category constructors
 */
export const structured = (
  value: Readonly<Record<string, unknown>>,
  options?: {
    /** The text block to send instead of the value's JSON (the CLI's model reads the JSON). */
    readonly text?: string | undefined
  }
): ToolResult => ({
  content: [{ type: "text", text: options?.text ?? JSON.stringify(value) }],
  structuredContent: value
})

// -----------------------------------------------------------------------------
// Tools and servers
// -----------------------------------------------------------------------------

/**
 * MCP tool annotations: hints for the client, never enforced.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolAnnotations {
  /** A human-readable title for the tool. */
  readonly title?: string | undefined
  /** The tool does not change its environment (MCP's default: `false`). */
  readonly readOnlyHint?: boolean | undefined
  /** The tool may destroy or overwrite, not only add (MCP's default: `true`; only for a tool that writes). */
  readonly destructiveHint?: boolean | undefined
  /** Calling it again with the same arguments has no further effect (MCP's default: `false`). */
  readonly idempotentHint?: boolean | undefined
  /** The tool reaches an open world of outside entities, such as the web (MCP's default: `true`). */
  readonly openWorldHint?: boolean | undefined
}

/**
 * Why a tool call produced no content: its arguments did not decode (`message` is the Schema's
 * readable message), or its handler failed with `error`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolCallFailure =
  | {
    /** The arguments did not decode with the tool's input schema. */
    readonly _tag: "InvalidArguments"
    /** The Schema's readable message. */
    readonly message: string
  }
  | {
    /** The handler failed. */
    readonly _tag: "HandlerFailed"
    /** The handler's typed failure. */
    readonly error: unknown
  }

const ToolTypeId = "~effect-claude-code/McpServers/Tool"

/**
 * A tool, made by {@link tool}. `R` is what its handler (and input decoding) needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<out R = never> {
  /** Marks a value made by {@link tool}. */
  readonly [ToolTypeId]: typeof ToolTypeId
  /**
   * The tool's name, unique within its server (the model sees `mcp__<server>__<name>`, every
   * character but letters, digits, `_` and `-` as `_`: names the model could not tell apart are
   * refused when the layer is built).
   */
  readonly name: string
  /** What the tool does, for the model. */
  readonly description: string
  /** The input schema, as given. */
  readonly input: Schema.Constraint
  /** MCP tool annotations, as given. */
  readonly annotations: ToolAnnotations | undefined
  /**
   * The JSON Schema `tools/list` advertises, when given as such (an `effect/ai` dynamic tool's);
   * otherwise it is derived from {@link Tool.input}.
   *
   * @since 0.2.0
   */
  readonly inputSchema?: JsonSchema.JsonSchema | undefined
  /**
   * Each call needs the user's approval (an `effect/ai` tool's `needsApproval`): the library
   * never allows it ahead, so the CLI asks the session's `Permissions` for it (with none, it
   * refuses the call), and a session refuses a permission mode that asks no one
   * (`bypassPermissions`, `auto`) while it serves the tool. A rule of the program's own that
   * allows it (`allowedTools`, the settings' `permissions.allow`) is the program's decision, and
   * the CLI then asks no one.
   *
   * @since 0.2.0
   */
  readonly needsApproval?: boolean | undefined
  /**
   * Decodes raw `tools/call` arguments with the input schema, then runs the handler. `meta` carries
   * what the CLI said about the call (the model's `tool_use` id).
   */
  readonly call: (args: unknown, meta?: CallMeta) => Effect.Effect<ToolContent, ToolCallFailure, R>
}

/**
 * What the CLI tells about one `tools/call` besides its arguments.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallMeta {
  /** The id of the model's `tool_use` block this call answers (`_meta["claudecode/toolUseId"]`). */
  readonly toolUseId: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace Tool {
  /**
   * The services a tool needs.
   *
   * @since 0.1.0
   * @category models
   */
  export type Services<T> = T extends Tool<infer R> ? R : never
}

/**
 * Defines a tool.
 *
 * `input` must describe a JSON object (a `Schema.Struct`, possibly with an `identifier` or
 * recursion): its JSON Schema is what `tools/list` advertises, and the `tools/call` arguments are
 * decoded with `Schema.toCodecJson(input)`, the codec that JSON Schema describes. Prefer
 * `Schema.Finite`/`Schema.Int` over `Schema.Number` (whose JSON form also admits `"NaN"` and
 * `"Infinity"` strings).
 *
 * Arguments that do not decode give the model an erroring result with the Schema's message. A
 * typed failure of the handler gives an erroring result with the error's `message`; a defect
 * gives "Tool <name> failed: …" and is logged with `Effect.logError`. The handler may use `Scope`:
 * each call has its own, closed when the call ends or is cancelled.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import { McpServers } from "effect-claude-code"
 *
 * const echo = McpServers.tool({
 *   name: "echo",
 *   description: "Echo the given text back.",
 *   input: Schema.Struct({ text: Schema.String }),
 *   handler: ({ text }) => Effect.succeed(`echo: ${text}`)
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <S extends Schema.Constraint, E = never, R = never>(options: {
  /**
   * The tool's name, unique within its server (the model sees `mcp__<server>__<name>`, every
   * character but letters, digits, `_` and `-` as `_`: names the model could not tell apart are
   * refused when the layer is built).
   */
  readonly name: string
  /** What the tool does, for the model. */
  readonly description: string
  /** The schema of the arguments: a JSON object; its JSON Schema is what `tools/list` advertises. */
  readonly input: S
  /** MCP tool annotations (`readOnlyHint`, `destructiveHint`, …). */
  readonly annotations?: ToolAnnotations | undefined
  /** Each call needs the user's approval (see {@link Tool.needsApproval}). */
  readonly needsApproval?: boolean | undefined
  /** Runs one call with the decoded arguments; its value becomes the tool result. */
  readonly handler: (input: S["Type"]) => Effect.Effect<ToolContent, E, R>
}): Tool<R | S["DecodingServices"]> => {
  const decode = decodingJson(() => options.input)
  return {
    [ToolTypeId]: ToolTypeId,
    name: options.name,
    description: options.description,
    input: options.input,
    annotations: options.annotations,
    ...(options.needsApproval === true ? { needsApproval: true } : {}),
    call: (args) =>
      decode(args).pipe(
        Effect.mapError((error): ToolCallFailure => ({ _tag: "InvalidArguments", message: error.message })),
        Effect.flatMap((input) =>
          Effect.mapError(
            effectOf(options.handler(input), `handler of the MCP tool ${options.name}`),
            (error): ToolCallFailure => ({ _tag: "HandlerFailed", error })
          )
        )
      )
  }
}

const jsonDecoder = <S extends Schema.Constraint>(schema: S) =>
  Schema.decodeUnknownEffect(Schema.toCodecJson(schema), { errors: "all" })

/**
 * Decodes a tool's arguments with the JSON codec of `schema()`, the form `tools/list` advertises;
 * the codec is made at the first call, not when the tool is defined: `Schema.toCodecJson` throws on
 * a schema JSON cannot carry (a symbol property name), and `layer` refuses such a tool first, as a
 * defect naming the tool and its server (its JSON Schema cannot be made either,
 * `Rpc.inputJsonSchema`).
 */
const decodingJson = <S extends Schema.Constraint>(schema: () => S) => {
  let decode: ReturnType<typeof jsonDecoder<S>> | undefined
  return (args: unknown): ReturnType<ReturnType<typeof jsonDecoder<S>>> =>
    Effect.suspend(() => (decode ??= jsonDecoder(schema()))(args))
}

const ServerTypeId = "~effect-claude-code/McpServers/Server"

/**
 * An in-process MCP server, made by {@link server}. `R` is what its tools need.
 *
 * @since 0.1.0
 * @category models
 */
export interface Server<out R = never> {
  /** Marks a value made by {@link server}. */
  readonly [ServerTypeId]: typeof ServerTypeId
  /**
   * The name in `--mcp-config`; the model sees the tools as `mcp__<name>__<tool>`, every character
   * but letters, digits, `_` and `-` as `_` (a server whose tools the model could not tell from
   * another's is refused when the layer is built).
   */
  readonly name: string
  /** The version reported in `serverInfo` of the `initialize` result (default `"1.0.0"`). */
  readonly version: string
  /** Put the tools in the prompt from the first turn instead of behind the CLI's `ToolSearch`. */
  readonly alwaysLoad: boolean
  /** Sent as `instructions` in the `initialize` result when set. */
  readonly instructions: string | undefined
  /** The server's tools, in the order `tools/list` gives them. */
  readonly tools: ReadonlyArray<Tool<R>>
}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace Server {
  /**
   * The services a server's tools need.
   *
   * @since 0.1.0
   * @category models
   */
  export type Services<T> = T extends Server<infer R> ? R : never
}

/**
 * Defines a server. `version` defaults to `"1.0.0"`, `alwaysLoad` to `false` (the CLI then hides
 * the tools behind `ToolSearch` until the model looks them up).
 *
 * @since 0.1.0
 * @category constructors
 */
export const server = <const Tools extends ReadonlyArray<Tool<unknown>>>(
  name: string,
  options: {
    /** The server's tools. */
    readonly tools: Tools
    /** Puts the server's tools in the first prompt instead of behind tool search. */
    readonly alwaysLoad?: boolean | undefined
    /** The version the server reports in `initialize` (default `"1.0.0"`). */
    readonly version?: string | undefined
    /** Instructions the server gives the model in `initialize`. */
    readonly instructions?: string | undefined
  }
): Server<Tool.Services<Tools[number]>> => ({
  [ServerTypeId]: ServerTypeId,
  name,
  version: options.version ?? "1.0.0",
  alwaysLoad: options.alwaysLoad ?? false,
  instructions: options.instructions,
  tools: options.tools as ReadonlyArray<Tool<Tool.Services<Tools[number]>>>
})

// -----------------------------------------------------------------------------
// The service
// -----------------------------------------------------------------------------

/**
 * A tool as registered by {@link layer}: its advertised JSON Schema, and `call`, which decodes
 * the arguments, runs the handler in the services captured when the layer was built and turns
 * every outcome but interruption into a {@link ToolResult}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RegisteredTool {
  /** The tool's name, as in {@link Tool.name}. */
  readonly name: string
  /** What the tool does, for the model. */
  readonly description: string
  /** The JSON Schema of the input, as `tools/list` advertises it. */
  readonly inputSchema: JsonSchema.JsonSchema
  /** MCP tool annotations, sent in `tools/list` when set. */
  readonly annotations: ToolAnnotations | undefined
  /**
   * Each call needs the user's approval ({@link Tool.needsApproval}).
   *
   * @since 0.2.0
   */
  readonly needsApproval?: boolean | undefined
  /**
   * Runs one `tools/call` with its raw arguments: every outcome but interruption is a
   * {@link ToolResult} (`isError: true` for bad arguments or a failed handler).
   */
  readonly call: (args: unknown, meta?: CallMeta) => Effect.Effect<ToolResult>
}

/**
 * A server as registered by {@link layer}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RegisteredServer {
  /** The server's name, unique among the registered servers. */
  readonly name: string
  /** The version reported in `serverInfo` of the `initialize` result. */
  readonly version: string
  /** Put the tools in the prompt from the first turn instead of behind the CLI's `ToolSearch`. */
  readonly alwaysLoad: boolean
  /** Sent as `instructions` in the `initialize` result when set. */
  readonly instructions: string | undefined
  /** The registered tools, in the definition's order. */
  readonly tools: ReadonlyArray<RegisteredTool>
  /** The definition it was registered from (registering the same one twice is a no-op). */
  readonly definition: Server<unknown>
}

/**
 * No servers: what a session uses when there is no `McpServers` in its context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: McpServers["Service"] = { servers: [] }

/**
 * The `McpServers` in context, or {@link empty}.
 *
 * @since 0.1.0
 * @category accessors
 */
export const current: Effect.Effect<McpServers["Service"]> = Effect.suspend(() =>
  Effect.map(Effect.serviceOption(McpServers), Option.getOrElse(() => empty))
)

/**
 * Registers servers. The layer captures the services the tools need when it is built and
 * provides them to every call, so handlers use the application's own services.
 *
 * Layers add up: a layer built where an `McpServers` already exists keeps its servers and adds
 * its own. So `Effect.provide(a)` then `Effect.provide(b)`, `Layer.provideMerge(a, b)` and
 * `Layer.provide(a, b)` all give the servers of both. (`Layer.merge(a, b)` builds the two side by
 * side, so one hides the other: pass several servers to one `layer` call instead.)
 *
 * Registering a server whose name is already taken by another definition, a server with two tools
 * of the same name, or a tool whose input is not an object schema is a defect when the layer is
 * built: these are programming errors. Registering the same definition twice is a no-op.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <const Servers extends ReadonlyArray<Server<unknown>>>(
  ...servers: Servers
): Layer.Layer<McpServers, never, Exclude<Server.Services<Servers[number]>, Scope.Scope>> =>
  Layer.effect(
    McpServers,
    Effect.gen(function*() {
      // The build-time span and scope are left out: calls get the caller's span and their own scope.
      const context = Context.omit(Tracer.ParentSpan, Scope.Scope)(
        yield* Effect.context<Exclude<Server.Services<Servers[number]>, Scope.Scope>>()
      )
      const existing = Option.getOrElse(yield* Effect.serviceOption(McpServers), () => empty)
      const registered = yield* registerEach(servers, existing.servers, context as Context.Context<unknown>).pipe(
        // A programming error in the layer's own definitions: a defect, as before it was built.
        Effect.catch((problem) => Effect.die(new Error(`McpServers: ${problem}`)))
      )
      return McpServers.of({ servers: registered })
    })
  )

/**
 * A server's or a tool's name as the model and `allowedTools` see it: CLI 2.1.332 writes
 * `mcp__<server>__<tool>` with every character but letters, digits, `_` and `-` replaced by `_`.
 *
 * @since 0.2.0
 * @category names
 */
export const modelFacing = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_")

const modelFacingRule = "the CLI replaces every character but letters, digits, \"_\" and \"-\" with \"_\""

/**
 * Why `servers` cannot be served together, or undefined when they can: two different servers of
 * one name, or two tools the model would see under one name (every character of a server's or a
 * tool's name but letters, digits, `_` and `-` becomes `_`). What {@link layer} and a session's
 * `setMcpServers` refuse; for servers put together another way (`ClaudeCodeLanguageModel`'s
 * toolkit beside the context's servers).
 *
 * @since 0.2.0
 * @category checks
 */
export const namesProblem = (servers: ReadonlyArray<RegisteredServer>): string | undefined => {
  const byName = new Map<string, RegisteredServer>()
  for (const server of servers) {
    const taken = byName.get(server.name)
    if (taken !== undefined && taken.definition !== server.definition) {
      return `two different servers are named "${server.name}"; server names must be unique`
    }
    byName.set(server.name, server)
  }
  return modelNameClash([...byName.values()])
}

/**
 * Why two of `servers`' tools would reach the model under one name (`a.b`'s `echo` and `a_b`'s,
 * or server `a`'s `b__c` and `a__b`'s `c`), where its call would run one of them; undefined when
 * none would.
 */
const modelNameClash = (servers: ReadonlyArray<RegisteredServer>): string | undefined => {
  const seen = new Map<string, string>()
  for (const server of servers) {
    for (const tool of server.tools) {
      const name = `mcp__${modelFacing(server.name)}__${modelFacing(tool.name)}`
      const other = seen.get(name)
      const which = `tool "${tool.name}" of server "${server.name}"`
      if (other !== undefined && other !== which) {
        return `${other} and ${which} reach the model as one tool, "${name}" (${modelFacingRule}): rename one`
      }
      seen.set(name, which)
    }
  }
  return undefined
}

/**
 * Registers server definitions as {@link layer} does (the same checks), with the services of the
 * caller's context, and returns them: what a session's `setMcpServers` adds. A definition
 * {@link layer} would refuse as a defect (an empty name, two tools of one name, two servers of
 * one name, names the model would see as one, an input that is not an object schema) fails
 * with `InvalidInput` naming it.
 *
 * @since 0.2.0
 * @category constructors
 */
export const registerAll = <const Servers extends ReadonlyArray<Server<unknown>>>(
  servers: Servers
): Effect.Effect<
  ReadonlyArray<RegisteredServer>,
  ClaudeError.ClaudeError,
  Exclude<Server.Services<Servers[number]>, Scope.Scope>
> =>
  Effect.gen(function*() {
    // The caller's span and scope are left out, as by `layer`.
    const context = Context.omit(Tracer.ParentSpan, Scope.Scope)(
      yield* Effect.context<Exclude<Server.Services<Servers[number]>, Scope.Scope>>()
    )
    return yield* registerEach(servers, [], context as Context.Context<unknown>).pipe(
      Effect.mapError((problem) =>
        ClaudeError.make(new ClaudeError.InvalidInput({ description: `MCP servers: ${problem}` }))
      )
    )
  })

/** `definitions` registered after `existing`; fails with what is wrong with them. */
const registerEach = Effect.fnUntraced(function*(
  definitions: ReadonlyArray<Server<unknown>>,
  existing: ReadonlyArray<RegisteredServer>,
  context: Context.Context<unknown>
) {
  const registered = [...existing]
  for (const definition of definitions) {
    const taken = registered.find((server) => server.name === definition.name)
    if (taken !== undefined) {
      if (taken.definition === definition) continue
      return yield* Effect.fail(`two different servers are named "${definition.name}"; server names must be unique`)
    }
    registered.push(yield* register(definition, context))
  }
  const clash = modelNameClash(registered)
  if (clash !== undefined) return yield* Effect.fail(clash)
  return registered
})

const register = Effect.fnUntraced(function*(
  definition: Server<unknown>,
  context: Context.Context<unknown>
) {
  if (definition.name.length === 0) {
    return yield* Effect.fail("a server name must not be empty")
  }
  const tools: Array<RegisteredTool> = []
  for (const tool of definition.tools) {
    if (tool.name.length === 0) {
      return yield* Effect.fail(`server "${definition.name}" has a tool with an empty name`)
    }
    if (tools.some((registered) => registered.name === tool.name)) {
      return yield* Effect.fail(`server "${definition.name}" has two tools named "${tool.name}"`)
    }
    const alike = tools.find((registered) => modelFacing(registered.name) === modelFacing(tool.name))
    if (alike !== undefined) {
      return yield* Effect.fail(
        `server "${definition.name}" has tools "${alike.name}" and "${tool.name}", which the model sees as one: ` +
          `"${modelFacing(tool.name)}" (${modelFacingRule})`
      )
    }
    const inputSchema = tool.inputSchema !== undefined
      ? Rpc.objectJsonSchema(tool.inputSchema)
      : Rpc.inputJsonSchema(tool.input)
    if (Result.isFailure(inputSchema)) {
      return yield* Effect.fail(`tool "${tool.name}" of server "${definition.name}": ${inputSchema.failure}`)
    }
    tools.push({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchema.success,
      annotations: tool.annotations,
      ...(tool.needsApproval === true ? { needsApproval: true } : {}),
      call: (args, meta) =>
        // The services are the ones captured at layer build; `Tool<unknown>` erased their type.
        (runTool(definition.name, tool, args, meta).pipe(Effect.provideContext(context)) as Effect.Effect<ToolResult>)
    })
  }
  const result: RegisteredServer = {
    name: definition.name,
    version: definition.version,
    alwaysLoad: definition.alwaysLoad,
    instructions: definition.instructions,
    tools,
    definition
  }
  return result
})

/**
 * The session's secrets replaced in a text (`ConnectOptions.redact`), set in the calls of a
 * connection: a tool's failure text may quote them (a handler that read the environment).
 */
const Redacting = Context.Reference<((text: string) => string) | undefined>(
  "effect-claude-code/McpServers/Redacting",
  { defaultValue: () => undefined }
)

const runTool = (serverName: string, tool: Tool<unknown>, args: unknown, meta: CallMeta | undefined) =>
  tool.call(args, meta ?? { toolUseId: undefined }).pipe(
    Effect.flatMap(toToolResult),
    Effect.scoped,
    Effect.catchCause((cause): Effect.Effect<ToolResult> => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
      // What is logged and what the model reads, without the session's secrets.
      return Effect.flatMap(Effect.service(Redacting), (redact) => {
        const shown = redact ?? ((text: string) => text)
        const failure = Cause.findError(cause)
        if (Result.isSuccess(failure) && !Cause.hasDies(cause)) {
          const error = failure.success
          return Effect.succeed(
            Rpc.errorResult(shown(error._tag === "InvalidArguments" ? error.message : describeError(error.error)))
          )
        }
        return Effect.logError(
          `Tool ${tool.name} of MCP server ${serverName} failed`,
          redact === undefined ? cause : redactCause(cause, redact)
        ).pipe(Effect.as(Rpc.errorResult(shown(`Tool ${tool.name} failed: ${describeCause(cause)}`))))
      })
    }),
    Effect.annotateLogs({ mcpServer: serverName, mcpTool: tool.name }),
    // Ends without the tool's result (it may quote the session's secrets: a tool that read the environment).
    SpanExits.withSpan("McpServers.callTool", { attributes: { mcpServer: serverName, mcpTool: tool.name } })
  )

const decodeToolResult = Schema.decodeUnknownEffect(Rpc.CallToolResult)

/** Normalizes a handler's answer; an answer that breaks the wire shape is a defect of the tool. */
const toToolResult = (content: ToolContent): Effect.Effect<ToolResult> =>
  decodeToolResult(
    Predicate.isString(content)
      ? { content: [{ type: "text", text: content }] }
      : Array.isArray(content)
      ? { content }
      : Predicate.hasProperty(content, "content")
      ? content
      : { content: [content] }
  ).pipe(
    Effect.mapError((error) => new Error(`the handler returned an invalid result: ${error.message}`)),
    // `structuredContent` takes any value: one JSON cannot write (a BigInt, a cycle) would fail the
    // answer's write, and the CLI would get no JSON-RPC response.
    Effect.flatMap((result) => {
      const error = jsonWriteError(result)
      if (error !== undefined) {
        return Effect.fail(new Error(`the handler returned a result JSON cannot write: ${error.message}`))
      }
      // Blocks the CLI refuses (the whole result, the model told so) while this call had succeeded.
      const problem = Rpc.contentProblem(result.content)
      return problem === undefined
        ? Effect.succeed(result)
        : Effect.fail(new Error(`the handler returned an invalid result: ${problem}`))
    }),
    Effect.orDie
  )

// `LaunchEntry` and `launchEntries` are declared (and documented) in `internal/services.ts`, next
// to the tag, so that `Claude.open` uses them without loading this module.
export { type LaunchEntry, launchEntries } from "./internal/services.ts"

// -----------------------------------------------------------------------------
// The JSON-RPC side
// -----------------------------------------------------------------------------

/**
 * A JSON-RPC response: the value to send as `{"mcp_response": …}`.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonRpcResponse = Rpc.Response

/**
 * The JSON-RPC side of the servers for one CLI process.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpConnection {
  /**
   * Answers one `mcp_message` (`server_name`, `message`). The result goes back to the CLI as
   * `{"mcp_response": <result>}` in a success `control_response`.
   *
   * - Requests (`initialize`, `ping`, `tools/list`, `tools/call`) get their response; a method
   *   the server does not have gets error -32601; bad `tools/call` params or an unknown tool
   *   get error -32602. Tool failures are results with `isError: true`, never errors.
   * - A `tools/call` runs its tool in a fiber of the connection, keyed by server, the server's
   *   connection (the CLI restarts its ids at each `initialize`) and JSON-RPC id; a call under the
   *   id of one still running is refused (`-32600`), the running one goes on.
   *   `notifications/cancelled` for that id interrupts the call running under it then, if any
   *   (its finalizers run), never a later one; the call then
   *   answers an `isError` "cancelled" result (which the CLI, having given up, ignores).
   *   Interrupting `handle` itself interrupts the tool too, without waiting for it to stop (the
   *   connection's close waits for it, within its `closeGrace`).
   * - Every notification (any message without an id member; `"id": null` is an invalid request,
   *   -32600), known or not, is answered at once with
   *   `{"jsonrpc":"2.0","result":{},"id":0}`: the CLI waits for an answer even to those.
   * - A message that is not JSON-RPC gets error -32600 when it has an id.
   *
   * Fails with `InvalidInput` for an unknown server name or a malformed message without an id:
   * the session answers those with an error `control_response`.
   */
  readonly handle: (serverName: string, message: unknown) => Effect.Effect<JsonRpcResponse, ClaudeError.ClaudeError>
  /**
   * Serves more servers from now on (for a session's `setMcpServers`). A name already served by
   * another definition fails with `InvalidInput` and adds nothing; the same definition again is
   * a no-op.
   *
   * @since 0.2.0
   */
  readonly add: (servers: ReadonlyArray<RegisteredServer>) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * Whether this connection serves a server of that name (one of the session's in-process servers).
   *
   * @since 0.2.0
   */
  readonly serves: (serverName: string) => boolean
  /**
   * Interrupts the tool calls still running on these servers, without waiting for them (their
   * finalizers run in the connection): for servers the CLI dropped (`setMcpServers` without them,
   * `toggleMcpServer(name, false)`). CLI 2.1.332 then tells the model their calls failed and sends
   * no `notifications/cancelled`: a call left running would finish an action the model was told
   * had failed. The servers stay served (the CLI may take them back).
   *
   * @since 0.2.0
   */
  readonly interruptCalls: (serverNames: ReadonlyArray<string>) => Effect.Effect<void>
}

const decodeInitializeParams = Schema.decodeUnknownOption(Rpc.InitializeParams)
const decodeCallToolParams = Schema.decodeUnknownResult(Rpc.CallToolParams)
const decodeCancelledParams = Schema.decodeUnknownOption(Rpc.CancelledParams)


/**
 * Options of {@link connect}.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConnectOptions {
  /**
   * How long the close waits for the tool calls still running (interrupted) to stop; one stuck
   * where it cannot be interrupted is then left to stop in the background, logged. Default: the
   * close waits for them (a session passes its `closeGrace`).
   */
  readonly closeGrace?: Duration.Input | undefined
  /**
   * Replaces the session's secrets in a text (a session passes its own): applied to a failed
   * tool call's logged cause and to the failure text the model reads. Default: none replaced.
   *
   * @since 0.2.0
   */
  readonly redact?: ((text: string) => string) | undefined
}

/**
 * Opens the JSON-RPC side for one CLI process. Tool calls still running when the scope closes
 * are interrupted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect: (
  service: McpServers["Service"],
  options?: ConnectOptions
) => Effect.Effect<McpConnection, never, Scope.Scope> = Effect
  .fn("McpServers.connect")(function*(service: McpServers["Service"], options?: ConnectOptions) {
    // The calls run in a scope of their own, closed from the connection's: with `closeGrace`, a
    // call stuck where it cannot be interrupted is left to stop in the background after it.
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer((exit) => {
      const closing = Scope.close(scope, exit)
      if (options?.closeGrace === undefined) return closing
      const grace = Duration.fromInputUnsafe(options.closeGrace)
      return Effect.flatMap(Effect.forkDetach(closing, { startImmediately: true }), (fiber) =>
        Effect.flatMap(Effect.timeoutOption(Fiber.await(fiber), grace), (done) =>
          Option.isSome(done) ? Effect.void : Effect.logWarning(
            `in-process MCP tool calls did not stop within closeGrace (${Duration.format(grace)}): left to stop in the background`
          )))
    })
    const calls = yield* FiberMap.make<string, ToolResult>().pipe(Scope.provide(scope))
    const servers = new Map(service.servers.map((server) => [server.name, server]))
    // Each server's connections so far: the CLI restarts its ids at 0 when it reconnects a server
    // (a new `initialize`), so an id names a call within one connection only.
    const connections = new Map<string, number>()
    const callKey = (serverName: string, id: Rpc.RequestId): string =>
      JSON.stringify([serverName, connections.get(serverName) ?? 0, id])
    /** The start every key of a server's calls has (`["<name>",`). */
    const callKeyPrefix = (serverName: string): string => JSON.stringify([serverName]).slice(0, -1) + ","

    const initialize = (server: RegisteredServer, id: Rpc.RequestId, params: unknown): JsonRpcResponse => {
      connections.set(server.name, (connections.get(server.name) ?? 0) + 1)
      const requested = Option.map(decodeInitializeParams(params), (params) => params.protocolVersion)
      return Rpc.success(id, {
        protocolVersion: Rpc.negotiateProtocolVersion(Option.getOrUndefined(requested)),
        capabilities: { tools: {} },
        serverInfo: { name: server.name, version: server.version },
        ...(server.instructions !== undefined ? { instructions: server.instructions } : {})
      })
    }

    const listTools = (server: RegisteredServer, id: Rpc.RequestId): JsonRpcResponse =>
      Rpc.success(id, {
        tools: server.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {})
        }))
      })

    const callTool = Effect.fnUntraced(function*(server: RegisteredServer, id: Rpc.RequestId, params: unknown) {
      const decoded = decodeCallToolParams(params)
      if (Result.isFailure(decoded)) {
        return Rpc.failure(id, Rpc.INVALID_PARAMS, `Invalid tools/call params: ${decoded.failure.message}`)
      }
      const tool = server.tools.find((tool) => tool.name === decoded.success.name)
      if (tool === undefined) {
        return Rpc.failure(id, Rpc.INVALID_PARAMS, `Unknown tool: ${decoded.success.name}`)
      }
      const key = callKey(server.name, id)
      // An id the client reused while its call runs (MCP: never): refused, the running call goes on.
      if (FiberMap.hasUnsafe(calls, key)) {
        return Rpc.failure(id, Rpc.INVALID_REQUEST, `Request id ${JSON.stringify(id)} is the id of a call still running`)
      }
      // Forked and watched in one uninterruptible step, so that interrupting `handle` never leaves
      // the tool running; started only once it is in the map, so that a cancellation can find it.
      const exit = yield* Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          FiberMap.run(calls, key, tool.call(decoded.success.arguments ?? {}, {
            toolUseId: Rpc.toolUseIdOf(decoded.success._meta)
          }).pipe(Effect.provideService(Redacting, options?.redact)), {
            startImmediately: false,
            onlyIfMissing: true
          }),
          // Interrupted, the request's handler stops at once and the call's interruption runs
          // in the connection: the session's close waits for it once, within `closeGrace`.
          (fiber) => restore(Fiber.await(fiber)).pipe(Effect.onInterrupt(() => Effect.forkIn(Fiber.interrupt(fiber), scope)))
        )
      )
      return Rpc.success(
        id,
        Exit.isSuccess(exit)
          ? exit.value
          : Rpc.errorResult(
            Cause.hasInterruptsOnly(exit.cause) ? `Tool ${tool.name} was cancelled` : `Tool ${tool.name} failed`
          )
      )
    })

    const notify = Effect.fnUntraced(function*(server: RegisteredServer, method: string, params: unknown) {
      if (method === "notifications/cancelled") {
        const cancelled = decodeCancelledParams(params)
        // The call running under that id now, if any: looked up at once, so that a late cancel
        // never reaches a call that takes the id after it.
        const running = Option.isSome(cancelled)
          ? FiberMap.getUnsafe(calls, callKey(server.name, cancelled.value.requestId))
          : Option.none()
        if (Option.isSome(running)) {
          // Interrupting waits for the tool's finalizers; the CLI waits for this answer. Fork it.
          yield* Effect.forkIn(Fiber.interrupt(running.value), scope)
        }
      }
      return Rpc.notificationAck()
    })

    // Its span ends without the answer (a tool's result may quote the session's secrets), its
    // failure's texts left out without `TraceContent`.
    const handle = Effect.fnUntraced(
      function*(serverName: string, message: unknown): Effect.fn.Return<JsonRpcResponse, ClaudeError.ClaudeError> {
        const server = servers.get(serverName)
        if (server === undefined) {
          return yield* ClaudeError.make(
            new ClaudeError.InvalidInput({
              description: `mcp_message for unknown MCP server "${serverName}" (known: ${
                [...servers.keys()].join(", ") || "none"
              })`
            })
          )
        }
        const incoming = Rpc.classify(message)
        switch (incoming._tag) {
          case "Notification":
            return yield* notify(server, incoming.method, incoming.params)
          case "Response":
            return Rpc.notificationAck()
          case "Invalid":
            if (incoming.id !== undefined) return Rpc.failure(incoming.id, Rpc.INVALID_REQUEST, incoming.description)
            return yield* ClaudeError.make(new ClaudeError.InvalidInput({ description: incoming.description }))
          case "Request":
            switch (incoming.method) {
              case "initialize":
                return initialize(server, incoming.id, incoming.params)
              case "ping":
                return Rpc.success(incoming.id, {})
              case "tools/list":
                return listTools(server, incoming.id)
              case "tools/call":
                return yield* callTool(server, incoming.id, incoming.params)
              default:
                return Rpc.failure(incoming.id, Rpc.METHOD_NOT_FOUND, `Method not found: ${incoming.method}`)
            }
        }
      },
      Effect.annotateLogs({ module: "McpServers" }),
      SpanExits.withSpan("McpServers.handle")
    )

    const add = (added: ReadonlyArray<RegisteredServer>) =>
      Effect.suspend(() => {
        const taken = added.find((server) => {
          const existing = servers.get(server.name)
          return existing !== undefined && existing.definition !== server.definition
        })
        if (taken !== undefined) {
          return ClaudeError.make(
            new ClaudeError.InvalidInput({
              description: `an in-process MCP server named "${taken.name}" is already served by another definition`
            })
          )
        }
        const clash = modelNameClash([...servers.values(), ...added.filter((server) => !servers.has(server.name))])
        if (clash !== undefined) return ClaudeError.make(new ClaudeError.InvalidInput({ description: clash }))
        for (const server of added) servers.set(server.name, server)
        return Effect.void
      })

    const interruptCalls = (serverNames: ReadonlyArray<string>) =>
      Effect.suspend(() => {
        const prefixes = serverNames.map(callKeyPrefix)
        const running = [...calls].filter(([key]) => prefixes.some((prefix) => key.startsWith(prefix)))
        return Effect.forEach(running, ([, fiber]) => Effect.forkIn(Fiber.interrupt(fiber), scope), { discard: true })
      })

    return { handle, add, serves: (serverName) => servers.has(serverName), interruptCalls } satisfies McpConnection
  })

/**
 * Combines `McpServers` layers so that the servers of all of them are kept (in argument order),
 * which `Layer.merge`/`Layer.mergeAll` do not do for a single service: each layer is built with
 * the previous ones' output.
 *
 * @since 0.1.0
 * @category layers
 */
export const mergeLayers = <const Ls extends ReadonlyArray<Layer.Layer<McpServers, unknown, unknown>>>(
  ...layers: Ls
): Layer.Layer<McpServers, Layer.Error<Ls[number]>, Exclude<Layer.Services<Ls[number]>, McpServers>> =>
  layers.reduce<Layer.Layer<McpServers, unknown, unknown>>(
    (acc, layer) => Layer.provideMerge(layer, acc),
    Layer.succeed(McpServers, empty)
  ) as Layer.Layer<McpServers, Layer.Error<Ls[number]>, Exclude<Layer.Services<Ls[number]>, McpServers>>

// -----------------------------------------------------------------------------
// The service
// -----------------------------------------------------------------------------

// The tag is declared (and documented) in `internal/services.ts`, which `Claude.ts` imports
// without this module.
export { McpServers }

// -----------------------------------------------------------------------------
// effect/ai toolkits
// -----------------------------------------------------------------------------

/**
 * What one call of a toolkit's tool came to, as `effect/ai` encodes it: the success encoded with
 * the tool's `success` Schema, or the failure encoded with `Tool.failureResultSchema` (the tool's
 * `failure` Schema, or an `AiError`: for arguments that did not decode, a result that did not
 * encode or that JSON cannot carry, a handler that died).
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolkitCallResult {
  /** The id of the model's `tool_use` block, when the CLI told it. */
  readonly toolUseId: string | undefined
  /** The tool's name in the toolkit. */
  readonly name: string
  /** The arguments as the model sent them (before decoding). */
  readonly params: unknown
  /** True when the handler failed or the arguments did not decode. */
  readonly isFailure: boolean
  /** The encoded success or failure. */
  readonly encodedResult: unknown
  /** What the model read in place of the success: the tool's `toModelOutput`, when it has one. */
  readonly modelOutput?: ReadonlyArray<ModelOutputPart> | undefined
}

/**
 * The services the tools of a toolkit need when served: their handlers (from `toolkit.toLayer`)
 * and what their schemas and dependencies need.
 *
 * @since 0.2.0
 * @category models
 */
export type ToolkitServices<Tools extends Record<string, AiTool.Any>> =
  | AiTool.HandlersFor<Tools>
  | AiTool.HandlerServices<Tools[keyof Tools]>

/**
 * The tools of an `effect/ai` `Toolkit` as tools of an in-process server: one definition serves a
 * `LanguageModel` and a Claude Code session alike.
 *
 * **Details**
 *
 * - `tools/list` advertises each tool's name, description and the JSON Schema of its parameters
 *   (as `Tool.getJsonSchema` gives it, an empty `Struct` as an object without properties; a
 *   dynamic tool's own JSON Schema), and its annotations as `effect/ai`'s `McpServer` does
 *   (`Tool.Title` as `title`, which the CLI shows as the tool's name; the four hints).
 *   Provider-defined tools (which need no handler, such as `ClaudeCodeLanguageModel.Bash`) are
 *   left out: they are the provider's own.
 * - A `tools/call` runs through the toolkit (`Toolkit.handle`), with the handlers of the context
 *   where the `McpServers` layer is built (`toolkit.toLayer(...)` provided below it): the
 *   parameters are decoded with the tool's Schema before the handler runs.
 * - The success, encoded with the tool's `success` Schema, is the result: a string as its text,
 *   anything else as its JSON text; with the tool's `toModelOutput`, its output instead (text
 *   blocks, PNG, JPEG, GIF and WebP images as image blocks, other files named). A failure (the
 *   tool's `failure`, whatever its `failureMode`, or parameters that did not decode) is an
 *   `isError` result whose text the model reads: the error's `message` when it has one, else its
 *   JSON.
 * - Preliminary results are not sent (MCP has no place for them); the last one counts.
 * - A tool with `needsApproval` (a function of its parameters too) is never allowed ahead: the
 *   CLI asks the session's `Permissions` for each call (with none, it refuses it), and the session
 *   refuses a mode that asks no one (`bypassPermissions`, `auto`) while it serves the tool: at
 *   launch, as a switch, and in `setMcpServers` ({@link Tool.needsApproval}).
 * - `notifications/cancelled` interrupts the handler, as for {@link tool}.
 * - `onResult`, when given, sees every call's encoded result (what `ClaudeCodeLanguageModel`
 *   turns into `tool-result` parts).
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect/ai/Tool"
 * import * as Toolkit from "effect/ai/Toolkit"
 * import { McpServers } from "effect-claude-code"
 *
 * const GetWeather = Tool.make("GetWeather", {
 *   description: "The weather in a city",
 *   parameters: Schema.Struct({ city: Schema.String }),
 *   success: Schema.Struct({ celsius: Schema.Number })
 * })
 * const Weather = Toolkit.make(GetWeather)
 * const WeatherHandlers = Weather.toLayer({ GetWeather: ({ city }) => Effect.succeed({ celsius: city.length }) })
 *
 * const WeatherServer = McpServers.layer(McpServers.toolkit("weather", Weather, { alwaysLoad: true }))
 * // Effect.provide(program, WeatherServer.pipe(Layer.provide(WeatherHandlers)))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const toolkit = <Tools extends Record<string, AiTool.Any>>(
  name: string,
  toolkit: AiToolkit.Toolkit<Tools>,
  options?: {
    /** Puts the server's tools in the first prompt instead of behind tool search. */
    readonly alwaysLoad?: boolean | undefined
    /** The version the server reports in `initialize` (default `"1.0.0"`). */
    readonly version?: string | undefined
    /** Instructions the server gives the model in `initialize`. */
    readonly instructions?: string | undefined
    /** Sees the encoded result of every call. */
    readonly onResult?: ((result: ToolkitCallResult) => Effect.Effect<void>) | undefined
  }
): Server<ToolkitServices<Tools>> =>
  server(name, {
    alwaysLoad: options?.alwaysLoad,
    version: options?.version,
    instructions: options?.instructions,
    tools: Object.values(toolkit.tools as Record<string, AiTool.Any>)
      .filter((aiTool) => !AiTool.isProviderDefined(aiTool))
      .map((aiTool) => toolkitTool(toolkit as AiToolkit.Any as AiToolkit.Toolkit<Record<string, AiTool.Any>>, aiTool, options?.onResult))
  }) as Server<ToolkitServices<Tools>>

/**
 * Whether an `effect/ai` tool's calls need approval: its `needsApproval` set and not `false` (a
 * function of the parameters too: none of its calls can be told ahead).
 *
 * @since 0.2.0
 * @category toolkits
 */
export const needsApproval = (tool: AiTool.Any): boolean => tool.needsApproval !== undefined && tool.needsApproval !== false

const toolkitTool = (
  kit: AiToolkit.Toolkit<Record<string, AiTool.Any>>,
  aiTool: AiTool.Any,
  onResult: ((result: ToolkitCallResult) => Effect.Effect<void>) | undefined
): Tool<unknown> => {
  const encodeFailure = Schema.encodeUnknownEffect(
    // The schema services are among the handler services the server needs; erased here.
    AiTool.failureResultSchema(aiTool) as unknown as Schema.Codec<unknown, unknown>
  )
  // The arguments come in the JSON form `tools/list` advertised (the JSON codec of the parameters:
  // `null` for an absent optional field, an ISO string for a Date), and the toolkit decodes the
  // parameters' encoded form: read from the one into the other first. Arguments that do not read
  // go as they came, for the toolkit to refuse (and report) as it does. A dynamic tool's own JSON
  // Schema is taken as it is.
  const readJson = decodingJson(() =>
    Schema.toEncoded(aiTool.parametersSchema as unknown as Schema.Codec<unknown, unknown>)
  )
  const fromJson = AiTool.isDynamic(aiTool) && aiTool.jsonSchema !== undefined
    ? Effect.succeed
    : (args: unknown) => readJson(args).pipe(Effect.orElseSucceed(() => args))
  const report = (
    meta: CallMeta | undefined,
    params: unknown,
    isFailure: boolean,
    encodedResult: unknown,
    modelOutput?: ReadonlyArray<ModelOutputPart>
  ) =>
    onResult === undefined
      ? Effect.void
      : onResult({
        toolUseId: meta?.toolUseId,
        name: aiTool.name,
        params,
        isFailure,
        encodedResult,
        ...(modelOutput !== undefined ? { modelOutput } : {})
      })
  const fail = (meta: CallMeta | undefined, params: unknown, error: unknown, encoded: unknown) =>
    Effect.andThen(
      report(meta, params, true, encoded),
      Effect.fail<ToolCallFailure>({ _tag: "HandlerFailed", error: failureMessage(error, encoded) })
    )
  // A failure the tool's own schemas cannot give (a success JSON cannot write, a failure that does
  // not encode, a handler that died) is reported as an `AiError`, the member of
  // `Tool.failureResultSchema` that always encodes: `onResult`'s `encodedResult` must decode with
  // it (`ClaudeCodeLanguageModel` hands it to `effect/ai` as the call's failure).
  const failWith = (meta: CallMeta | undefined, params: unknown, reason: AiError.AiErrorReason) => {
    const error = AiError.make({ module: "McpServers", method: `${aiTool.name}.call`, reason })
    return Effect.flatMap(encodeFailure(error).pipe(Effect.orDie), (encoded) => fail(meta, params, error, encoded))
  }
  const encodingFailure = (description: string): AiError.AiErrorReason =>
    // The value that did not encode stays out: what is reported must be JSON too.
    new AiError.ToolResultEncodingError({ toolName: aiTool.name, toolResult: null, description })
  return {
    [ToolTypeId]: ToolTypeId,
    name: aiTool.name,
    description: AiTool.getDescription(aiTool) ?? "",
    input: aiTool.parametersSchema,
    // A dynamic tool's JSON Schema as given; otherwise derived from the parameters like any tool's
    // (the same `Schema.toJsonSchemaDocument` as `Tool.getJsonSchema`, with `Struct({})` as `{}`).
    inputSchema: AiTool.isDynamic(aiTool) && aiTool.jsonSchema !== undefined ? aiTool.jsonSchema : undefined,
    annotations: toolkitAnnotations(aiTool),
    // A function of the parameters too: every call is asked, as none can be told ahead.
    ...(needsApproval(aiTool) ? { needsApproval: true } : {}),
    call: (args, meta) =>
      Effect.gen(function*() {
        const handlers = yield* kit
        const params = yield* fromJson(args)
        const outcome = yield* handlers.handle(aiTool.name, params as never, meta?.toolUseId).pipe(
          Effect.flatMap((results) => Stream.runLast(Stream.filter(results, (result) => !result.preliminary))),
          Effect.result
        )
        if (Result.isFailure(outcome)) {
          // `failureMode: "error"`: the typed failure (or an AiError for bad parameters).
          const error = outcome.failure
          const encoded = yield* Effect.result(encodeFailure(error))
          if (Result.isFailure(encoded)) {
            return yield* failWith(meta, args, encodingFailure(`its failure cannot be encoded: ${encoded.failure.message}`))
          }
          return yield* fail(meta, args, error, encoded.success)
        }
        if (Option.isNone(outcome.success)) return yield* Effect.die(new Error(`Tool ${aiTool.name} gave no result`))
        const result = outcome.success.value
        if (result.isFailure) return yield* fail(meta, args, result.result, result.encodedResult)
        // `toModelOutput`: the model reads its output in place of the encoded result (which may
        // hold what the model must not see); the program still gets the encoded result.
        if (result.modelOutput !== undefined) {
          const content = modelOutputContent(result.modelOutput)
          // Blocks the CLI would refuse reach the model as a failure: `onResult` says so too.
          const problem = Rpc.contentProblem(content)
          if (problem !== undefined) {
            return yield* failWith(meta, args, encodingFailure(`its model output: ${problem}`))
          }
          yield* report(meta, args, false, result.encodedResult, result.modelOutput)
          return content
        }
        // Written before it is reported: a success JSON cannot write (a BigInt, a cycle) reaches
        // the model as a failure, and `onResult` says so too.
        if (Predicate.isString(result.encodedResult)) {
          yield* report(meta, args, false, result.encodedResult)
          return result.encodedResult
        }
        const unwritable = jsonWriteError(result.encodedResult ?? null)
        if (unwritable !== undefined) {
          return yield* failWith(meta, args, encodingFailure(`its result cannot be written as JSON: ${unwritable.message}`))
        }
        yield* report(meta, args, false, result.encodedResult)
        return JSON.stringify(result.encodedResult ?? null)
      }).pipe(
        // A handler that died (not one cancelled): reported as an `AiError` too, not left for
        // `ClaudeCodeLanguageModel` to take for a denial; the defect still reaches `runTool`,
        // which logs it and answers the model.
        Effect.tapCause((cause) =>
          Cause.hasDies(cause) && !Cause.hasInterrupts(cause)
            ? Effect.ignore(failWith(meta, args, new AiError.UnknownError({ description: `Tool ${aiTool.name} failed: ${describeCause(cause)}` })))
            : Effect.void
        )
      ) as Effect.Effect<ToolContent, ToolCallFailure>
  }
}

/** A toolkit tool's annotations as `effect/ai`'s `McpServer` advertises them (the CLI shows `title`). */
const toolkitAnnotations = (aiTool: AiTool.Any): ToolAnnotations => {
  const annotations = aiTool.annotations
  const title = Context.getOption(annotations, AiTool.Title)
  return {
    ...(Option.isSome(title) ? { title: title.value } : {}),
    readOnlyHint: Context.get(annotations, AiTool.Readonly),
    destructiveHint: Context.get(annotations, AiTool.Destructive),
    idempotentHint: Context.get(annotations, AiTool.Idempotent),
    openWorldHint: Context.get(annotations, AiTool.OpenWorld)
  }
}

/** A part of a tool's `toModelOutput` (`Prompt.ToolModelOutputPart`; that module is left to `./ai`). */
type ModelOutputPart = ReturnType<NonNullable<AiTool.Any["toModelOutput"]>>[number]

/** The image types a model reads from a tool's model output (others are named only). */
const modelImageTypes: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

/**
 * A tool's `toModelOutput` as content blocks: its text, its images (bytes, base64 or a `data:`
 * URL) as image blocks, any other file named only, as `Prompt.toolModelOutputToText` does.
 */
const modelOutputContent = (parts: ReadonlyArray<ModelOutputPart>): ReadonlyArray<ContentBlock> => {
  const blocks = parts.map((part): ContentBlock => {
    if (part.type === "text") return text(part.text)
    const given = part.data instanceof URL ? (part.data.protocol === "data:" ? part.data.href : undefined) : part.data
    if (given !== undefined && modelImageTypes.includes(part.mediaType)) {
      return image({
        data: Predicate.isString(given) ? given.replace(/^data:[^,]*;base64,/, "") : given,
        mimeType: part.mediaType
      })
    }
    // As `Prompt.toolModelOutputToText` names a file.
    return text(`[${part.mediaType}${part.fileName === undefined ? "" : ` ${part.fileName}`} omitted]`)
  })
  return blocks.length === 0 ? [text("")] : blocks
}

/** What the model reads of a failure: its message, else its encoded form as JSON. */
const failureMessage = (error: unknown, encoded: unknown): string => {
  if (Predicate.hasProperty(error, "message") && Predicate.isString(error.message) && error.message.length > 0) {
    return error.message
  }
  if (Predicate.isString(encoded)) return encoded
  return encoded === undefined ? describeError(error) : JSON.stringify(encoded)
}
