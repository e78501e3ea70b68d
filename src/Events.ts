/**
 * What a session's streams carry: the CLI's messages (less the control channel's own), results
 * with their turn's own usage, and the problems the library reports without ending the session.
 *
 * @since 0.1.0
 */
import type * as ClaudeError from "./ClaudeError.ts"
import type * as HandlerFailure from "./HandlerFailure.ts"
import type * as Protocol from "./Protocol.ts"
import type * as SessionStore from "./SessionStore.ts"

/**
 * What one turn cost. The CLI's `total_cost_usd` and `modelUsage` are running totals for the
 * process (and, after `resume`, for the resumed session), so adding them up turn by turn counts
 * every earlier turn again. These are the turn's own figures: the CLI's
 * `model_usage_since_last_result` where it writes one, else the difference from the previous
 * result. Fields that are not counters (`contextWindow`, `maxOutputTokens`, `canonicalModel`, …)
 * are kept as the CLI wrote them.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnUsage {
  /** The turn's own cost in US dollars (not the process's running total). */
  readonly costUsd: number
  /** The turn's own usage per model, by model name. */
  readonly modelUsage: Readonly<Record<string, Protocol.ModelUsage>>
  /**
   * `user` for a turn the program started (`turn`, `run`, `send`); `automatic` for one the CLI
   * started by itself (after a background task finished: the result's `origin` says why).
   */
  readonly kind: "user" | "automatic"
  /** The uuids of the user messages this turn answered (several when the CLI merged them). */
  readonly userMessageUuids: ReadonlyArray<string>
  /**
   * Whether the program asked the CLI to abort this turn before its result: an interrupt (its
   * fiber interrupted, `session.interrupt`), a denial with `interrupt: true`. A turn the CLI
   * ended as interrupted (`terminal_reason` `aborted_*`) without it failed (`TurnFailed`: a
   * signal from outside, the CLI's own abort). Absent where not known (a result made elsewhere).
   *
   * @since 0.2.0
   */
  readonly interruptRequested?: boolean | undefined
}

/**
 * A `result` with this turn's own cost and usage, and its kind, under `turn`.
 *
 * @since 0.1.0
 * @category models
 */
export type TurnResult = Protocol.ResultMessage & {
  /** This turn's own cost and usage, and its kind. */
  readonly turn: TurnUsage
}

/**
 * A line from the CLI that broke the protocol (JSON that breaks a known schema, a line over the
 * cap). It is reported here and skipped; the session goes on. A control request among them has
 * been answered with an error, so the CLI never waits on it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProtocolProblem {
  /** Tells it apart from the CLI's messages. */
  readonly type: "protocol_problem"
  /** What was wrong with the line (`ProtocolViolation`, with the line's start). */
  readonly error: ClaudeError.ProtocolViolation
  /** The `type` of the offending line, when it was JSON with one. */
  readonly messageType: string | undefined
}

/**
 * A batch of transcript entries the session could not mirror to its `SessionStore` (the option
 * `sessionStore`): the store failed every attempt (3, with short backoff). The batch is kept and
 * tried again in front of the next one; the session goes on, and the CLI's own transcript file
 * has the entries. At close, what was never saved is reported once more (`attempts: 0`) in the
 * log (an error) only: `events` has ended by then. A program that must know before it closes
 * the session waits on `Session.flushStore`, which fails with `StoreFailed` while anything is
 * unsaved.
 *
 * @since 0.2.0
 * @category models
 */
export interface MirrorFailed {
  /** Tells it apart from the CLI's messages (the official SDK's `system/mirror_error`). */
  readonly type: "mirror_error"
  /** The store's last failure (`StoreFailed`, or any reason the store gave). */
  readonly error: ClaudeError.ClaudeError
  /**
   * The transcript the batch belonged to; absent when the CLI wrote a file the session cannot name
   * a key for (outside `<config dir>/projects`: its `CLAUDE_CONFIG_DIR` differs from the session's).
   */
  readonly key?: SessionStore.SessionKey | undefined
  /**
   * How many entries were not saved. They are kept and tried again in front of the next batch
   * (and once more when the session closes, what is then never saved going to the log).
   */
  readonly entries: number
  /** How many times `append` was tried. */
  readonly attempts: number
}

/**
 * Every event of a session: every message of the CLI except the control channel's own, with
 * results carrying their turn's usage; protocol problems; handlers that failed (a hook or
 * permission handler whose failure was answered with a refusal or a non-blocking error); and
 * batches the session store could not take (`mirror_error`).
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | Exclude<
    Protocol.Message,
    Protocol.ResultMessage | Protocol.IncomingControlRequest | Protocol.ControlResponse |
    Protocol.ControlCancelRequest | Protocol.KeepAlive | Protocol.TranscriptMirror
  >
  | TurnResult
  | ProtocolProblem
  | HandlerFailure.HandlerFailed
  | MirrorFailed

/**
 * True for the result of a turn the CLI started by itself.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAutomatic = (result: TurnResult): boolean => result.turn.kind === "automatic"
