/**
 * A session's `sessionStore` option (issue 16): finding the `SessionStore` of the context,
 * resuming from it and starting the mirror. `Claude.open` loads this module (`import()`) only when
 * the option is given, so a session without a store never loads the store's modules (the
 * contract, the mirror, the wiring to the CLI's config directory).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Events from "../Events.ts"
import type * as Launch from "../Launch.ts"
import * as SessionStore from "../SessionStore.ts"
import * as DirectoryStores from "./directoryStores.ts"
import * as Mirror from "./mirror.ts"
import * as SessionStoreWiring from "./sessionStoreWiring.ts"

/** The option's fields, documented here (`Claude.SessionStoreOptions` is this interface). */
export interface StoreOptions {
  /** `batched` (the default) or `eager` (one `append` per transcript write). */
  readonly flush?: "batched" | "eager" | undefined
  /** Flush when more entries than this wait. Default 500. */
  readonly maxPendingEntries?: number | undefined
  /** Flush when more bytes than this wait. Default 1 MiB. */
  readonly maxPendingBytes?: number | undefined
  /**
   * With `resume`, write the session from the store into the CLI's config directory before it
   * starts. Default true; a session the store does not have is left to the CLI, its local
   * transcripts (main and subagents) appended to the store first, so the store holds the whole
   * session and not only what the CLI writes from now on. A local copy is replaced only when the
   * store's copy holds every line of it; one holding lines the store lacks is kept (a warning in
   * the log), those lines are appended to the store, and the CLI resumes from it; a local subagent
   * transcript the store does not list is appended to it. No line is appended twice. A subagent's
   * metadata sidecar (`agent-<id>.meta.json`) is kept in the store as an `agent_metadata` entry of
   * its transcript (as the CLI mirrors it) and written back as that sidecar, as the official SDK does.
   */
  readonly materialize?: boolean | undefined
  /**
   * With `resume`, how long each store operation may take (listing the sessions, listing the
   * subagents, loading one transcript, appending the local lines of one it lacks); past it,
   * opening the session fails with `StoreFailed` naming the operation. Default 60 seconds (the official SDK's `loadTimeoutMs`).
   */
  readonly loadTimeout?: Duration.Input | undefined
}

/** The launch options that bear on the store. */
type SessionFields = Pick<Launch.LaunchOptions, "persistSession" | "resume" | "cwd">

/** The `SessionStore` of the context for the `sessionStore` option; a clear error without one or on bad options. */
export const storeOf = Effect.fnUntraced(function*(options: SessionFields, storeOptions: StoreOptions) {
  const invalid = (description: string) =>
    Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: `Invalid launch options: sessionStore.${description}` })))
  const { flush, maxPendingEntries, maxPendingBytes, loadTimeout } = storeOptions
  if (flush !== undefined && flush !== "batched" && flush !== "eager") {
    return yield* invalid(`flush must be "batched" or "eager", got ${JSON.stringify(flush)}`)
  }
  for (const [name, value] of [["maxPendingEntries", maxPendingEntries], ["maxPendingBytes", maxPendingBytes]] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      return yield* invalid(`${name} must be a whole number >= 0, got ${String(value)}`)
    }
  }
  if (loadTimeout !== undefined) {
    const duration = Duration.fromInput(loadTimeout)
    if (Option.isNone(duration) || Duration.isNegative(duration.value) || Duration.isZero(duration.value)) {
      return yield* invalid(`loadTimeout must be a positive duration, got ${JSON.stringify(loadTimeout)}`)
    }
  }
  const store = yield* Effect.serviceOption(SessionStore.SessionStore)
  if (Option.isNone(store)) {
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description:
        "Invalid launch options: sessionStore needs a SessionStore in the context (SessionStoreSql.layerSqlite, SessionStorePg.layer, ...)"
    })))
  }
  if (options.persistSession === false) {
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: "Invalid launch options: sessionStore mirrors the CLI's transcript writes; it cannot go with persistSession: false"
    })))
  }
  return store.value
})

/**
 * Before the CLI starts: resumes from the store (the session written into the CLI's config
 * directory), then starts the mirror, whose last flush runs when the session closes, after the
 * CLI exited and its last lines were read (this finalizer is added before the reader's).
 */
export const openMirror = Effect.fnUntraced(function*(
  store: SessionStore.SessionStore["Service"],
  storeOptions: StoreOptions,
  options: SessionFields,
  command: Launch.Command,
  report: (event: Events.MirrorFailed) => void
) {
  const where = SessionStoreWiring.locate(command.env, options.cwd)
  if (DirectoryStores.isOn(store, where.configDir)) {
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description:
        `Invalid launch options: sessionStore: the SessionStore is a directory store on the session's own config directory (${where.configDir}), where the CLI writes its transcripts; mirroring into it would write them twice`
    })))
  }
  if (options.resume !== undefined && storeOptions.materialize !== false) {
    const found = yield* SessionStoreWiring.materialize(
      store,
      where.projectsDir,
      { projectKey: where.projectKey, sessionId: options.resume },
      storeOptions.loadTimeout === undefined
        ? SessionStoreWiring.defaultLoadTimeout
        : Duration.fromInputUnsafe(storeOptions.loadTimeout)
    )
    if (!found) yield* Effect.logDebug(`session store ${store.name} had no session ${options.resume}; the CLI resumes it locally`)
  }
  const mirror = yield* Mirror.make({
    store,
    projectsDir: where.projectsDir,
    flush: storeOptions.flush ?? Mirror.defaults.flush,
    maxPendingEntries: storeOptions.maxPendingEntries ?? Mirror.defaults.maxPendingEntries,
    maxPendingBytes: storeOptions.maxPendingBytes ?? Mirror.defaults.maxPendingBytes,
    backoff: Mirror.defaults.backoff,
    appendTimeout: Mirror.defaults.appendTimeout,
    closeTimeout: Mirror.defaults.closeTimeout,
    report
  })
  yield* Effect.addFinalizer(() => mirror.close)
  return mirror
})
