/**
 * The session's side of the `sessionStore` option: where the CLI's transcripts are (its config
 * directory, as the CLI finds it from the environment the session gives it), the store key of the
 * session being resumed, and resuming from the store: the session's transcripts (main and
 * subagents) written from the store into the CLI's config directory before the CLI starts, so the
 * CLI resumes it with its own resume code, and the lines of its local transcripts the store lacks
 * (a local copy kept, a session or subagent the store does not have) appended to the store first,
 * so that the store never holds a hole the CLI's next lines point across; and removing a
 * session's local transcript (before a fresh start under its id, or a resume from the store).
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Readline from "node:readline"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Launch from "../Launch.ts"
import type * as SessionStore from "../SessionStore.ts"
import { isUnreadableLine, parseLine, unreadableLineType } from "../SessionStore.ts"
import { describeError } from "./describeCause.ts"
import { bounded } from "./bounded.ts"
import { keyOfPath } from "./mirror.ts"
import * as ProjectKey from "./projectKey.ts"

/** A variable of the CLI's environment: the session's `env` over the inherited one. */
const variable = (env: Readonly<Record<string, Launch.EnvValue>>, name: string): string | undefined => {
  if (Object.hasOwn(env, name)) {
    const value = env[name]
    return value === undefined ? undefined : typeof value === "string" ? value : Redacted.value(value)
  }
  return process.env[name]
}

/** Where the CLI the session starts keeps its transcripts and its project key for the session's cwd. */
export const locate = (
  env: Readonly<Record<string, Launch.EnvValue>>,
  cwd: string | undefined
): { readonly configDir: string; readonly projectsDir: string; readonly projectKey: string } => {
  const environment = {
    HOME: variable(env, "HOME"),
    CLAUDE_CONFIG_DIR: variable(env, "CLAUDE_CONFIG_DIR"),
    CLAUDE_CODE_PROJECT_DIR_NAME: variable(env, "CLAUDE_CODE_PROJECT_DIR_NAME")
  }
  const directory = Path.resolve(cwd ?? process.cwd())
  // The CLI runs in `directory`: a relative CLAUDE_CONFIG_DIR (or HOME) is relative to it there.
  const configDir = Path.resolve(
    directory,
    ProjectKey.configDir(environment, environment.HOME ?? Os.homedir(), Path.join)
  )
  let real = directory
  try {
    real = Fs.realpathSync.native(directory)
  } catch {
    // A cwd that does not exist fails the spawn itself, with its own error.
  }
  return {
    configDir,
    projectsDir: Path.join(configDir, "projects"),
    projectKey: ProjectKey.forEnvironment(ProjectKey.keyedCwd(real), environment)
  }
}

/**
 * Removes a session's transcript file from the config directory of the CLI these options start:
 * before a fresh start under the same id (the CLI refuses an id whose file exists) and before
 * resuming a session the store holds (so the store's copy is written in its place). Never fails:
 * a file that cannot be removed is a warning naming why.
 */
export const removeLocalTranscript = (
  options: { readonly env?: Readonly<Record<string, Launch.EnvValue>> | undefined; readonly cwd?: string | undefined },
  sessionId: string
): Effect.Effect<void> =>
  Effect.try(() => {
    const where = locate(options.env ?? {}, options.cwd)
    Fs.rmSync(Path.join(where.projectsDir, where.projectKey, `${sessionId}.jsonl`), { force: true })
  }).pipe(
    Effect.catch((error) =>
      Effect.logWarning(`session ${sessionId}: cannot remove its local transcript: ${describeError(error)}`)
    )
  )

/** How long resuming waits for each store operation by default (the official SDK's `loadTimeoutMs`). */
export const defaultLoadTimeout: Duration.Duration = Duration.seconds(60)

const failed = (store: string, description: string, operation = "resume") =>
  ClaudeError.make(new ClaudeError.StoreFailed({ store, operation, description }))

/**
 * `effect`, failing with `StoreFailed` naming `operation` when the store does not answer within
 * `timeout`, never waiting for an operation stuck where it cannot be interrupted (`bounded.ts`).
 */
