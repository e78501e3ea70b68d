/**
 * An in-memory CLI for tests: a `Transport` layer whose "process" is an Effect script that reads
 * what the library writes and writes what the CLI would. No process, no bytes on a pipe, and
 * fully deterministic, so it runs under `TestClock`.
 *
 * A script can also play the CLI's requests to the program and check its answers, typed:
 * {@link callHook} (a hook the program registered), {@link askPermission} (its permission
 * handler) and {@link callMcpTool} (a tool of its MCP servers).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import * as HookEvents from "../HookEvents.ts"
import * as Rpc from "../internal/mcpJsonRpc.ts"
import { ControlResponse, McpMessageResponse } from "../protocol/control.ts"
import { PermissionResult } from "../protocol/permissions.ts"
import { makeStderrFeed, TAIL_CHARS, TAIL_MARGIN } from "../internal/stderrLines.ts"
import { splitText } from "../internal/textChunks.ts"
import { matches } from "../internal/toolMatcher.ts"
import { type Connection, type ExitStatus, type LaunchSpec, Transport } from "../Transport.ts"

/**
 * What a script sees: the launch spec, the host's messages, and the CLI's outputs.
 *
 * @since 0.1.0
 * @category models
 */
export interface FakeCliHandle {
  /** What the library asked to start (argv, env, cwd). */
  readonly spec: LaunchSpec
  /**
   * The next message the library wrote, parsed. Fails with `SessionClosed` once the library
   * has ended stdin and every message was read.
   */
  readonly next: Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
  /** Reads messages until one matches, and returns it (the others are dropped). */
  readonly nextMatching: (
    predicate: (message: Record<string, unknown>) => boolean
  ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
  /** Writes a message as one line of stdout. */
  readonly emit: (message: unknown) => Effect.Effect<void>
  /** Writes raw stdout text or bytes as they are (no newline added): for framing tests. */
  readonly emitRaw: (data: string | Uint8Array) => Effect.Effect<void>
  /** Writes to stderr: its lines go to `Connection.stderr` as they are written, its tail to the exit status. */
  readonly stderr: (text: string) => Effect.Effect<void>
  /** Closes stdout while the script keeps running. */
  readonly closeStdout: Effect.Effect<void>
  /** Every message the library wrote so far. */
  readonly received: ReadonlyArray<Record<string, unknown>>
  /**
   * Sends a CLI → host `control_request` with this body (`{ subtype, … }`) and a fresh
   * `request_id`, and waits for the host's `control_response` to it, which `next` then never
   * sees. Past the deadline (`timeout`, default 2 seconds, in real time even under `TestClock`, so it fails before a unit test's own timeout)
   * the request is cancelled (`control_cancel_request`, as the CLI does) and the call fails with
   * `ControlTimeout`. The helpers {@link callHook}, {@link askPermission} and
   * {@link callMcpTool} build on it.
   *
   * @since 0.2.0
   */
  readonly request: (
    body: Record<string, unknown>,
    options?: RequestOptions
  ) => Effect.Effect<ControlResponse["response"], ClaudeError.ClaudeError>
}

/**
 * Options of the requests a script sends to the host.
 *
 * @since 0.2.0
 * @category models
 */
export interface RequestOptions {
  /** How long to wait for the host's answer, in real time even under `TestClock` (default 2 seconds: an in-memory host answers at once, and a unit test times out at 5 s). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * How a script ends: an exit code (0 by default), or a status with a signal.
 *
 * @since 0.1.0
 * @category models
 */
export type ScriptExit = void | number | {
  /** The exit code; `null` when a signal ended the process. */
  readonly code: number | null
  /** The signal that ended the process; `null` when it exited. */
  readonly signal: string | null
}

const encoder = new TextEncoder()

const liveClock = Clock.Clock.defaultValue()
const decodeControlResponse = Schema.decodeUnknownOption(ControlResponse)

const makeConnection = <R>(
  spec: LaunchSpec,
  script: (cli: FakeCliHandle) => Effect.Effect<ScriptExit, unknown, R>
) =>
  Effect.gen(function*() {
    const stdin = yield* Queue.unbounded<Record<string, unknown>, Cause.Done>()
    const stdout = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const exited = yield* Deferred.make<ExitStatus>()
    const received: Array<Record<string, unknown>> = []
    let stderrText = ""
    let inputEnded = false
    const stderrLines = yield* makeStderrFeed
    // The host's answers to the requests of `request`, by request id: routed here, not to `next`.
    const awaiting = new Map<string, Deferred.Deferred<ControlResponse["response"]>>()
    let requestCount = 0

    const endStdout = Effect.sync(() => Queue.endUnsafe(stdout))
    const next: FakeCliHandle["next"] = Queue.take(stdin).pipe(
      Effect.catchCause(() => Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "stdin ended" }))))
    )
    const handle: FakeCliHandle = {
      spec,
      next,
      nextMatching: (predicate) =>
        Effect.gen(function*() {
          while (true) {
            const message = yield* next
            if (predicate(message)) return message
          }
        }),
      emit: (message) => Effect.sync(() => Queue.offerUnsafe(stdout, encoder.encode(JSON.stringify(message) + "\n"))),
      emitRaw: (data) => Effect.sync(() => Queue.offerUnsafe(stdout, typeof data === "string" ? encoder.encode(data) : data)),
      stderr: (text) =>
        Effect.suspend(() => {
          // As the process transport keeps it: the reported tail and a margin, redacted whole.
          stderrText = (stderrText + text).slice(-(TAIL_CHARS + TAIL_MARGIN))
          return stderrLines.push(text)
        }),
      closeStdout: endStdout,
      received,
      request: (body, options) =>
        Effect.gen(function*() {
          const requestId = `fake-cli-request-${++requestCount}`
          const answer = yield* Deferred.make<ControlResponse["response"]>()
          awaiting.set(requestId, answer)
          const subtype = String(body.subtype)
          const timeout = Duration.fromInputUnsafe(options?.timeout ?? "2 seconds")
          yield* handle.emit({ type: "control_request", request_id: requestId, request: body })
          const result = yield* Deferred.await(answer).pipe(
            Effect.timeoutOption(timeout),
            Effect.provideService(Clock.Clock, liveClock),
            Effect.ensuring(Effect.sync(() => awaiting.delete(requestId)))
          )
          if (Option.isSome(result)) return result.value
          yield* handle.emit({ type: "control_cancel_request", request_id: requestId })
          return yield* Effect.fail(
            ClaudeError.make(new ClaudeError.ControlTimeout({ subtype, timeoutMillis: Duration.toMillis(timeout) }))
          )
        })
    }

    // The tail is read when the script has ended, after the stderr written just before (a
    // failing script's cause), not when this effect is built.
    const finish = (status: { readonly code: number | null; readonly signal: string | null }) =>
      Effect.andThen(
        Effect.andThen(endStdout, stderrLines.end),
        Effect.suspend(() => Deferred.succeed(exited, { ...status, stderrTail: stderrText }))
      )

    let stoppedAtEof = false
    const fiber = yield* script(handle).pipe(
      Effect.onExit((exit) => {
        if (Exit.isSuccess(exit)) {
          const value = exit.value
          return finish(
            value === undefined ? { code: 0, signal: null } : typeof value === "number" ? { code: value, signal: null } : value
          )
        }
        if (Cause.hasInterruptsOnly(exit.cause)) {
          return finish(stoppedAtEof ? { code: 0, signal: null } : { code: null, signal: "SIGKILL" })
        }
        return Effect.andThen(handle.stderr(Cause.pretty(exit.cause)), finish({ code: 1, signal: null }))
      }),
      Effect.forkScoped
    )

    // At stdin EOF a script gets to react (its `next` fails); one that is still busy after that is
    // stopped, as if the CLI exited 0. No clock is involved, so closing works under TestClock.
    const endInput = Effect.suspend(() => {
      if (inputEnded) return Effect.void
      inputEnded = true
      Queue.endUnsafe(stdin)
      return Effect.gen(function*() {
        for (let i = 0; i < 20 && !Deferred.isDoneUnsafe(exited); i++) yield* Effect.yieldNow
        if (!Deferred.isDoneUnsafe(exited)) {
          stoppedAtEof = true
          yield* Fiber.interrupt(fiber)
        }
      })
    })
    yield* Effect.addFinalizer(() => endInput)

    const connection: Connection = {
      pid: undefined,
      incoming: Stream.fromQueue(stdout),
      stderr: stderrLines.stream,
      send: (line) =>
        Effect.suspend(() => {
          if (inputEnded || Deferred.isDoneUnsafe(exited)) {
            return Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "send" })))
          }
          const message = JSON.parse(line) as Record<string, unknown>
          received.push(message)
          if (message.type === "control_response" && awaiting.size > 0) {
            const decoded = decodeControlResponse(message)
            const answer = Option.isSome(decoded) ? awaiting.get(decoded.value.response.request_id) : undefined
            if (Option.isSome(decoded) && answer !== undefined) {
              Deferred.doneUnsafe(answer, Effect.succeed(decoded.value.response))
              return Effect.void
            }
          }
          Queue.offerUnsafe(stdin, message)
          return Effect.void
        }),
      endInput,
      exit: Deferred.await(exited)
    }
    return connection
  })

