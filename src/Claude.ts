/**
 * A Claude Code session: the `claude` CLI as a scoped resource.
 *
 * `open` checks the options, builds the command and spawns the CLI through the `Transport`
 * service; the session engine (`internal/sessionEngine.ts`, loaded with `import()` once the CLI
 * is spawned) runs it: the reader, the turns, the two halves of the control channel, how the
 * session ends. Closing the scope ends the process (stdin EOF, then SIGTERM, then SIGKILL, within
 * `closeGrace` in all). Every turn is a `Stream` of its own events that ends with its `result`;
 * interrupting the fiber that consumes it interrupts that turn on the CLI and waits for its
 * `result`, so the session stays usable.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClaudeError from "./ClaudeError.ts"
import * as CliVersion from "./CliVersion.ts"
import type * as Events from "./Events.ts"
import { isRecord, objectSchemaOf } from "./internal/json.ts"
import * as ProcessTransport from "./internal/processTransport.ts"
import * as SessionOptionsCheck from "./internal/sessionOptionsCheck.ts"
import * as SpanExits from "./internal/spanExits.ts"
import type * as StructuredOutput from "./internal/structuredOutput.ts"
import { Subscribers } from "./internal/subscribers.ts"
import * as Launch from "./Launch.ts"
import type * as SessionStoreOpen from "./internal/sessionStoreOpen.ts"
import * as Services from "./internal/services.ts"
import type * as McpServers from "./McpServers.ts"
import type * as Protocol from "./Protocol.ts"
import { eofShare, type ExitStatus, Transport } from "./Transport.ts"

/**
 * The process transport: sessions spawn the real `claude` CLI as a child process, with
 * `node:child_process` (Node, or a runtime that implements it). Needs no service: a program
 * that still provides `NodeServices.layer` to it loses nothing. `ClaudeNode.layer` (the
 * `effect-claude-code/node` entry) is this layer.
 *
 * Each CLI gets a temporary directory of its own, removed with what the CLI left in it once the
 * CLI has exited: its `CLAUDE_CODE_TMPDIR` (unless the session's `env` names one), and where the
 * `--settings` JSON of {@link Launch.buildCommand} goes, as a file whose path the CLI gets instead.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProcess: Layer.Layer<Transport> = ProcessTransport.layer

/**
 * The process transport under its first name: it provides `Transport`, not a session.
 *
 * @deprecated Use {@link layerProcess}; the session itself as a layer is `ClaudeSession.layer`.
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Transport> = layerProcess

// What a session loads only when it needs it (`import()`), so that importing this module does not
// load it: structured output, the session store's modules (the engine loads the handlers').
const loadStructuredOutput = Effect.promise(() => import("./internal/structuredOutput.ts"))
const loadSessionStore = Effect.promise(() => import("./internal/sessionStoreOpen.ts"))
// The session engine, with the protocol's schemas (`internal/sessionEngine.ts`): every session
// needs it, but only once its CLI is spawned, so it is compiled and built while the CLI starts.
const loadEngine = Effect.promise(() => import("./internal/sessionEngine.ts"))

/**
 * Options of a session: the launch options of the CLI, plus how the library drives it.
 *
 * @since 0.1.0
 * @category options
 */
