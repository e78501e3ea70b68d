/**
 * Mirroring a session's transcript to a `SessionStore` (the option `sessionStore`): the CLI, run
 * with `--session-mirror`, writes a `transcript_mirror` frame on stdout after each write to its
 * transcript files; the reader hands each frame here (synchronously: it never waits), and one
 * fiber appends them to the store in batches.
 *
 * - Batches: the frames pending are flushed at the end of each turn (the reader's `result`), when
 *   more than `maxPendingEntries` entries or `maxPendingBytes` bytes are pending, or after every
 *   frame with `flush: "eager"`; one `append` per transcript file, frames of one file merged in
 *   order.
 * - Bounded retry: 3 attempts (backoff 200 ms, then 800 ms), each bounded by `appendTimeout` (an
 *   append that did not answer is interrupted in the background, never waited for, and not tried
 *   again in that flush, as in the official SDK: it may still land, so its lines may then be
 *   stored twice, and after a later batch of their file; new appends are not held behind it,
 *   because a connection that stopped answering is often one of a pool whose others work); then
 *   a `mirror_error` event
 *   (`Events.MirrorFailed`) is published on the session's events and the batch is kept (in
 *   memory) in front of its file's next batch: a store that comes back gets every entry, in
 *   order, and a transcript in the store never has a hole. Never silent, never a failed turn.
 * - Never blocking: the session's turns do not wait for the store; closing the session flushes
 *   what is pending (within `closeTimeout`). `flush` is how a program waits (the cluster entity
 *   answers a turn only once its transcript is stored): it fails while any entry read so far is
 *   not in the store (kept for a retry, or of a file that cannot be stored), whoever calls it;
 *   once the session closed it answers at once, with what the close left unsaved.
 * - Keys: a frame's file path relative to `<config dir>/projects` is `<projectKey>/<sessionId>.jsonl`
 *   (the main transcript) or `<projectKey>/<sessionId>/<subpath>.jsonl` (a subagent's), as the
 *   official SDK reads it; a path outside cannot be stored: the first batch of each such file is
 *   reported (`mirror_error` without a key), every one is logged, and every later `flush` fails.
 * - Closing: `close` flushes within `closeTimeout`; entries still unsaved then are reported (one
 *   `mirror_error` per transcript) and logged as errors.
 */
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Events from "../Events.ts"
import type * as SessionStore from "../SessionStore.ts"
import { bounded } from "./bounded.ts"
import { describeError } from "./describeCause.ts"

export interface MirrorOptions {
  readonly store: SessionStore.SessionStore["Service"]
  /** `<config dir>/projects`, where the CLI's transcript files are. */
  readonly projectsDir: string
  readonly flush: "batched" | "eager"
  readonly maxPendingEntries: number
  readonly maxPendingBytes: number
  /** The waits between attempts: its length + 1 attempts in all. */
  readonly backoff: ReadonlyArray<Duration.Duration>
  /** How long one `append` may take; past it the batch counts as not saved, and is not retried in this flush. */
  readonly appendTimeout: Duration.Duration
  /** How long closing the session waits for the last flush. */
  readonly closeTimeout: Duration.Duration
  readonly report: (event: Events.MirrorFailed) => void
}

export const defaults = {
  flush: "batched" as const,
  maxPendingEntries: 500,
  maxPendingBytes: 1024 * 1024,
  backoff: [Duration.millis(200), Duration.millis(800)],
  // The official SDK's `sendTimeoutMs`.
  appendTimeout: Duration.seconds(60),
  closeTimeout: Duration.seconds(30)
}

/** The store key of a transcript file, from its path relative to the projects directory. */
export const keyOfPath = (projectsDir: string, filePath: string): SessionStore.SessionKey | undefined => {
  const relative = Path.relative(projectsDir, filePath)
  if (relative === "" || Path.isAbsolute(relative)) return undefined
  const parts = relative.split(Path.sep)
  if (parts[0] === ".." || parts.length < 2) return undefined
  const [projectKey, second] = parts
  if (projectKey === undefined || second === undefined || projectKey === "") return undefined
  if (parts.length === 2) {
    return second.endsWith(".jsonl") && second.length > 6
      ? { projectKey, sessionId: second.slice(0, -".jsonl".length) }
      : undefined
  }
  if (parts.length >= 4) {
    const rest = parts.slice(2)
    const last = rest.length - 1
    rest[last] = rest[last]!.replace(/\.jsonl$/, "")
    return { projectKey, sessionId: second, subpath: rest.join("/") }
  }
  return undefined
}

