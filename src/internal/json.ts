/**
 * Small helpers for JSON values read without trusting their shape (CLI lines, transcripts,
 * stored entries), shared by the modules that read them.
 */

/** An object that is not null or an array. */
export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The value when it is a string. */
export const str = (u: unknown): string | undefined => (typeof u === "string" ? u : undefined)

/** JSON text of a value (indented by `indent` spaces when given); `String(value)` for what JSON cannot hold. */
export const stringify = (value: unknown, indent?: number): string => {
  try {
    return JSON.stringify(value, null, indent) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Why `value` cannot be written as JSON (a BigInt, a cycle, a `toJSON` that throws), if it
 * cannot: what `JSON.stringify` threw.
 */
export const jsonWriteError = (value: unknown): Error | undefined => {
  try {
    JSON.stringify(value)
    return undefined
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error))
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its 8-4-4-4-12 hexadecimal form (either case), as the CLI's session and message ids. */
export const isUuid = (text: string): boolean => uuidPattern.test(text)
