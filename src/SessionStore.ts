/**
 * Where session transcripts live. The CLI writes each session as JSONL lines ("entries") under
 * its config directory; a `SessionStore` holds the same entries somewhere else (memory, a
 * directory, a SQL database) so a session can be listed, read, forked and resumed on another
 * machine. Its contract is the one of the official TypeScript SDK's `SessionStore` (alpha), made
 * an Effect service:
 *
 * - `append` persists entries in call order; entries with a `uuid` are idempotent (a retried batch
 *   never duplicates a line), entries without one (titles, tags, mode markers) are appended as they
 *   come.
 * - `load` streams a session's entries in append order, in bounded memory, and fails with
 *   `SessionNotFound` for a key never written.
 * - entries are opaque JSON objects: a store keeps them deep-equal, not byte-equal.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as ClaudeError from "./ClaudeError.ts"
import { describeError } from "./internal/describeCause.ts"
import * as DirectoryStores from "./internal/directoryStores.ts"
import * as EntryLines from "./internal/entryLines.ts"
import { cutText } from "./internal/textChunks.ts"
import { entryTexts, subpathGiven } from "./internal/storeInputs.ts"

/**
 * Names one transcript: a session's main transcript (no `subpath`), or one of its subagents'
 * (`subpath` such as `subagents/agent-<id>`, mirroring the CLI's directory layout).
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionKey {
  /** The project: by default the CLI's project directory name for the working directory. */
  readonly projectKey: string
  /** The CLI's session id (a UUID). */
  readonly sessionId: string
  /** Absent for the main transcript; never the empty string. */
  readonly subpath?: string | undefined
}

/**
 * One transcript line: a JSON object with a string `type`; most carry a `uuid` and an ISO
 * `timestamp`. The rest is the CLI's and passes through untouched.
 *
 * @since 0.2.0
 * @category models
 */
export interface Entry {
  /** The line's kind: `user`, `assistant`, `system`, `summary`, `custom-title`, `tag`, ... */
  readonly type: string
  /** The line's identity; a store never keeps two lines with the same `uuid` in one transcript. */
  readonly uuid?: string | undefined
  /** When the CLI wrote the line (ISO 8601). */
  readonly timestamp?: string | undefined
  readonly [key: string]: unknown
}

/**
 * A session a store holds, as `list` reports it.
 *
 * @since 0.2.0
 * @category models
 */
export interface StoredSession {
  /** The project the session belongs to. */
  readonly projectKey: string
  /** The session's id. */
  readonly sessionId: string
  /** Last modification, Unix epoch milliseconds. */
  readonly mtime: number
  /** The main transcript's size in bytes, when the store knows it (the directory store does). */
  readonly size?: number | undefined
}

/**
 * The store service. Every operation fails with `StoreFailed` when the backend does, naming the
 * operation and the store.
 *
 * @since 0.2.0
 * @category services
 */
export class SessionStore extends Context.Service<SessionStore, {
  /** A short name for messages and spans (`memory`, `directory /path`, `sqlite`, `pg`). */
  readonly name: string
  /** Persists entries after those already stored, in order; entries with a known `uuid` are skipped. */
  readonly append: (key: SessionKey, entries: ReadonlyArray<Entry>) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** The transcript's entries in append order; `SessionNotFound` when the key was never written. */
  readonly load: (key: SessionKey) => Stream.Stream<Entry, ClaudeError.ClaudeError>
  /** The sessions of one project, or of every project when `projectKey` is undefined; any order. */
  readonly list: (
    projectKey: string | undefined
  ) => Effect.Effect<ReadonlyArray<StoredSession>, ClaudeError.ClaudeError>
  /** The subpaths (subagent transcripts) stored under a session. */
  readonly listSubkeys: (
    key: Omit<SessionKey, "subpath">
  ) => Effect.Effect<ReadonlyArray<string>, ClaudeError.ClaudeError>
  /** Removes a session's main transcript and its subpaths; a missing session is not an error. */
  readonly delete: (key: SessionKey) => Effect.Effect<void, ClaudeError.ClaudeError>
}>()("effect-claude-code/SessionStore") {}