export interface SessionOptions<S extends OutputFormat = OutputFormat> extends Launch.LaunchOptions {
  // ---- structured output (issue 15) -----------------------------------------------------------
  /**
   * Structured output: an Effect Schema (no decoding services) for what every turn returns. Its
   * JSON Schema goes to the CLI (`--json-schema` and `initialize.jsonSchema`, as the official SDK
   * sends it), which gives the model a `StructuredOutput` tool with it, checks the model's call
   * against it (asking again, up to 5 times) and writes the value in the result. `run` (and
   * `query`) decode that value with this Schema and return it as `structured`, typed by the
   * Schema's Type. A value the Schema refuses fails with `StructuredOutputInvalid`; a result
   * without one with `StructuredOutputMissing`; a model that kept breaking the JSON Schema with
   * `LimitReached` (`error_max_structured_output_retries`). For the whole session: the protocol
   * has no per-turn schema. Cannot be combined with `jsonSchema`.
   */
  readonly outputFormat?: S | undefined
  /**
   * The cap on one stdout line; a longer line is reported (with its type) and skipped: when it is
   * a turn's result the turn fails, a control request of the CLI gets an error answer, and an
   * answer to one of the session's fails that request. A positive integer of bytes, or `Infinity` (lowered to
   * `Framing.maxLineBytesLimit`, as any larger cap is). Default 256 MiB
   * (`Framing.defaultMaxLineBytes`).
   */
  readonly maxLineBytes?: number | undefined
  /**
   * The whole of closing the CLI, from stdin EOF: the CLI has three fifths of it to exit by
   * itself, then gets SIGTERM, then SIGKILL at its end. The handlers of the CLI's requests still
   * running after its share are interrupted, and waited for as long as `closeGrace` at most,
   * meanwhile (the CLI is never kept alive for them): one stuck where it cannot be interrupted is
   * left to stop in the background, with a warning. A finite duration, zero or more. Default 5
   * seconds.
   */
  readonly closeGrace?: Duration.Input | undefined
  /** The default deadline of a control request; a positive duration. Default 60 seconds. */
  readonly controlTimeout?: Duration.Input | undefined
  /**
   * The deadline of `initialize`, which waits for the CLI to start; a positive duration. Default
   * 120 seconds.
   */
  readonly initializeTimeout?: Duration.Input | undefined
  /**
   * The whole of interrupting a turn: withdrawing it or sending `interrupt`, and waiting for its
   * `result`. A positive duration. Default 10 seconds (`query` caps it at the EOF share of
   * `closeGrace`: its session is closed right after).
   */
  readonly interruptTimeout?: Duration.Input | undefined
  /**
   * Fails a turn with `Stalled` when the CLI writes nothing for this long during it (or while it
   * waits to be written, on a CLI that takes one message at a time), at that moment; the turn is
   * then interrupted on the CLI. The time the CLI waits for one of the program's handlers (a
   * permission, a hook, an in-process MCP tool) is not silence: it counts from the answer. A
   * positive duration; off by default.
   */
  readonly stallTimeout?: Duration.Input | undefined
  /**
   * A deadline for a whole turn: when it passes, the turn fails with `TurnTimedOut` and is
   * interrupted on the CLI; the session stays usable. Output does not extend it (the CLI's API
   * retries, `system/api_retry`, can last minutes). A positive duration; off by default.
   */
  readonly turnTimeout?: Duration.Input | undefined
  /**
   * What a turn whose result says it failed (`is_error`: an API error, not logged in, a limit)
   * does: `"fail"` (the default) fails `run` and the turn's stream, after the result, with a
   * typed reason carrying it; `"return"` returns such results as data.
   */
  readonly errorResults?: "fail" | "return" | undefined
  /**
   * Every user turn as written (`UserTurnInput.verbatim` for each, `client_composed: true`, as
   * the official SDK's `verbatimPrompts`): no `@path` mention read into the prompt, no slash
   * command run, for programs whose turns carry text their user did not type. A turn's own
   * `verbatim: false` opts it out. CLI 2.1.248 and later; an older one would ignore it, so its
   * turns are refused (`InvalidInput`), as are those of a CLI process whose version could not
   * be told.
   */
  readonly verbatimPrompts?: boolean | undefined
  /** What an unsupported CLI version does: fail (the default) or warn; and the range. */
  readonly cliVersionPolicy?: CliVersion.Policy | undefined
  /**
   * Records every line both ways (`stream_event`s only when the recorder's `streamEvents` says
   * so), e.g. `Transcript.toFile(path)`. Called synchronously on the reader and writer paths, so
   * it must only enqueue.
   */
  readonly transcript?: Recorder | undefined
  // ---- sessions in a store (issue 16) -------------------------------------------------------------
  /**
   * Keeps the session in the `SessionStore` of the context (`SessionStoreSql.layerSqlite`,
   * `SessionStorePg.layer`, ...), so it can be resumed on another machine: `true`, or
   * {@link SessionStoreOptions}. The CLI runs with `--session-mirror` and the session appends every
   * transcript entry the CLI writes to the store, in batches; with `resume`, the session is first
   * written from the store into the CLI's config directory. Fails with `InvalidInput` without a
   * `SessionStore` in the context, with `persistSession: false` (the mirror follows the CLI's
   * own writes), or when the store is a directory store (`SessionStore.layerDirectory`) on the
   * session's own config directory (the CLI already writes there).
   */
  readonly sessionStore?: boolean | SessionStoreOptions | undefined
}

/**
 * How a session mirrors its transcript to the `SessionStore` (the option `sessionStore`).
 *
 * **Details**
 *
 * Entries are appended in batches: at the end of each turn, when more than `maxPendingEntries`
 * entries or `maxPendingBytes` bytes wait, or at once with `flush: "eager"`; closing the session
 * appends what is left. An `append` that fails is tried 3 times in all (after 200 ms, then
 * 800 ms); then a `mirror_error` event (`Events.MirrorFailed`) appears on `events` and the batch
 * is kept (in memory) and tried again in front of the next one, so the store's copy never has a
 * hole; closing the session tries once more and reports what was never saved. The turns never wait for the store, and never fail because of it; a program that
 * must not go on before a turn's transcript is stored waits with `session.flushStore`.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionStoreOptions extends SessionStoreOpen.StoreOptions {}

/**
 * A Schema usable as a session's `outputFormat`: one that decodes without services.
 *
 * @since 0.2.0
 * @category models
 */
export type OutputFormat = StructuredOutput.Format

/**
 * A turn's result with its structured output decoded by the session's `outputFormat`.
 *
 * @since 0.2.0
 * @category models
 */
export type StructuredResult<A> = TurnResult & {
  /** The result's `structured_output`, decoded by the session's `outputFormat`. */
  readonly structured: A
}

/**
 * What `run` returns in a session whose `outputFormat` is `S`: a {@link StructuredResult} of
 * the Schema's Type; a {@link TurnResult} when there is none (`never`), or when the Schema is not
 * known to the compiler (options typed as plain `SessionOptions`).
 *
 * @since 0.2.0
 * @category models
 */
export type RunResult<S extends OutputFormat> = [S] extends [never] ? TurnResult
  : OutputFormat extends S ? TurnResult
  : StructuredResult<S["Type"]>

/**
 * What the stream of one turn carries (`Session.turn`, `queryStream`): the session's events, its
 * result being `R` (a {@link StructuredResult} with an `outputFormat`).
 *
 * @since 0.2.0
 * @category models
 */
export type TurnEvent<R extends TurnResult = TurnResult> = Exclude<Event, TurnResult> | R

/**
 * Where a session reports the lines it writes and reads. `record` must not block or throw.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recorder {
  /**
   * Called with each line the session writes (`send`) or reads (`recv`); must not block or throw.
   * `session` says which of the sessions given this recorder the line is, in the order they opened
   * (0 the first; since 0.2.0): `Transcript`'s recorders write it from the second on
   * (`Transcript.Line.session`), so that `Replay` plays each session its own lines. A recorder
   * that wraps another passes it on.
   */
  readonly record: (direction: "send" | "recv", message: unknown, session?: number) => void
  /**
   * `true` to be given the CLI's `stream_event`s too (default: they are not recorded).
   *
   * @since 0.2.0
   */
  readonly streamEvents?: boolean | undefined
  /**
   * Given the session's secrets (the `Redacted` values of its environment, an `apiKey`) before
   * any line: what the recorder writes must not hold them (a tool that prints its environment).
   * `Transcript`'s recorders replace them with `[redacted]`, as the account e-mail.
   *
   * @since 0.2.0
   */
  readonly secrets?: ((values: ReadonlyArray<string>) => void) | undefined
}

