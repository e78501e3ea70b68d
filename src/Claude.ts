/**
 * A Claude Code session: the `claude` CLI as a scoped resource.
 *
 * `open` spawns the CLI through the `Transport` service and starts one reader and one writer;
 * closing the scope ends the process (stdin EOF, a grace period, SIGTERM, SIGKILL). Every turn is
 * a `Stream` that ends with its `result`; interrupting the fiber that consumes it sends the CLI
 * an `interrupt` and waits for that turn's `result`, so the session stays usable.
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
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as ClaudeError from "./ClaudeError.ts"
import * as Framing from "./Framing.ts"
import { Hooks } from "./Hooks.ts"
import * as Incoming from "./internal/incoming.ts"
import * as Outgoing from "./internal/outgoing.ts"
import { Subscribers } from "./internal/subscribers.ts"
import { TurnUsageTracker } from "./internal/turnUsage.ts"
import { userTurnProblem } from "./internal/userTurn.ts"
import * as Launch from "./Launch.ts"
import { McpServers } from "./McpServers.ts"
import { Permissions } from "./Permissions.ts"
import * as Protocol from "./Protocol.ts"
import * as ProcessTransport from "./internal/processTransport.ts"
import { type ExitStatus, Transport } from "./Transport.ts"

/**
 * The real CLI: sessions spawn `claude` as a child process. Needs a `ChildProcessSpawner`, which
 * `NodeServices.layer` from `@effect/platform-node` provides.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Transport, never, ChildProcessSpawner> = ProcessTransport.layer

/**
 * Options of a session: the launch options of the CLI, plus how the library drives it.
 *
 * @since 0.1.0
 * @category options
 */
export interface SessionOptions extends Launch.LaunchOptions {
  /** The cap on one stdout line; a longer line is reported and skipped. Default 64 MiB. */
  readonly maxLineBytes?: number | undefined
  /** Closing waits this long after stdin EOF, then after SIGTERM. Default 5 seconds. */
  readonly closeGrace?: Duration.Input | undefined
  /** The default deadline of a control request. Default 60 seconds. */
  readonly controlTimeout?: Duration.Input | undefined
  /** The deadline of `initialize`, which waits for the CLI to start. Default 120 seconds. */
  readonly initializeTimeout?: Duration.Input | undefined
  /** How long an interrupted turn waits for its `result`. Default 10 seconds. */
  readonly interruptTimeout?: Duration.Input | undefined
  /** Fails a turn with `Stalled` when the CLI writes nothing for this long during it. Off by default. */
  readonly stallTimeout?: Duration.Input | undefined
  /**
   * Records every line both ways (but `stream_event`s), e.g. `Transcript.toFile(path)`. Called
   * synchronously on the reader and writer paths, so it must only enqueue.
   */
  readonly transcript?: Recorder | undefined
}

/**
 * Where a session reports the lines it writes and reads. `record` must not block or throw.
 *
 * @since 0.1.0
 * @category models
 */
export interface Recorder {
  readonly record: (direction: "send" | "recv", message: unknown) => void
}

/**
 * A user turn: text, or text with images (sent as base64 blocks before the text), and an
 * optional uuid, which the CLI echoes and which `rewindFiles` takes.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnInput = string | Protocol.UserTurnInput

/**
 * What one turn cost: the CLI's `total_cost_usd` and `modelUsage` are running totals for the
 * process, so adding them up turn by turn (as users of the official SDKs do) counts every earlier
 * turn again. These are the differences from the previous result.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnUsage {
  readonly costUsd: number
  readonly modelUsage: Readonly<Record<string, Readonly<Record<string, number>>>>
}

/**
 * A `result` with this turn's own cost and usage under `turn`.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnResult = Protocol.ResultMessage & { readonly turn: TurnUsage }

/**
 * A line from the CLI that broke the protocol (JSON that breaks a known schema, a line over the
 * cap). It is reported here and skipped; the session goes on.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProtocolProblem {
  readonly type: "protocol_problem"
  readonly error: ClaudeError.ProtocolViolation
  /** The `type` of the offending line, when it was JSON with one. */
  readonly messageType: string | undefined
}

