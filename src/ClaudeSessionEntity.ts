/**
 * A Claude Code session as an Effect Cluster entity: addressed by the agent session's id from any
 * process of the cluster, wherever it runs. Its RPCs are what a program does to a session: run a
 * turn (`Run`, or `Turn` streaming its events), `Send`, `Interrupt`, `SetModel`,
 * `SetPermissionMode`, `Status`, `Close`.
 *
 * The CLI process is the entity's resource (`EntityResource`): opened with the first message,
 * closed after `idleTimeToLive` without one, and opened again with `resume` when the next message
 * arrives. A runner never has more than `maxLiveSessions` CLI processes: a session that needs one
 * at the limit waits for a slot.
 *
 * Turns are keyed by the user message's uuid: `Run`, `Turn` and `Send` are persisted messages, and
 * every turn's acceptance and outcome are written to the session's turn ledger in the
 * `SessionStore`; the entity answers a call by the uuid (it joins the attempt running, or answers
 * the recorded outcome), so a turn that finished is never run again, even by another runner after
 * the first one died. The uuid is not the messages' primary key: the cluster would answer a later
 * call from its message storage, which keeps a streamed reply's end only and a call's interruption
 * as its reply. A turn accepted by a runner that died before its outcome was recorded is run
 * again on the next runner with `attempt: 2` in its outcome (`lostTurns: "retry"`, the default),
 * or answered with the `TurnLost` reason (`lostTurns: "fail"`): never run twice silently.
 *
 * A caller that stops waiting for its `Run` or `Turn` (interrupted, a timeout) interrupts the turn
 * on the CLI, as interrupting a `Session`'s turn does; the attempt is settled (a result that came
 * first is recorded), and the uuid stays the turn's: asked again, the turn is answered its recorded
 * outcome or run again (`attempt: 2`, the abandoned attempt kept out of the conversation). A call
 * that joined the attempt is answered `TurnCancelled`. An interrupted `Send` leaves its turn to run.
 *
 * A turn is answered, and its outcome recorded, only once its transcript is in the store
 * (`Session.flushStore`), so the runner that takes a session over resumes every finished turn.
 * The CLI's transcript may hold a lost attempt's prompt (and a partial answer): the ledger
 * records each attempt's CLI message uuid and each finished turn's last assistant message, and
 * the CLI is resumed (`resumeSessionAt`) at the end of the last finished turn, or before the
 * first lost prompt, so the conversation the model sees never carries a lost attempt. A lost
 * first turn has nothing before it: the session starts anew under its id (see
 * `internal/resumePlan.ts`).
 *
 * The program's callbacks (`session`, `prepare`, `projectKey`) never end a call with a defect,
 * which the cluster answers by restarting the entity and replaying the message without end: one
 * that dies (throws, `Effect.die`) is the call's `InvalidInput` naming the callback and its defect
 * (the session's secrets out), recorded as the turn's outcome like any failure to open the CLI,
 * and met again by each new turn while it dies. A `projectKey` that dies leaves no ledger to
 * record in: every call fails so. Their interruption stays an interruption.
 *
 * @since 0.2.0
 */
import * as ClusterSchema from "effect/cluster/ClusterSchema"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Entity from "effect/cluster/Entity"
import * as EntityResource from "effect/cluster/EntityResource"
import type * as Sharding from "effect/cluster/Sharding"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Rpc from "effect/rpc/Rpc"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as Claude from "./Claude.ts"
import * as ClaudeError from "./ClaudeError.ts"
import { describeError } from "./internal/describeCause.ts"
import { formsOf, replaceAll } from "./internal/secretText.ts"
import { ModeGuard } from "./internal/modeGuard.ts"
import * as Services from "./internal/services.ts"
import * as SessionStoreWiring from "./internal/sessionStoreWiring.ts"
import { bounded } from "./internal/bounded.ts"
import * as McpServerConfigs from "./internal/mcpServerConfigs.ts"
import { secretsOf, withSecrets } from "./internal/tracing.ts"
import { planResume } from "./internal/resumePlan.ts"
import * as TurnLedger from "./internal/turnLedger.ts"
import * as Launch from "./Launch.ts"
import * as SessionStore from "./SessionStore.ts"
import type { Transport } from "./Transport.ts"

// ---------------------------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------------------------

/**
 * What a turn ended with, as the entity answers `Run` (and ends `Turn`'s stream with): the
 * result's text and kind, the turn's own cost, and where and how often it ran.
 *
 * @since 0.2.0
 * @category models
 */
export class TurnOutcome extends Schema.Class<TurnOutcome>("effect-claude-code/ClaudeSessionEntity/TurnOutcome")({
  /** The user message's uuid: the turn's key. */
  uuid: Schema.String,
  /** The session (the entity's id). */
  sessionId: Schema.String,
  /** The result's text (`null` for a failed result). */
  text: Schema.NullOr(Schema.String),
  /** The result's `subtype` (`success`, `error_during_execution`, ...). */
  subtype: Schema.String,
  /** The result's `is_error`. */
  isError: Schema.Boolean,
  /** The turn's own cost in US dollars. */
  costUsd: Schema.Number,
  /** The result's `num_turns` (model round trips). */
  numTurns: Schema.Number,
  /** The runner that ran the turn (`host:port`). */
  runner: Schema.String,
  /** 1, or more when an earlier attempt did not finish (its runner lost, or its caller gone) and it ran again. */
  attempt: Schema.Number
}) {}

/**
 * A turn's input: the user message's uuid (its key: a call with the uuid of a finished turn is
 * answered its outcome, never run again) and its text.
 *
 * @since 0.2.0
 * @category models
 */
export const TurnInput = {
  /** The user message's uuid (a UUID); the key of the turn. */
  uuid: Schema.String,
  /** The user message's text. */
  prompt: Schema.String
}

/**
 * One event of a turn on the wire: the CLI's message as a JSON object (protocol problems and
 * failed handlers as `{ type, description }`), and last the turn's outcome as
 * `{ type: "turn_outcome", outcome }`.
 *
 * @since 0.2.0
 * @category models
 */
export const WireEvent = Schema.Record(Schema.String, Schema.Unknown)

/**
 * Where a session runs and how: `Status`'s answer.
 *
 * @since 0.2.0
 * @category models
 */
export class SessionStatus extends Schema.Class<SessionStatus>("effect-claude-code/ClaudeSessionEntity/SessionStatus")({
  /** The session (the entity's id). */
  sessionId: Schema.String,
  /** The runner the entity lives on (`host:port`). */
  runner: Schema.String,
  /** Whether a CLI process is open for it now. */
  live: Schema.Boolean,
  /** The CLI's process id when live and a real process. */
  pid: Schema.NullOr(Schema.Number),
  /** How many times this runner opened the CLI for it (a resume after an idle close counts). */
  opened: Schema.Number,
  /** How many turns the ledger knows (accepted, on any runner). */
  turns: Schema.Number
}) {}

