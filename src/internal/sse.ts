/**
 * Server-sent events, the framing of the Anthropic Messages API's streaming answers: encode one
 * event, and an incremental decoder (used by tests that read the fake model's streams).
 *
 * @since 0.1.0
 * @internal
 */

/**
 * One server-sent event: its `event:` name and its `data:` text (several data lines joined by
 * `\n`, as the SSE spec says).
 *
 * @since 0.1.0
 * @internal
 */
export interface SseEvent {
  readonly event: string
  readonly data: string
}

/**
 * Encodes one event the way the Messages API writes it: `event: <name>\ndata: <json>\n\n`.
 *
 * @since 0.1.0
 * @internal
 */
export const encode = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * An incremental SSE decoder: `push` text as it arrives, get back the events it completed;
 * `end` returns the last event when the stream stopped without a blank line.
 *
 * @since 0.1.0
 * @internal
 */
export interface Decoder {
  readonly push: (chunk: string) => ReadonlyArray<SseEvent>
  readonly end: () => ReadonlyArray<SseEvent>
}

/**
 * Makes a {@link Decoder}. Comment lines (`:`) and fields other than `event`/`data` are skipped;
 * an event without an `event:` field is named `message`.
 *
 * @since 0.1.0
 * @internal
 */
export const makeDecoder = (): Decoder => {
  let buffer = ""
  let event: string | undefined
  let data: Array<string> = []
  const flush = (out: Array<SseEvent>) => {
    if (event !== undefined || data.length > 0) {
      out.push({ event: event ?? "message", data: data.join("\n") })
    }
    event = undefined
    data = []
  }
  const line = (text: string, out: Array<SseEvent>) => {
    if (text === "") return flush(out)
    if (text.startsWith(":")) return
    const colon = text.indexOf(":")
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? "" : text.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "event") event = value
    else if (field === "data") data.push(value)
  }
  return {
    push: (chunk) => {
      buffer += chunk
      const out: Array<SseEvent> = []
      let newline = buffer.search(/\r\n|\n|\r/)
      while (newline !== -1) {
        // a lone "\r" at the end may be the first half of "\r\n": wait for more text
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break
        const width = buffer.startsWith("\r\n", newline) ? 2 : 1
        line(buffer.slice(0, newline), out)
        buffer = buffer.slice(newline + width)
        newline = buffer.search(/\r\n|\n|\r/)
      }
      return out
    },
    end: () => {
      const out: Array<SseEvent> = []
      if (buffer !== "") line(buffer, out)
      buffer = ""
      flush(out)
      return out
    }
  }
}

/**
 * Decodes a whole SSE body at once.
 *
 * @since 0.1.0
 * @internal
 */
export const decodeAll = (text: string): ReadonlyArray<SseEvent> => {
  const decoder = makeDecoder()
  return [...decoder.push(text), ...decoder.end()]
}