const boundedOperation = <A>(
  store: string,
  operation: string,
  timeout: Duration.Duration,
  effect: Effect.Effect<A, ClaudeError.ClaudeError>
): Effect.Effect<A, ClaudeError.ClaudeError> =>
  bounded(
    effect,
    timeout,
    () => Effect.fail(failed(store, `no answer within ${Duration.format(timeout)} while resuming a session`, operation)),
    "background"
  )

/** A subpath that stays under the session's directory: no `..`, not absolute, not empty. */
const safeSubpath = (subpath: string): boolean =>
  subpath !== "" && !Path.isAbsolute(subpath) && !subpath.split(/[\\/]/).some((part) => part === ".." || part === "")

/** Thrown out of the write of a store copy that holds a line the store could not read. */
class Unreadable {
  readonly line: SessionStore.UnreadableLine
  constructor(line: SessionStore.UnreadableLine) {
    this.line = line
  }
}

/**
 * An entry's JSON text with every object's keys sorted: two entries deep-equal give the same text
 * (a store keeps entries deep-equal, not byte-equal: PostgreSQL's JSONB reorders keys).
 */
const canonical = (entry: SessionStore.Entry): string =>
  JSON.stringify(entry, (_key, value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value)

/**
 * What a store's copy of a transcript holds, to tell the local lines it lacks: its uuids, and how
 * many times it holds each line without one (a title set back, a mode switched back: such a line
 * may come again), compared as {@link canonical} JSON.
 */
export class StoredLines {
  private readonly uuids = new Set<string>()
  private readonly others = new Map<string, number>()

  /** Counts an entry of the store's copy. */
  add(entry: SessionStore.Entry): void {
    if (typeof entry.uuid === "string") {
      this.uuids.add(entry.uuid)
      return
    }
    const text = canonical(entry)
    this.others.set(text, (this.others.get(text) ?? 0) + 1)
  }

  /**
   * Whether the store's copy lacks this local entry: a uuid it does not have, or a line without
   * one past as many alike as it holds (each alike it holds is used up by one local line).
   */
  missingFromStore(entry: SessionStore.Entry): boolean {
    if (typeof entry.uuid === "string") return !this.uuids.has(entry.uuid)
    const text = canonical(entry)
    const count = this.others.get(text) ?? 0
    if (count === 0) return true
    this.others.set(text, count - 1)
    return false
  }
}

/**
 * Appends to the store, in file order, the lines of the local `file` the store's copy lacks
 * ({@link StoredLines.missingFromStore}), in batches; a line that is no entry (one cut short, one that is not a
 * JSON object) is left out, as the CLI leaves it out, and counted. Streams the file. Returns how many entries it appended and how many
 * lines it could not read: either means the local file holds what the store's copy does not.
 */
const backfill = (
  store: SessionStore.SessionStore["Service"],
  key: SessionStore.SessionKey,
  file: string,
  held: StoredLines
): Effect.Effect<{ readonly appended: number; readonly unreadable: number }, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    let appended = 0
    let unreadable = 0
    return Stream.unwrap(Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => Readline.createInterface({ input: Fs.createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })),
        (lines) => Effect.sync(() => lines.close())
      ),
      (lines) => Stream.fromAsyncIterable(lines, (cause) => failed(store.name, `cannot read ${file}: ${String(cause)}`))
    )).pipe(
      Stream.filterMap((text) => {
        const entry = text.trim() === "" ? undefined : parseLine(text, 0)
        if (entry === undefined) return Result.failVoid
        if (isUnreadableLine(entry)) {
          unreadable++
          return Result.failVoid
        }
        return held.missingFromStore(entry) ? Result.succeed(entry) : Result.failVoid
      }),
      Stream.grouped(256),
      Stream.runForEach((entries) =>
        Effect.andThen(
          store.append(key, entries),
          Effect.sync(() => {
            appended += entries.length
          })
        )
      ),
      Effect.map(() => ({ appended, unreadable }))
    )
  })