interface Frame {
  readonly filePath: string
  readonly entries: ReadonlyArray<SessionStore.Entry>
}

export interface Mirror {
  /** A `transcript_mirror` frame (from the reader: never waits). */
  readonly frame: (filePath: string, entries: ReadonlyArray<SessionStore.Entry>) => void
  /** A turn ended: flush what is pending, in the background. */
  readonly endOfTurn: () => void
  /**
   * Flushes what is pending and waits until it is appended; fails with `StoreFailed` while any
   * entry read so far is not in the store.
   */
  readonly flush: Effect.Effect<void, ClaudeError.ClaudeError>
  /** The last flush, within `closeTimeout`; what is still unsaved then is reported and logged. */
  readonly close: Effect.Effect<void>
}

const keyText = (key: SessionStore.SessionKey) =>
  `${key.projectKey}/${key.sessionId}${key.subpath === undefined ? "" : `/${key.subpath}`}`

export const make = Effect.fnUntraced(function*(options: MirrorOptions): Effect.fn.Return<Mirror, never, Scope.Scope> {
  let pending: Array<Frame> = []
  let pendingEntries = 0
  let pendingBytes = 0
  // One signal a flush: the fiber below takes what is pending when it gets to it (the signals
  // queued by then are one drain); a waiter's Deferred completes once that is done.
  // `last`: the close's flush, one attempt per batch (no backoff: the session is ending).
  const signals = yield* Queue.unbounded<
    { readonly waiter?: Deferred.Deferred<void, ClaudeError.ClaudeError>; readonly last?: boolean }
  >()
  // The batches the running drain has not appended or reported yet (for `close`).
  let inFlight: Array<readonly [string, Array<SessionStore.Entry>]> = []
  // Entries whose append failed, per file, in order: tried again in front of the file's next
  // batch (a drain clears it first, and carries in order what it cannot append).
  const carried = new Map<string, Array<SessionStore.Entry>>()
  // Files outside the projects directory (never storable), and how many entries they had.
  const unkeyable = new Map<string, number>()
  const carry = (filePath: string, entries: ReadonlyArray<SessionStore.Entry>) => {
    if (entries.length > 0) carried.set(filePath, [...(carried.get(filePath) ?? []), ...entries])
  }

  const appendWithRetry = Effect.fnUntraced(function*(
    key: SessionStore.SessionKey,
    entries: Array<SessionStore.Entry>,
    backoff: ReadonlyArray<Duration.Duration>
  ) {
    let attempt = 0
    while (true) {
      attempt++
      // A store that dies (a defect) counts as a failed attempt like a typed failure: retried,
      // then reported; the flush's other batches go on either way.
      // An append that never answers (a connection lost without a reset) must not stop the
      // mirror: it is interrupted and the batch kept like a failed one.
      let timedOut = false
      const outcome = yield* Effect.result(options.store.append(key, entries).pipe(
        Effect.catchDefect((defect) =>
          Effect.fail(ClaudeError.make(
            new ClaudeError.StoreFailed({
              store: options.store.name,
              operation: "append",
              description: `the store died: ${describeError(defect)}`
            })
          ))
        ),
        (append) =>
          bounded(append, options.appendTimeout, () =>
            Effect.suspend(() => {
              timedOut = true
              return Effect.fail(ClaudeError.make(
                new ClaudeError.StoreFailed({
                  store: options.store.name,
                  operation: "append",
                  description: `the store did not answer within ${Duration.format(options.appendTimeout)}`
                })
              ))
            }), "background")
      ))
      if (outcome._tag === "Success") return true
      const wait = timedOut ? undefined : backoff[attempt - 1]
      if (wait === undefined) {
        const error: ClaudeError.ClaudeError = outcome.failure
        yield* Effect.logWarning(
          `session store ${options.store.name}: ${entries.length} entries of ${keyText(key)} not saved after ${attempt} attempts (kept, tried again with the next flush): ${error.message}`
        )
        options.report({ type: "mirror_error", error, key, entries: entries.length, attempts: attempt })
        return false
      }
      yield* Effect.sleep(wait)
    }
  })

  // A generator function made once (`Effect.fnUntraced`), not one per drain: see turnRunner.ts.
  const drain = Effect.fnUntraced(function*(backoff: ReadonlyArray<Duration.Duration>) {
    if (pending.length === 0 && carried.size === 0) return
    const frames = pending
    pending = []
    pendingEntries = 0
    pendingBytes = 0
    // Batched: one append per file, its frames merged in order; eager: one append per frame.
    const batches: Array<readonly [string, Array<SessionStore.Entry>]> = []
    const byFile = new Map<string, Array<SessionStore.Entry>>()
    // What failed before goes first, in one batch per file (eager too: it is one retry).
    // Emptied entry by entry, never with `clear()` (docs/CONTRIBUTING.md, "Per-turn collections").
    for (const [filePath, entries] of carried) {
      byFile.set(filePath, entries)
      batches.push([filePath, entries])
      carried.delete(filePath)
    }
    for (const frame of frames) {
      const batch = options.flush === "eager" ? undefined : byFile.get(frame.filePath)
      if (batch !== undefined) {
        batch.push(...frame.entries)
        continue
      }
      const entries = [...frame.entries]
      byFile.set(frame.filePath, entries)
      batches.push([frame.filePath, entries])
    }
    inFlight = batches.slice()
    for (const [filePath, entries] of batches) {
      const key = keyOfPath(options.projectsDir, filePath)
      if (carried.has(filePath)) {
        // An earlier batch of this file failed: later ones wait behind it, never past a hole.
        carry(filePath, entries)
      } else if (key === undefined) {
        const message =
          `session store ${options.store.name}: dropped ${entries.length} entries of ${filePath}, not under ${options.projectsDir} (does the CLI's CLAUDE_CONFIG_DIR differ from the session's?)`
        yield* Effect.logWarning(message)
        const before = unkeyable.get(filePath)
        unkeyable.set(filePath, (before ?? 0) + entries.length)
        if (before === undefined) {
          options.report({
            type: "mirror_error",
            error: ClaudeError.make(
              new ClaudeError.StoreFailed({ store: options.store.name, operation: "append", description: message })
            ),
            entries: entries.length,
            attempts: 0
          })
        }
      } else if (!(yield* appendWithRetry(key, entries, backoff))) {
        carry(filePath, entries)
      }
      inFlight.shift()
    }
  })

  // Set once the fiber below stopped (the session closed): a flush then answers at once.
  let closed = false

  // Whether every entry read so far is in the store, as a flush answers it: none kept, none of a
  // drain that stopped before appending it (the session closed), and once closed none pending.
  const missing = (): Exit.Exit<void, ClaudeError.ClaudeError> => {
    const files = [...unsaved(closed), ...unkeyable].map(([filePath, entries]) => {
      const key = keyOfPath(options.projectsDir, filePath)
      return `${entries} entries of ${key === undefined ? filePath : keyText(key)}`
    })
    return files.length === 0 ? Exit.void : Exit.fail(ClaudeError.make(new ClaudeError.StoreFailed({
      store: options.store.name,
      operation: "append",
      description: `the transcript is not all in the store: ${files.join(", ")} not saved`
    })))
  }

  // The signals queued meanwhile are one drain (it takes everything pending): one per signal would
  // try a kept batch again, with its full retry, once per eager frame queued behind a failing store.
  yield* Queue.takeAll(signals).pipe(
    Effect.flatMap((taken) =>
      drain(taken.some((signal) => signal.last === true) ? [] : options.backoff).pipe(
        // Defects of the store are caught per batch (appendWithRetry); this is the last guard.
        Effect.catchCause((cause) =>
          Effect.suspend(() => {
            // Its batches not appended yet are kept for the next flush, in order.
            const count = inFlight.reduce((n, [, entries]) => n + entries.length, 0)
            for (const [filePath, entries] of inFlight) carry(filePath, entries)
            inFlight = []
            return Effect.logError(`session store ${options.store.name}: a flush died, ${count} entries kept for the next`, cause)
          })
        ),
        // The waiters' answer is decided here, at the end of their own drain: a later signal's
        // drain (which clears `carried` before it appends) must not make a failed batch look saved.
        Effect.ensuring(Effect.suspend(() => {
          const answer = missing()
          return Effect.forEach(taken, ({ waiter }) => waiter === undefined ? Effect.void : Deferred.done(waiter, answer), {
            discard: true
          })
        }))
      )
    ),
    Effect.forever,
    // Stopped with the session: the flushes still queued are answered, and every later one at once.
    Effect.ensuring(Effect.suspend(() => {
      closed = true
      return Effect.flatMap(Queue.clear(signals), (left) =>
        Effect.forEach(left, ({ waiter }) => waiter === undefined ? Effect.void : Deferred.done(waiter, missing()), {
          discard: true
        }))
    })),
    Effect.forkScoped
  )

  const signal = () => {
    if (!closed) Queue.offerUnsafe(signals, {})
  }

  // Checked and offered at once: a flush offered once the fiber stopped would wait for ever.
  const flushWith = (last: boolean) =>
    Effect.suspend(() => {
      if (closed) return missing()
      const done = Deferred.makeUnsafe<void, ClaudeError.ClaudeError>()
      Queue.offerUnsafe(signals, { waiter: done, last })
      return Deferred.await(done)
    })
  const flush = flushWith(false)

  // What is still unsaved, per file: the running drain's batches, the kept ones, then (with
  // `withPending`) the pending frames.
  const unsaved = (withPending = true) => {
    const byFile = new Map<string, number>()
    for (const [filePath, entries] of inFlight) byFile.set(filePath, (byFile.get(filePath) ?? 0) + entries.length)
    for (const [filePath, entries] of carried) byFile.set(filePath, (byFile.get(filePath) ?? 0) + entries.length)
    if (withPending) {
      for (const frame of pending) byFile.set(frame.filePath, (byFile.get(frame.filePath) ?? 0) + frame.entries.length)
    }
    return byFile
  }

  // What is not saved when the session closes is reported, one `mirror_error` per transcript,
  // and logged as an error: the session's last word on its store.
  const reportUnsaved = (why: string) =>
    Effect.forEach(unsaved(), ([filePath, entries]) => {
      const key = keyOfPath(options.projectsDir, filePath)
      const message = `session store ${options.store.name}: ${why}: ${entries} entries of ${
        key === undefined ? filePath : keyText(key)
      } were not saved`
      options.report({
        type: "mirror_error",
        error: ClaudeError.make(
          new ClaudeError.StoreFailed({ store: options.store.name, operation: "append", description: message })
        ),
        ...(key === undefined ? {} : { key }),
        entries,
        attempts: 0
      })
      return Effect.logError(message)
    }, { discard: true })

  // One last attempt for what is kept, within `closeTimeout`.
  const close = flushWith(true).pipe(
    Effect.timeoutOrElse({
      duration: options.closeTimeout,
      orElse: () => reportUnsaved(`the last flush did not end within ${Duration.format(options.closeTimeout)}`)
    }),
    Effect.catch(() => reportUnsaved("the store did not take them before the session closed"))
  )

  return {
    frame: (filePath, entries) => {
      if (entries.length === 0) return
      pending.push({ filePath, entries })
      pendingEntries += entries.length
      for (const entry of entries) pendingBytes += JSON.stringify(entry).length
      if (
        options.flush === "eager" || pendingEntries > options.maxPendingEntries ||
        pendingBytes > options.maxPendingBytes
      ) signal()
    },
    endOfTurn: () => {
      if (pending.length > 0) signal()
    },
    flush,
    close
  }
})