/**
 * Runs one turn and answers its outcome. Persisted; keyed by the uuid in the entity (no primary
 * key: a caller's interruption, which interrupts the turn on the CLI, would be the stored answer of
 * every later call with the uuid).
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Run = Rpc.make("Run", {
  payload: TurnInput,
  success: TurnOutcome,
  error: ClaudeError.ClaudeError
})

/**
 * Runs one turn and streams its events, then `{ type: "turn_outcome" }`. Persisted; keyed by the
 * uuid in the entity: a turn that already finished streams its outcome only (no primary key: the
 * cluster would answer from its storage the stream's end, none of its events). The outcome is the
 * answer: it comes once the turn's transcript is in the store, and may still be `StoreFailed`
 * after the CLI's `result` event (or another attempt's outcome, if this runner was lost in
 * between).
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Turn = Rpc.make("Turn", {
  payload: TurnInput,
  success: WireEvent,
  error: ClaudeError.ClaudeError,
  stream: true
})

/**
 * Starts a turn and answers its uuid once the turn has its CLI (opened or resumed, so a failure
 * to open is `Send`'s own); the turn runs on in the entity and its outcome is recorded (a later
 * `Run` with the same uuid answers it). Persisted; keyed by the uuid in the entity (a `Send` of a
 * turn running or finished answers its uuid). An interrupted `Send` leaves its turn to run.
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Send = Rpc.make("Send", {
  payload: TurnInput,
  success: Schema.String,
  error: ClaudeError.ClaudeError
})

/**
 * Interrupts the running turn, if the session is live. Not persisted.
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Interrupt = Rpc.make("Interrupt", { error: ClaudeError.ClaudeError }).annotate(
  ClusterSchema.Persisted,
  false
)

/**
 * Switches the model for later turns (kept across idle closes and runners); answers the model
 * the CLI resolved, or the one given when no CLI is live.
 *
 * @since 0.2.0
 * @category rpcs
 */
export const SetModel = Rpc.make("SetModel", {
  payload: { model: Schema.String },
  success: Schema.String,
  error: ClaudeError.ClaudeError
})

/**
 * Switches the permission mode (kept across idle closes and runners).
 *
 * @since 0.2.0
 * @category rpcs
 */
export const SetPermissionMode = Rpc.make("SetPermissionMode", {
  payload: { mode: Schema.Literals(Launch.permissionModes) },
  error: ClaudeError.ClaudeError
})

/**
 * Where the session runs, whether its CLI is live. Not persisted.
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Status = Rpc.make("Status", { success: SessionStatus }).annotate(ClusterSchema.Persisted, false)

/**
 * Closes the session's CLI (once no call holds it); the next message resumes it.
 *
 * @since 0.2.0
 * @category rpcs
 */
export const Close = Rpc.make("Close")

/**
 * The entity type: a Claude Code session, addressed by its session id.
 *
 * @since 0.2.0
 * @category entities
 */
export const ClaudeSessionEntity = Entity.make("ClaudeSession", [
  Run,
  Turn,
  Send,
  Interrupt,
  SetModel,
  SetPermissionMode,
  Status,
  Close
]).annotateRpcs(ClusterSchema.Persisted, true)

// ---------------------------------------------------------------------------------------------
// The runner side
// ---------------------------------------------------------------------------------------------

/**
 * Options of the session entity on a runner.
 *
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /**
   * The session options of the CLI for a session id (cwd, model, env, ...). The entity adds
   * `sessionId` (a new session) or `resume` (one that ran turns before), and the model and
   * permission mode set through the entity. One that throws fails the call with `InvalidInput`
   * naming it (as `prepare` and `projectKey` do).
   */
  readonly session?: ((sessionId: string) => Claude.SessionOptions) | undefined
  /** How long a session's CLI stays open without a message. Default 5 minutes. */
  readonly idleTimeToLive?: Duration.Input | undefined
  /** The most CLI processes open at once on this runner; more sessions wait. Default 16. */
  readonly maxLiveSessions?: number | undefined
  /**
   * A turn accepted by a runner that was lost before its outcome was recorded: `"retry"` (the
   * default) runs it again, its outcome saying `attempt: 2`; `"fail"` answers `TurnLost`. A turn
   * its caller abandoned on this runner (interrupted before its result) runs again either way.
   */
  readonly lostTurns?: "retry" | "fail" | undefined
  /** The store's project key for a session id (default `"cluster"`). One that throws fails every call. */
  readonly projectKey?: ((sessionId: string) => string) | undefined
  /**
   * Runs before the CLI is opened (first open or resume), e.g. to write the session's transcript
   * from the store into the CLI's config directory. Its options are merged over the session's.
   * Its failure fails the turn; so does its defect (a throw, `Effect.die`), as `InvalidInput`
   * naming it and the defect (the session's secrets out), never replayed by the cluster.
   */
  readonly prepare?:
    | ((
      sessionId: string,
      resuming: boolean
    ) => Effect.Effect<Partial<Claude.SessionOptions>, ClaudeError.ClaudeError>)
    | undefined
}

/**
 * How many CLI processes a runner may have open, and how many it has: the runner's semaphore.
 *
 * @since 0.2.0
 * @category services
 */
export class LiveSessions extends Context.Service<LiveSessions, {
  /** `maxLiveSessions`. */
  readonly max: number
  /** The CLI processes open now on this runner. */
  readonly live: Effect.Effect<number>
  /** The most that were open at once. */
  readonly peak: Effect.Effect<number>
}>()("effect-claude-code/ClaudeSessionEntity/LiveSessions") {}

/**
 * Whether a session mirrored to the store (`sessionStore` in its options) exists: its transcript
 * in the CLI's config directory of these options, or in the store under the CLI's project key.
 * Undefined when the session does not mirror (the ledger decides).
 */
const sessionExists = (
  store: SessionStore.SessionStore["Service"],
  options: Claude.SessionOptions,
  sessionId: string
): Effect.Effect<boolean | undefined> => {
  if (!mirrors(options)) return Effect.succeed(undefined)
  const where = locate(options)
  if (where === undefined) return Effect.succeed(undefined)
  if (Fs.existsSync(Path.join(where.projectsDir, where.projectKey, `${sessionId}.jsonl`))) return Effect.succeed(true)
  return storeHolds(store, options, sessionId)
}

/** Whether the store holds the session's transcript under the CLI's project key of these options. */
const storeHolds = (
  store: SessionStore.SessionStore["Service"],
  options: Claude.SessionOptions,
  sessionId: string
): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const where = locate(options)
    if (where === undefined) return Effect.succeed(false)
    // `list`, not a `load` cut short: a store's stream may hold a connection until it is read out.
    return store.list(where.projectKey).pipe(
      Effect.map((sessions) => sessions.some((session) => session.sessionId === sessionId))
    )
  }).pipe(Effect.orElseSucceed(() => false))

/**
 * Where the CLI of these options keeps its transcripts; undefined for options no CLI is launched
 * with (a `cwd` or `HOME` that is no string). The entity then goes on to `Claude.open`, which
 * refuses them naming the problem (`InvalidInput`, the turn's typed answer): thrown here, it was a
 * defect, which the cluster answers by restarting the entity and replaying the call without end
 * (a `Send` waited forever).
 */
const locate = (options: Claude.SessionOptions): ReturnType<typeof SessionStoreWiring.locate> | undefined => {
  try {
    return SessionStoreWiring.locate(options.env ?? {}, options.cwd)
  } catch {
    return undefined
  }
}

/**
 * `call()`, a program callback of the entity's, with its defect (a throw, `Effect.die`) made the
 * typed {@link callbackDied}. Its own failures, and a cause with an interruption, are kept.
 */
const guardCallback = <A, E>(
  name: string,
  sessionId: string,
  call: () => Effect.Effect<A, E>,
  secretsFrom: Claude.SessionOptions
): Effect.Effect<A, E | ClaudeError.ClaudeError> =>
  Effect.catchCause(Effect.suspend(call), (cause): Effect.Effect<never, E | ClaudeError.ClaudeError> => {
    const died = cause.reasons.find(Cause.isDieReason)
    return died !== undefined && !Cause.hasFails(cause) && !Cause.hasInterrupts(cause)
      ? Effect.fail(callbackDied(name, sessionId, died.defect, secretsFrom))
      : Effect.failCause(cause)
  })