// ---------------------------------------------------------------------------------------------
// Unreadable lines
// ---------------------------------------------------------------------------------------------

/**
 * The `type` of the entry a store's `load` yields in place of a line it could not read (a
 * transcript file's broken or truncated line): the read goes on, and the reader
 * (`Sessions.entries`) reports it as a problem.
 *
 * @since 0.2.0
 * @category unreadable lines
 */
export const unreadableLineType = "effect-claude-code/unreadable-line"

/**
 * What `load` yields for a line it could not read: its 1-based line number, why, its first 200
 * characters, and whether it was cut short. Never written by `append`; a store that cannot hold
 * unreadable data never yields one.
 *
 * @since 0.2.0
 * @category unreadable lines
 */
export interface UnreadableLine extends Entry {
  readonly type: typeof unreadableLineType
  /** The 1-based line number in the file. */
  readonly line: number
  /** Why it could not be read (`line 7: not JSON (...)`). */
  readonly description: string
  /** The line's first 200 characters. */
  readonly excerpt: string
  /**
   * True when the text ends before its JSON does (a write that never finished: the process died
   * mid-line), not a line that is wrong where it stands.
   */
  readonly cut: boolean
}

/**
 * @since 0.2.0
 * @category unreadable lines
 */
export const isUnreadableLine = (entry: Entry): entry is UnreadableLine => entry.type === unreadableLineType

const isEntry = (u: unknown): u is Entry =>
  typeof u === "object" && u !== null && !Array.isArray(u) && typeof (u as { readonly type?: unknown }).type === "string"

/**
 * Reads one JSONL line: the entry, or an {@link UnreadableLine} saying why not.
 *
 * @since 0.2.0
 * @category unreadable lines
 */
export const parseLine = (text: string, line: number): Entry => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return unreadable(text, line, `not JSON (${describeError(error)})`, endsEarly(text, error))
  }
  if (!isEntry(parsed)) return unreadable(text, line, "not an object with a string `type`", false)
  // A line read from a file (numbered from 1) keeps its number beside it; 0 is no file's line.
  return line > 0 ? EntryLines.remember(parsed, line) : parsed
}

/**
 * Whether `JSON.parse` failed at the end of `text`, which a cut line does (V8 says so: "Unexpected
 * end of JSON input", or the error "in JSON at position" the text's length). A complete line
 * damaged at its very end (its closing `}` lost) reads the same: no text tells the two apart.
 */
const endsEarly = (text: string, error: unknown): boolean => {
  const message = error instanceof Error ? error.message : ""
  if (message.startsWith("Unexpected end of JSON input")) return true
  // Anchored at the end: V8 quotes the text in other messages, which may hold these words.
  const at = /in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message)
  return at !== null && Number(at[1]) === text.length
}

const unreadable = (text: string, line: number, description: string, cut: boolean): UnreadableLine => ({
  type: unreadableLineType,
  line,
  description: `line ${line}: ${description}`,
  excerpt: cutText(text, 200),
  cut
})

// ---------------------------------------------------------------------------------------------
// In memory
// ---------------------------------------------------------------------------------------------

/** One string a key: its parts as JSON, so that no two keys meet (a NUL in a part included). */
const keyString = (key: SessionKey): string => JSON.stringify([key.projectKey, key.sessionId, key.subpath ?? ""])

const utf8 = new TextEncoder()

interface MemoryTranscript {
  readonly key: SessionKey
  readonly entries: Array<Entry>
  readonly uuids: Set<string>
  mtime: number
  size: number
}

