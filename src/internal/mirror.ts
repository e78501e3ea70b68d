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
 * - Bounded retry: 3 attempts (backoff 200 ms, then 800 ms); then the batch is dropped and a
 *   `mirror_error` event (`Events.MirrorFailed`) is published on the session's events: never
 *   silent, never a failed turn.
 * - Never blocking: the session's turns do not wait for the store; closing the session flushes
 *   what is pending (within `closeTimeout`). `flush` is how a program waits (the cluster entity
 *   answers a turn only once its transcript is stored): it fails with the first loss since the
 *   previous `flush`, so a dropped batch is never read as saved.
 * - Keys: a frame's file path relative to `<config dir>/projects` is `<projectKey>/<sessionId>.jsonl`
 *   (the main transcript) or `<projectKey>/<sessionId>/<subpath>.jsonl` (a subagent's), as the
 *   official SDK reads it; a path outside cannot be stored: the first batch of each such file is
 *   reported (`mirror_error` without a key), every one is logged.
 * - Closing: `close` flushes within `closeTimeout`; entries still unsaved then are reported (one
 *   `mirror_error` per transcript) and logged as errors.
 */
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Events from "../Events.ts"
import type * as SessionStore from "../SessionStore.ts"

export interface MirrorOptions {
  readonly store: SessionStore.SessionStore["Service"]
  /** `<config dir>/projects`, where the CLI's transcript files are. */
  readonly projectsDir: string
  readonly flush: "batched" | "eager"
  readonly maxPendingEntries: number
  readonly maxPendingBytes: number
  /** The waits between attempts: its length + 1 attempts in all. */
  readonly backoff: ReadonlyArray<Duration.Duration>
  /** How long closing the session waits for the last flush. */
  readonly closeTimeout: Duration.Duration
  readonly report: (event: Events.MirrorFailed) => void
}

export const defaults = {
  flush: "batched" as const,
  maxPendingEntries: 500,
  maxPendingBytes: 1024 * 1024,
  backoff: [Duration.millis(200), Duration.millis(800)],
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
   * Flushes what is pending and waits until it is appended; fails with `StoreFailed` when entries
   * were dropped (and reported) since the previous `flush`.
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
  // One signal a flush: the fiber below takes what is pending when it gets to it; a waiter's
  // Deferred completes once that is done.
  const signals = yield* Queue.unbounded<Deferred.Deferred<void> | undefined>()
  // The batches the running drain has not appended or reported yet (for `close`).
  let inFlight: Array<readonly [string, Array<SessionStore.Entry>]> = []
  // Files outside the projects directory already reported once.
  const unkeyable = new Set<string>()
  // The first loss since the last `flush` (which fails with it and clears it).
  let lost: ClaudeError.ClaudeError | undefined
  const lose = (error: ClaudeError.ClaudeError) => {
    lost ??= error
  }

  const appendWithRetry = Effect.fnUntraced(function*(key: SessionStore.SessionKey, entries: Array<SessionStore.Entry>) {
    let attempt = 0
    while (true) {
      attempt++
      // A store that dies (a defect) counts as a failed attempt like a typed failure: retried,
      // then reported; the flush's other batches go on either way.
      const outcome = yield* Effect.result(options.store.append(key, entries).pipe(
        Effect.catchDefect((defect) =>
          Effect.fail(ClaudeError.make(
            new ClaudeError.StoreFailed({
              store: options.store.name,
              operation: "append",
              description: `the store died: ${defect instanceof Error ? defect.message : String(defect)}`
            })
          ))
        )
      ))
      if (outcome._tag === "Success") return
      const wait = options.backoff[attempt - 1]
      if (wait === undefined) {
        const error: ClaudeError.ClaudeError = outcome.failure
        yield* Effect.logWarning(
          `session store ${options.store.name}: dropped ${entries.length} entries of ${keyText(key)} after ${attempt} attempts: ${error.message}`
        )
        options.report({ type: "mirror_error", error, key, entries: entries.length, attempts: attempt })
        lose(error)
        return
      }
      yield* Effect.sleep(wait)
    }
  })

  const drain = Effect.gen(function*() {
    if (pending.length === 0) return
    const frames = pending
    pending = []
    pendingEntries = 0
    pendingBytes = 0
    // Batched: one append per file, its frames merged in order; eager: one append per frame.
    const batches: Array<readonly [string, Array<SessionStore.Entry>]> = []
    const byFile = new Map<string, Array<SessionStore.Entry>>()
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
      if (key === undefined) {
        const message =
          `session store ${options.store.name}: dropped ${entries.length} entries of ${filePath}, not under ${options.projectsDir} (does the CLI's CLAUDE_CONFIG_DIR differ from the session's?)`
        yield* Effect.logWarning(message)
        lose(ClaudeError.make(new ClaudeError.StoreFailed({ store: options.store.name, operation: "append", description: message })))
        if (!unkeyable.has(filePath)) {
          unkeyable.add(filePath)
          options.report({
            type: "mirror_error",
            error: ClaudeError.make(
              new ClaudeError.StoreFailed({ store: options.store.name, operation: "append", description: message })
            ),
            entries: entries.length,
            attempts: 0
          })
        }
      } else {
        yield* appendWithRetry(key, entries)
      }
      inFlight.shift()
    }
  })

  yield* Queue.take(signals).pipe(
    Effect.flatMap((waiter) =>
      drain.pipe(
        // Defects of the store are caught per batch (appendWithRetry); this is the last guard.
        Effect.catchCause((cause) =>
          Effect.suspend(() => {
            const count = inFlight.reduce((n, [, entries]) => n + entries.length, 0)
            inFlight = []
            const message = `session store ${options.store.name}: a flush died, ${count} entries lost`
            lose(ClaudeError.make(new ClaudeError.StoreFailed({ store: options.store.name, operation: "append", description: message })))
            return Effect.logError(message, cause)
          })
        ),
        Effect.ensuring(waiter === undefined ? Effect.void : Deferred.succeed(waiter, undefined))
      )
    ),
    Effect.forever,
    Effect.forkScoped
  )

  const signal = () => {
    Queue.offerUnsafe(signals, undefined)
  }

  const flush = Effect.gen(function*() {
    const done = yield* Deferred.make<void>()
    Queue.offerUnsafe(signals, done)
    yield* Deferred.await(done)
    const error = lost
    lost = undefined
    if (error !== undefined) return yield* Effect.fail(error)
  })

  // What is still unsaved, per file: the running drain's batches, then the pending frames.
  const unsaved = () => {
    const byFile = new Map<string, number>()
    for (const [filePath, entries] of inFlight) byFile.set(filePath, (byFile.get(filePath) ?? 0) + entries.length)
    for (const frame of pending) byFile.set(frame.filePath, (byFile.get(frame.filePath) ?? 0) + frame.entries.length)
    return byFile
  }

  // Losses are reported as they happen; closing only bounds the wait.
  const close = flush.pipe(
    Effect.ignore,
    Effect.timeoutOrElse({
      duration: options.closeTimeout,
      orElse: () =>
        Effect.forEach(unsaved(), ([filePath, entries]) => {
          const key = keyOfPath(options.projectsDir, filePath)
          const message = `session store ${options.store.name}: the last flush did not end within ${
            Duration.format(options.closeTimeout)
          }: ${entries} entries of ${key === undefined ? filePath : keyText(key)} were not saved`
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
    })
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
