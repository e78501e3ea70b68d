/**
 * Splits a text into at most `parts` pieces of about one length, by code points: never between
 * the two halves of a character, as the Messages API streams text. For the testing kit's
 * streamed deltas (`FakeModel`, `FakeCli.textTurn`, `Replay`'s `streamText`). An empty text gives
 * none.
 */
export const splitText = (text: string, parts: number): ReadonlyArray<string> => {
  if (text === "") return []
  const chars = Array.from(text)
  const n = Math.max(1, Math.min(Math.floor(parts), chars.length))
  const size = Math.ceil(chars.length / n)
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

/**
 * The first `max` UTF-16 code units of `text`, less a first half of a surrogate pair left last:
 * never half a character. The official SDK's cut (it counts code units, not code points, so a
 * character across the limit is dropped whole).
 */
export const cutText = (text: string, max: number): string => {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}