/**
 * The `InvalidInput` of a program callback that died: a defect would restart the entity, and the
 * cluster replay the message without end (a `Send` waited forever). Its text is the session's
 * (`secretsFrom`'s) secrets out.
 */
const callbackDied = (
  name: string,
  sessionId: string,
  defect: unknown,
  secretsFrom: Claude.SessionOptions
): ClaudeError.ClaudeError =>
  ClaudeError.make(new ClaudeError.InvalidInput({
    description: redactorOf(secretsFrom)(
      `The session entity's ${name} callback died (session ${sessionId}): ${describeError(defect)}`
    )
  }))

/**
 * A text with the secrets of a session of these options replaced, as the session replaces them
 * (the `Redacted` values of its `env`, an `apiKey`, the host's secret variables it inherits);
 * options that cannot be read give the host's only.
 */
const redactorOf = (options: Claude.SessionOptions): (text: string) => string => {
  let secrets: ReadonlyArray<string>
  try {
    const names = [...Launch.defaultSecretEnv, ...(options.secretEnv ?? [])]
    secrets = withSecrets(secretsOf(Launch.commandEnv(options), names), McpServerConfigs.secretsOf(options.mcpServers, names))
  } catch {
    // An `env` that is no object: the host's secrets only.
    secrets = secretsOf({}, Launch.defaultSecretEnv)
  }
  const forms = [...new Set(secrets.flatMap((secret) => formsOf(secret, 3)))].sort((a, b) => b.length - a.length)
  return (text) => replaceAll(text, forms)
}

const mirrors = (options: Claude.SessionOptions): boolean =>
  options.sessionStore !== undefined && options.sessionStore !== false

/** Whether resuming writes the store's copy into the CLI's config directory (`materialize`). */
const writesBack = (options: Claude.SessionOptions): boolean =>
  mirrors(options) && !(typeof options.sessionStore === "object" && options.sessionStore.materialize === false)

/** How many turns of a session a runner remembers beyond its ledger (abandoned, unrecorded). */
const runnerMemoryPerSession = 1_000

/**
 * The session's transcript as the CLI will resume it: with `sessionStore` writing it back, the
 * store's copy when it has one (the cluster's truth: the entity removes a runner's local copy,
 * which may be stale or hold a cut-off attempt, before resuming); otherwise (no store, or
 * `materialize: false`, where the CLI resumes the runner's own file, a lost attempt the store
 * never got in it) its file in the CLI's config directory. Undefined when neither can be read.
 */
const readTranscript = (
  store: SessionStore.SessionStore["Service"],
  options: Claude.SessionOptions,
  sessionId: string
): Effect.Effect<ReadonlyArray<Record<string, unknown>> | undefined> =>
  Effect.gen(function*() {
    const where = locate(options)
    if (where === undefined) return undefined
    if (writesBack(options)) {
      const stored = yield* store.load({ projectKey: where.projectKey, sessionId }).pipe(
        Stream.runCollect,
        Effect.map((entries): ReadonlyArray<Record<string, unknown>> => Array.from(entries)),
        Effect.orElseSucceed(() => undefined)
      )
      if (stored !== undefined) return stored
    }
    return readLocalTranscript(options, sessionId)
  })

/** The session's transcript file in the CLI's config directory of these options, if readable. */
const readLocalTranscript = (
  options: Claude.SessionOptions,
  sessionId: string
): ReadonlyArray<Record<string, unknown>> | undefined => {
  try {
    const where = SessionStoreWiring.locate(options.env ?? {}, options.cwd)
    const text = Fs.readFileSync(Path.join(where.projectsDir, where.projectKey, `${sessionId}.jsonl`), "utf8")
    return text.split("\n").flatMap((line): Array<Record<string, unknown>> => {
      try {
        const value: unknown = JSON.parse(line)
        return typeof value === "object" && value !== null ? [value as Record<string, unknown>] : []
      } catch {
        return []
      }
    })
  } catch {
    return undefined
  }
}

/**
 * Before resuming a session the store holds (with `sessionStore` writing it back): the store's
 * copy is the session's truth, and this runner's file may be stale (the session ran elsewhere
 * since) or hold a cut-off attempt; kept, it would win over the store's copy. So the entries of
 * the local file the store lacks (by uuid; a line without one, past as many alike as the store
 * holds) are appended to the store first (what a flush never landed), except an abandoned
 * attempt's and what follows it; then the file is removed and the store's copy written in its
 * place. A repair the store does not take fails the open (`StoreFailed`), the file kept.
 */
const adoptStoreCopy = (
  store: SessionStore.SessionStore["Service"],
  options: Claude.SessionOptions,
  sessionId: string,
  abandoned: ReadonlySet<string>
): Effect.Effect<void, ClaudeError.ClaudeError> =>
  Effect.gen(function*() {
    const local = readLocalTranscript(options, sessionId)
    if (local === undefined) return
    const where = SessionStoreWiring.locate(options.env ?? {}, options.cwd)
    const key = { projectKey: where.projectKey, sessionId }
    // What the store's copy holds (`StoredLines`: lines without a uuid counted, compared as JSON).
    const held = new SessionStoreWiring.StoredLines()
    yield* store.load(key).pipe(Stream.runForEach((entry) => Effect.sync(() => held.add(entry))))
    const tainted = new Set(abandoned)
    const missing = local.filter((entry): entry is SessionStore.Entry => {
      if (typeof entry.type !== "string") return false
      if (typeof entry.uuid === "string" &&
        (tainted.has(entry.uuid) || (typeof entry.parentUuid === "string" && tainted.has(entry.parentUuid))))
      {
        tainted.add(entry.uuid)
        return false
      }
      return held.missingFromStore(entry as SessionStore.Entry)
    })
    if (missing.length > 0) {
      yield* Effect.logWarning(
        `session ${sessionId}: ${missing.length} entries of this runner's transcript were not in the store; appended before resuming`
      )
      yield* store.append(key, missing)
    }
    yield* SessionStoreWiring.removeLocalTranscript(options, sessionId)
  })

/**
 * The uuid of the user message the CLI gets for a turn: the turn's own on its first attempt; a
 * fresh one when the turn runs again after a lost runner, since a resumed transcript may already
 * hold the first attempt's message under the turn's uuid (the CLI would not answer it again).
 */
const cliUuid = (turn: string, attempt: number): string => attempt === 1 ? turn : crypto.randomUUID()

const formatRunner = (address: { readonly host: string; readonly port: number }) => `${address.host}:${address.port}`

const encodeOutcome = Schema.encodeSync(TurnOutcome)
const decodeOutcome = Schema.decodeUnknownSync(TurnOutcome)
const readOutcome = Schema.decodeUnknownResult(TurnOutcome)
const encodeError = Schema.encodeSync(ClaudeError.ClaudeError)
const readError = Schema.decodeUnknownResult(ClaudeError.ClaudeError)

type Recorded = NonNullable<TurnLedger.TurnRecord["outcome"]>

/** How long a finished turn waits for its transcript to reach the store before it is `StoreFailed`. */
const flushTimeout = Duration.seconds(60)
/** A turn's outcome is written to the ledger in up to 3 tries (after 200 ms, then 800 ms), each bounded. */
const ledgerTimeout = Duration.seconds(10)
const ledgerRetry = { schedule: Schedule.exponential("200 millis", 4), times: 2 }

