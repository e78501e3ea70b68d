/**
 * The turn ledger of a session run by the cluster: which user turns (by their uuid) were accepted,
 * which finished and with what outcome, and the session's settings (model, permission mode) that
 * a re-opened CLI must get again. It lives in the `SessionStore` next to the session's
 * transcript (subpath `cluster/turns`), so a runner that takes the session over after another
 * died reads what was accepted there: a finished turn is answered from here (never run again), an
 * accepted turn with no outcome was lost mid-turn and is retried or reported, never silently.
 *
 * An accepted turn's entry holds the uuid the CLI got for its user message (`cli`: a fresh one for
 * each attempt after the first), and a finished turn's the uuid of its last assistant message
 * (`at`): the entity resumes a transcript holding a lost attempt before that attempt's message,
 * or at the last finished turn's end when it cannot read the transcript.
 *
 * Entries with a `uuid` are idempotent in the store (`<turn>:started`, `<turn>:finished`), so a
 * retried append never doubles one.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import type * as SessionStore from "../SessionStore.ts"
import { unreadableLineType } from "../SessionStore.ts"

/** The subpath of a session's ledger in the store. */
export const subpath = "cluster/turns"

/** What the ledger remembers of one turn. */
export interface TurnRecord {
  /** How many times a runner accepted it (more than 1: it was lost mid-turn and retried). */
  readonly attempts: number
  /** The uuid the CLI got for the user message of each attempt, in order. */
  readonly clis: ReadonlyArray<string>
  /** False when no CLI wrote anything of its last attempt; unknown in older ledgers. */
  readonly reached?: boolean | undefined
  /** The recorded outcome, once it finished: the encoded result or the encoded error. */
  readonly outcome?: { readonly _tag: "Success"; readonly value: unknown } | {
    readonly _tag: "Failure"
    readonly error: unknown
  } | undefined
}

/** The settings a re-opened CLI gets again. */
export interface Settings {
  readonly model?: string | undefined
  readonly permissionMode?: string | undefined
}

/** The ledger of one session, loaded once by the entity and appended to as turns go. */
export class TurnLedger {
  readonly turns = new Map<string, TurnRecord>()
  settings: Settings = {}
  /**
   * Every finished turn's last assistant message uuid, in the order they finished: the last one
   * is where the transcript ended with the last finished turn.
   */
  readonly ends: Array<string> = []
  readonly store: SessionStore.SessionStore["Service"]
  readonly key: SessionStore.SessionKey
  constructor(store: SessionStore.SessionStore["Service"], key: SessionStore.SessionKey) {
    this.store = store
    this.key = key
  }

  /** True when any turn was ever accepted: the CLI's session exists and is resumed. */
  get hasHistory(): boolean {
    return this.turns.size > 0
  }

  private apply(entry: SessionStore.Entry): void {
    const turn = typeof entry.turn === "string" ? entry.turn : undefined
    if (entry.type === "turn_started" && turn !== undefined) {
      const previous = this.turns.get(turn)
      const cli = typeof entry.cli === "string" ? entry.cli : turn
      this.turns.set(turn, {
        attempts: (previous?.attempts ?? 0) + 1,
        clis: [...(previous?.clis ?? []), cli],
        outcome: previous?.outcome
      })
    } else if (entry.type === "turn_finished" && turn !== undefined) {
      const previous = this.turns.get(turn)
      const outcome = entry.outcome as TurnRecord["outcome"]
      this.turns.set(turn, {
        attempts: previous?.attempts ?? 1,
        clis: previous?.clis ?? [turn],
        outcome,
        ...(entry.reached === false ? { reached: false } : {})
      })
      if (typeof entry.at === "string") this.ends.push(entry.at)
    } else if (entry.type === "settings") {
      const next = { ...this.settings }
      if (typeof entry.model === "string") next.model = entry.model
      if (typeof entry.permissionMode === "string") next.permissionMode = entry.permissionMode
      this.settings = next
    }
  }

  /**
   * Reads the ledger from the store (a session never written has an empty one), all or nothing:
   * a load that fails leaves the ledger as it was, for a later one to read again. A line the
   * store could not read fails it with `StoreFailed`: skipped, a turn it recorded as finished
   * would run again. Only a line cut short is left out, wherever it stands (an append that never
   * finished, whose caller was not answered; the store writes the next one on a line of its own).
   */
  readonly load: Effect.Effect<void, ClaudeError.ClaudeError> = Effect.suspend(() => {
    const entries: Array<SessionStore.Entry> = []
    return this.store.load(this.key).pipe(
      Stream.runForEach((entry) =>
        Effect.suspend(() => {
          if (entry.type !== unreadableLineType) entries.push(entry)
          else if (!(entry as SessionStore.UnreadableLine).cut) return Effect.fail(this.unreadable(entry as SessionStore.UnreadableLine))
          return Effect.void
        })
      ),
      Effect.catchIf((error) => error.reason._tag === "SessionNotFound", () => Effect.void),
      Effect.andThen(Effect.sync(() => {
        this.turns.clear()
        this.ends.length = 0
        this.settings = {}
        for (const entry of entries) this.apply(entry)
      }))
    )
  })

  private unreadable(line: SessionStore.UnreadableLine): ClaudeError.ClaudeError {
    return ClaudeError.make(
      new ClaudeError.StoreFailed({
        store: this.store.name,
        operation: "load",
        description: `the turn ledger of session ${this.key.sessionId} holds a line it could not read ` +
          `(${line.description}): a turn it recorded could run again`
      })
    )
  }

  private append(entry: SessionStore.Entry): Effect.Effect<void, ClaudeError.ClaudeError> {
    return Effect.andThen(this.store.append(this.key, [entry]), Effect.sync(() => this.apply(entry)))
  }

  /**
   * Records that this runner accepted the turn (before a line of it reaches the CLI), and the
   * uuid the CLI gets for its user message.
   */
  started(turn: string, runner: string, clock: number, cli: string): Effect.Effect<void, ClaudeError.ClaudeError> {
    const attempt = (this.turns.get(turn)?.attempts ?? 0) + 1
    return this.append({
      type: "turn_started",
      uuid: `${turn}:started:${attempt}`,
      turn,
      cli,
      runner,
      timestamp: new Date(clock).toISOString()
    })
  }

  /**
   * Records the turn's outcome: from now on it is answered from here. `at`: the uuid of the
   * turn's last assistant message, when it had one; `reached: false`: no CLI wrote anything of
   * its attempt.
   */
  finished(
    turn: string,
    outcome: NonNullable<TurnRecord["outcome"]>,
    clock: number,
    options: { readonly at?: string | undefined; readonly reached?: boolean | undefined } = {}
  ) {
    return this.append({
      type: "turn_finished",
      uuid: `${turn}:finished`,
      turn,
      outcome,
      ...(options.at === undefined ? {} : { at: options.at }),
      ...(options.reached === false ? { reached: false } : {}),
      timestamp: new Date(clock).toISOString()
    })
  }

  /** Records a setting the CLI must get again when re-opened. */
  setting(settings: Settings, clock: number): Effect.Effect<void, ClaudeError.ClaudeError> {
    return this.append({ type: "settings", ...settings, timestamp: new Date(clock).toISOString() })
  }
}