/**
 * A `Transport` whose every session runs `script`. The script's requirements stay in the layer's,
 * so a script can use the test's services.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <R>(
  script: (cli: FakeCliHandle) => Effect.Effect<ScriptExit, unknown, R>
): Layer.Layer<Transport, never, R> =>
  Layer.effect(
    Transport,
    Effect.map(Effect.context<R>(), (context) =>
      Transport.of({
        open: (spec) =>
          makeConnection(spec, (cli) => Effect.provideContext(script(cli), context))
      }))
  )

/**
 * A minimal successful answer to `initialize`, as CLI 2.1.332 writes it for a session launched
 * in no mode (for a transport of a test's own; {@link answerInitialize} sends it, with the mode of
 * the launch's `--permission-mode`).
 *
 * @since 0.2.0
 * @category scripting
 */
export const initializeResponse: Readonly<Record<string, unknown>> = {
  commands: [],
  agents: [],
  output_style: "default",
  available_output_styles: ["default"],
  models: [],
  account: { tokenSource: "none", apiKeySource: "ANTHROPIC_API_KEY", apiProvider: "firstParty" },
  pid: 1,
  claude_code_version: "2.1.332",
  current_permission_mode: "default",
  capabilities: [],
  hooks_applied: true,
  hook_on_failure_supported: true
}