/**
 * A ledger operation within `ledgerTimeout`: a store that stops answering (a connection lost
 * without a reset) fails the call with `StoreFailed`, never a call (and the session's later
 * calls, behind the ledger's read) that waits forever; one stuck where it cannot be interrupted
 * (`@effect/sql-pg` on such a connection) is not waited for (`internal/bounded.ts`).
 */
const withinLedgerTimeout = <A>(
  effect: Effect.Effect<A, ClaudeError.ClaudeError>,
  store: string,
  operation: "load" | "append"
): Effect.Effect<A, ClaudeError.ClaudeError> =>
  bounded(
    effect,
    ledgerTimeout,
    () =>
      Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({
        store,
        operation,
        description: `the turn ledger did not answer within ${Duration.format(ledgerTimeout)}`
      }))),
    "background"
  )

/** The typed failure of an exit, if it has one. */
const failureOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.ClaudeError | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  return reason !== undefined && reason._tag === "Fail" ? reason.error : undefined
}

/** Whether a recorded outcome is `TurnLost` (`lostTurns: "fail"`): no attempt of it finished. */
const isTurnLost = (outcome: Recorded): boolean => {
  if (outcome._tag !== "Failure") return false
  const error = readError(outcome.error)
  return Result.isSuccess(error) && error.success.reason._tag === "TurnLost"
}

/**
 * The answer a recorded outcome gives. One the entity cannot read is `StoreFailed` naming the
 * turn: never run again, and never a defect, which the cluster would answer by restarting the
 * entity and replaying the call, without end.
 */
const answer = (outcome: Recorded, uuid: string, store: string): Effect.Effect<TurnOutcome, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    const unreadable = (error: Schema.SchemaError) =>
      Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({
        store,
        operation: "load",
        description: `the recorded outcome of turn ${uuid} cannot be read: ${error.message}`
      })))
    if (outcome._tag === "Success") {
      const read = readOutcome(outcome.value)
      return Result.isSuccess(read) ? Effect.succeed(read.success) : unreadable(read.failure)
    }
    const read = readError(outcome.error)
    return Result.isSuccess(read) ? Effect.fail(read.success) : unreadable(read.failure)
  })

const toWire = (event: Claude.Event): Record<string, unknown> => {
  if (event.type === "protocol_problem") {
    return { type: event.type, messageType: event.messageType ?? null, description: event.error.message }
  }
  if (event.type === "handler_failed") return { type: event.type, description: String(event.message) }
  return event as unknown as Record<string, unknown>
}

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

const checkInput = (input: { readonly uuid: string; readonly prompt: string }) =>
  isUuid(input.uuid)
    ? Effect.void
    : Effect.fail(ClaudeError.make(
      new ClaudeError.InvalidInput({ description: `A turn's uuid must be a UUID (it keys the turn): ${JSON.stringify(input.uuid)}` })
    ))