/**
 * How many sessions each recorder was given so far: a session's number is taken when its CLI is
 * opened, as `Replay` numbers the sessions opened on it, so that the two agree.
 */
const recordedSessions = new WeakMap<Recorder, number>()

/**
 * A user turn: text, or text with images (sent as base64 blocks before the text), and an
 * optional uuid (a fresh one otherwise), which the CLI echoes and which `rewindFiles` takes. The
 * uuid of a user turn that has not ended, or of an earlier user message of the session the program
 * gave a uuid or wrote with `send` (the CLI drops a message under a uuid it has seen, without a
 * word), is refused (`InvalidInput`). Do not reuse the uuids `turn` and `run` made, nor those of
 * a resumed session's earlier messages, either.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnInput = string | Protocol.UserTurnInput

/**
 * What one turn cost (see {@link Events.TurnUsage}).
 *
 * @since 0.1.0
 * @category models
 */
export type TurnUsage = Events.TurnUsage

/**
 * A `result` with its turn's own cost and usage under `turn`.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnResult = Events.TurnResult

/**
 * A line from the CLI that broke the protocol (see {@link Events.ProtocolProblem}).
 *
 * @since 0.1.0
 * @category models
 */
export type ProtocolProblem = Events.ProtocolProblem

/**
 * What the session's streams carry (see {@link Events.Event}).
 *
 * @since 0.1.0
 * @category models
 */
export type Event = Events.Event

/**
 * Options of one control request: its deadline, instead of the session's `controlTimeout`.
 *
 * @since 0.1.0
 * @category options
 */
export interface RequestOptions {
  /**
   * The request's deadline (default: the session's `controlTimeout`); a positive duration, else
   * the request fails with `InvalidInput` and nothing is sent.
   */
  readonly timeout?: Duration.Input | undefined
}

