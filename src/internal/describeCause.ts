/**
 * One line saying why something failed, for the texts the library writes from a failure: error
 * answers to the CLI (which show up in the model's context and in the CLI's stderr), a tool's
 * error result for the model, a transcript's `TranscriptFailed`, the viewer's messages. It must
 * say something useful for any value, and never throw:
 * - an error's message; an `UnknownError` (`Effect.try`/`tryPromise` without `catch`) adds its
 *   cause's, where the reason is;
 * - an error without a message: its name (a tagged error's tag) with its fields, then its cause's
 *   text (a bare `Error` wrapping a reason gives the reason alone);
 * - a Node error's `code` when the text does not name it;
 * - a string as it is; an object with a `message` or a `_tag` as an error; anything else as JSON,
 *   or its keys when JSON cannot write it.
 */
import * as Cause from "effect/Cause"

/** How long a chain of causes is followed (a loop is cut where it comes back). */
const MAX_CAUSES = 16
/** A failure's fields are data of the program's: at most this much of their JSON is written. */
const MAX_FIELDS_CHARS = 1000

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** JSON text of `u`, or undefined when JSON cannot write it (a cycle, a BigInt). */
const json = (u: unknown): string | undefined => {
  try {
    return JSON.stringify(u)
  } catch {
    return undefined
  }
}

/** What is not an error: as JSON, else the names of its keys. */
const asData = (u: unknown): string =>
  json(u) ?? (isObject(u) ? `an object with keys ${Object.keys(u).join(", ")}` : String(u))

/** A failure's name (an error's, or a tagged value's tag) with its own fields, if it has any. */
const nameAndFields = (failure: Record<string, unknown>): string | undefined => {
  const name = typeof failure._tag === "string" ? failure._tag : failure instanceof Error ? failure.name : undefined
  const { _tag: _t, cause: _c, message: _m, name: _n, ...fields } = Object.fromEntries(Object.entries(failure)) as Record<
    string,
    unknown
  >
  if (Object.keys(fields).length === 0) return name
  const text = json(fields)
  const written = text === undefined ? undefined : text.length > MAX_FIELDS_CHARS ? `${text.slice(0, MAX_FIELDS_CHARS)}…` : text
  return name === undefined ? written : written === undefined ? name : `${name} ${written}`
}

const describe = (error: unknown, seen: Set<unknown>): string => {
  if (typeof error === "string") return error
  if (!isObject(error)) return asData(error)
  seen.add(error)
  const cause = error.cause !== undefined && !seen.has(error.cause) && seen.size < MAX_CAUSES ? error.cause : undefined
  const message = typeof error.message === "string" ? error.message : ""
  let text: string
  if (message !== "") {
    text = cause !== undefined && Cause.isUnknownError(error) ? `${message}: ${describe(cause, seen)}` : message
  } else {
    const own = error instanceof Error || typeof error._tag === "string" ? nameAndFields(error) : undefined
    const bare = own === undefined || own === "Error"
    text = cause !== undefined
      ? bare ? describe(cause, seen) : `${own}: ${describe(cause, seen)}`
      : own ?? asData(error)
  }
  const code = error.code
  return typeof code !== "string" || text.includes(code) ? text : `${text} (${code})`
}

export const describeError = (error: unknown): string => {
  try {
    return describe(error, new Set())
  } catch {
    // A getter that throws, a revoked proxy: nothing of it can be read.
    return "a failure that cannot be described"
  }
}

export const describeCause = (cause: Cause.Cause<unknown>): string => describeError(Cause.squash(cause))