/**
 * The entity's handlers on a runner, with the runner's limit of live CLI processes
 * (`LiveSessions`, also provided). Needs a `Transport` (the CLI), a `SessionStore` (the turn
 * ledger) and `Sharding` (a deployment layer of `ClaudeCluster`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<LiveSessions, never, Transport | SessionStore.SessionStore | Sharding.Sharding> =>
  Layer.unwrap(Effect.gen(function*() {
    const max = options.maxLiveSessions ?? 16
    if (!Number.isInteger(max) || max < 1) {
      return yield* Effect.die(new Error(`maxLiveSessions must be a positive integer, got ${max}`))
    }
    const slots = yield* Semaphore.make(max)
    // The open sessions no call holds now, oldest first (a Map keeps insertion order): at the
    // limit, a session that needs a CLI closes the one idle longest instead of waiting for its
    // idle time to pass.
    const idle = new Map<string, Effect.Effect<void>>()
    // Sessions waiting for a slot: a session left idle while one waits is closed at once.
    let waiting = 0
    const takeSlot = Effect.gen(function*() {
      while (!(yield* slots.takeIfAvailable(1))) {
        const oldest = idle.entries().next()
        if (oldest.done === true) {
          waiting++
          return yield* Effect.ensuring(slots.take(1), Effect.sync(() => waiting--))
        }
        idle.delete(oldest.value[0])
        yield* oldest.value[1]
      }
    })
    let live = 0
    let peak = 0
    const liveSessions = LiveSessions.of({ max, live: Effect.sync(() => live), peak: Effect.sync(() => peak) })
    const lostTurns = options.lostTurns ?? "retry"
    const projectKey = options.projectKey ?? (() => "cluster")
    // What this runner knows of a session's turns that its ledger does not say, kept by the runner
    // (not the entity) so that it outlives the entity's passivation here: an entity passivated
    // and built again must not take a turn its caller abandoned here for one lost with a runner,
    // nor run again a turn whose answer it gave. A session's empty map is dropped.
    const abandonedOnRunner = new Map<string, Map<string, number>>()
    const unrecordedOnRunner = new Map<string, Map<string, Exit.Exit<TurnOutcome, ClaudeError.ClaudeError>>>()
    // Bounded: a session's oldest marks go past `runnerMemoryPerSession` (a caller that never asks
    // again leaves its mark), and a turn the ledger holds the outcome of is dropped when read.
    const perSessionMemory = <V>(maps: Map<string, Map<string, V>>, sessionId: string) => ({
      get: (uuid: string) => maps.get(sessionId)?.get(uuid),
      set: (uuid: string, value: V) => {
        let map = maps.get(sessionId)
        if (map === undefined) maps.set(sessionId, map = new Map())
        map.delete(uuid)
        map.set(uuid, value)
        if (map.size > runnerMemoryPerSession) map.delete(map.keys().next().value!)
      },
      delete: (uuid: string) => {
        const map = maps.get(sessionId)
        if (map === undefined) return
        map.delete(uuid)
        if (map.size === 0) maps.delete(sessionId)
      },
      /** Drops the marks of the turns `settled` says are over. */
      prune: (settled: (uuid: string) => boolean) => {
        const map = maps.get(sessionId)
        if (map === undefined) return
        for (const uuid of map.keys()) if (settled(uuid)) map.delete(uuid)
        if (map.size === 0) maps.delete(sessionId)
      }
    })

    const build = Effect.gen(function*() {
      const address = yield* Entity.CurrentAddress
      const runner = formatRunner(yield* Entity.CurrentRunnerAddress)
      const sessionId = address.entityId
      const store = yield* SessionStore.SessionStore
      // The entity's own scope (it closes when the entity is passivated or its runner stops): a
      // sent turn runs on in it after `Send` answered, not in that call's scope.
      const entityScope = yield* Effect.scope
      const context = yield* Effect.context<Transport>()
      // A `projectKey` that dies fails every call that reads the ledger (there is none to read),
      // never the build (see below), each with `InvalidInput` naming it.
      let key: string
      let unkeyed: ClaudeError.ClaudeError | undefined
      try {
        key = projectKey(sessionId)
      } catch (defect) {
        key = ""
        unkeyed = callbackDied("projectKey", sessionId, defect, {})
      }
      const ledger = new TurnLedger.TurnLedger(store, { projectKey: key, sessionId, subpath: TurnLedger.subpath })
      // Read at the first call that needs it, not while the entity is built: a build that fails
      // is retried by the cluster without end, every call waiting. A call fails with the store's
      // error instead, and the next one reads the ledger again.
      let ledgerRead = false
      const ledgerLock = yield* Semaphore.make(1)
      const readLedger = Effect.suspend(() => {
        if (unkeyed !== undefined) return Effect.fail(unkeyed)
        return ledgerRead ? Effect.void : Semaphore.withPermits(ledgerLock, 1)(Effect.suspend(() =>
          ledgerRead ? Effect.void : Effect.tap(withinLedgerTimeout(ledger.load, store.name, "load"), () =>
            Effect.sync(() => {
              ledgerRead = true
              // What this runner kept of turns the ledger now holds the outcome of is not needed.
              const settled = (uuid: string) => ledger.turns.get(uuid)?.outcome !== undefined
              abandonedByCallers.prune(settled)
              unrecorded.prune(settled)
            }))
        ))
      })
      let opened = 0
      let current: Claude.Session | undefined
      /** The resource's CLI, from its open to its close (`current` is cleared once it exited). */
      let acquired: Claude.Session | undefined
      /**
       * Whether `current` holds an attempt its caller abandoned before its result (its prompt,
       * perhaps a partial answer): the next turn, even a first attempt, must not run on it.
       */
      let tainted = false
      /** A `Close` asked while calls held `current`: done when the last of them lets it go. */
      let closeWhenFree = false
      // Turns being run by this entity now, by uuid: a duplicate delivery joins the first.
      const inflight = new Map<string, Deferred.Deferred<TurnOutcome, ClaudeError.ClaudeError>>()
      // Answers given for turns whose outcome the ledger did not take: given again, never run again
      // (by this runner: kept across the entity's passivation).
      const unrecorded = perSessionMemory(unrecordedOnRunner, sessionId)
      // The turns reserved here (`inflight`) whose attempt running is their first (no runner, and
      // no caller here, ran them before): their prompt is in no transcript yet. Left when the
      // reservation ends: an attempt 2 of a turn a caller abandoned here must not be taken for a
      // first (its CLI would be launched with `--session-id` on the transcript attempt 1 left).
      const firstAttempts = new Set<string>()
      // Turns whose last attempt (its number: the ledger's attempts then) was abandoned here by its
      // caller (interrupted before its result), not lost with a runner: asked again, they run
      // again, whatever `lostTurns` says. Kept by the runner, across the entity's passivation.
      const abandonedByCallers = perSessionMemory(abandonedOnRunner, sessionId)
      const markAbandoned = (uuid: string) => abandonedByCallers.set(uuid, ledger.turns.get(uuid)?.attempts ?? 0)
      // The last top-level assistant message's uuid of each running turn, recorded with its outcome.
      const ends = new Map<string, string>()
      const noteEnd = (turn: string, event: Claude.Event) => {
        if (event.type !== "assistant") return
        const message = event as { readonly uuid?: unknown; readonly parent_tool_use_id?: unknown }
        if (typeof message.uuid === "string" && (message.parent_tool_use_id ?? null) === null) ends.set(turn, message.uuid)
      }
      /**
       * The CLI uuids of every attempt that did not finish its turn: lost with a runner now (no
       * outcome, not running here), or before (an attempt before the one that finished, or every
       * attempt of a turn answered `TurnLost`).
       */
      const abandonedAttempts = () =>
        new Set([...ledger.turns].flatMap(([uuid, turn]) =>
          turn.outcome === undefined && !inflight.has(uuid)
            ? turn.clis
            : turn.outcome !== undefined && isTurnLost(turn.outcome)
            ? turn.clis
            : turn.clis.slice(0, -1)
        ))
      /** A turn whose one attempt no CLI wrote anything of: not in the conversation. */
      const neverReached = (turn: TurnLedger.TurnRecord) => turn.attempts === 1 && turn.reached === false
      const finishedAny = () =>
        [...ledger.turns.values()].some((turn) =>
          turn.outcome !== undefined && !isTurnLost(turn.outcome) && !neverReached(turn)
        )

      /** The program's session options (`session`); a defect in it is the typed failure naming it. */
      const baseOptions = guardCallback(
        "session",
        sessionId,
        () => Effect.sync(() => options.session?.(sessionId) ?? {}),
        {}
      )
      const prepare = options.prepare

      // Held while a CLI is being opened, and by a setting while it is applied: a setting made
      // meanwhile waits for that CLI and goes to it, not only to the ledger (the CLI was launched
      // with the settings read before).
      const opening = yield* Semaphore.make(1)
      const open = Effect.gen(function*() {
        // At the limit, a session takes the slot of an idle one, or waits: never a process past it.
        yield* takeSlot
        live++
        peak = Math.max(peak, live)
        // This open's session: a slow close of an older one must not clear a newer `current`.
        let mine: Claude.Session | undefined
        yield* Effect.addFinalizer(() =>
          Effect.andThen(Effect.sync(() => {
            live--
            if (current === mine) current = undefined
            if (acquired === mine) acquired = undefined
            idle.delete(sessionId)
          }), slots.release(1))
        )
        const base = yield* baseOptions
        // Whether the CLI's session exists: with the store mirroring (`sessionStore`), when its
        // transcript is in the CLI's config directory here or in the store. Otherwise from the
        // ledger: a turn accepted before, here or on a lost runner, other than a first attempt
        // running now (a turn lost before may have reached its CLI).
        const stored = yield* sessionExists(store, base, sessionId)
        const resuming = stored ??
          [...ledger.turns].some(([turn, record]) => !(inflight.has(turn) && firstAttempts.has(turn)) && !neverReached(record))
        const abandoned = abandonedAttempts()
        if (resuming && writesBack(base) && (yield* storeHolds(store, base, sessionId))) {
          yield* adoptStoreCopy(store, base, sessionId, abandoned)
        }
        const prepared = prepare === undefined
          ? {}
          : yield* guardCallback("prepare", sessionId, () => prepare(sessionId, resuming), base)
        // From the settings read to the CLI in `current`: a setting made meanwhile waits, then
        // goes to this CLI (`opening`).
        return yield* Semaphore.withPermits(opening, 1)(Effect.gen(function*() {
          const { model, permissionMode } = ledger.settings
          // An attempt lost with a runner may be in the transcript (its prompt, a partial answer):
          // the CLI resumes where the conversation holds none (see planResume), or starts anew.
          const sessionOptions = { ...base, ...prepared }
          const transcript = resuming && abandoned.size > 0 ? yield* readTranscript(store, sessionOptions, sessionId) : undefined
          const plan = resuming && abandoned.size > 0
            ? planResume(transcript, abandoned, ledger.ends, finishedAny())
            : "whole"
          if (plan === "fresh") {
            yield* Effect.logWarning(
              `session ${sessionId}: its first turn did not finish (its runner lost, or its caller gone); the session starts anew under its id`
            )
            // The CLI refuses an id whose file exists. The store's copy stays, and later resumes
            // anchor on the ledger's last finished turn, never on the lost root.
            yield* SessionStoreWiring.removeLocalTranscript(sessionOptions, sessionId)
          }
          if (!resuming && [...ledger.turns.keys()].some((turn) => !(inflight.has(turn) && firstAttempts.has(turn)))) {
            // Turns accepted before, none of which a CLI wrote anything of: one may still have
            // saved its prompt, and the CLI refuses a new session under an id whose file exists.
            yield* SessionStoreWiring.removeLocalTranscript(sessionOptions, sessionId)
          }
          const resumeAt = typeof plan === "object" ? plan.at : undefined
          const session = yield* Claude.open({
            ...sessionOptions,
            ...(resuming && plan !== "fresh"
              ? { resume: sessionId, sessionId: undefined }
              : { sessionId, resume: undefined }),
            ...(resumeAt === undefined ? {} : { resumeSessionAt: resumeAt }),
            ...(model === undefined ? {} : { model }),
            ...(permissionMode === undefined ? {} : { permissionMode: permissionMode as Launch.PermissionMode })
          })
          opened++
          mine = session
          current = session
          acquired = session
          tainted = false
          closeWhenFree = false
          // A CLI that exits by itself (it crashed, it was killed) is no longer the session's: the
          // next turn opens one again. Watched from the entity's scope, not the resource's, which
          // dropping the resource closes.
          yield* Effect.forkIn(Effect.andThen(session.exit, dropExited(session)), entityScope)
          return session
        }))
        // The layer's services (the Transport, Hooks, Permissions, ...) under the resource's own
        // Scope, which the RcRef provides: the CLI lives as long as the resource, not the entity.
      }).pipe(Effect.updateContext((own: Context.Context<Scope.Scope>) => Context.merge(context, own)))

      /**
       * Drops `session` from the resource when it is still the resource's (it exited). Called by
       * its watcher and by an attempt that saw it gone: the watcher's call does nothing while the
       * resource is still being acquired, and the attempt's comes after.
       */
      const dropExited = (session: Claude.Session): Effect.Effect<void> =>
        Effect.suspend(() => {
          if (acquired !== session) return Effect.void
          if (current === session) current = undefined
          return resource.close
        })

      /**
       * Records an accepted setting for the next CLIs; when the ledger fails, `undo` takes it back on
       * the live CLI, and that CLI is reopened (with the ledger's settings) before the next turn.
       */
      const keepSetting = (
        settings: { readonly model?: string; readonly permissionMode?: string },
        undo: Effect.Effect<unknown, unknown> | undefined
      ) =>
        Effect.flatMap(
          Clock.currentTimeMillis,
          (now) => withinLedgerTimeout(ledger.setting(settings, now), store.name, "append")
        ).pipe(
          Effect.tapError(() =>
            undo === undefined ? Effect.void : Effect.andThen(Effect.ignore(undo), Effect.sync(() => {
              tainted = true
            }))
          )
        )

      // Acquired lazily (never here), so making it cannot fail.
      const resource = yield* Effect.orDie(EntityResource.make({
        acquire: open,
        idleTimeToLive: options.idleTimeToLive ?? "5 minutes"
      }))
      // The session for the caller's scope; idle (evictable) again once no call holds it.
      let holders = 0
      const hold = Effect.gen(function*() {
        const session = yield* resource.get
        holders++
        idle.delete(sessionId)
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            holders--
            if (holders > 0 || current === undefined) return Effect.void
            // Held by no call: closed now if a `Close` was asked or a session waits for a slot
            // (the close happens as the last reference is released), else idle until evicted or
            // its time passes.
            if (closeWhenFree || waiting > 0) return resource.close
            idle.set(sessionId, resource.close)
            return Effect.void
          })
        )
        return session
      })
      /**
       * `Close`: the CLI is closed once no call holds it. Never invalidated under a call that
       * holds it: the resource would be empty at once, and the next call would open a second CLI
       * of the session beside the first (a conversation without the running turn's), the first
       * still running.
       */
      const close = Effect.suspend(() => {
        if (holders === 0) return resource.close
        closeWhenFree = true
        return Effect.void
      })

      // Each generator function below is made once per entity, not per call (docs/CONTRIBUTING.md).

      /** What to do with a turn: answer a recorded outcome, or run it as attempt n. */
      const admit = Effect.fnUntraced(function*(
        uuid: string
      ): Effect.fn.Return<{ readonly run: number; readonly cli: string } | { readonly recorded: Recorded }, ClaudeError.ClaudeError> {
        const record = ledger.turns.get(uuid)
        if (record?.outcome !== undefined) {
          abandonedByCallers.delete(uuid)
          return { recorded: record.outcome }
        }
        if (record !== undefined && lostTurns === "fail" && abandonedByCallers.get(uuid) !== record.attempts) {
          const outcome: Recorded = {
            _tag: "Failure",
            error: encodeError(ClaudeError.make(new ClaudeError.TurnLost({ uuid, sessionId })))
          }
          yield* withinLedgerTimeout(ledger.finished(uuid, outcome, yield* Clock.currentTimeMillis), store.name, "append")
          return { recorded: outcome }
        }
        const attempt = (record?.attempts ?? 0) + 1
        if (attempt > 1) {
          yield* Effect.logWarning(
            `turn ${uuid} of session ${sessionId} did not finish (its runner lost, or its caller gone, mid-turn): running it again (attempt ${attempt})`
          )
        }
        abandonedByCallers.delete(uuid)
        const cli = cliUuid(uuid, attempt)
        const now = yield* Clock.currentTimeMillis
        yield* withinLedgerTimeout(ledger.started(uuid, runner, now, cli), store.name, "append")
        if (attempt === 1) firstAttempts.add(uuid)
        else firstAttempts.delete(uuid)
        return { run: attempt, cli }
      })

      const outcomeOf = (uuid: string, attempt: number, result: Claude.TurnResult) =>
        new TurnOutcome({
          uuid,
          sessionId,
          text: typeof result.result === "string" ? result.result : null,
          subtype: result.subtype,
          isError: result.is_error,
          costUsd: result.turn.costUsd,
          numTurns: result.num_turns,
          runner,
          attempt
        })

      /**
       * Settles a turn's attempt once its stream ended (`exit`), uninterruptibly, so that a caller
       * who stops waiting never leaves a finished turn unrecorded (a retry would run it again):
       * 1. when a result arrived, the transcript is flushed to the store (`Session.flushStore`,
       *    within `flushTimeout`): the runner that takes the session over resumes every turn
       *    answered; a transcript that cannot be saved makes the outcome `StoreFailed`, never a
       *    success whose history is gone;
       * 2. the outcome (success, the turn's own failure, or that) is recorded in the ledger,
       *    with the turn's last assistant message (`at`) only when the flush succeeded;
       * 3. the callers are answered. An interruption before any result records nothing.
       * `session`: the attempt's CLI, none when it could not be opened. `reached`: whether the CLI
       * wrote anything of the turn (it has the prompt in its conversation); recorded, so that a
       * first turn no CLI reached leaves no session to resume. A CLI gone (it exited) is dropped
       * before the callers hear of it, so that the next turn opens one again.
       */
      const settle = Effect.fnUntraced(function*(
        session: Claude.Session | undefined,
        uuid: string,
        attempt: number,
        exit: Exit.Exit<unknown, ClaudeError.ClaudeError>,
        result: Claude.TurnResult | undefined,
        reached: boolean
      ): Effect.fn.Return<TurnOutcome, ClaudeError.ClaudeError> {
        const at = ends.get(uuid)
        ends.delete(uuid)
        const failure = failureOf(exit)
        const gone = failure?.reason._tag === "ProcessExited" || failure?.reason._tag === "StdoutClosed"
        if (session !== undefined && gone) yield* dropExited(session)
        let verdict: Exit.Exit<TurnOutcome, ClaudeError.ClaudeError>
        let stored = false
        if (result === undefined && failure === undefined && Exit.isFailure(exit)) {
          // Interrupted (or a defect) before a result: the turn may not have run; nothing recorded.
          // It may be in the CLI's conversation (its line written, no event of it read yet), so no
          // later turn runs there (`forgetAbandoned`). Erring on the safe side: an attempt that
          // never reached the CLI (interrupted while waiting for its turn) costs a reopen too.
          if (current !== undefined) tainted = true
          markAbandoned(uuid)
          verdict = exit as Exit.Exit<never, ClaudeError.ClaudeError>
        } else {
          const flushed = result === undefined || session === undefined
            ? Exit.void
            : yield* Effect.exit(session.flushStore.pipe(
              Effect.timeoutOrElse({
                duration: flushTimeout,
                orElse: () =>
                  Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({
                    store: store.name,
                    operation: "append",
                    description: `the turn's transcript did not reach the store within ${Duration.format(flushTimeout)}`
                  })))
              })
            ))
          stored = Exit.isSuccess(flushed)
          verdict = failure !== undefined
            ? Exit.fail(failure)
            : result === undefined
            ? Exit.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "run" })))
            : Exit.isFailure(flushed)
            ? flushed as Exit.Exit<never, ClaudeError.ClaudeError>
            : Exit.succeed(outcomeOf(uuid, attempt, result))
          const recorded: Recorded = Exit.isSuccess(verdict)
            ? { _tag: "Success", value: encodeOutcome(verdict.value) }
            : { _tag: "Failure", error: encodeError(failureOf(verdict)!) }
          const written = yield* Effect.exit(withinLedgerTimeout(
            ledger.finished(uuid, recorded, yield* Clock.currentTimeMillis, { at: stored ? at : undefined, reached }),
            store.name,
            "append"
          ).pipe(Effect.retry(ledgerRetry)))
          // An outcome the ledger did not take is not answered as a success: another runner
          // would not know it and run the turn again. This entity keeps the answer it gave.
          if (Exit.isFailure(written)) {
            verdict = written as Exit.Exit<never, ClaudeError.ClaudeError>
            unrecorded.set(uuid, verdict)
          }
        }
        const deferred = inflight.get(uuid)
        inflight.delete(uuid)
        firstAttempts.delete(uuid)
        if (deferred !== undefined) yield* Deferred.done(deferred, verdict)
        return yield* verdict
      }, Effect.uninterruptible)

      const attemptIn = Effect.fnUntraced(function*(
        uuid: string,
        attempt: number,
        input: Claude.TurnInput,
        held: Effect.Effect<void>,
        restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
      ) {
        const opened = yield* Effect.exit(restore(hold))
        if (Exit.isFailure(opened)) return yield* settle(undefined, uuid, attempt, opened, undefined, false)
        const session = opened.value
        yield* held
        let result: Claude.TurnResult | undefined
        let reached = false
        const exit = yield* Effect.exit(restore(session.turn(input).pipe(
          Stream.runForEach((event) =>
            Effect.sync(() => {
              reached = true
              noteEnd(uuid, event)
              if (event.type === "result") result = event
            })
          )
        )))
        return yield* settle(session, uuid, attempt, exit, result, reached)
      })

      /**
       * Runs a turn's attempt to its outcome (settled as above), noting its events; `held` runs
       * once it has the session. A session that cannot be opened is the attempt's failure.
       */
      const runAttempt = (
        uuid: string,
        attempt: number,
        input: Claude.TurnInput,
        held: Effect.Effect<void> = Effect.void
      ): Effect.Effect<TurnOutcome, ClaudeError.ClaudeError> =>
        // Only waiting for the session and the turn itself can be interrupted: however they end,
        // the attempt is settled.
        Effect.uninterruptibleMask((restore) => Effect.scoped(attemptIn(uuid, attempt, input, held, restore)))

      /** Ends a reservation that no attempt took over (its waiters get `exit`). */
      const release = (uuid: string, deferred: Deferred.Deferred<TurnOutcome, ClaudeError.ClaudeError>, exit: Exit.Exit<TurnOutcome, ClaudeError.ClaudeError>) =>
        Effect.sync(() => {
          if (inflight.get(uuid) === deferred) {
            inflight.delete(uuid)
            firstAttempts.delete(uuid)
            // Left by its caller before an attempt settled it (its ledger may say started).
            if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) markAbandoned(uuid)
          }
          Deferred.doneUnsafe(deferred, exit)
        })

      /**
       * Starts a call for a turn: joins the attempt running here, answers a turn already answered,
       * or reserves the uuid (at once, before anything waits, so a second call for it joins this
       * one) and admits it. A reservation the call leaves before an attempt settles it is released.
       */
      type Begun =
        | { readonly joined: Deferred.Deferred<TurnOutcome, ClaudeError.ClaudeError> }
        | { readonly answered: Effect.Effect<TurnOutcome, ClaudeError.ClaudeError> }
        | { readonly run: number; readonly cli: string; readonly deferred: Deferred.Deferred<TurnOutcome, ClaudeError.ClaudeError> }
      const begin = (uuid: string): Effect.Effect<Begun, ClaudeError.ClaudeError> =>
        Effect.andThen(readLedger, (): Effect.Effect<Begun, ClaudeError.ClaudeError> => {
          const joining = inflight.get(uuid)
          if (joining !== undefined) return Effect.succeed({ joined: joining })
          // An outcome the ledger holds wins (another runner may have run the turn since).
          const kept = unrecorded.get(uuid)
          if (kept !== undefined && ledger.turns.get(uuid)?.outcome === undefined) return Effect.succeed({ answered: kept })
          unrecorded.delete(uuid)
          const deferred = Deferred.makeUnsafe<TurnOutcome, ClaudeError.ClaudeError>()
          inflight.set(uuid, deferred)
          return admit(uuid).pipe(
            Effect.onError((cause) => release(uuid, deferred, Exit.failCause(cause))),
            Effect.flatMap((admitted): Effect.Effect<Begun> =>
              "recorded" in admitted
                ? Effect.as(
                  Effect.flatMap(Effect.exit(answer(admitted.recorded, uuid, store.name)), (exit) => release(uuid, deferred, exit)),
                  { answered: answer(admitted.recorded, uuid, store.name) }
                )
                : Effect.succeed({ ...admitted, deferred })
            )
          )
        })

      /**
       * The outcome of the attempt a call joined. One its own caller abandoned (interrupted before
       * its result) is `TurnCancelled` to the joiner, whose caller did not interrupt anything and
       * gets a typed answer (asked again, the turn runs again).
       */
      const awaitJoined = (uuid: string, joined: Deferred.Deferred<TurnOutcome, ClaudeError.ClaudeError>) =>
        Deferred.await(joined).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.fail(ClaudeError.make(new ClaudeError.TurnCancelled({ uuid })))
              : Effect.failCause(cause)
          )
        )

      /**
       * Before an attempt after the first, or any attempt once a caller abandoned one on the CLI
       * open here: that CLI holds the abandoned attempt (its prompt, perhaps an interrupted
       * answer), so it is closed and reopened, resumed where the conversation holds no abandoned
       * attempt. Not while another call holds it (logged).
       */
      const forgetAbandoned = (attempt: number) =>
        Effect.suspend(() => {
          if (current === undefined || (attempt === 1 && !tainted)) return Effect.void
          if (holders > 0) {
            return Effect.logWarning(
              `session ${sessionId}: its CLI holds an abandoned attempt but another call uses it; the conversation keeps that attempt`
            )
          }
          return resource.close
        })

      /**
       * The caller's interruption interrupts the turn on the CLI (`runAttempt`'s `restore`) and
       * releases the reservation: the call's reply is that interruption, stored under its request
       * alone (no primary key), so the next call with the uuid runs the turn again, or answers
       * what the settled attempt recorded.
       */
      const run = Effect.fnUntraced(function*(input: { readonly uuid: string; readonly prompt: string }) {
        yield* checkInput(input)
        const begun = yield* begin(input.uuid)
        if ("joined" in begun) return yield* awaitJoined(input.uuid, begun.joined)
        if ("answered" in begun) return yield* begun.answered
        return yield* Effect.andThen(
          forgetAbandoned(begun.run),
          runAttempt(input.uuid, begun.run, { text: input.prompt, uuid: begun.cli })
        ).pipe(Effect.onInterrupt(() => release(input.uuid, begun.deferred, Exit.interrupt())))
      })

      const openTurn = Effect.fnUntraced(function*(input: { readonly uuid: string; readonly prompt: string }) {
        yield* checkInput(input)
        const begun = yield* begin(input.uuid)
        if ("joined" in begun) return Stream.fromEffect(Effect.map(awaitJoined(input.uuid, begun.joined), outcomeEvent))
        if ("answered" in begun) return Stream.fromEffect(Effect.map(begun.answered, outcomeEvent))
        const admitted = begun
        const outcome = begun.deferred
        // However the stream ends before an attempt settles it (interrupted here, or before it is
        // pulled), the reservation is released; once settled, this does nothing.
        yield* Effect.addFinalizer(() => release(input.uuid, outcome, Exit.interrupt()))
        yield* forgetAbandoned(admitted.run)
        const opened = yield* Effect.exit(hold)
        if (Exit.isFailure(opened)) {
          const settled = yield* Effect.exit(settle(undefined, input.uuid, admitted.run, opened, undefined, false))
          return Stream.fromEffect(Effect.map(settled, outcomeEvent))
        }
        const session = opened.value
        let result: Claude.TurnResult | undefined
        let reached = false
        // The events as they come; the attempt settled (in the stream's finalizer, however it
        // ends); then the outcome, which is authoritative: a `result` event before it is the
        // CLI's, and the outcome may still be `StoreFailed`.
        return session.turn({ text: input.prompt, uuid: admitted.cli }).pipe(
          Stream.map((event) => {
            reached = true
            noteEnd(input.uuid, event)
            if (event.type === "result") result = event
            return toWire(event)
          }),
          Stream.onExit((exit) => Effect.ignore(settle(session, input.uuid, admitted.run, exit, result, reached))),
          Stream.concat(Stream.fromEffect(Effect.map(Deferred.await(outcome), outcomeEvent)))
        )
      })
      const turn = (input: { readonly uuid: string; readonly prompt: string }) => Stream.unwrap(openTurn(input))

      const send = Effect.fnUntraced(function*(input: { readonly uuid: string; readonly prompt: string }) {
        yield* checkInput(input)
        const admitted = yield* begin(input.uuid)
        if (!("deferred" in admitted)) return input.uuid
        yield* forgetAbandoned(admitted.run).pipe(
          Effect.onInterrupt(() => release(input.uuid, admitted.deferred, Exit.interrupt()))
        )
        const written = yield* Deferred.make<void, ClaudeError.ClaudeError>()
        // The turn runs on in the entity's scope, holding the session; `written` says it has the
        // session, or how the attempt ended before (however it ended: `Send` never outwaits it).
        yield* runAttempt(
          input.uuid,
          admitted.run,
          { text: input.prompt, uuid: admitted.cli },
          Deferred.succeed(written, undefined).pipe(Effect.asVoid)
        ).pipe(
          Effect.onExit((exit) => Exit.isFailure(exit) ? Deferred.failCause(written, exit.cause) : Effect.void),
          Effect.ignore,
          Effect.forkIn(entityScope)
        )
        yield* Deferred.await(written)
        return input.uuid
      })

      return ClaudeSessionEntity.of({
        Run: ({ payload }) => run(payload),
        Turn: ({ payload }) => turn(payload),
        Send: ({ payload }) => send(payload),
        Interrupt: () => current === undefined ? Effect.void : current.interrupt,
        // A live CLI takes the setting first; only one it accepted is kept for the next CLIs (a
        // refused model or mode would otherwise be launched with, on any runner). One the ledger
        // could not keep is taken back on that CLI, which is reopened before the next turn anyway:
        // the caller heard it failed, so no turn may run with it.
        SetModel: ({ payload }) =>
          Effect.gen(function*() {
            yield* readLedger
            const live = current
            const resolved = live === undefined ? payload.model : yield* live.setModel(payload.model)
            yield* keepSetting({ model: payload.model }, live?.setModel(ledger.settings.model))
            return resolved
          }).pipe(Semaphore.withPermits(opening, 1)),
        SetPermissionMode: ({ payload }) =>
          Effect.gen(function*() {
            yield* readLedger
            const live = current
            // As a live CLI refuses it, so without one: a switch to bypassPermissions in a session
            // whose CLIs are not launched to allow it (the next CLI would be launched in it, no
            // guard asked).
            if (
              live === undefined && payload.mode === "bypassPermissions" &&
              ledger.settings.permissionMode !== "bypassPermissions" && !Launch.allowsBypassSwitch(yield* baseOptions)
            ) {
              return yield* Effect.fail(ClaudeError.make(
                new ClaudeError.ControlRejected({
                  subtype: "set_permission_mode",
                  error: "bypassPermissions can only be switched to in a session launched in bypassPermissions " +
                    "or with --allow-dangerously-skip-permissions",
                  by: "host"
                })
              ))
            }
            // Nor, without one, a switch a live CLI's session refuses (`ModeGuard`: bypassPermissions
            // with a Permissions layer, a mode that asks no one while a tool that needs approval is
            // served): every later CLI would refuse to launch in it.
            if (live === undefined) {
              const served = yield* Effect.serviceOption(Services.McpServers)
              const guard = new ModeGuard(
                Option.isSome(yield* Effect.serviceOption(Services.Permissions)),
                undefined,
                Option.isSome(served) ? Services.launchEntries(served.value) : []
              )
              const refusal = guard.refusal({ subtype: "set_permission_mode", mode: payload.mode })
              if (refusal !== undefined) {
                return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: refusal })))
              }
            }
            // The mode the live CLI says is in effect is the one kept (not always the one asked).
            const inEffect = live === undefined ? payload.mode : (yield* live.setPermissionMode(payload.mode)) ?? payload.mode
            yield* keepSetting(
              { permissionMode: inEffect },
              live?.setPermissionMode((ledger.settings.permissionMode ?? "default") as Launch.PermissionMode)
            )
          }).pipe(Semaphore.withPermits(opening, 1)),
        // The turns the ledger holds, as read (none before a call read it, or if it cannot be read).
        Status: () =>
          Effect.sync(() =>
            new SessionStatus({
              sessionId,
              runner,
              live: current !== undefined,
              pid: current?.pid ?? null,
              opened,
              turns: ledger.turns.size
            })
          ),
        Close: () => close
      })
    })

    return ClaudeSessionEntity.toLayer(build, { concurrency: "unbounded" }).pipe(
      Layer.merge(Layer.succeed(LiveSessions, liveSessions))
    )
  }))

const outcomeEvent = (outcome: TurnOutcome): Record<string, unknown> => ({
  type: "turn_outcome",
  outcome: encodeOutcome(outcome)
})

/**
 * A client of the session entity: `client(sessionId).Run({ uuid, prompt })` from any process of
 * the cluster.
 *
 * @since 0.2.0
 * @category clients
 */
export const client = ClaudeSessionEntity.client

/**
 * The outcome carried by a `Turn` stream's last event, if it is one.
 *
 * @since 0.2.0
 * @category models
 */
export const outcomeOfEvent = (event: Record<string, unknown>): TurnOutcome | undefined =>
  event.type === "turn_outcome" ? decodeOutcome(event.outcome) : undefined
