/**
 * Checks a user turn before it is written: the CLI exits on some bad user lines and silently
 * ignores others (a turn that never ends), so the library refuses them with a typed error first.
 */
import type * as Protocol from "../Protocol.ts"
import { isUuid } from "./json.ts"

const imageMediaTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])
const base64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Why the CLI would refuse (or silently ignore) this user turn; undefined when it is fine. */
export const userTurnProblem = (input: Protocol.UserTurnInput): string | undefined => {
  if (typeof input.text !== "string") return "a user turn needs text"
  // The CLI sends an empty prompt to the model (a paid call); the API refuses an empty text block.
  if (input.text.trim().length === 0) {
    const got = input.text.length === 0 ? "an empty string" : `${input.text.length} whitespace characters`
    return `a user turn needs text that is not empty or only whitespace (got ${got})`
  }
  for (const [i, image] of (input.images ?? []).entries()) {
    if (!imageMediaTypes.has(image.mediaType)) {
      return `image ${i}: media type ${String(image.mediaType)} is not one of ${[...imageMediaTypes].join(", ")}`
    }
    if (typeof image.data !== "string" || image.data.length === 0 || image.data.length % 4 !== 0 || !base64.test(image.data)) {
      return `image ${i}: data is not base64`
    }
  }
  if (input.uuid !== undefined && !isUuid(input.uuid)) return `uuid ${input.uuid} is not a UUID`
  return undefined
}
