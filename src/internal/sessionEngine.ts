/**
 * The session engine: what runs a session once its CLI is spawned. `Claude.open` checks the
 * options, builds the command, opens the transport (the spawn), then loads this module with
 * `import()` and calls {@link start}: the engine (its reader, turns, control channel, tracing)
 * and the protocol's schemas are compiled and built while the CLI starts, which takes far longer,
 * not when a program imports the library (issue 21: the library's own share of start-up).
 *
 * `start` joins the modules that do the work: `stdinWriter.ts` writes every line, `reader.ts`
 * reads and routes and `readLoop.ts` feeds it for the life of the session, `turns.ts` matches
 * events to the user turn that caused them, `turnRunner.ts` writes and interrupts turns,
 * `incoming.ts` and `outgoing.ts` are the two halves of the control channel (`hostHandlers.ts`
 * makes the handlers of the first), `lifecycle.ts` says how the session ends. It returns the parts
 * `Claude.open` makes the public `Session` of.
 *
 * Ordering (see each step): `initialize` is written before anything is read, with the hooks'
 * registrations; the read loop is forked before the close's finalizer is added (`readLoop.ts`),
 * so the close runs first and the reader serves the CLI's last lines while it exits; a real CLI
 * gets no user line before `initialize` is answered and its version passed.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as ClaudeError from "../ClaudeError.ts"
import * as CliVersion from "../CliVersion.ts"
import type * as Events from "../Events.ts"
import * as Framing from "../Framing.ts"
import type * as HandlerFailure from "../HandlerFailure.ts"
import * as Launch from "../Launch.ts"
import type * as Protocol from "../Protocol.ts"
import * as Codec from "../protocol/codec.ts"
import * as Control from "../protocol/control.ts"
import { type Connection, type ExitStatus, type LaunchSpec, Transport } from "../Transport.ts"
import * as CliAccepted from "./cliAccepted.ts"
import * as Controls from "./controls.ts"
import * as McpServerConfigs from "./mcpServerConfigs.ts"
import { exitContext } from "./exitReason.ts"
import * as HostHandlers from "./hostHandlers.ts"
import * as Incoming from "./incoming.ts"
import { Lifecycle } from "./lifecycle.ts"
import { ModeGuard } from "./modeGuard.ts"
import type { Mirror } from "./mirror.ts"
import * as Outgoing from "./outgoing.ts"
import * as ReadLoop from "./readLoop.ts"
import { Reader } from "./reader.ts"
import * as SchemaJit from "./schemaJit.ts"
import * as Services from "./services.ts"
import { redactLines } from "./stderrLines.ts"
import * as StdinWriter from "./stdinWriter.ts"
import { InterruptRequests } from "./interruptRequests.ts"
import type { Subscribers } from "./subscribers.ts"
import * as ResultRedaction from "./resultRedaction.ts"
import { accountEmail } from "./accountEmail.ts"
import * as Tracing from "./tracing.ts"
import { failureOf } from "./turnOutcome.ts"
import * as TurnRunner from "./turnRunner.ts"
import { Turns } from "./turns.ts"
import { TurnUsageTracker } from "./turnUsage.ts"

/** The session options the engine reads (`Claude.SessionOptions`, which checked them). */
export interface EngineOptions extends
  Pick<
    Launch.LaunchOptions,
    | "permissionMode"
    | "env"
    | "secretEnv"
    | "agents"
    | "forwardSubagentText"
    | "skills"
    | "systemPrompt"
    | "appendSystemPrompt"
    | "title"
    | "planModeInstructions"
    | "promptSuggestions"
    | "mcpServers"
  >
{
  readonly maxLineBytes?: number | undefined
  readonly controlTimeout?: Duration.Input | undefined
  readonly initializeTimeout?: Duration.Input | undefined
  readonly interruptTimeout?: Duration.Input | undefined
  readonly stallTimeout?: Duration.Input | undefined
  readonly turnTimeout?: Duration.Input | undefined
  readonly errorResults?: "fail" | "return" | undefined
  readonly verbatimPrompts?: boolean | undefined
  readonly cliVersionPolicy?: CliVersion.Policy | undefined
  readonly transcript?: EngineRecorder | undefined
}

