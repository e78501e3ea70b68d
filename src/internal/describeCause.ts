/**
 * One line saying why something failed, for every text the library writes from a failure: error
 * answers to the CLI (which show up in the model's context and in the CLI's stderr), a tool's
 * error result for the model, the viewer's messages. It must say something useful for any value:
 * an error's message; for one without a message, its cause's (a wrapper's reason), else its name
 * (a tagged error's tag) with its fields; a Node error's `code` when the text does not name it;
 * a string as it is; an object with a `message` or a `_tag` as an error; anything else as JSON.
 */
import * as Cause from "effect/Cause"
import { stringify as toJson } from "./json.ts"

/** How deep a chain of message-less errors is followed to a cause with a message. */
const MAX_CAUSES = 4

/**
 * A message-less failure's name (an error's, or a tagged value's tag) and its own fields
 * (`Data.TaggedError("Boom")<{ detail }>`), its tag and cause left out (the cause is described
 * on its own, or is a loop).
 */
const nameAndFields = (failure: Record<string, unknown>): string => {
  const name = failure instanceof Error ? failure.name : String(failure._tag)
  const { _tag: _omitTag, cause: _omitCause, message: _omitMessage, ...fields } = Object.fromEntries(
    Object.entries(failure)
  ) as Record<string, unknown>
  return Object.keys(fields).length === 0 ? name : `${name} ${toJson(fields)}`
}

export const describeError = (error: unknown, depth = 0): string => {
  if (typeof error === "string") return error
  if (typeof error !== "object" || error === null) return toJson(error)
  const failure = error as Record<string, unknown>
  const text = typeof failure.message === "string" && failure.message !== ""
    ? failure.message
    : failure.cause !== undefined && failure.cause !== error && depth < MAX_CAUSES
    ? describeError(failure.cause, depth + 1)
    : error instanceof Error || typeof failure._tag === "string"
    ? nameAndFields(failure)
    : toJson(error)
  const code = failure.code
  return typeof code !== "string" || text.includes(code) ? text : `${text} (${code})`
}

export const describeCause = (cause: Cause.Cause<unknown>): string => describeError(Cause.squash(cause))