/**
 * Answers the `initialize` request the session sends first, with a minimal success
 * ({@link initializeResponse}, `response` merged in).
 *
 * @since 0.1.0
 * @category scripting
 */
export const answerInitialize = (cli: FakeCliHandle, response: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const request = yield* cli.nextMatching((m) => m.type === "control_request")
    yield* cli.emit(success(request, { ...initializeAnswerOf(cli), ...response }))
    return request
  })

/**
 * The permission mode the CLI was launched in (its `--permission-mode`), as it reports it:
 * `default` when none was named.
 *
 * @since 0.2.0
 * @category scripting
 */
export const launchedMode = (cli: FakeCliHandle): string => {
  const at = cli.spec.args.indexOf("--permission-mode")
  return at === -1 ? "default" : cli.spec.args[at + 1] ?? "default"
}

/** {@link initializeResponse} with the mode the CLI was launched in, as the CLI reports it. */
const initializeAnswerOf = (cli: FakeCliHandle): Record<string, unknown> => ({
  ...initializeResponse,
  current_permission_mode: launchedMode(cli)
})

/**
 * The control_response that answers `request` with success.
 *
 * @since 0.1.0
 * @category scripting
 */
export const success = (request: Record<string, unknown>, response: unknown = {}) => ({
  type: "control_response",
  response: { subtype: "success", request_id: request.request_id, response }
})

/**
 * The control_response that answers `request` with an error.
 *
 * @since 0.1.0
 * @category scripting
 */
export const failure = (request: Record<string, unknown>, error: string, errorCode?: string) => ({
  type: "control_response",
  response: {
    subtype: "error",
    request_id: request.request_id,
    error,
    ...(errorCode === undefined ? {} : { error_code: errorCode })
  }
})

/**
 * The messages of one plain text turn, shaped as the real CLI 2.1.332 writes them: `system/init`,
 * `stream_event` deltas, one `assistant` line, and a `result`.
 *
 * @since 0.1.0
 * @category scripting
 */