/**
 * Writes one transcript from the store to `file`, line by line (bounded memory), through a
 * temporary file of its own (removed however this ends) renamed over `file` at the end, unless
 * `file` holds a line the store copy lacks: then `file` is kept as it is, and those lines are
 * appended to the store first: the CLI continues from them, and the mirror stores only what it
 * writes next, so the store's copy would hold a hole before those for good. Returns whether it
 * wrote `file`.
 */
const writeTranscript = (
  store: SessionStore.SessionStore["Service"],
  key: SessionStore.SessionKey,
  file: string,
  timeout: Duration.Duration
) =>
  Effect.gen(function*() {
    yield* Effect.try({
      try: () => Fs.mkdirSync(Path.dirname(file), { recursive: true, mode: 0o700 }),
      catch: (cause) => failed(store.name, `cannot create ${Path.dirname(file)}: ${String(cause)}`)
    })
    const temporary = yield* Effect.acquireRelease(
      Effect.sync(() => `${file}.${Crypto.randomUUID()}.resume`),
      (temporary) => Effect.sync(() => Fs.rmSync(temporary, { force: true }))
    )
    const held = new StoredLines()
    // A subagent's last `agent_metadata` entry: its sidecar, not a line of its transcript.
    let meta: SessionStore.Entry | undefined
    yield* Effect.gen(function*() {
      // `open`: a load that timed out may go on in the background (`bounded`); once the file is
      // closed it writes nothing (its descriptor may be another file's by then).
      const output = yield* Effect.acquireRelease(
        Effect.try({
          try: () => ({ fd: Fs.openSync(temporary, "w", 0o600), open: true }),
          catch: (cause) => failed(store.name, `cannot write ${temporary}: ${String(cause)}`)
        }),
        (output) =>
          Effect.sync(() => {
            output.open = false
            Fs.closeSync(output.fd)
          })
      )
      yield* boundedOperation(
        store.name,
        "load",
        timeout,
        store.load(key).pipe(
          Stream.grouped(256),
          Stream.runForEach((entries) =>
            Effect.try({
              try: () => {
                const kept: Array<SessionStore.Entry> = []
                for (const entry of entries) {
                  // A stand-in for a line the store could not read: the CLI would resume without
                  // that line, or read the stand-in as its own, so nothing is written. Only a line
                  // cut short (a write that never finished, which the CLI would not read either)
                  // is left out.
                  if (entry.type === unreadableLineType) {
                    if ((entry as SessionStore.UnreadableLine).cut) continue
                    throw new Unreadable(entry as SessionStore.UnreadableLine)
                  }
                  if (key.subpath !== undefined && entry.type === agentMetadataType) {
                    meta = entry
                    held.add(entry)
                    continue
                  }
                  kept.push(entry)
                  held.add(entry)
                }
                if (!output.open) throw new Error("the resume ended")
                Fs.writeSync(output.fd, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(""))
              },
              catch: (cause) =>
                cause instanceof Unreadable
                  ? failed(
                    store.name,
                    `its copy of session ${key.sessionId} holds a line it could not read (${cause.line.description}); ` +
                      "the session was not resumed from it (materialize: false resumes from the CLI's own copy)"
                  )
                  : failed(store.name, `cannot write ${temporary}: ${String(cause)}`)
            })
          )
        )
      )
    }).pipe(Effect.scoped)
    // One read of the local file: what the store's copy lacks is appended to it, and the file is
    // then kept (the CLI resumes from it); else the store's copy replaces it.
    const local = (yield* isFile(store.name, file))
      ? yield* boundedOperation(store.name, "append", timeout, backfill(store, key, file, held))
      : { appended: 0, unreadable: 0 }
    const kept = local.appended > 0 || local.unreadable > 0
    if (kept) {
      yield* Effect.logWarning(
        `session store ${store.name}: kept the local ${file}: it holds entries the store's copy lacked (appended to the store; the CLI resumes from it)`
      )
    } else {
      yield* Effect.try({
        try: () => Fs.renameSync(temporary, file),
        catch: (cause) => failed(store.name, `cannot write ${file}: ${String(cause)}`)
      })
    }
    // The sidecar follows the store's copy; a local one is kept with a kept local transcript.
    if (meta !== undefined && !(kept && Fs.existsSync(sidecarOf(file)))) {
      const { type: _type, ...fields } = meta
      yield* Effect.try({
        try: () => Fs.writeFileSync(sidecarOf(file), JSON.stringify(fields), { mode: 0o600 }),
        catch: (cause) => failed(store.name, `cannot write ${sidecarOf(file)}: ${String(cause)}`)
      })
    }
    return !kept
  }).pipe(Effect.scoped)

