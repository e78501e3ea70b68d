/**
 * A one-line description of why an Effect failed, for error answers sent to the CLI (which show
 * up in the model's context and in the CLI's stderr), so it must say something useful even for a
 * tagged error without a message.
 */
import * as Cause from "effect/Cause"

const toJson = (u: unknown): string => {
  try {
    return JSON.stringify(u) ?? String(u)
  } catch {
    return String(u)
  }
}

export const describeCause = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  if (squashed instanceof Error) {
    if (squashed.message !== "") return squashed.message
    // A tagged error without a message (`Data.TaggedError("Boom")<{ detail }>`): its name and fields.
    const { _tag: _ignored, ...fields } = Object.fromEntries(Object.entries(squashed)) as Record<string, unknown>
    return Object.keys(fields).length === 0 ? squashed.name : `${squashed.name} ${toJson(fields)}`
  }
  if (typeof squashed === "string") return squashed
  return toJson(squashed)
}
