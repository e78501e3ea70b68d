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
