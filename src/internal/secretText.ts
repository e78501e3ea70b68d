/**
 * Secrets out of recorded data: whole ones replaced with `[redacted]` inside string values (never
 * inside a number or across JSON syntax, which would leave text that does not parse), and the
 * parts a cut leaves at the edge of a text (the head and tail of a line over the cap).
 *
 * A secret `s` inside a string value is `s` itself, or, when that string holds JSON text (a
 * tool's printed config), `s` as JSON escapes it, once or twice more: {@link formsOf}.
 */

/** What replaces a secret. */
export const REDACTED = "[redacted]"

/** A part of a secret at a cut is removed from this many characters on: shorter tells nothing. */
const minPartLength = 4

const escaped = (text: string): string => JSON.stringify(text).slice(1, -1)

/**
 * The forms of `secret` inside a string value: as it is, and JSON-escaped once and twice (`depth`
 * times: 3 for a line's JSON text, where a string value is escaped once more).
 */
export const formsOf = (secret: string, depth = 2): ReadonlyArray<string> => {
  const forms = [secret]
  let form = secret
  for (let level = 0; level < depth; level++) {
    form = escaped(form)
    if (!forms.includes(form)) forms.push(form)
  }
  return forms
}

/** `text` with every form in `forms` (longest first) replaced. */
export const replaceAll = (text: string, forms: ReadonlyArray<string>): string => {
  let out = text
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
  return out
}

/**
 * `value` with `forms` replaced in its strings and keys, copied only where something changed:
 * the caller's value (an event the program holds) is never touched.
 */
export const redactValue = (value: unknown, forms: ReadonlyArray<string>): unknown => {
  if (forms.length === 0) return value
  if (typeof value === "string") return replaceAll(value, forms)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const redacted = redactValue(item, forms)
      if (redacted !== item) (copy ??= value.slice())[i] = redacted
    }
    return copy ?? value
  }
  // One pass: each child is redacted once (twice per level made a deep value exponential).
  const entries = Object.entries(value)
  const redacted = entries.map(([key, item]) => [replaceAll(key, forms), redactValue(item, forms)] as const)
  if (redacted.every(([key, item], i) => key === entries[i]![0] && item === entries[i]![1])) return value
  return Object.fromEntries(redacted)
}

/**
 * How many characters at the end of `text` may begin a form of a secret (a proper prefix of
 * one): held back until the next part of the text says whether they do.
 */
export const openPrefixLength = (text: string, forms: ReadonlyArray<string>): number => {
  let longest = 0
  for (const form of forms) {
    for (let length = Math.min(form.length - 1, text.length); length > longest; length--) {
      if (text.endsWith(form.slice(0, length))) {
        longest = length
        break
      }
    }
  }
  return longest
}

/** `text`, cut at its end, with a part of a secret there (a proper prefix) replaced. */
export const redactCutEnd = (text: string, forms: ReadonlyArray<string>): string => {
  const length = openPrefixLength(text, forms)
  return length >= minPartLength ? text.slice(0, text.length - length) + REDACTED : text
}

/** `text`, cut at its start, with a part of a secret there (a proper suffix) replaced. */
export const redactCutStart = (text: string, forms: ReadonlyArray<string>): string => {
  let longest = 0
  for (const form of forms) {
    for (let length = Math.min(form.length - 1, text.length); length > longest; length--) {
      if (text.startsWith(form.slice(form.length - length))) {
        longest = length
        break
      }
    }
  }
  return longest >= minPartLength ? REDACTED + text.slice(longest) : text
}