/**
 * A running session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session<R extends TurnResult = TurnResult> {
  /** The CLI's process id (undefined for in-memory fakes). */
  readonly pid: number | undefined
  /** The session id, from the first `system/init`, which the CLI writes with the first turn. */
  readonly sessionId: Effect.Effect<string, ClaudeError.ClaudeError>
  /**
   * The CLI's version (from its `initialize` answer, or `claude --version` for CLIs that do not
   * say), checked against `CliVersion.supported` before any user turn is written; undefined when
   * it cannot be told. Fails with `UnsupportedCliVersion` unless `cliVersionPolicy` says warn.
   */
  readonly cliVersion: Effect.Effect<string | undefined, ClaudeError.ClaudeError>
  /** The answer to `initialize`, which the session sends first. */
  readonly initializeResult: Effect.Effect<Protocol.InitializeResponse, ClaudeError.ClaudeError>
  /**
   * Every event from now on, of every turn (the CLI's automatic turns too), until the CLI's
   * stdout ends. It ends cleanly when the program ended the CLI's input or closed the session,
   * or the CLI exited with code 0 between turns; it fails with the reason when the CLI died by
   * itself (with code 0 too, while a turn was unfinished: a message not answered, a turn begun)
   * or reading failed.
   */
  readonly events: Stream.Stream<Event, ClaudeError.ClaudeError>
  /**
   * Writes a user message and returns its uuid at once (the CLI queues it if a turn runs). Its
   * turn's events and result reach `events`. On a CLI that echoes no uuid (2.1.0, 2.1.200) it
   * waits until no message of the session is waiting there: such a CLI merges queued messages
   * into one turn with one result, which could not be told apart.
   */
  readonly send: (input: TurnInput) => Effect.Effect<string, ClaudeError.ClaudeError>
  /**
   * Runs one turn: writes the user message and streams that turn's own events (matched by its
   * uuid), ending with its result (included). Turns of `turn` and `run` are written one after
   * the other. Interrupting the consumer (or ending the stream before the result) interrupts
   * that turn on the CLI (or withdraws it while still queued) and waits for it, within
   * `interruptTimeout`. A failed turn fails the stream after the result (see `errorResults`).
   * With an `outputFormat`, the result carries the decoded structured output as `structured`,
   * and a result without a value the Schema accepts fails the stream as `run` fails.
   */
  readonly turn: (input: TurnInput) => Stream.Stream<TurnEvent<R>, ClaudeError.ClaudeError>
  /**
   * Runs one turn to its end and returns its result; a failed turn fails (see `errorResults`).
   * With an `outputFormat`, the result carries the decoded structured output as `structured`.
   */
  readonly run: (input: TurnInput) => Effect.Effect<R, ClaudeError.ClaudeError>
  /**
   * Interrupts the running turn, if any, and waits (bounded) for its result; with none running,
   * the message the CLI is to start next (written, not started) is withdrawn, or interrupted once
   * it starts, as when its fiber is interrupted.
   */
  readonly interrupt: Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * With `sessionStore`: waits until every transcript entry the CLI has written so far is in the
   * store. Turns never wait for the store by themselves; a program that must not acknowledge a
   * turn before its transcript is durable (a job queue, the cluster entity) waits here after the
   * turn's result. Fails with `StoreFailed` while any entry read so far is not in the store
   * (kept for a retry after a failed append, each also a `mirror_error` event), whoever calls it.
   * Once the session closed, answers at once with what its close left unsaved. Without
   * `sessionStore`, succeeds at once.
   *
   * @since 0.2.0
   */
  readonly flushStore: Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * Switches the model for later turns; returns the model the CLI resolved (`haiku` → an id), or,
   * from a CLI that names none (2.1.0, 2.1.200), the one asked for (`"default"` for none).
   */
  readonly setModel: (model?: string, options?: RequestOptions) => Effect.Effect<string, ClaudeError.ClaudeError>
  /**
   * Switches the permission mode for later tool calls; returns the mode now in effect, as the
   * CLI answers it, which is not always the one asked for (a mode the settings impose, a switch
   * overtaken by another): keep that one, not the argument. `undefined` when the CLI names none
   * (or one this library does not know). In a session with a `Permissions` layer,
   * `bypassPermissions` is `InvalidInput`, not sent (the CLI would never ask the layer); so are
   * `bypassPermissions` and `auto` while the session serves an in-process tool that needs approval
   * (`McpServers.Tool.needsApproval`: those modes ask no one).
   */
  readonly setPermissionMode: (
    mode: Launch.PermissionMode,
    options?: RequestOptions
  ) => Effect.Effect<Launch.PermissionMode | undefined, ClaudeError.ClaudeError>
  /** The MCP servers the CLI knows and their state. */
  readonly mcpStatus: (options?: RequestOptions) => Effect.Effect<Protocol.McpStatusResponse, ClaudeError.ClaudeError>
  /**
   * How the context window is used. `detail: "full"` (the CLI's default) counts each category
   * with the API's token counting; `"summary"` answers from the last response's usage and local
   * estimates.
   */
  readonly contextUsage: (
    options?: RequestOptions & {
      /** `summary` or `full` (since 0.2.0). */
      readonly detail?: "summary" | "full"
    }
  ) => Effect.Effect<Protocol.ContextUsageResponse, ClaudeError.ClaudeError>
  /**
   * Restores files to their state before the user turn with this uuid (needs `fileCheckpointing`).
   * Only what the file tools (Write, Edit) wrote is restored: a file a Bash command
   * changed is left as it is, and the answer still succeeds (a dry run lists no such file).
   * `skippedLinks` counts files not restored because of a link at their path.
   */
  readonly rewindFiles: (
    userMessageId: string,
    options?: RequestOptions & {
      /** Only reports what would change. */
      readonly dryRun?: boolean
    }
  ) => Effect.Effect<Protocol.RewindFilesResponse, ClaudeError.ClaudeError>
  /** Stops a background task (a subagent, a background Bash command). */
  readonly stopTask: (taskId: string, options?: RequestOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
  // ---- control requests added in 0.2.0 (issue 15) ------------------------------------------
  /**
   * `mcp_set_servers`: replaces the servers set by earlier calls (and the in-process ones) with
   * `servers` (stdio, SSE, HTTP, which the CLI dials) and `inProcess` (served by this session,
   * with the services of the caller's context); their tools reach the next request. Servers from
   * settings files and plugins stay. Returns what was added and removed, and each server's
   * connection error. An in-process name taken by another definition is `InvalidInput`; so is an
   * in-process tool that needs approval (`McpServers.Tool.needsApproval`) while the session's mode
   * asks no one (`bypassPermissions`, `auto`: the last one asked for that the CLI took). Such a
   * tool counts from then on, removed or not: no later switch to those modes is sent.
   *
   * An in-process server the CLI removes has its tool calls still running interrupted (the CLI
   * tells the model they failed; left running, they would finish what the model was told failed).
   *
   * **Limits.** The session only ever adds in-process servers: one removed by a later call is no
   * longer offered by the CLI but is still served here until the session ends, so its name cannot
   * be given to another definition (`InvalidInput`); and they are served from before the request
   * (the CLI may call them before it answers), so a request that fails leaves them served.
   *
   * @since 0.2.0
   */
  readonly setMcpServers: <const Servers extends ReadonlyArray<McpServers.Server<unknown>> = readonly []>(
    servers: { readonly [name: string]: Launch.McpExternalServer },
    options?: RequestOptions & {
      /** In-process servers (made with `McpServers.server`), kept and served by this session. */
      readonly inProcess?: Servers
    }
  ) => Effect.Effect<
    Protocol.McpSetServersResponse,
    ClaudeError.ClaudeError,
    Exclude<McpServers.Server.Services<Servers[number]>, Scope.Scope>
  >
  /**
   * `mcp_reconnect`: reconnects an MCP server by name (an unknown name is `ControlRejected`). One of
   * the session's in-process servers is `InvalidInput`: the CLI cannot reconnect those (turn it
   * off and on with `toggleMcpServer` instead).
   *
   * @since 0.2.0
   */
  readonly reconnectMcpServer: (serverName: string, options?: RequestOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `mcp_toggle`: disables or enables an MCP server. Disabled, its status is `disabled` and the CLI
   * refuses its tools' calls (telling the model the server is switched off), though CLI 2.1.332
   * may still list its tools in the next requests. Disabling one of the session's in-process servers
   * interrupts its tool calls still running (the CLI tells the model they failed).
   *
   * @since 0.2.0
   */
  readonly toggleMcpServer: (
    serverName: string,
    enabled: boolean,
    options?: RequestOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `mcp_read_resource`: reads a `ui://` resource from a server the CLI dialed.
   *
   * @since 0.2.0
   */
  readonly readMcpResource: (
    serverName: string,
    uri: string,
    options?: RequestOptions
  ) => Effect.Effect<Protocol.McpReadResourceResponse, ClaudeError.ClaudeError>
  /**
   * `set_mcp_permission_mode_override`: pins a server's permission mode (`default` or `auto`,
   * tighten-only) or clears it (`null`). Returns the CLI's warning for an unknown server name.
   *
   * @since 0.2.0
   */
  readonly setMcpPermissionModeOverride: (
    serverName: string,
    mode: "default" | "auto" | null,
    options?: RequestOptions
  ) => Effect.Effect<Protocol.McpPermissionModeOverrideResponse, ClaudeError.ClaudeError>
  /**
   * `set_max_thinking_tokens`: the thinking budget of later requests (a non-negative integer; `0`
   * turns thinking off), or `null` for the default, on a model with thinking budgets
   * (`claude-sonnet-4-5`). A model whose thinking is adaptive (CLI 2.1.332's defaults, whose
   * `listModels` entry says `supportsThinkingOff: false`) keeps it: the CLI acknowledges the
   * request and changes nothing. A bad number is `InvalidInput`, not sent.
   *
   * @since 0.2.0
   */
  readonly setMaxThinkingTokens: (
    maxThinkingTokens: number | null,
    options?: RequestOptions & {
      /** How thinking is shown for the rest of the session (`null`: the CLI's default). */
      readonly display?: "summarized" | "omitted" | "highlights" | null
    }
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `interrupt` as a plain request: the CLI's receipt (`still_queued`, and with `cancelQueued`
   * the queued messages it withdrew under `cancelled`), without waiting for the turn's result
   * (which `interrupt` does).
   *
   * @since 0.2.0
   */
  readonly interruptRequest: (
    options?: RequestOptions & {
      /** Withdraws the queued user messages too. */
      readonly cancelQueued?: boolean
    }
  ) => Effect.Effect<Protocol.InterruptResponse, ClaudeError.ClaudeError>
  /**
   * `rename_session`: the session's title (in its transcript; `get_status`'s "Session name"). An
   * empty title is `InvalidInput`, not sent.
   *
   * @since 0.2.0
   */
  readonly renameSession: (
    title: string,
    options?: RequestOptions & {
      /** `host` (a user's rename in the host, the default here) or `remote`. */
      readonly source?: "host" | "remote"
      /** Refused by the CLI when it has moved to another session since. */
      readonly sessionId?: string
    }
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `reload_plugins`: re-reads plugins from disk; `addPlugins` (absolute directories, else
   * `InvalidInput`) loads more. Returns the session's commands, agents, plugins and MCP servers.
   *
   * @since 0.2.0
   */
  readonly reloadPlugins: (
    options?: RequestOptions & {
      /** Holds the reload back when it would change the tool list under the prompt cache. */
      readonly holdOnCacheImpact?: boolean
      /** Plugin directories to load as well (absolute paths). */
      readonly addPlugins?: ReadonlyArray<string>
      /** A busy session refuses (`ControlRejected` with code `reload_plugins_busy`). */
      readonly refuseIfBusy?: boolean
    }
  ) => Effect.Effect<Protocol.ReloadPluginsResponse, ClaudeError.ClaudeError>
  /**
   * `reload_skills`: re-reads skills from disk and returns them.
   *
   * @since 0.2.0
   */
  readonly reloadSkills: (options?: RequestOptions) => Effect.Effect<Protocol.ReloadSkillsResponse, ClaudeError.ClaudeError>
  /**
   * `reload_output_styles`: re-reads the output-style directories and returns the style names.
   *
   * @since 0.2.0
   */
  readonly reloadOutputStyles: (
    options?: RequestOptions
  ) => Effect.Effect<Protocol.ReloadOutputStylesResponse, ClaudeError.ClaudeError>
  /**
   * `apply_flag_settings`: merges settings into the flag layer mid-session (top-level keys
   * shallowly; `null` clears a key), e.g. `{ effortLevel: "low" }`. An `effortLevel` that is no
   * `Launch.EffortLevel` is `InvalidInput`, not sent (the CLI would acknowledge and drop it).
   *
   * @since 0.2.0
   */
  readonly applyFlagSettings: (
    settings: { readonly [key: string]: unknown },
    options?: RequestOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `get_settings`: the effective settings, each source's own, and what is applied.
   *
   * @since 0.2.0
   */
  readonly settings: (options?: RequestOptions) => Effect.Effect<Protocol.SettingsResponse, ClaudeError.ClaudeError>
  /**
   * `background_tasks`: moves running foreground tasks to the background (only the one started
   * by `toolUseId` when given). False when `toolUseId` matched no foreground task.
   *
   * @since 0.2.0
   */
  readonly backgroundTasks: (
    options?: RequestOptions & {
      /** The tool call whose task to move. */
      readonly toolUseId?: string
    }
  ) => Effect.Effect<boolean, ClaudeError.ClaudeError>
  /**
   * `seed_read_state`: tells the CLI a file was read at `mtime` (ms), so an Edit of it does not
   * fail with "file not read yet".
   *
   * @since 0.2.0
   */
  readonly seedReadState: (
    path: string,
    mtime: number,
    options?: RequestOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `get_usage`: the session's cost and token totals and the plan's rate limits.
   *
   * @since 0.2.0
   */
  readonly usage: (
    options?: RequestOptions & {
      /** Skips the scan of local transcripts (its `behaviors` section is then `null`). */
      readonly skipBehaviors?: boolean
    }
  ) => Effect.Effect<Protocol.UsageResponse, ClaudeError.ClaudeError>
  /**
   * `list_models`: the models the session can run, asked afresh (`initializeResult.models` is
   * the list at start).
   *
   * @since 0.2.0
   */
  readonly listModels: (options?: RequestOptions) => Effect.Effect<ReadonlyArray<Protocol.ModelInfo>, ClaudeError.ClaudeError>
  /**
   * `update_settings`: writes settings into a settings file with the CLI's own writer and applies
   * them (`localSettings` takes `outputStyle`, `userSettings` takes `effortLevel`; string values).
   *
   * @since 0.2.0
   */
  readonly updateSettings: (
    source: "localSettings" | "userSettings",
    settings: { readonly [key: string]: string },
    options?: RequestOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * `read_file`: reads a file of the session's filesystem (relative to its cwd) under the Read
   * tool's permission rules; a denied or missing file is `ControlRejected`. A `maxBytes` that is
   * not a positive integer is `InvalidInput`.
   *
   * @since 0.2.0
   */
  readonly readFile: (
    path: string,
    options?: RequestOptions & {
      /** The most bytes to read (the CLI's default: 1 MB). */
      readonly maxBytes?: number
      /** `base64` for binary files (default `utf-8`). */
      readonly encoding?: "utf-8" | "base64"
    }
  ) => Effect.Effect<Protocol.ReadFileResponse, ClaudeError.ClaudeError>
  /**
   * `side_question`: asks the model a question aside from the conversation (with it as context;
   * the answer is not added to it). Returns the answer, or null. An empty question is
   * `InvalidInput`.
   *
   * @since 0.2.0
   */
  readonly sideQuestion: (question: string, options?: RequestOptions) => Effect.Effect<string | null, ClaudeError.ClaudeError>
  /**
   * `get_status`: the `/status` screen's data (version, session name and id, cwd, model, …).
   *
   * @since 0.2.0
   */
  readonly status: (options?: RequestOptions) => Effect.Effect<Protocol.StatusResponse, ClaudeError.ClaudeError>
  /**
   * `export_conversation`: the conversation as plain text (the `/export` command).
   *
   * @since 0.2.0
   */
  readonly exportConversation: (
    options?: RequestOptions
  ) => Effect.Effect<Protocol.ExportConversationResponse, ClaudeError.ClaudeError>
  /**
   * Any control request, for subtypes the library does not name yet. Its answer is what
   * `responseSchema` decodes it to (a `Schema.Class` instance, the schema's own keys), fields the
   * schema does not know left out. A `set_permission_mode` that `setPermissionMode` refuses is
   * `InvalidInput` here too, not sent.
   */
  readonly request: <S extends Schema.Top & { readonly DecodingServices: never }>(
    body: {
      /** The control request's `subtype`. */
      readonly subtype: string
    } & Record<string, unknown>,
    responseSchema: S,
    options?: RequestOptions
  ) => Effect.Effect<S["Type"], ClaudeError.ClaudeError>
  /**
   * The CLI's stderr, line by line as it comes (each run of the stream sees the last lines
   * before it started too); the tail is also in `ProcessExited`.
   */
  readonly stderr: Stream.Stream<string>
  /** Ends stdin: the CLI finishes what runs, then exits. */
  readonly endInput: Effect.Effect<void>
  /** Waits for the CLI to exit. */
  readonly exit: Effect.Effect<ExitStatus>
}

/**
 * Opens a session: spawns the CLI and sends `initialize` (with the hook registrations).
 * Hooks, Permissions and McpServers are taken from the context when provided. A bad option fails
 * with `InvalidInput`, naming it, before anything starts: a launch option `Launch.validate`
 * refuses, or a session option out of the range its documentation gives.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open: <S extends OutputFormat = never>(
  options?: SessionOptions<S>
) => Effect.Effect<Session<RunResult<S>>, ClaudeError.ClaudeError, Transport | Scope.Scope> = <S extends OutputFormat>(
  options?: SessionOptions<S>
) =>
  // `run` decodes with the Schema given, so the session's type follows it.
  openSession(options) as Effect.Effect<Session<RunResult<S>>, ClaudeError.ClaudeError, Transport | Scope.Scope>

/**
 * Every key of {@link SessionOptions} (the compiler keeps the list whole and exact). A key off it
 * (a misspelling from JavaScript or a config file, `disalowedTools`; the SDK's name for an option
 * of another name, `additionalDirectories`) was dropped without a word, and a restriction the
 * program meant did not hold: it is `InvalidInput`.
 */
const sessionOptionKeys: { readonly [K in keyof Required<SessionOptions>]: true } = {
  executable: true, cwd: true, model: true, fallbackModel: true, resume: true, forkSession: true,
  continueConversation: true, permissionMode: true, systemPrompt: true, appendSystemPrompt: true,
  allowedTools: true, disallowedTools: true, maxTurns: true, addDirs: true,
  projectConfigRoot: true, settings: true, sandbox: true, managedSettings: true, env: true,
  secretEnv: true, apiKey: true, gitIdentity: true, replayUserMessages: true,
  fileCheckpointing: true, extraArgs: true, includePartialMessages: true, thinking: true,
  maxThinkingTokens: true, effort: true, maxBudgetUsd: true, taskBudget: true,
  settingSources: true, betas: true, tools: true, agent: true, sessionId: true,
  resumeSessionAt: true, resumeDropsTurn: true, persistSession: true, includeHookEvents: true,
  debug: true, debugFile: true, plugins: true, permissionPromptToolName: true, agents: true,
  title: true, promptSuggestions: true, planModeInstructions: true, forwardSubagentText: true,
  skills: true, jsonSchema: true, mcpServers: true, strictMcpConfig: true, outputFormat: true,
  maxLineBytes: true, closeGrace: true, controlTimeout: true, initializeTimeout: true,
  interruptTimeout: true, stallTimeout: true, turnTimeout: true, errorResults: true,
  verbatimPrompts: true, cliVersionPolicy: true, transcript: true, sessionStore: true
}

/** The known option nearest `key` (by edit distance, at most 3 edits), for the error's hint. */
const nearestOption = (key: string): string | undefined => {
  const distance = (a: string, b: string): number => {
    let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
    for (let i = 1; i <= a.length; i++) {
      const row = [i]
      for (let j = 1; j <= b.length; j++) {
        row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      }
      previous = row
    }
    return previous[b.length]!
  }
  let best: { readonly name: string; readonly d: number } | undefined
  for (const name of Object.keys(sessionOptionKeys)) {
    const d = distance(key.toLowerCase(), name.toLowerCase())
    if (d <= 3 && (best === undefined || d < best.d)) best = { name, d }
  }
  return best?.name
}

/** The official SDK's options that the library takes under another name, or as a service. */
const sdkOptionNames: Readonly<Record<string, string>> = {
  additionalDirectories: "addDirs",
  continue: "continueConversation",
  enableFileCheckpointing: "fileCheckpointing",
  pathToClaudeCodeExecutable: "executable",
  canUseTool: "a Permissions layer",
  hooks: "a Hooks layer",
  onElicitation: "an Elicitation layer",
  onUserDialog: "a UserDialogs layer"
}

/** The keys of `options` that are no session option, each named with the option it is near. */
const unknownOptions = (options: object): ReadonlyArray<string> =>
  Object.keys(options).filter((key) => !Object.hasOwn(sessionOptionKeys, key)).map((key) => {
    const sdk = Object.hasOwn(sdkOptionNames, key) ? sdkOptionNames[key] : undefined
    const near = nearestOption(key)
    const hint = sdk !== undefined
      ? ` (the official SDK's name: here it is ${sdk})`
      : near === undefined
      ? ""
      : ` (did you mean ${near}?)`
    return `unknown option ${JSON.stringify(key)}${hint}`
  })

const openSession: (
  options?: SessionOptions
) => Effect.Effect<Session, ClaudeError.ClaudeError, Transport | Scope.Scope> = Effect.fnUntraced(
  function*(options: SessionOptions = {}) {
    const problems = [...unknownOptions(options), ...SessionOptionsCheck.problemsOf(options)]
    if (problems.length > 0) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
        description: `Invalid session options: ${problems.join("; ")}`
      })))
    }
    const transport = yield* Transport
    const hooks = yield* Effect.serviceOption(Services.Hooks)
    const permissions = yield* Effect.serviceOption(Services.Permissions)
    const mcpServers = Option.getOrElse(yield* Effect.serviceOption(Services.McpServers), () => noMcpServers)
    // ---- elicitation and host dialogs (issue 15) ------------------------------------------------
    const elicitation = yield* Effect.serviceOption(Services.Elicitation)
    const userDialogs = yield* Effect.serviceOption(Services.UserDialogs)

    // ---- sessions in a store (issue 16) -----------------------------------------------------------
    const storeOptions: SessionStoreOptions | undefined = options.sessionStore === true
      ? {}
      : options.sessionStore === false ? undefined : options.sessionStore
    const storeModule = storeOptions === undefined ? undefined : yield* loadSessionStore
    const store = storeModule === undefined || storeOptions === undefined
      ? undefined
      : yield* storeModule.storeOf(options, storeOptions)
    const wiring = {
      mcpServers: Services.launchEntries(mcpServers),
      permissionPromptTool: Option.isSome(permissions),
      sessionMirror: store !== undefined
    }
    // ---- structured output (issue 15) ---------------------------------------------------------
    const outputFormat = options.outputFormat
    if (outputFormat !== undefined && options.jsonSchema !== undefined) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
        description: "Invalid launch options: set outputFormat (a Schema) or jsonSchema (a raw JSON Schema), not both"
      })))
    }
    // A raw one with its object at the top (a top-level `$ref` resolved); one with none is refused
    // by `validate`.
    let jsonSchema = options.jsonSchema === undefined || !isRecord(options.jsonSchema)
      ? options.jsonSchema
      : (objectSchemaOf(options.jsonSchema) as Record<string, unknown> | undefined) ?? options.jsonSchema
    let decodeStructured: ReturnType<typeof StructuredOutput.decode> | undefined
    if (outputFormat !== undefined) {
      const structuredOutput = yield* loadStructuredOutput
      jsonSchema = yield* structuredOutput.jsonSchemaOf(outputFormat)
      decodeStructured = structuredOutput.decode(outputFormat)
    }
    const launchOptions = yield* Launch.validate({ ...options, jsonSchema }, wiring)
    const closeGrace = Duration.fromInputUnsafe(options.closeGrace ?? "5 seconds")
    const command = Launch.buildCommand(launchOptions, wiring)
    // The session's own span, open as long as the session: handler calls made outside any turn
    // are parented to it.
    const sessionSpan = yield* SpanExits.makeSpanScoped("claude.session")
    const spec = { executable: options.executable, env: command.env, cwd: options.cwd, closeGrace }
    const subscribers = new Subscribers<Event>()
    const mirror = storeModule === undefined || store === undefined || storeOptions === undefined
      ? undefined
      : yield* storeModule.openMirror(store, storeOptions, options, command, (event) => {
        subscribers.publish([event])
        subscribers.wake()
      })
    // Run last, as the scope runs its finalizers last first: after the transport's has ended the
    // CLI, so a handler of its requests stuck where it cannot be interrupted is waited for (within
    // closeGrace, from the interruption) without keeping the CLI alive.
    const afterTheCli: Array<Effect.Effect<void>> = []
    yield* Effect.addFinalizer(() => Effect.suspend(() => Effect.all(afterTheCli, { discard: true })))
    // The session's number for its recorder, taken where `Replay` takes its own: at the open.
    const recordedAs = options.transcript === undefined ? undefined : recordedSessions.get(options.transcript) ?? 0
    if (options.transcript !== undefined) recordedSessions.set(options.transcript, recordedAs! + 1)
    const connection = yield* transport.open({ ...spec, args: command.args })
    // The engine and the protocol's schemas are loaded (by the first session of the process) once
    // the CLI is spawned: they are compiled and built while it starts, which takes far longer.
    const engine = yield* (yield* loadEngine).start({
      options,
      recordedAs,
      transport,
      connection,
      spec,
      command,
      jsonSchema,
      decodeStructured,
      sessionSpan,
      subscribers,
      mirror,
      afterTheCli: (wait) => {
        afterTheCli.push(wait)
      },
      hooks,
      permissions,
      elicitation,
      userDialogs,
      mcpServers
    })

    const session: Session = {
      pid: connection.pid,
      sessionId: engine.sessionId,
      initializeResult: engine.initializeResult,
      cliVersion: engine.cliVersion,
      events: Stream.unwrap(Effect.map(subscribers.subscribe, (subscriber) => subscriber.mailbox.stream)),
      send: engine.runner.send,
      turn: engine.runner.turn,
      run: engine.runner.run,
      interrupt: engine.runner.interrupt,
      flushStore: mirror === undefined ? Effect.void : mirror.flush,
      ...engine.controls,
      request: engine.requestDecoded,
      stderr: connection.stderr,
      endInput: engine.endInput,
      exit: engine.exit
    }
    return session
  },
  // The CLI's text of a failed start (its stderr, a broken answer) left out without `TraceContent`.
  SpanExits.withSpan("Claude.open")
)