export const textTurn = (options: {
  /** The session id written in every line. */
  readonly sessionId: string
  /** The assistant's answer. */
  readonly text: string
  /** In how many `text_delta` stream events the text arrives (default 1). */
  readonly chunks?: number
  /** The process's running cost in US dollars, as the `result` reports it. */
  readonly totalCostUsd?: number
  /** The `result`'s `num_turns` (default 1). */
  readonly numTurns?: number
  /** The uuid of the user message this turn answers: echoed as the real CLI does. */
  readonly userMessageUuid?: string | undefined
  /**
   * The permission mode `system/init` names (default `default`): the CLI's, as it was launched or
   * switched ({@link launchedMode} gives a launch's).
   *
   * @since 0.2.0
   */
  readonly permissionMode?: string | undefined
}): ReadonlyArray<Record<string, unknown>> => {
  const { sessionId, text } = options
  const echo = options.userMessageUuid === undefined
    ? {}
    : { user_message_uuid: options.userMessageUuid, user_message_uuids: [options.userMessageUuid] }
  // By code points, as the API streams text; an empty text is one empty delta.
  const pieces = text === "" ? [""] : splitText(text, Math.max(1, options.chunks ?? 1))
  const base = { session_id: sessionId, parent_tool_use_id: null }
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  const event = (e: Record<string, unknown>, i: number) => ({
    type: "stream_event",
    event: e,
    ...base,
    uuid: `${sessionId}-se-${i}`
  })
  const deltas = pieces.map((piece, i) =>
    event({
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: piece }
    }, i + 2))
  const cost = options.totalCostUsd ?? 0.001
  return [
    {
      type: "system",
      subtype: "init",
      cwd: "/fake",
      session_id: sessionId,
      tools: ["Bash"],
      mcp_servers: [],
      model: "claude-fake-1",
      permissionMode: options.permissionMode ?? "default",
      slash_commands: [],
      apiKeySource: "ANTHROPIC_API_KEY",
      claude_code_version: "2.1.332",
      output_style: "default",
      agents: [],
      skills: [],
      plugins: [],
      uuid: `${sessionId}-init`,
      ...(options.userMessageUuid === undefined ? {} : { user_message_uuids: [options.userMessageUuid] })
    },
    // The echo on the line, as CLI 2.1.332 writes it, not in the API's event.
    {
      ...event({
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          model: "claude-fake-1",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage
        }
      }, 0),
      ...echo
    },
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, 1),
    ...deltas,
    {
      type: "assistant",
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "claude-fake-1",
        content: [{ type: "text", text }],
        stop_reason: null,
        stop_sequence: null,
        usage
      },
      ...base,
      uuid: `${sessionId}-assistant`,
      ...echo
    },
    event({ type: "content_block_stop", index: 0 }, pieces.length + 2),
    event({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage }, pieces.length + 3),
    event({ type: "message_stop" }, pieces.length + 4),
    { ...result({ sessionId, text, totalCostUsd: cost, numTurns: options.numTurns ?? 1 }), ...echo }
  ]
}

/**
 * A `result` line shaped as the real CLI 2.1.332 writes it. `totalCostUsd` is the running total
 * of the process, as the CLI reports it; an interrupted turn is
 * `result({ ..., subtype: "error_during_execution", terminalReason: "aborted_streaming" })`.
 *
 * @since 0.1.0
 * @category scripting
 */