/**
 * The `type` of the entry the CLI mirrors a subagent's metadata sidecar as (to the subagent's
 * transcript key), as the official SDK reads and imports it.
 */
const agentMetadataType = "agent_metadata"

/** A subagent transcript's metadata sidecar: `agent-<id>.jsonl` → `agent-<id>.meta.json`. */
const sidecarOf = (file: string): string => file.replace(/\.jsonl$/, ".meta.json")

/**
 * Appends a local subagent transcript the store does not have (as {@link storeLocal}), then its
 * sidecar, if any, as an `agent_metadata` entry (an unreadable one is left out, a warning).
 */
const storeLocalSubagent = (
  store: SessionStore.SessionStore["Service"],
  key: SessionStore.SessionKey,
  file: string,
  timeout: Duration.Duration
) =>
  Effect.gen(function*() {
    const appended = yield* storeLocal(store, key, file, timeout)
    const sidecar = sidecarOf(file)
    let fields: unknown
    try {
      fields = Fs.existsSync(sidecar) ? JSON.parse(Fs.readFileSync(sidecar, "utf8")) : undefined
    } catch (cause) {
      yield* Effect.logWarning(`session store ${store.name}: left out the unreadable ${sidecar}: ${describeError(cause)}`)
      return appended
    }
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return appended
    yield* boundedOperation(store.name, "append", timeout, store.append(key, [{ ...fields, type: agentMetadataType }]))
    return appended + 1
  })

/** Whether `file` is a file the CLI can read as a transcript (not a directory); false when absent. */
const isFile = (store: string, file: string): Effect.Effect<boolean, ClaudeError.ClaudeError> =>
  Effect.try({
    try: () => Fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false,
    catch: (cause) => failed(store, `cannot read ${file}: ${String(cause)}`)
  })

/**
 * The session's local subagent transcripts, `<projectKey>/<sessionId>/<subpath>.jsonl`, each with
 * its store key as the mirror keys the CLI's writes to it ({@link keyOfPath}: the same project key,
 * the subpath with `/`), in path order. Regular files only: a link is not followed.
 */
const localSubagents = (
  store: string,
  projectsDir: string,
  key: { readonly projectKey: string; readonly sessionId: string }
): Effect.Effect<Array<{ readonly file: string; readonly key: SessionStore.SessionKey }>, ClaudeError.ClaudeError> =>
  Effect.try({
    try: () => {
      const found: Array<{ readonly file: string; readonly key: SessionStore.SessionKey }> = []
      const walk = (directory: string): void => {
        let entries: Array<Fs.Dirent>
        try {
          entries = Fs.readdirSync(directory, { withFileTypes: true })
        } catch (cause) {
          if ((cause as { readonly code?: unknown }).code === "ENOENT") return
          throw cause
        }
        for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
          const path = Path.join(directory, entry.name)
          if (entry.isDirectory()) walk(path)
          else if (entry.isFile() && entry.name.endsWith(".jsonl")) {
            const subkey = keyOfPath(projectsDir, path)
            if (subkey?.subpath !== undefined && safeSubpath(subkey.subpath)) found.push({ file: path, key: subkey })
          }
        }
      }
      walk(Path.join(projectsDir, key.projectKey, key.sessionId))
      return found
    },
    catch: (cause) => failed(store, `cannot read the subagent transcripts of session ${key.sessionId}: ${String(cause)}`)
  })

/**
 * Appends a local transcript the store does not have to it, every entry in file order (a line cut
 * short left out), bounded by `timeout` like the store's other operations.
 */