/** No in-process MCP servers (`McpServers.empty`). */
const noMcpServers: Services.McpServers["Service"] = { servers: [] }

/**
 * A one-shot: opens a session, runs one turn with `prompt`, closes the session and returns the
 * turn's result, as {@link Session.run} does. The session lives in a scope of its own, closed
 * (the CLI ended) before `query` returns, whether the turn succeeded, failed or was interrupted,
 * so no `Effect.scoped` is needed around it.
 *
 * **Details**
 *
 * Needs a `Transport`: `ClaudeNode.layer` (from `effect-claude-code/node`) for the real CLI, or
 * a fake from `effect-claude-code/testing`. `Hooks`, `Permissions` and `McpServers` are taken
 * from the context when provided, as {@link open} does. A failed turn fails with its reason (see
 * `errorResults`). Interrupted, it waits for the turn's aborted result at most the EOF share of
 * `closeGrace`, whatever `interruptTimeout` says: the session is closed right after.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Claude } from "effect-claude-code"
 * import { ClaudeNode } from "effect-claude-code/node"
 *
 * const program = Claude.query("Say hello").pipe(Effect.provide(ClaudeNode.layer))
 * ```
 *
 * @since 0.2.0
 * @category constructors
 */
export const query: <S extends OutputFormat = never>(
  prompt: TurnInput,
  options?: SessionOptions<S>
) => Effect.Effect<RunResult<S>, ClaudeError.ClaudeError, Transport> = <S extends OutputFormat>(
  prompt: TurnInput,
  options?: SessionOptions<S>
) => queryOnce(prompt, options) as Effect.Effect<RunResult<S>, ClaudeError.ClaudeError, Transport>