/**
 * A store in memory, for tests: entries are kept as given (not copied), `mtime` is the clock's time
 * at the last append (strictly increasing, so the last written is the newest).
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<SessionStore["Service"]> = Effect.sync(() => {
  const transcripts = new Map<string, MemoryTranscript>()
  let lastMtime = 0
  const name = "memory"
  return SessionStore.of({
    name,
    append: (key, entries) =>
      Effect.flatMap(
        Effect.zip(Effect.andThen(subpathGiven(name, key), entryTexts(name, entries)), Clock.currentTimeMillis),
        ([texts, now]) =>
        Effect.sync(() => {
          const id = keyString(key)
          let transcript = transcripts.get(id)
          if (transcript === undefined) {
            transcript = { key, entries: [], uuids: new Set(), mtime: 0, size: 0 }
            transcripts.set(id, transcript)
          }
          for (let i = 0; i < entries.length; i++) {
            const entry = entries[i]!
            // Only a string is a uuid (the CLI's lines are untrusted JSON), as in the other stores.
            if (typeof entry.uuid === "string") {
              if (transcript.uuids.has(entry.uuid)) continue
              transcript.uuids.add(entry.uuid)
            }
            transcript.entries.push(entry)
            // Bytes, as a file of these lines (UTF-8) holds them: not UTF-16 code units.
            transcript.size += utf8.encode(texts[i]!).length + 1
          }
          lastMtime = Math.max(now, lastMtime + 1)
          transcript.mtime = lastMtime
        })),
    load: (key) =>
      Stream.suspend(() => {
        if (key.subpath === "") return Stream.unwrap(Effect.as(subpathGiven(name, key), Stream.empty))
        const transcript = transcripts.get(keyString(key))
        return transcript === undefined
          ? Stream.fail(notFound(key.sessionId, name))
          : Stream.fromIterable(transcript.entries.slice())
      }),
    list: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()]
          .filter((t) => t.key.subpath === undefined && (projectKey === undefined || t.key.projectKey === projectKey))
          .map((t) => ({ projectKey: t.key.projectKey, sessionId: t.key.sessionId, mtime: t.mtime, size: t.size }))
      ),
    listSubkeys: (key) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) =>
          t.key.projectKey === key.projectKey && t.key.sessionId === key.sessionId && t.key.subpath !== undefined
            ? [t.key.subpath]
            : []
        )
      ),
    delete: (key) =>
      Effect.andThen(subpathGiven(name, key), Effect.sync(() => {
        for (const [id, t] of transcripts) {
          if (t.key.projectKey !== key.projectKey || t.key.sessionId !== key.sessionId) continue
          if (key.subpath === undefined || t.key.subpath === key.subpath) transcripts.delete(id)
        }
      }))
  })
})

/**
 * {@link makeMemory} as a layer: a fresh, empty store each time it is built.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerMemory: Layer.Layer<SessionStore> = Layer.effect(SessionStore, makeMemory)

// ---------------------------------------------------------------------------------------------
// A directory: the CLI's own layout
// ---------------------------------------------------------------------------------------------

const notFound = (sessionId: string, searched: string): ClaudeError.ClaudeError =>
  ClaudeError.make(new ClaudeError.SessionNotFound({ sessionId, searched }))

const failed = (store: string, operation: string) => (cause: { readonly message: string }): ClaudeError.ClaudeError =>
  ClaudeError.make(new ClaudeError.StoreFailed({ store, operation, description: cause.message }))

/** A part of a key names one directory entry: not empty, not `.` or `..`, no separator or NUL. */
const isPlainPart = (part: string): boolean => part !== "" && part !== "." && part !== ".." && !/[/\\\0]/.test(part)

/**
 * `InvalidInput` unless the key's parts (and each `/`-separated segment of its subpath) are plain
 * names: a key must not reach outside its project's directory.
 */
const checkKey = (store: string, key: Partial<SessionKey>): Effect.Effect<void, ClaudeError.ClaudeError> => {
  const parts = [key.projectKey, key.sessionId, ...(key.subpath === undefined ? [] : key.subpath.split("/"))]
  return parts.every((part) => part === undefined || isPlainPart(part))
    ? Effect.void
    : Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({
      description: `${store}: ${JSON.stringify(key)} is not a session key (each part a name, without separators or "..")`
    })))
}