export const result = (options: {
  /** The session id of the line. */
  readonly sessionId: string
  /** The `result` text (default `""`). */
  readonly text?: string
  /** The result's `subtype` (default `success`). */
  readonly subtype?: string
  /** The result's `terminal_reason`, when given. */
  readonly terminalReason?: string
  /** The process's running cost in US dollars (default 0.001). */
  readonly totalCostUsd?: number
  /** The result's `num_turns` (default 1). */
  readonly numTurns?: number
  /** The model named in `modelUsage`. */
  readonly model?: string
  /** The result's `structured_output` (a session with `outputFormat`), when given. */
  readonly structuredOutput?: unknown
}): Record<string, unknown> => {
  const cost = options.totalCostUsd ?? 0.001
  const subtype = options.subtype ?? "success"
  const isError = subtype !== "success"
  return {
    type: "result",
    subtype,
    is_error: isError,
    ...(isError ? { errors: [] } : { result: options.text ?? "" }),
    session_id: options.sessionId,
    uuid: `${options.sessionId}-result-${cost}`,
    num_turns: options.numTurns ?? 1,
    stop_reason: isError ? null : "end_turn",
    terminal_reason: options.terminalReason ?? "completed",
    duration_ms: 10,
    duration_api_ms: 8,
    total_cost_usd: cost,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    modelUsage: {
      [options.model ?? "claude-fake-1"]: {
        inputTokens: Math.round(cost * 10000),
        outputTokens: Math.round(cost * 5000),
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: cost,
        contextWindow: 1000000,
        maxOutputTokens: 128000
      }
    },
    permission_denials: [],
    ...(options.structuredOutput === undefined ? {} : { structured_output: options.structuredOutput })
  }
}

/**
 * The answer of CLI 2.1.332 to a control request of the host in a session with no MCP servers,
 * plugins, skills or file checkpointing (its models `initializeResponse`'s: none), `cost` the
 * running cost of {@link conversation}'s default turns; `{}` where it answers nothing more. Each
 * decodes with the schema of the session's method that asks it, as the real answer does.
 */
const defaultAnswer = (request: Record<string, unknown>, cost: number) => {
  const body = asRecord(request.request)
  switch (body.subtype) {
    case "interrupt":
      return success(request, { still_queued: [] })
    case "set_model":
      return success(request, typeof body.model === "string" ? { model: body.model } : {})
    case "set_permission_mode":
      return success(request, { mode: body.mode })
    case "mcp_status":
      return success(request, { mcpServers: [] })
    case "get_context_usage":
      return success(request, { categories: [], totalTokens: 0, maxTokens: 1000000, percentage: 0, model: "claude-fake-1" })
    case "rewind_files":
      // Without checkpointing: a dry run says it cannot, a rewind is refused.
      return body.dry_run === true
        ? success(request, { canRewind: false, error: "File rewinding is not enabled." })
        : failure(request, "File rewinding is not enabled.")
    case "reload_plugins":
      return success(request, { commands: [], agents: [], plugins: [], mcpServers: [], error_count: 0 })
    case "reload_skills":
      return success(request, { skills: [] })
    case "reload_output_styles":
      return success(request, { available_output_styles: ["default"] })
    case "get_settings":
      return success(request, { effective: {}, sources: [] })
    case "get_usage":
      return success(request, { session: { total_cost_usd: cost }, rate_limits_available: false })
    case "list_models":
      return success(request, { models: [] })
    case "side_question":
      return success(request, { response: null })
    case "get_status":
      return success(request, { sections: [] })
    case "export_conversation":
      return success(request, { text: "" })
    default:
      return success(request, {})
  }
}

/** The session id of {@link conversation}'s lines when none is given. */
const defaultSessionId = "00000000-0000-4000-8000-000000000000"

/**
 * A script for the common case: answers `initialize` ({@link initializeResponse}, as
 * {@link answerInitialize} does), answers every later control request with
 * `onControl` (by default as CLI 2.1.332 answers it in a session with no MCP servers, plugins,
 * skills or file checkpointing: `{ mcpServers: [] }` to `mcp_status`, the requested model to
 * `set_model`, `File rewinding is not enabled.` to `rewind_files`, `{cancelled: false}` to
 * `cancel_async_message`, success `{}` where it answers nothing more), and plays
 * `onUser(text, turnIndex, cli, message)` for each user turn until stdin ends; the default turn
 * echoes the user message's uuid as the real CLI does.
 *
 * @since 0.1.0
 * @category scripting
 */