/** `Claude.Recorder`. */
interface EngineRecorder {
  readonly record: (direction: "send" | "recv", message: unknown, session?: number) => void
  readonly streamEvents?: boolean | undefined
  readonly secrets?: ((values: ReadonlyArray<string>) => void) | undefined
}

/** What `Claude.open` hands over once the CLI is spawned (with the services it found). */
export interface EngineInput extends HostHandlers.HostServices {
  readonly options: EngineOptions
  /** Which of the sessions given its recorder this one is (`Claude.Recorder.record`'s `session`). */
  readonly recordedAs: number | undefined
  readonly transport: Transport["Service"]
  readonly connection: Connection
  /** How the CLI was spawned (`claude --version` is run with the same), with its `closeGrace`. */
  readonly spec: Omit<LaunchSpec, "args">
  readonly command: Launch.Command
  readonly jsonSchema: Record<string, unknown> | undefined
  /** The structured output's decoding (`internal/structuredOutput.ts`), given the session's `redact`. */
  readonly decodeStructured:
    | ((
      result: Events.TurnResult,
      redact: ResultRedaction.RedactValue
    ) => Result.Result<Events.TurnResult, ClaudeError.ClaudeError>)
    | undefined
  readonly sessionSpan: Tracer.Span
  readonly subscribers: Subscribers<Events.Event>
  readonly mirror: Mirror | undefined
  /**
   * Run by the session's scope after the transport's finalizer (added before the CLI was
   * spawned): the waits that must not delay the CLI's end (`Incoming`'s `awaitAfter`).
   */
  readonly afterTheCli: (wait: Effect.Effect<void>) => void
}

/** What `Claude.open` makes the public `Session` of (the fields of the same names there). */
export interface Engine {
  /** `send`, `turn`, `run`, `interrupt`. */
  readonly runner: TurnRunner.TurnRunner
  /** `session.request`: the caller's schema decodes the answer as it is. */
  readonly requestDecoded: Controls.Request
  /** The named control requests, over the library's own `request`. */
  readonly controls: ReturnType<typeof Controls.make>
  readonly sessionId: Effect.Effect<string, ClaudeError.ClaudeError>
  readonly initializeResult: Effect.Effect<Protocol.InitializeResponse, ClaudeError.ClaudeError>
  readonly cliVersion: Effect.Effect<string | undefined, ClaudeError.ClaudeError>
  readonly endInput: Effect.Effect<void>
  readonly exit: Effect.Effect<ExitStatus>
}

/**
 * Starts the engine on a spawned CLI, in the session's scope: writes `initialize`, starts the
 * read loop (`readLoop.ts`), and returns what the session's methods are made of.
 */