/**
 * What the session's streams carry: every message of the CLI except the control channel's own,
 * with results carrying their turn's usage, and protocol problems.
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | Exclude<
    Protocol.Message,
    Protocol.ResultMessage | Protocol.IncomingControlRequest | Protocol.ControlResponse |
    Protocol.ControlCancelRequest | Protocol.KeepAlive
  >
  | TurnResult
  | ProtocolProblem

/**
 * Options of one control request: its deadline, instead of the session's `controlTimeout`.
 *
 * @since 0.1.0
 * @category options
 */
export interface RequestOptions {
  readonly timeout?: Duration.Input | undefined
}

/**
 * A running session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session {
  /** The CLI's process id (undefined for in-memory fakes). */
  readonly pid: number | undefined
  /** The session id, from the first `system/init`, which the CLI writes with the first turn. */
  readonly sessionId: Effect.Effect<string, ClaudeError.ClaudeError>
  /** The answer to `initialize`, which the session sends first. */
  readonly initializeResult: Effect.Effect<Protocol.InitializeResponse, ClaudeError.ClaudeError>
  /** Every event from now on, until the CLI's stdout ends. */
  readonly events: Stream.Stream<Event, ClaudeError.ClaudeError>
  /** Writes a user turn and returns at once (the CLI queues it if a turn runs). */
  readonly send: (input: TurnInput) => Effect.Effect<void, ClaudeError.ClaudeError>
  /**
   * Runs one turn: writes the user message and streams that turn's events, ending with its
   * result (included). Turns of one session run one after the other. Interrupting the consumer
   * (or ending the stream before the result) interrupts the turn on the CLI and waits for it.
   */
  readonly turn: (input: TurnInput) => Stream.Stream<Event, ClaudeError.ClaudeError>
  /** Runs one turn to its end and returns its result. */
  readonly run: (input: TurnInput) => Effect.Effect<TurnResult, ClaudeError.ClaudeError>
  /** Interrupts the running turn, if any, and waits (bounded) for its result. */
  readonly interrupt: Effect.Effect<void, ClaudeError.ClaudeError>
  /** Switches the model for later turns; returns the model the CLI resolved (`haiku` → an id). */
  readonly setModel: (model?: string, options?: RequestOptions) => Effect.Effect<string, ClaudeError.ClaudeError>
  readonly setPermissionMode: (
    mode: Launch.PermissionMode,
    options?: RequestOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  readonly mcpStatus: (options?: RequestOptions) => Effect.Effect<Protocol.McpStatusResponse, ClaudeError.ClaudeError>
  readonly contextUsage: (
    options?: RequestOptions
  ) => Effect.Effect<Protocol.ContextUsageResponse, ClaudeError.ClaudeError>
  /** Restores files to their state before the user turn with this uuid (needs `fileCheckpointing`). */
  readonly rewindFiles: (
    userMessageId: string,
    options?: RequestOptions & { readonly dryRun?: boolean }
  ) => Effect.Effect<Protocol.RewindFilesResponse, ClaudeError.ClaudeError>
  /** Stops a background task (a subagent, a background Bash command). */
  readonly stopTask: (taskId: string, options?: RequestOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** Any control request, for subtypes the library does not name yet. */
  readonly request: <S extends Schema.Top & { readonly DecodingServices: never }>(
    body: { readonly subtype: string } & Record<string, unknown>,
    responseSchema: S,
    options?: RequestOptions
  ) => Effect.Effect<S["Type"], ClaudeError.ClaudeError>
  /** Ends stdin: the CLI finishes what runs, then exits. */
  readonly endInput: Effect.Effect<void>
  /** Waits for the CLI to exit. */
  readonly exit: Effect.Effect<ExitStatus>
}

const closedError = (operation: string) => ClaudeError.make(new ClaudeError.SessionClosed({ operation }))

const violation = (description: string, line: string) =>
  new ClaudeError.ProtocolViolation({ description, line: line.slice(0, 2048) })

const isTurnResult = (event: Event): event is TurnResult => event.type === "result"

/**
 * Opens a session: spawns the CLI and sends `initialize` (with the hook registrations).
 * Hooks, Permissions and McpServers are taken from the context when provided.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open: (
  options?: SessionOptions
) => Effect.Effect<Session, ClaudeError.ClaudeError, Transport | Scope.Scope> = Effect.fn("Claude.open")(
  function*(options: SessionOptions = {}) {
    const transport = yield* Transport
    const hooks = Option.getOrElse(yield* Effect.serviceOption(Hooks), () => Hooks.empty)
    const permissions = yield* Effect.serviceOption(Permissions)
    const mcpServers = Option.getOrElse(yield* Effect.serviceOption(McpServers), () => McpServers.empty)

    const launchOptions = yield* Launch.validate(options)
    const closeGrace = Duration.fromInputUnsafe(options.closeGrace ?? "5 seconds")
    const interruptTimeout = Duration.fromInputUnsafe(options.interruptTimeout ?? "10 seconds")
    const command = Launch.buildCommand(launchOptions, {
      mcpServers: McpServers.launchEntries(mcpServers),
      permissionPromptTool: Option.isSome(permissions)
    })
    const connection = yield* transport.open({
      executable: options.executable,
      args: command.args,
      env: command.env,
      cwd: options.cwd,
      closeGrace
    })

    // ---- writing ----------------------------------------------------------------------------
    let inputOpen = true
    const recorder = options.transcript
    const write = (message: unknown): Effect.Effect<void, ClaudeError.ClaudeError> =>
      Effect.suspend(() => {
        recorder?.record("send", message)
        return connection.send(JSON.stringify(message))
      })

    const outgoing = Outgoing.make({
      send: write,
      defaultTimeout: Duration.fromInputUnsafe(options.controlTimeout ?? "60 seconds")
    })

    // ---- incoming control requests ----------------------------------------------------------
    const hookBinding = Hooks.bind(hooks)
    const mcp = yield* McpServers.connect(mcpServers)
    const handlers: Record<string, Incoming.Handler> = {
      hook_callback: (request) =>
        hookBinding.dispatch(
          String(request.callback_id),
          request.input,
          typeof request.tool_use_id === "string" ? request.tool_use_id : undefined
        ),
      mcp_message: (request) =>
        mcp.handle(String(request.server_name), request.message).pipe(
          Effect.map((response) => ({ mcp_response: response }))
        )
    }
    if (Option.isSome(permissions)) {
      const binding = Permissions.bind(permissions.value)
      handlers.can_use_tool = (request) => binding.decide(request)
    }
    const incoming = yield* Incoming.make({ handlers, send: write })

    // ---- reading ----------------------------------------------------------------------------
    const subscribers = new Subscribers<Event>()
    const sessionId = Deferred.makeUnsafe<string, ClaudeError.ClaudeError>()
    const ended = Deferred.makeUnsafe<ExitStatus>()
    interface ActiveTurn {
      readonly result: Deferred.Deferred<TurnResult, ClaudeError.ClaudeError>
      started: boolean
    }
    let activeTurn: ActiveTurn | undefined
    const usage = new TurnUsageTracker()
    let skippedLines = 0

    const withTurnUsage = (result: Protocol.ResultMessage): TurnResult => ({ ...result, turn: usage.next(result) })

    const splitter = new Framing.LineSplitter(options.maxLineBytes ?? Framing.defaultMaxLineBytes)
    const frames: Array<Framing.Frame> = []
    // The batch of one read; handed to the subscribers' queues as is, so a fresh one per read.
    let events: Array<Event> = []
    // Completions of waiting fibers run after the batch is published, so that a fiber woken by
    // a turn's result (the next turn, say) never subscribes before that turn's events are out.
    const completions: Array<() => void> = []
    // Effects the control channel needs (rare); everything else is handled synchronously.
    const effects: Array<Effect.Effect<void>> = []

    const route = (frame: Framing.Frame): void => {
      if (typeof frame !== "string") {
        events.push({
          type: "protocol_problem",
          error: violation(`a line of ${frame.bytes} bytes is over the cap of ${splitter.maxLineBytes}`, frame.head),
          messageType: undefined
        })
        return
      }
      const json = Framing.parseJson(frame)
      if (json === undefined) {
        skippedLines++
        return
      }
      if (recorder !== undefined && (json as { type?: unknown } | null)?.type !== "stream_event") {
        recorder.record("recv", json)
      }
      const decoded = Protocol.decodeMessage(json)
      if (decoded._tag === "Failure") {
        // `null`, a number, a string or an array is JSON too: only an object has a type.
        const type = typeof json === "object" && json !== null ? (json as { type?: unknown }).type : undefined
        const messageType = typeof type === "string" ? type : undefined
        const error = violation(decoded.failure, frame)
        events.push({ type: "protocol_problem", error, messageType })
        // A result that breaks its schema still ends the turn, as a typed failure: never a hang.
        const turn = activeTurn
        if (messageType === "result" && turn !== undefined) {
          completions.push(() => Deferred.doneUnsafe(turn.result, Exit.fail(ClaudeError.make(error))))
        }
        return
      }
      const message = decoded.success
      switch (message.type) {
        case "control_response": {
          const answer = message.response as Outgoing.ControlAnswer & { readonly request_id: string }
          completions.push(() => {
            if (!outgoing.complete(answer.request_id, answer)) {
              effects.push(Effect.logDebug(`control_response for an unknown request_id ${answer.request_id}`))
            }
          })
          return
        }
        case "control_request": {
          effects.push(incoming.dispatch(message.request_id, message.request as Record<string, unknown>))
          return
        }
        case "control_cancel_request": {
          effects.push(incoming.cancel(message.request_id))
          return
        }
        case "keep_alive":
          return
        case "system": {
          if (message.subtype === "init") {
            if (!Deferred.isDoneUnsafe(sessionId)) Deferred.doneUnsafe(sessionId, Exit.succeed(message.session_id))
            if (activeTurn !== undefined) activeTurn.started = true
          }
          events.push(message)
          return
        }
        case "result": {
          const result = withTurnUsage(message)
          const turn = activeTurn
          if (turn !== undefined) completions.push(() => Deferred.doneUnsafe(turn.result, Exit.succeed(result)))
          events.push(result)
          return
        }
        default:
          events.push(message)
      }
    }

    const flush = (): Effect.Effect<void> => {
      for (let i = 0; i < frames.length; i++) route(frames[i]!)
      frames.length = 0
      if (events.length > 0) {
        subscribers.publish(events)
        events = []
      }
      for (let i = 0; i < completions.length; i++) completions[i]!()
      completions.length = 0
      // Consumers wake last: the batch's control requests are dispatched (their handlers forked
      // into the session's FiberMap) whatever a consumer then does in its run. Should the reader
      // stop before this, the queues still wake their consumers themselves, ticks later.
      if (effects.length === 0) {
        subscribers.wake()
        return Effect.void
      }
      const pending = effects.splice(0)
      return Effect.forEach(pending, (effect) => effect, { discard: true }).pipe(
        Effect.andThen(Effect.sync(() => subscribers.wake()))
      )
    }

    const onEnd = Effect.fnUntraced(function*() {
      const status = yield* connection.exit.pipe(
        Effect.timeoutOption(closeGrace),
        Effect.map(Option.getOrElse((): ExitStatus => ({
          code: null,
          signal: null,
          stderrTail: "(the CLI closed its stdout but did not exit)"
        })))
      )
      const error = endError(status)
      outgoing.failAll(error)
      if (!Deferred.isDoneUnsafe(sessionId)) Deferred.doneUnsafe(sessionId, Exit.fail(error))
      subscribers.end(undefined)
      // Last: a waiter on `ended` (the closing finalizer) may resume synchronously, and must find
      // the event streams already ended cleanly, not fail them with SessionClosed.
      Deferred.doneUnsafe(ended, Exit.succeed(status))
      if (skippedLines > 0) yield* Effect.logDebug(`skipped ${skippedLines} non-JSON lines from the CLI`)
    })

    let readFailure: ClaudeError.ClaudeError | undefined
    // Why everything still pending fails once the CLI's stdout has ended.
    const endError = (status: ExitStatus): ClaudeError.ClaudeError =>
      readFailure ?? ClaudeError.make(new ClaudeError.ProcessExited({
        exitCode: status.code,
        signal: status.signal,
        stderrTail: status.stderrTail
      }))
    const clock = yield* Clock.Clock
    let lastActivity = clock.currentTimeMillisUnsafe()
    yield* connection.incoming.pipe(
      Stream.runForEachArray((chunks) => {
        lastActivity = clock.currentTimeMillisUnsafe()
        for (let i = 0; i < chunks.length; i++) splitter.push(chunks[i]!, frames)
        return flush()
      }),
      Effect.catchCause((cause) => {
        // A transport that fails its stream with a ClaudeError (a replay mismatch) fails the turn with it.
        const failure = cause.reasons.find((reason) => reason._tag === "Fail")?.error
        if (ClaudeError.isClaudeError(failure)) readFailure = failure
        return Effect.logWarning("reading the CLI's stdout failed", cause)
      }),
      Effect.andThen(Effect.suspend(() => {
        splitter.end(frames)
        return flush()
      }).pipe(
        // A defect here (a bug) must still end the session below, never leave it hanging.
        Effect.catchCause((cause) => Effect.logError("reading the CLI's last lines failed", cause))
      )),
      Effect.andThen(onEnd()),
      Effect.forkScoped
    )

    // ---- closing ------------------------------------------------------------------------------
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        inputOpen = false
        yield* connection.endInput
        // The reader stays up while the CLI flushes, so its last lines (and a Stop hook) are served.
        yield* Deferred.await(ended).pipe(Effect.timeoutOption(closeGrace))
        const error = closedError("the session's scope closed")
        outgoing.failAll(error)
        subscribers.end(error)
        if (!Deferred.isDoneUnsafe(sessionId)) Deferred.doneUnsafe(sessionId, Exit.fail(error))
        // The transport's finalizer kills a CLI that did not exit in the grace period; the reader
        // is gone by then, so `exit` is settled here, never left to hang.
        Deferred.doneUnsafe(ended, Exit.succeed({
          code: null,
          signal: "SIGTERM",
          stderrTail: `(the CLI did not exit within ${Duration.format(closeGrace)} of stdin EOF and was killed)`
        }))
      })
    )

    // ---- operations ---------------------------------------------------------------------------
    const request: Session["request"] = (body, responseSchema, requestOptions) =>
      outgoing.request(body, responseSchema, requestOptions?.timeout)

    const initialize = outgoing.request(
      { subtype: "initialize", hooks: hookBinding.initialize },
      Protocol.InitializeResponse,
      options.initializeTimeout ?? "120 seconds"
    )
    // Sent first, before any user turn; its answer is awaited only by those who ask for it.
    const initializeResult = yield* Effect.forkScoped(initialize, { startImmediately: true })
    // The CLI takes tens of milliseconds to start and answer; the decoders are compiled meanwhile.
    yield* Effect.forkScoped(Effect.sync(Protocol.prepareDecoders))

    const send = (input: TurnInput): Effect.Effect<void, ClaudeError.ClaudeError> =>
      Effect.suspend(() => {
        if (!inputOpen) return Effect.fail(closedError("send"))
        const turnInput = typeof input === "string" ? { text: input } : input
        const problem = userTurnProblem(turnInput)
        return problem === undefined
          ? write(Protocol.userTurn(turnInput))
          : Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: problem })))
      })

    const interruptAndAwait = (turn: ActiveTurn): Effect.Effect<void, ClaudeError.ClaudeError> =>
      Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(interruptTimeout)
        while (!Deferred.isDoneUnsafe(turn.result)) {
          yield* outgoing.request({ subtype: "interrupt" }, Protocol.InterruptResponse)
          const left = deadline - (yield* Clock.currentTimeMillis)
          if (left <= 0) break
          // An interrupt that reaches the CLI before it has started the turn is a no-op there,
          // so until the turn's system/init is seen it is repeated every second.
          yield* Deferred.await(turn.result).pipe(Effect.exit, Effect.timeoutOption(turn.started ? left : Math.min(left, 1000)))
        }
        if (!Deferred.isDoneUnsafe(turn.result)) {
          yield* Effect.logWarning(`the interrupted turn sent no result within ${Duration.format(interruptTimeout)}`)
        }
      })

    const stallTimeout = options.stallTimeout === undefined ? undefined : Duration.toMillis(
      Duration.fromInputUnsafe(options.stallTimeout)
    )
    // Fails the turn's stream when the CLI has written nothing for `limit` ms. Clock-driven, so
    // `TestClock` drives it in tests.
    const watchStall = (queue: Queue.Queue<Event, ClaudeError.ClaudeError | Cause.Done>, limit: number) =>
      Effect.gen(function*() {
        lastActivity = clock.currentTimeMillisUnsafe()
        while (true) {
          const idle = clock.currentTimeMillisUnsafe() - lastActivity
          if (idle >= limit) {
            Queue.failCauseUnsafe(queue, Cause.fail(ClaudeError.make(new ClaudeError.Stalled({ idleMillis: idle }))))
            return
          }
          yield* Effect.sleep(Duration.millis(limit - idle))
        }
      })

    const turnLock = yield* Semaphore.make(1)

    const turn = (input: TurnInput): Stream.Stream<Event, ClaudeError.ClaudeError> =>
      Stream.unwrap(Effect.gen(function*() {
        yield* Effect.acquireRelease(Semaphore.take(turnLock, 1), () => Semaphore.release(turnLock, 1))
        const subscriber = yield* subscribers.subscribe
        const state: ActiveTurn = { result: Deferred.makeUnsafe<TurnResult, ClaudeError.ClaudeError>(), started: false }
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            activeTurn = state
          }),
          () =>
            Effect.sync(() => {
              if (activeTurn === state) activeTurn = undefined
            })
        )
        yield* send(input)
        if (stallTimeout !== undefined) {
          yield* watchStall(subscriber.queue, stallTimeout).pipe(Effect.forkScoped)
        }
        yield* Effect.addFinalizer(() =>
          Deferred.isDoneUnsafe(state.result) || Deferred.isDoneUnsafe(ended) || !inputOpen
            ? Effect.void
            : interruptAndAwait(state).pipe(Effect.ignore)
        )
        const unfinished = Effect.suspend(() =>
          Deferred.isDoneUnsafe(state.result)
            ? Effect.asVoid(Deferred.await(state.result))
            : Effect.flatMap(Deferred.await(ended), (status) => Effect.fail(endError(status)))
        )
        return Stream.fromQueue(subscriber.queue).pipe(
          Stream.takeUntil((event) => isTurnResult(event) || (event.type === "protocol_problem" && event.messageType === "result")),
          Stream.concat(Stream.fromEffectDrain(unfinished))
        )
      }))

    const run = (input: TurnInput) =>
      turn(input).pipe(
        Stream.runLast,
        Effect.flatMap((last) =>
          Option.isSome(last) && isTurnResult(last.value)
            ? Effect.succeed(last.value)
            : Effect.fail(closedError("run"))
        )
      )

    const session: Session = {
      pid: connection.pid,
      sessionId: Deferred.await(sessionId),
      initializeResult: Fiber.join(initializeResult),
      events: Stream.unwrap(Effect.map(subscribers.subscribe, (subscriber) => Stream.fromQueue(subscriber.queue))),
      send,
      turn,
      run,
      interrupt: Effect.suspend(() => {
        const current = activeTurn
        return current === undefined
          ? Effect.asVoid(outgoing.request({ subtype: "interrupt" }, Protocol.InterruptResponse))
          : interruptAndAwait(current)
      }),
      setModel: (model, requestOptions) =>
        Effect.map(
          request({ subtype: "set_model", ...(model === undefined ? {} : { model }) }, Protocol.SetModelResponse, requestOptions),
          (response) => response.model
        ),
      setPermissionMode: (mode, requestOptions) =>
        Effect.asVoid(request({ subtype: "set_permission_mode", mode }, Protocol.SetPermissionModeResponse, requestOptions)),
      mcpStatus: (requestOptions) => request({ subtype: "mcp_status" }, Protocol.McpStatusResponse, requestOptions),
      contextUsage: (requestOptions) =>
        request({ subtype: "get_context_usage" }, Protocol.ContextUsageResponse, requestOptions),
      rewindFiles: (userMessageId, rewindOptions) =>
        request(
          {
            subtype: "rewind_files",
            user_message_id: userMessageId,
            ...(rewindOptions?.dryRun === undefined ? {} : { dry_run: rewindOptions.dryRun })
          },
          Protocol.RewindFilesResponse,
          rewindOptions
        ),
      stopTask: (taskId, requestOptions) =>
        Effect.asVoid(request({ subtype: "stop_task", task_id: taskId }, Protocol.StopTaskResponse, requestOptions)),
      request,
      endInput: Effect.suspend(() => {
        inputOpen = false
        return connection.endInput
      }),
      exit: Deferred.await(ended)
    }
    return session
  }
)