const storeLocal = (
  store: SessionStore.SessionStore["Service"],
  key: SessionStore.SessionKey,
  file: string,
  timeout: Duration.Duration
) =>
  Effect.map(
    boundedOperation(store.name, "append", timeout, backfill(store, key, file, new StoredLines())),
    (local) => local.appended
  )

/**
 * Materializes a stored session into `projectsDir`: `<projectKey>/<sessionId>.jsonl` and each
 * subagent's `<projectKey>/<sessionId>/<subpath>.jsonl`. Never destroys local data: a local copy
 * is replaced only when the store's copy holds every line of it (the store has the same or more);
 * otherwise it is kept (and a warning logged) and the lines the store lacks are appended to it.
 * A local transcript the store does not have at all (the session ran before it was mirrored, or a
 * subagent transcript the store does not list) is appended to it whole, in file order: the CLI
 * resumes from it and the mirror stores only what the CLI writes next, whose first lines point at
 * those. So after this the store holds every line the CLI resumes from, each once. Each store
 * operation (`list`, `listSubkeys`, one transcript's `load` or `append`) fails with `StoreFailed`
 * after `timeout`. A subagent's last `agent_metadata` entry is written as its sidecar
 * (`<subpath>.meta.json`), not as a line, and a local sidecar goes to the store as that entry.
 * Returns false when the store did not have the session (the CLI resumes its
 * local copy, now in the store, or says it has none).
 */
export const materialize = Effect.fnUntraced(function*(
  store: SessionStore.SessionStore["Service"],
  projectsDir: string,
  key: { readonly projectKey: string; readonly sessionId: string },
  timeout: Duration.Duration = defaultLoadTimeout
) {
  if (!safeSubpath(key.sessionId) || key.sessionId.includes("/") || key.sessionId.includes("\\")) {
    return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: `resume: ${JSON.stringify(key.sessionId)} is not a session id a store can hold`
    })))
  }
  const sessions = yield* boundedOperation(store.name, "list", timeout, store.list(key.projectKey))
  const projectDir = Path.join(projectsDir, key.projectKey)
  const mainFile = Path.join(projectDir, `${key.sessionId}.jsonl`)
  if (!sessions.some((session) => session.sessionId === key.sessionId)) {
    // Without its main transcript there is no conversation to resume (the CLI says so): nothing
    // is stored under the session.
    if (!(yield* isFile(store.name, mainFile))) return false
    let appended = yield* storeLocal(store, key, mainFile, timeout)
    for (const subagent of yield* localSubagents(store.name, projectsDir, key)) {
      appended += yield* storeLocalSubagent(store, subagent.key, subagent.file, timeout)
    }
    if (appended > 0) {
      yield* Effect.logInfo(
        `session store ${store.name} did not have session ${key.sessionId}: stored its local transcripts (${appended} entries); the CLI resumes from them`
      )
    }
    return false
  }
  yield* writeTranscript(store, key, mainFile, timeout)
  const subpaths = yield* boundedOperation(store.name, "listSubkeys", timeout, store.listSubkeys(key))
  for (const subpath of subpaths) {
    if (!safeSubpath(subpath)) {
      yield* Effect.logWarning(`session store ${store.name}: skipping the unsafe subpath ${JSON.stringify(subpath)}`)
      continue
    }
    yield* writeTranscript(
      store,
      { ...key, subpath },
      Path.join(projectDir, key.sessionId, `${subpath}.jsonl`),
      timeout
    )
  }
  // A local subagent transcript the store does not list (its writes never reached the store).
  const listed = new Set(subpaths)
  for (const subagent of yield* localSubagents(store.name, projectsDir, key)) {
    if (subagent.key.subpath === undefined || listed.has(subagent.key.subpath)) continue
    const appended = yield* storeLocalSubagent(store, subagent.key, subagent.file, timeout)
    if (appended > 0) {
      yield* Effect.logWarning(
        `session store ${store.name}: it did not have the local ${subagent.file}: appended it (${appended} entries)`
      )
    }
  }
  return true
})