export const start = Effect.fnUntraced(function*(input: EngineInput): Effect.fn.Return<Engine, never, Scope.Scope> {
  const {
    options,
    transport,
    connection,
    spec,
    command,
    jsonSchema,
    decodeStructured,
    sessionSpan,
    subscribers,
    mirror,
    userDialogs
  } = input
  const scope: Scope.Scope = yield* Effect.scope
  const secretNames = [...Launch.defaultSecretEnv, ...(options.secretEnv ?? [])]
  const secrets = Tracing.withSecrets(
    Tracing.secretsOf(command.env, secretNames),
    McpServerConfigs.secretsOf(options.mcpServers, secretNames)
  )
  const tracing = yield* Tracing.make(sessionSpan, secrets)
  const redact: ResultRedaction.RedactValue = (value) => tracing.redactValue(value)
  // The session's secrets stay out of the stderr the library logs and puts in errors.
  const lifecycle = new Lifecycle(connection, spec.closeGrace, { ...exitContext(options), redact: (text) => tracing.redact(text) })
  // The CLI's stderr, as it comes, in the log (debug); redacted across the cuts of a long line.
  yield* connection.stderr.pipe(
    redactLines((text) => tracing.redact(text)),
    Stream.runForEach((line) => Effect.logDebug(`claude stderr: ${line}`)),
    Effect.forkScoped
  )

  const recorder = options.transcript
  const recordedAs = input.recordedAs ?? 0
  recorder?.secrets?.(secrets)
  // Called as the recorder's method: a recorder may be a class instance. One that throws (its doc
  // says it must not) is stopped, with one warning: a failing sink never ends the session (as
  // `Transcript`'s own recorders), nor reaches the reader or a turn's write.
  let recording = recorder !== undefined
  // The warning goes through the session's own services (its logger), from wherever the throw was.
  const runFork = Effect.runForkWith(yield* Effect.context<never>())
  const record = recorder === undefined
    ? undefined
    : (direction: "send" | "recv", message: unknown): void => {
      if (!recording) return
      try {
        recorder.record(direction, message, recordedAs)
      } catch (error) {
        recording = false
        runFork(Effect.logWarning(
          `the transcript recorder (options.transcript) threw on a ${direction === "send" ? "sent" : "received"} line: ` +
            "recording stopped, the session goes on",
          error
        ))
      }
    }
  // Secrets told after the start (the configs of `setMcpServers`), before the line that holds
  // them is written: the spans', the logs' and the transcript's. A recorder that throws is stopped
  // as on a line.
  const addSecrets = (values: ReadonlyArray<string>): void => {
    const kept = Tracing.withSecrets([], values)
    for (const value of kept) tracing.addSecret(value)
    if (!recording || kept.length === 0) return
    try {
      recorder?.secrets?.(kept)
    } catch (error) {
      recording = false
      runFork(Effect.logWarning("the transcript recorder (options.transcript) threw on secrets: recording stopped, the session goes on", error))
    }
  }
  // An interrupt asks for an abort while a turn is in progress, or a message waits (the CLI then
  // starts its turn aborted). `turns` is made below: only an interrupt reads it, and none is
  // written before the session is open.
  const interrupts = new InterruptRequests(() => turns.unfinished)
  const write = StdinWriter.make(connection, (message) => {
    record?.("send", message)
    interrupts.written(message)
  })
  // The CLI's version once told: it decides whether a timed-out request may be cancelled.
  let cliVersion: string | undefined
  // Until the version is checked, no cancel is sent: the CLI may be one that exits on it (2.1.0,
  // whose `initialize` names no version: `claude --version` tells it, later). A request given up
  // before then is not cancelled at all; its late answer, if any, matches nothing and is dropped.
  let versionChecked = false
  const outgoing = Outgoing.make({
    send: write,
    defaultTimeout: Duration.fromInputUnsafe(options.controlTimeout ?? "60 seconds"),
    cancels: () => versionChecked && CliVersion.acceptsControlCancel(cliVersion),
    redactor: tracing,
    scope
  })

  // ---- the CLI's requests ---------------------------------------------------------------------
  // A handler that failed: the program learns of it on `events` and on the stream of the turn
  // that runs (the answer, a refusal where it could let an action through, is the services').
  // Called from the handler's fiber, between two reads of the reader.
  const report = (event: HandlerFailure.HandlerFailed): void => {
    subscribers.publish([event])
    turns.note(event)
    turns.publish()
    turns.complete()
    subscribers.wake()
  }
  // A switch to a mode that would let a tool run unasked is refused, not sent (a `can_use_tool`
  // answer's `setMode` too); the modes the CLI reports are followed (`modeGuard.ts`).
  const launchEntries = Services.launchEntries(input.mcpServers)
  const modes = new ModeGuard(
    Option.isSome(input.permissions),
    Launch.effectivePermissionMode(options, {
      permissionPromptTool: Option.isSome(input.permissions),
      mcpServers: launchEntries
    }),
    launchEntries
  )
  // Each handler from its service (`hostHandlers.ts`); the hooks' registrations go in `initialize`.
  // A handler's failure text may quote a secret: the session's redaction takes it out.
  const { handlers, hooks: hookBinding, mcp } = yield* HostHandlers.bind(
    input,
    report,
    (text) => tracing.redact(text),
    spec.closeGrace,
    (answer) => modes.checkAnswer(answer),
    (toolUseId) => tracing.toolNameOf(toolUseId)
  )
  // The CLI waits for the program's handlers (a permission asked of a person, a slow MCP tool):
  // while one runs, and from when the last one answered, the CLI is not silent for `stallTimeout`.
  const clock = yield* Clock.Clock
  let serving = 0
  let servedAt = 0
  const served: Record<string, Incoming.Handler> = {}
  for (const [subtype, handler] of Object.entries(handlers)) {
    served[subtype] = (request, requestId, unreadable) =>
      Effect.suspend(() => {
        serving++
        return Effect.ensuring(
          handler(request, requestId, unreadable),
          Effect.sync(() => {
            serving--
            servedAt = clock.currentTimeMillisUnsafe()
          })
        )
      })
  }
  const incoming = yield* Incoming.make({
    handlers: served,
    send: write,
    tracing,
    session: lifecycle,
    stopWithin: spec.closeGrace,
    awaitAfter: input.afterTheCli
  })

  // Sent first, before any user turn and before anything is read: the CLI reads it as soon as it
  // is up (the engine is loaded in far less time than the CLI takes to start). Its body is decoded
  // only for those who ask for it, so an answer that breaks the schema fails `initializeResult`,
  // not the session.
  const initializeAnswer = yield* Effect.forkScoped(
    outgoing.request(
      initializeRequest(options, hookBinding?.initialize ?? {}, jsonSchema, userDialogs),
      Schema.Unknown,
      options.initializeTimeout ?? "120 seconds"
    ).pipe(
      // The mode the CLI starts in (its settings' when the program named none).
      Effect.tap((body) => Effect.sync(() => modes.started(currentPermissionModeOf(body))))
    ),
    { startImmediately: true }
  )
  // The account e-mail of the answer is a secret of the spans too (as of transcripts).
  yield* Effect.forkScoped(
    Effect.ignore(Effect.map(Fiber.join(initializeAnswer), (body) => tracing.addSecret(accountEmail(body), { anyCase: true })))
  )

  // ---- reading ----------------------------------------------------------------------------------
  const usage = new TurnUsageTracker()
  // Only "return" returns failed results (checked at open; anything else fails closed).
  const failedTurns = options.errorResults === "return" ? "return" : "fail"
  const turns = new Turns({
    toTurnResult: (result, userMessageUuids, automatic, closes) =>
      ResultRedaction.remember({
        ...result,
        turn: {
          ...usage.next(result),
          kind: automatic ? "automatic" : "user",
          userMessageUuids,
          // A result that leaves the running CLI turn running (a late one) leaves its ask to it.
          interruptRequested: closes ? interrupts.take() : interrupts.pending
        }
      }, redact),
    verdict: failedTurns === "fail" ? (result) => failureOf(result, redact) : () => undefined,
    // The interrupt asked in a CLI turn whose result could not be read covers that turn alone.
    unreadResult: () => {
      interrupts.take()
    }
  })
  const sessionId = Deferred.makeUnsafe<string, ClaudeError.ClaudeError>()
  const reader = new Reader({
    maxLineBytes: options.maxLineBytes ?? Framing.defaultMaxLineBytes,
    outgoing,
    incoming,
    turns,
    subscribers,
    sessionId,
    tracing,
    record,
    recordStreamEvents: recorder?.streamEvents === true,
    mirror,
    permissionMode: (mode) => modes.reported(mode)
  })
  // The read loop, and the session's close (`readLoop.ts`).
  const { lastActivity } = yield* ReadLoop.start({
    connection,
    reader,
    lifecycle,
    outgoing,
    turns,
    sessionId,
    subscribers,
    tracing
  })

  const initializeResult = Fiber.join(initializeAnswer).pipe(
    Effect.flatMap((body) => {
      // The account e-mail is a secret before an answer that breaks its schema is put in an error.
      tracing.addSecret(accountEmail(body), { anyCase: true })
      return Outgoing.decodeResponse("initialize", Control.InitializeResponse, body, tracing)
    })
  )
  // The CLI's version, once it answered `initialize`, or why it gets no turn
  // (`cliAccepted.ts`): that ends the session, failing every turn; a real CLI gets no turn
  // before (see the runner's `ready` below).
  const ready = yield* Effect.forkScoped(
    CliAccepted.check(Fiber.join(initializeAnswer), hookBinding, spec, connection, options.cliVersionPolicy).pipe(
      Effect.tap((version) =>
        Effect.sync(() => {
          cliVersion = version
          versionChecked = true
        })
      ),
      Effect.provideService(Transport, transport),
      Effect.tapError((error) =>
        Effect.andThen(lifecycle.abort(error), Effect.sync(() => {
          outgoing.failAll(error)
          turns.failAll(error)
        }))
      )
    ),
    { startImmediately: true }
  )
  // The CLI takes tens of milliseconds to start and answer; the schema JIT compiler is loaded
  // and the decoders are compiled meanwhile.
  yield* Effect.forkScoped(Effect.andThen(SchemaJit.load, Effect.sync(Codec.prepareDecoders)))

  const runner = yield* TurnRunner.make({
    turns,
    outgoing,
    lifecycle,
    // A user turn a CLI would not run as the session means it is not sent (`userTurnRefusal`).
    write: (message) => {
      const refusal = message.type === "user"
        ? userTurnRefusal(message, cliVersion, jsonSchema !== undefined, connection.pid !== undefined)
        : undefined
      return refusal === undefined
        ? write(message)
        : Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: refusal })))
    },
    verbatimPrompts: options.verbatimPrompts === true,
    // A real CLI gets no user line before it answered `initialize` (its hooks are then in place)
    // and its version passed; the CLI reads no line before it is up anyway. Fakes and replays
    // (no process) are not held: their scripts decide the order.
    // Once passed, nothing to wait for: no join of the fiber on every turn.
    ready: connection.pid === undefined
      ? Effect.void
      : Effect.suspend(() => versionChecked ? Effect.void : Effect.asVoid(Fiber.join(ready))),
    scope,
    interruptTimeout: Duration.fromInputUnsafe(options.interruptTimeout ?? "10 seconds"),
    stallTimeout: options.stallTimeout === undefined ? undefined : Duration.fromInputUnsafe(options.stallTimeout),
    turnTimeout: options.turnTimeout === undefined ? undefined : Duration.fromInputUnsafe(options.turnTimeout),
    lastActivity: () => serving > 0 ? clock.currentTimeMillisUnsafe() : Math.max(lastActivity(), servedAt),
    tracing: { sessionSpan, spans: tracing },
    decodeResult: decodeStructured === undefined ? undefined : (result) => decodeStructured(result, redact)
  })

  // ---- operations ---------------------------------------------------------------------------
  // After `endInput` or the close nothing reaches the CLI: `SessionClosed` naming the operation,
  // as for a turn.
  // The library's own requests keep the answer's fields their schemas do not know; the caller's
  // (`session.request`) get what their schema decodes to, as it is (a class, renamed keys).
  // A request the transport refused (the CLI exited, its stdout not read to the end yet) fails
  // with the session's reason, as a turn does: the CLI's `ProcessExited`, not `SessionClosed (send)`.
  const requestWith = (asDecoded: boolean): Controls.Request => (body, responseSchema, requestOptions) =>
    Effect.suspend(() => {
      const refusal = modes.refusal(body)
      if (refusal !== undefined) return Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: refusal })))
      if (!lifecycle.inputOpen) return lifecycle.failure(body.subtype)
      // In the same step as the check: no admit in between sees the switch not yet sent.
      modes.sending(body)
      return outgoing.request(body, responseSchema, requestOptions?.timeout, asDecoded).pipe(
        Effect.tap((answer) => Effect.sync(() => modes.answered(body, true, answer))),
        Effect.tapError((error) =>
          // Answered with an error: settled. No answer (a timeout, the CLI gone): it may be in effect.
          Effect.sync(() => error.reason._tag === "ControlRejected" && modes.answered(body, false))
        ),
        Effect.catch((error) =>
          error.reason._tag === "SessionClosed" ? lifecycle.failure(body.subtype) : Effect.fail(error)
        )
      )
    })
  return {
    runner,
    requestDecoded: requestWith(true),
    controls: Controls.make(requestWith(false), mcp, {
      secretNames,
      addSecrets,
      // Once the CLI said which mode it runs in (its `initialize` answer), or could not.
      servingRefusal: (servers) =>
        Effect.andThen(Effect.ignore(Fiber.join(initializeAnswer)), Effect.sync(() => modes.admit(servers)))
    }),
    sessionId: Deferred.await(sessionId),
    initializeResult,
    cliVersion: Fiber.join(ready),
    // Writers waiting for their turn on the CLI learn at once that there is none.
    endInput: Effect.andThen(lifecycle.endInput, Effect.sync(() => turns.wakeWriters(true))),
    exit: Deferred.await(lifecycle.ended)
  }
})