export const conversation = <R = never>(options: {
  /** The session id written in every line (default an all-zero uuid). */
  readonly sessionId?: string
  /**
   * Plays one user turn: its text, its 0-based index, the CLI, the whole `user` line (default: a {@link
   * textTurn} echoing the text).
   */
  readonly onUser?: (
    text: string,
    index: number,
    cli: FakeCliHandle,
    message: Record<string, unknown>
  ) => Effect.Effect<void, unknown, R>
  /** Answers a control request other than `initialize` (default: success `{}`). */
  readonly onControl?: (request: Record<string, unknown>, cli: FakeCliHandle) => Effect.Effect<void, unknown, R>
}) =>
(cli: FakeCliHandle): Effect.Effect<ScriptExit, unknown, R> =>
  Effect.gen(function*() {
    const sessionId = options.sessionId ?? defaultSessionId
    let turns = 0
    let cost = 0
    while (true) {
      const exit = yield* Effect.exit(cli.next)
      if (Exit.isFailure(exit)) return 0
      const message = exit.value
      if (message.type === "control_request") {
        const request = message.request as Record<string, unknown>
        if (options.onControl !== undefined && request.subtype !== "initialize") {
          yield* options.onControl(message, cli)
        } else if (request.subtype === "cancel_async_message") {
          // Turns run one at a time here, as they arrive: nothing is ever still queued.
          yield* cli.emit(success(message, { cancelled: false, message_uuid: request.message_uuid }))
        } else if (request.subtype === "initialize") {
          yield* cli.emit(success(message, initializeAnswerOf(cli)))
        } else {
          yield* cli.emit(defaultAnswer(message, cost))
        }
      } else if (message.type === "user") {
        const content = (message.message as { content: unknown }).content
        const text = typeof content === "string"
          ? content
          : (content as Array<{ type: string; text?: string }>).filter((b) => b.type === "text").map((b) => b.text)
            .join("")
        const index = turns++
        if (options.onUser !== undefined) {
          yield* options.onUser(text, index, cli, message)
        } else {
          cost += 0.001
          const userMessageUuid = typeof message.uuid === "string" ? message.uuid : undefined
          const permissionMode = launchedMode(cli)
          for (const line of textTurn({ sessionId, text: `echo: ${text}`, totalCostUsd: cost, numTurns: 1, userMessageUuid, permissionMode })) {
            yield* cli.emit(line)
          }
        }
      }
    }
  })

/**
 * The shortest fake for testing a program: a `Transport` whose CLI answers every user turn with
 * `reply(prompt, index)` as a plain text turn ({@link textTurn}: its text streamed, then the
 * `assistant` line and a successful `result` echoing the message's uuid), each turn costing
 * $0.001.
 *
 * @example
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Claude } from "effect-claude-code"
 * import { FakeCli } from "effect-claude-code/testing"
 *
 * const answer = Claude.query("hi").pipe(Effect.provide(FakeCli.replying((prompt) => `you said: ${prompt}`)))
 * ```
 *
 * @since 0.2.0
 * @category layers
 */
export const replying = (reply: (prompt: string, index: number) => string): Layer.Layer<Transport> =>
  layer(conversation({
    onUser: (text, index, cli, message) =>
      Effect.forEach(
        textTurn({
          sessionId: defaultSessionId,
          text: reply(text, index),
          totalCostUsd: 0.001 * (index + 1),
          userMessageUuid: typeof message.uuid === "string" ? message.uuid : undefined,
          permissionMode: launchedMode(cli)
        }),
        (line) => cli.emit(line),
        { discard: true }
      )
  }))

// ---------------------------------------------------------------------------------------------
// Requests to the host: hooks, permissions, MCP tools
// ---------------------------------------------------------------------------------------------

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

const asRecord = (u: unknown): Record<string, unknown> =>
  u !== null && typeof u === "object" && !Array.isArray(u) ? u as Record<string, unknown> : {}

/** The answer's body, or the failure the host's error answer is. */
const answered = (
  subtype: string,
  response: ControlResponse["response"]
): Effect.Effect<unknown, ClaudeError.ClaudeError> =>
  response.subtype === "success"
    ? Effect.succeed(response.response ?? {})
    : Effect.fail(ClaudeError.make(
      new ClaudeError.ControlRejected({
        subtype,
        error: response.error,
        by: "host",
        ...(response.error_code === undefined ? {} : { errorCode: response.error_code })
      })
    ))

const decodeAnswer = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  what: string,
  body: unknown
): Effect.Effect<S["Type"], ClaudeError.ClaudeError> =>
  Schema.decodeUnknownEffect(schema)(body).pipe(
    Effect.mapError((issue) =>
      ClaudeError.make(
        new ClaudeError.ProtocolViolation({ description: `the host's ${what} does not decode: ${issue.message}`, line: show(body) })
      )
    )
  )

