/**
 * Secrets out of recorded data: whole ones replaced with `[redacted]` inside string values (never
 * inside a number or across JSON syntax, which would leave text that does not parse), and the
 * parts a cut leaves at the edge of a text (the head and tail of a line over the cap).
 *
 * A secret `s` inside a string value is `s` itself, or, when that string holds JSON text (a
 * tool's printed config), `s` as JSON escapes it (as JavaScript, Go or Python write it), once or
 * twice more, or `s` in base64: {@link formsOf}.
 */

/** What replaces a secret. */
export const REDACTED = "[redacted]"

/** A part of a secret at a cut is removed from this many characters on: shorter tells nothing. */
const minPartLength = 4

const escaped = (text: string): string => JSON.stringify(text).slice(1, -1)

const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/**
 * JSON escaping as other encoders write it, besides `JSON.stringify`'s: Go's (`&`, `<`, `>`,
 * U+2028 and U+2029 as `\u00XX`) and Python's `json.dumps` (every character past ASCII, a UTF-16
 * unit at a time), each lower-case hex, as they write it.
 */
const otherEscapes: ReadonlyArray<(text: string) => string> = [
  (text) => escaped(text).replace(/[&<>\u2028\u2029]/g, unicodeEscape),
  (text) => escaped(text).replace(/[^\u0000-\u007f]/g, unicodeEscape)
]

/** A secret of fewer bytes has no base64 form: a form that short could be any text. */
const minBase64Bytes = 12

/**
 * `secret` in base64 and base64url (`kubectl get secret`, `… | base64`), of its bytes up to the
 * last whole 3: that text is the same whatever follows the secret (a newline).
 */
const base64Forms = (secret: string): ReadonlyArray<string> => {
  const bytes = Buffer.from(secret)
  const aligned = bytes.subarray(0, bytes.length - (bytes.length % 3))
  return aligned.length < minBase64Bytes ? [] : [aligned.toString("base64"), aligned.toString("base64url")]
}

/**
 * The forms of `secret` inside a string value: as it is, and JSON-escaped once and twice (`depth`
 * times: 3 for a line's JSON text, where a string value is escaped once more); the first escape
 * also as Go and Python write it (a tool's printed JSON), each escaped again by `JSON.stringify`;
 * and its base64 ({@link base64Forms}: no JSON escape changes it).
 */
export const formsOf = (secret: string, depth = 2): ReadonlyArray<string> => {
  const forms = [...escapedFormsOf(secret, depth)]
  for (const form of base64Forms(secret)) if (!forms.includes(form)) forms.push(form)
  return forms
}

/** The forms of {@link formsOf} but base64: `secret` as it is and JSON-escaped. */
export const escapedFormsOf = (secret: string, depth = 2): ReadonlyArray<string> => {
  const forms = [secret]
  const firsts = [escaped(secret), ...otherEscapes.map((escape) => escape(secret))]
  for (const first of firsts) {
    let form = first
    for (let level = 0; level < depth; level++) {
      if (!forms.includes(form)) forms.push(form)
      form = escaped(form)
    }
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
 * A pattern of `forms` in any casing (`gi`: an e-mail address is one in any casing), for
 * {@link redactValue}; `undefined` for none.
 */
export const foldedPattern = (forms: ReadonlyArray<string>): RegExp | undefined => {
  if (forms.length === 0) return undefined
  const longestFirst = [...forms].sort((a, b) => b.length - a.length)
  return new RegExp(longestFirst.map((form) => form.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join("|"), "gi")
}

const redactText = (text: string, forms: ReadonlyArray<string>, folded: RegExp | undefined): string =>
  folded === undefined ? replaceAll(text, forms) : replaceAll(text, forms).replace(folded, REDACTED)

/**
 * `value` with `forms` replaced in its strings and keys (and what `folded` matches, a
 * {@link foldedPattern}), copied only where something changed: the caller's value (an event the
 * program holds) is never touched.
 */
export const redactValue = (value: unknown, forms: ReadonlyArray<string>, folded?: RegExp): unknown => {
  if (forms.length === 0 && folded === undefined) return value
  if (typeof value === "string") return redactText(value, forms, folded)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    let copy: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const redacted = redactValue(item, forms, folded)
      if (redacted !== item) (copy ??= value.slice())[i] = redacted
    }
    return copy ?? value
  }
  // One pass: each child is redacted once (twice per level made a deep value exponential).
  const entries = Object.entries(value)
  const redacted = entries.map(([key, item]) => [redactText(key, forms, folded), redactValue(item, forms, folded)] as const)
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