/** Bytes read at a time from a transcript file. */
const chunkSize = 64 * 1024

/**
 * The store that IS the CLI's config directory (`configDir`, the directory holding `projects/`):
 * a session is `projects/<projectKey>/<sessionId>.jsonl`, a subagent's transcript
 * `projects/<projectKey>/<sessionId>/<subpath>.jsonl` (the CLI writes
 * `<sessionId>/subagents/agent-<id>.jsonl`), one JSON entry a line. On Effect's `FileSystem` and
 * `Path`, so a test can run it on an in-memory file system.
 *
 * **Details**
 *
 * - `append` appends (`O_APPEND`), as the CLI does, so an entry appended while the CLI writes the
 *   same file lands between two of its lines, never inside one; the store never rewrites a file.
 *   Entries with a `uuid` the file already holds are skipped: the store remembers the uuids of the
 *   files it appended to, reading only what was added since it last looked.
 * - `load` streams the file in 64 KiB chunks and yields one entry a line, so memory is bounded by
 *   the longest line, not the file. A line that is not a JSON object (broken, or the truncated
 *   last line of a file cut short) is yielded as an {@link UnreadableLine} and the read goes on.
 * - `list` stats the files (`mtime`, `size`), reading none.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeDirectory: (
  configDir: string
) => Effect.Effect<SessionStore["Service"], never, FileSystem.FileSystem | Path.Path> = Effect.fn("SessionStore.makeDirectory")(
  function*(configDir: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const projects = path.join(configDir, "projects")
    const name = `directory ${configDir}`
    const fileOf = (key: SessionKey): Effect.Effect<string, ClaudeError.ClaudeError> =>
      Effect.as(
        checkKey(name, key),
        key.subpath === undefined
          ? path.join(projects, key.projectKey, `${key.sessionId}.jsonl`)
          : path.join(projects, key.projectKey, key.sessionId, `${key.subpath}.jsonl`)
      )
    const isNotFound = (error: { readonly _tag: string; readonly reason?: { readonly _tag: string } }): boolean =>
      error.reason?._tag === "NotFound"

    const lines = (file: string, offset: number): Stream.Stream<string, ClaudeError.ClaudeError> =>
      fs.stream(file, { chunkSize, offset }).pipe(
        Stream.decodeText,
        Stream.splitLines,
        Stream.mapError(failed(name, `read ${file}`))
      )

    const readEntries = (file: string, sessionId: string): Stream.Stream<Entry, ClaudeError.ClaudeError> =>
      Stream.unwrap(
        fs.exists(file).pipe(
          Effect.mapError(failed(name, `read ${file}`)),
          Effect.map((exists) =>
            exists
              ? lines(file, 0).pipe(
                Stream.zipWithIndex,
                Stream.filter(([text]) => text.trim() !== ""),
                Stream.map(([text, index]) => parseLine(text, index + 1))
              )
              : Stream.fail(notFound(sessionId, name))
          )
        )
      )

    // The uuids of each file this store appended to, how many bytes of it were read for them, and
    // whether those bytes end inside a line (a write cut short: the CLI's, or a failed one here);
    // with the file's identity, and the last byte read, to tell that it is still that file.
    const known = new Map<string, { uuids: Set<string>; read: number; midLine: boolean; identity: string; tail: Uint8Array }>()
    /** How many of the last bytes read tell a file from one written anew under its name. */
    const TAIL_BYTES = 64
    /** The bytes of `file` in `[start, end)` (fewer when it is shorter); none once it is gone. */
    const bytesAt = (file: string, start: number, end: number) =>
      fs.stream(file, { offset: start, bytesToRead: end - start }).pipe(
        Stream.runCollect,
        Effect.map((chunks) => {
          const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0))
          let at = 0
          for (const chunk of chunks) {
            out.set(chunk, at)
            at += chunk.length
          }
          return out
        }),
        Effect.catchIf(isNotFound, () => Effect.succeed(new Uint8Array(0))),
        Effect.mapError(failed(name, `read ${file}`))
      )
    const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])
    const uuidsOf = Effect.fnUntraced(function*(file: string) {
      const info = yield* fs.stat(file).pipe(
        Effect.map((info) => ({ size: Number(info.size), identity: `${info.dev}:${Option.getOrElse(info.ino, () => "")}` })),
        Effect.catchIf(isNotFound, () => Effect.succeed({ size: 0, identity: "" })),
        Effect.mapError(failed(name, `append to ${file}`))
      )
      const size = info.size
      let state = known.get(file)
      // Read again from its start when it is not the file read before: cut short, or replaced
      // (another store on the same directory deleted the session and wrote it anew), which its
      // identity or its last bytes read tell (a reused inode number keeps the first the same).
      if (
        state !== undefined &&
        (size < state.read || info.identity !== state.identity ||
          !sameBytes(yield* bytesAt(file, state.read - state.tail.length, state.read), state.tail))
      ) state = undefined
      if (state === undefined) {
        state = { uuids: new Set(), read: 0, midLine: false, identity: info.identity, tail: new Uint8Array(0) }
        known.set(file, state)
      }
      if (size > state.read) {
        const uuids = state.uuids
        yield* lines(file, state.read).pipe(
          Stream.runForEach((text) =>
            Effect.sync(() => {
              const entry = text.trim() === "" ? undefined : parseLine(text, 0)
              if (entry !== undefined && typeof entry.uuid === "string") uuids.add(entry.uuid)
            })
          )
        )
        const tail = yield* bytesAt(file, Math.max(0, size - TAIL_BYTES), size)
        // Nothing read (the file cut short meanwhile): a line of its own is not needed.
        const byte = tail.at(-1)
        state.midLine = byte !== undefined && byte !== 0x0a
        state.tail = tail
        state.read = size
      }
      return state
    })
    /**
     * One append at a time per file: the uuids a batch skips are those of the file once the
     * appends before it are written (concurrent ones each wrote a uuid both found missing).
     */
    const locks = new Map<string, Semaphore.Semaphore>()
    const lockOf = (file: string): Semaphore.Semaphore => {
      let lock = locks.get(file)
      if (lock === undefined) {
        lock = Semaphore.makeUnsafe(1)
        locks.set(file, lock)
      }
      return lock
    }

    const listProject = (projectKey: string): Effect.Effect<Array<StoredSession>, ClaudeError.ClaudeError> =>
      Effect.gen(function*() {
        yield* checkKey(name, { projectKey })
        const dir = path.join(projects, projectKey)
        const names = yield* fs.readDirectory(dir).pipe(
          Effect.catchIf(isNotFound, () => Effect.succeed([] as Array<string>)),
          Effect.mapError(failed(name, `list ${dir}`))
        )
        const sessions = yield* Effect.forEach(names.filter((n) => n.endsWith(".jsonl")), (file) =>
          fs.stat(path.join(dir, file)).pipe(
            Effect.map((info): Option.Option<StoredSession> =>
              info.type === "File"
                ? Option.some({
                  projectKey,
                  sessionId: file.slice(0, -".jsonl".length),
                  mtime: Option.getOrElse(Option.map(info.mtime, (d) => d.getTime()), () => 0),
                  size: Number(info.size)
                })
                : Option.none()
            ),
            // A file removed between the listing and its stat is not listed.
            Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<StoredSession>())),
            Effect.mapError(failed(name, `list ${dir}`))
          ), { concurrency: 16 })
        return sessions.flatMap((s) => Option.isSome(s) ? [s.value] : [])
      })

    // One generator function per store, not one per append (docs/CONTRIBUTING.md).
    const append = (key: SessionKey, entries: ReadonlyArray<Entry>): Effect.Effect<void, ClaudeError.ClaudeError> =>
      entries.length === 0
        ? Effect.void
        : Effect.flatMap(fileOf(key), (file) => Semaphore.withPermit(lockOf(file), appendTo(file, entries)))
    const appendTo = Effect.fnUntraced(function*(file: string, entries: ReadonlyArray<Entry>) {
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
        Effect.mapError(failed(name, `append to ${file}`))
      )
      const state = yield* uuidsOf(file)
      // The batch's new uuids count as stored only once the write succeeded; a failed write
      // (which may have written part of the batch) forgets what is known of the file, so the
      // next append reads it again.
      const added = new Set<string>()
      const fresh: Array<Entry> = []
      for (const entry of entries) {
        if (typeof entry.uuid === "string") {
          if (state.uuids.has(entry.uuid) || added.has(entry.uuid)) continue
          added.add(entry.uuid)
        }
        fresh.push(entry)
      }
      if (fresh.length === 0) return
      // After a line cut short, the batch starts on a line of its own: glued to it, the first
      // entry would be read back as part of one unreadable line.
      const text = (yield* entryTexts(name, fresh)).map((line) => line + "\n").join("")
      const bytes = new TextEncoder().encode(state.midLine ? "\n" + text : text)
      yield* fs.writeFile(file, bytes, { flag: "a", mode: 0o600 }).pipe(
        Effect.tapError(() => Effect.sync(() => known.delete(file))),
        Effect.mapError(failed(name, `append to ${file}`))
      )
      for (const uuid of added) state.uuids.add(uuid)
      state.read += bytes.length
      state.midLine = false
    })

    const store = SessionStore.of({
      name,
      append,
      load: (key) => Stream.unwrap(Effect.map(fileOf(key), (file) => readEntries(file, key.sessionId))),
      list: (projectKey) =>
        projectKey !== undefined
          ? listProject(projectKey)
          : fs.readDirectory(projects).pipe(
            Effect.catchIf(isNotFound, () => Effect.succeed([] as Array<string>)),
            Effect.mapError(failed(name, `list ${projects}`)),
            // What else `projects/` holds (a stray file, a name no key has, a directory that
            // cannot be read) is no project: listed as none, as the CLI's SDK does, never a
            // failure of the whole list.
            Effect.flatMap((keys) =>
              Effect.forEach(keys.filter(isPlainPart), (key) =>
                fs.stat(path.join(projects, key)).pipe(
                  Effect.flatMap((info) => info.type === "Directory" ? listProject(key) : Effect.succeed([])),
                  Effect.catch((error) =>
                    Effect.as(Effect.logWarning(`${name}: ${key} in ${projects} is not listed: ${error.message}`), [])
                  )
                ), { concurrency: 4 })
            ),
            Effect.map((all) => all.flat())
          ),
      listSubkeys: (key) =>
        Effect.gen(function*() {
          yield* checkKey(name, key)
          const dir = path.join(projects, key.projectKey, key.sessionId)
          const names = yield* fs.readDirectory(dir, { recursive: true }).pipe(
            Effect.catchIf(isNotFound, () => Effect.succeed([] as Array<string>)),
            Effect.mapError(failed(name, `list ${dir}`))
          )
          return names.filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -".jsonl".length).split(path.sep).join("/"))
        }),
      delete: (key) =>
        Effect.gen(function*() {
          const file = yield* fileOf(key)
          yield* fs.remove(file, { force: true }).pipe(Effect.mapError(failed(name, `delete ${file}`)))
          known.delete(file)
          if (key.subpath === undefined) {
            const dir = path.join(projects, key.projectKey, key.sessionId)
            yield* fs.remove(dir, { recursive: true, force: true }).pipe(Effect.mapError(failed(name, `delete ${dir}`)))
          }
        })
    })
    DirectoryStores.register(store, path.resolve(configDir))
    return store
  }
)

/**
 * {@link makeDirectory} as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerDirectory = (
  configDir: string
): Layer.Layer<SessionStore, never, FileSystem.FileSystem | Path.Path> => Layer.effect(SessionStore, makeDirectory(configDir))