/**
 * Options of {@link callHook}.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallHookOptions extends RequestOptions {
  /**
   * The callback to call. Default: the first callback the host registered in `initialize` for
   * the event, whose matcher matches the input's `tool_name` (when it has one).
   */
  readonly callbackId?: string | undefined
  /** The request's `tool_use_id`. Default: the input's `tool_use_id`, else a fake one. */
  readonly toolUseId?: string | undefined
}

/**
 * Fires a hook on the host as the CLI does: a `hook_callback` request for `event` with `input`
 * (the common fields `session_id`, `transcript_path`, `cwd` and `hook_event_name` are filled in
 * when missing), and returns the host's answer decoded with the event's output schema.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FakeCli } from "effect-claude-code/testing"
 *
 * const TransportTest = FakeCli.layer((cli) =>
 *   Effect.gen(function*() {
 *     yield* FakeCli.answerInitialize(cli)
 *     const answer = yield* FakeCli.callHook(cli, "PreToolUse", {
 *       tool_name: "Bash",
 *       tool_input: { command: "rm -rf /" }
 *     })
 *     // answer.hookSpecificOutput?.permissionDecision === "deny"
 *   }))
 * ```
 *
 * Fails with `InvalidInput` when the host registered no such hook (read from the `initialize`
 * request the script received), `ControlRejected` (`by: "host"`) when the host answers with an
 * error, `ProtocolViolation` when its answer does not decode, `ControlTimeout` when it does not
 * answer in time (`options.timeout`, default 2 seconds of real time).
 *
 * @since 0.2.0
 * @category requests to the host
 */
export const callHook: <K extends HookEvents.HookEventName>(
  cli: FakeCliHandle,
  event: K,
  input?: Record<string, unknown>,
  options?: CallHookOptions
) => Effect.Effect<HookEvents.HookOutput<K>, ClaudeError.ClaudeError> = Effect.fn("FakeCli.callHook")(
  function*<K extends HookEvents.HookEventName>(
    cli: FakeCliHandle,
    event: K,
    input: Record<string, unknown> = {},
    options?: CallHookOptions
  ) {
    const toolName = typeof input.tool_name === "string" ? input.tool_name : undefined
    const initialize = cli.received.find((m) => m.type === "control_request" && asRecord(m.request).subtype === "initialize")
    const registered = asRecord(asRecord(asRecord(initialize?.request).hooks))[event]
    const callbackId = options?.callbackId ?? (Array.isArray(registered) ? registered : [])
      .map(asRecord)
      .filter((matcher) => matches(matcher.matcher, toolName))
      .flatMap((matcher) => Array.isArray(matcher.hookCallbackIds) ? matcher.hookCallbackIds : [])
      .find((id): id is string => typeof id === "string")
    if (callbackId === undefined) {
      return yield* Effect.fail(ClaudeError.make(
        new ClaudeError.InvalidInput({
          description: `the host registered no ${event} hook${toolName === undefined ? "" : ` matching ${toolName}`} ` +
            `(initialize hooks: ${show(asRecord(initialize?.request).hooks ?? null)})`
        })
      ))
    }
    const toolUseId = options?.toolUseId ??
      (typeof input.tool_use_id === "string" ? input.tool_use_id : `toolu_fakecli${String(cli.received.length)}`)
    const response = yield* cli.request({
      subtype: "hook_callback",
      callback_id: callbackId,
      input: {
        session_id: "00000000-0000-4000-8000-000000000000",
        transcript_path: "fake-transcript.jsonl",
        cwd: cli.spec.cwd ?? ".",
        hook_event_name: event,
        ...(toolName === undefined ? {} : { tool_use_id: toolUseId }),
        ...input
      },
      tool_use_id: toolUseId
    }, options)
    const body = yield* answered("hook_callback", response)
    return (yield* decodeAnswer(HookEvents.outputSchema(event), `${event} hook answer`, body)) as HookEvents.HookOutput<K>
  }
)

/**
 * Options of {@link askPermission}: the request's other fields (`title`, `description`,
 * `permission_suggestions`, `blocked_path`, …), as the CLI names them.
 *
 * @since 0.2.0
 * @category models
 */