/** The `current_permission_mode` of an `initialize` answer not decoded yet, if it names one. */
const currentPermissionModeOf = (body: unknown): string | undefined => {
  const mode = typeof body === "object" && body !== null ? (body as Record<string, unknown>).current_permission_mode : undefined
  return typeof mode === "string" ? mode : undefined
}

/**
 * Why a user turn is not sent to the CLI of `version` (undefined when it may be; an in-memory
 * CLI, no process, is not asked): one meant as written to a CLI that would read its `@path`
 * mentions anyway (older than 2.1.248, or of a version that cannot be told: 2.1.332 names its
 * own); one of a session with structured output to a CLI that may ask the model again without
 * end when it answers in text (2.1.0).
 */
const userTurnRefusal = (
  message: Protocol.StdinUserMessage,
  version: string | undefined,
  structured: boolean,
  isProcess: boolean
): string | undefined => {
  if (!isProcess) return undefined
  const needs = (what: string, since: string, why: string) =>
    CliVersion.atLeast(version, since) ? undefined : `${what} needs Claude Code ${since} or later, and ` +
      `${version === undefined ? "the CLI's version could not be told" : `this CLI is ${version}`}: ${why}, so the turn was not sent`
  return (message.client_composed === true
    ? needs(
      "A verbatim user turn (verbatim, verbatimPrompts)",
      CliVersion.verbatimPromptsSince,
      "an older CLI reads its @path mentions and runs its slash commands"
    )
    : undefined) ??
    (structured
      ? needs(
        "Structured output (outputFormat, jsonSchema)",
        CliVersion.structuredOutputSince,
        "CLI 2.1.0 asks the model again without end when it answers in text (a paid request each time)"
      )
      : undefined)
}

