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
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type * as ClaudeError from "./ClaudeError.ts"

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
  /** The session's id (the CLI's `session_id`, the transcript file's name). */
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
  /** The line's kind (`user`, `assistant`, `summary`, `custom-title`, ...). */
  readonly type: string
  /** The line's id, when it has one: the idempotency key of `append`. */
  readonly uuid?: string | undefined
  /** ISO 8601 time the CLI wrote the line. */
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
  /** Persists entries after those already stored, in order; a `uuid` already stored is skipped. */
  readonly append: (key: SessionKey, entries: ReadonlyArray<Entry>) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** The transcript's entries in append order; `SessionNotFound` when the key was never written. */
  readonly load: (key: SessionKey) => Stream.Stream<Entry, ClaudeError.ClaudeError>
  /** The sessions of one project, or of every project when `projectKey` is undefined; any order. */
  readonly list: (
    projectKey: string | undefined
  ) => Effect.Effect<ReadonlyArray<StoredSession>, ClaudeError.ClaudeError>
  /** The subpaths (subagent transcripts) stored under a session. */
  readonly listSubkeys: (
    key: {
      /** The session's project. */
      readonly projectKey: string
      /** The session. */
      readonly sessionId: string
    }
  ) => Effect.Effect<ReadonlyArray<string>, ClaudeError.ClaudeError>
  /** Removes a session's main transcript and its subpaths; a missing session is not an error. */
  readonly delete: (key: SessionKey) => Effect.Effect<void, ClaudeError.ClaudeError>
}>()("effect-claude-code/SessionStore") {}