export interface AskPermissionOptions extends RequestOptions {
  /** The request's `tool_use_id` (default: a fake one). */
  readonly toolUseId?: string | undefined
  /** More fields of the `can_use_tool` request, merged into it. */
  readonly fields?: Record<string, unknown> | undefined
}

/**
 * Asks the host whether a tool may run, as the CLI does: a `can_use_tool` request, and the
 * host's decision decoded (`{ behavior: "allow", updatedInput? }` or
 * `{ behavior: "deny", message }`).
 *
 * The host answers only with a `Permissions` layer (the session then passes
 * `--permission-prompt-tool stdio`). Fails with `ControlRejected` (`by: "host"`) when the host
 * answers with an error, `ProtocolViolation` when its answer does not decode, `ControlTimeout`
 * when it does not answer in time (`options.timeout`, default 2 seconds of real time).
 *
 * @since 0.2.0
 * @category requests to the host
 */
export const askPermission: (
  cli: FakeCliHandle,
  toolName: string,
  input: Record<string, unknown>,
  options?: AskPermissionOptions
) => Effect.Effect<PermissionResult, ClaudeError.ClaudeError> = Effect.fn("FakeCli.askPermission")(
  function*(cli: FakeCliHandle, toolName: string, input: Record<string, unknown>, options?: AskPermissionOptions) {
    const response = yield* cli.request({
      subtype: "can_use_tool",
      tool_name: toolName,
      input,
      tool_use_id: options?.toolUseId ?? `toolu_fakecli${String(cli.received.length)}`,
      ...options?.fields
    }, options)
    const body = yield* answered("can_use_tool", response)
    return yield* decodeAnswer(PermissionResult, "permission decision", body)
  }
)

/**
 * Options of {@link callMcpTool}.
 *
 * @since 0.2.0
 * @category models
 */
export interface CallMcpToolOptions extends RequestOptions {
  /** The JSON-RPC id (default: a fresh number). */
  readonly id?: string | number | undefined
}

let mcpIds = 0

/**
 * Calls a tool of one of the host's MCP servers, as the CLI does: an `mcp_message` request
 * carrying a JSON-RPC `tools/call`, and the tool's result decoded (`content`, `isError`,
 * `structuredContent`). A tool that failed is a result with `isError: true`, as MCP has it.
 *
 * Fails with `ControlRejected` (`by: "host"`) when the host answers with an error (an unknown
 * server) or with a JSON-RPC error (an unknown tool, bad arguments: `errorCode` is the JSON-RPC
 * code), `ProtocolViolation` when its answer does not decode, `ControlTimeout` when it does not
 * answer in time (`options.timeout`, default 2 seconds of real time).
 *
 * @since 0.2.0
 * @category requests to the host
 */
export const callMcpTool: (
  cli: FakeCliHandle,
  server: string,
  tool: string,
  args?: Record<string, unknown>,
  options?: CallMcpToolOptions
) => Effect.Effect<Rpc.CallToolResult, ClaudeError.ClaudeError> = Effect.fn("FakeCli.callMcpTool")(
  function*(
    cli: FakeCliHandle,
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
    options?: CallMcpToolOptions
  ) {
    const response = yield* cli.request({
      subtype: "mcp_message",
      server_name: server,
      message: { jsonrpc: "2.0", id: options?.id ?? ++mcpIds, method: "tools/call", params: { name: tool, arguments: args } }
    }, options)
    const body = yield* answered("mcp_message", response)
    const { mcp_response: rpc } = yield* decodeAnswer(McpMessageResponse, "MCP answer", body)
    if (rpc !== null && rpc.error !== undefined) {
      const error = asRecord(rpc.error)
      return yield* Effect.fail(ClaudeError.make(
        new ClaudeError.ControlRejected({
          subtype: "mcp_message",
          error: `JSON-RPC error from ${server}: ${typeof error.message === "string" ? error.message : show(rpc.error)}`,
          by: "host",
          ...(typeof error.code === "number" ? { errorCode: String(error.code) } : {})
        })
      ))
    }
    return yield* decodeAnswer(Rpc.CallToolResult, `${tool} result`, rpc?.result)
  }
)