// Its span ends with the texts of a failed turn left out without `TraceContent` (as the turn's).
const queryOnce: (
  prompt: TurnInput,
  options?: SessionOptions
) => Effect.Effect<TurnResult, ClaudeError.ClaudeError, Transport> = Effect.fnUntraced(
  function*(prompt: TurnInput, options?: SessionOptions) {
    const session = yield* openSession(withShortInterrupt(options))
    return yield* session.run(prompt)
  },
  Effect.scoped,
  SpanExits.withSpan("Claude.query")
)

/**
 * `query`'s session is thrown away once its turn ends: an interrupted turn waits for its aborted
 * result at most the EOF share of `closeGrace` (which the close gives the CLI to record it
 * anyway), not `interruptTimeout` (10 s by default) before the close. Options that are not
 * valid are left as they are, for `open` to report.
 */
const withShortInterrupt = (options: SessionOptions | undefined): SessionOptions | undefined => {
  const closeGrace = Duration.fromInput(options?.closeGrace ?? "5 seconds")
  const interruptTimeout = Duration.fromInput(options?.interruptTimeout ?? "10 seconds")
  if (Option.isNone(closeGrace) || Option.isNone(interruptTimeout)) return options
  const share = Duration.millis(Math.max(1, eofShare(closeGrace.value)))
  // A shorter one (zero or less too, which `open` refuses) is left as it is.
  return Duration.isGreaterThan(interruptTimeout.value, share) ? { ...options, interruptTimeout: share } : options
}

/**
 * A one-shot as a stream: opens a session when the stream starts, streams the events of one turn
 * with `prompt` (as {@link Session.turn} does, ending with its result), and closes the session
 * when the stream ends. Ending the stream early (`Stream.take`, `Stream.takeUntil`, an
 * interruption) interrupts the turn on the CLI, then closes the session. With an
 * `outputFormat`, the result carries the decoded structured output as `structured`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const queryStream = <S extends OutputFormat = never>(
  prompt: TurnInput,
  options?: SessionOptions<S>
): Stream.Stream<TurnEvent<RunResult<S>>, ClaudeError.ClaudeError, Transport> =>
  // The session in a scope of its own, closed once the turn's stream has ended and its finalizer
  // ran: a turn ended early is interrupted on the CLI (from the session's scope) before the
  // session closes. Opened in the stream's scope, the session closed with it, and the interrupt
  // was never sent.
  Stream.unwrap(Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* restore(Scope.provide(open(options), scope)).pipe(
        Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void)
      )
      return session.turn(prompt).pipe(Stream.onExit((exit) => Scope.close(scope, exit)))
    })
  ))