/**
 * The `initialize` request: the hooks' registrations (`{}` when none), and the system prompt, the
 * structured output's schema, the subagents, `forwardSubagentText`, the title, the plan mode's
 * instructions, the skills and the host's dialog kinds, each only when the session has them.
 */
const initializeRequest = (
  options: EngineOptions,
  hooks: NonNullable<Control.InitializeRequest["hooks"]>,
  jsonSchema: Record<string, unknown> | undefined,
  userDialogs: EngineInput["userDialogs"]
): { readonly subtype: "initialize" } & Record<string, unknown> => ({
  subtype: "initialize",
  hooks,
  ...Launch.initializePrompts(options),
  ...(jsonSchema === undefined ? {} : { jsonSchema }),
  ...(options.agents !== undefined ? { agents: options.agents } : {}),
  ...(options.forwardSubagentText !== undefined ? { forwardSubagentText: options.forwardSubagentText } : {}),
  ...(options.title !== undefined ? { title: options.title } : {}),
  ...(options.promptSuggestions !== undefined ? { promptSuggestions: options.promptSuggestions } : {}),
  ...(options.planModeInstructions !== undefined ? { planModeInstructions: options.planModeInstructions } : {}),
  ...(Array.isArray(options.skills) ? { skills: options.skills } : {}),
  ...(Option.isSome(userDialogs) ? { supportedDialogKinds: userDialogs.value.kinds } : {})
})
