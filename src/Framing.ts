/**
 * NDJSON framing: bytes from the CLI's stdout to lines, and lines to bytes for its stdin.
 *
 * The splitter works on whole chunks, not per byte: it finds newlines with the native `indexOf`
 * and decodes each whole line straight from its chunk (`Buffer#toString` with the line's offsets:
 * no view made for a line, no `TextDecoder` call), so that a line of ASCII or Latin-1 text is a
 * one-byte string whatever the other lines of its chunk hold. Invalid bytes become U+FFFD and a
 * byte order mark that opens a line is dropped, as `TextDecoder` does. Newline (0x0A) never
 * occurs inside a multi-byte UTF-8 sequence, so a chunk boundary that falls inside a character
 * only ever lands in the kept tail.
 *
 * @since 0.1.0
 */

import { constants as BufferConstants } from "node:buffer"

/**
 * The largest cap a splitter takes: V8's longest string (`buffer.constants.MAX_STRING_LENGTH`,
 * 2^29 - 24 characters on 64-bit Node, about 512 MiB). A line of more bytes could not be decoded
 * into one string, let alone parsed; a larger `maxLineBytes` is lowered to this.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxLineBytesLimit: number = BufferConstants.MAX_STRING_LENGTH

/**
 * The default cap on one line: 256 MiB.
 *
 * Why this number: a line is one whole message, and a real turn has no small upper bound for
 * one. A `user` line carries a tool's whole structured result (`tool_use_result`: all of a Bash
 * command's stdout, a file read, an MCP tool's answer) as well as what the model is shown, and a
 * `result` repeats the final text. The official TypeScript SDK has no cap at all and delivers a
 * 100 MiB tool result; the Python SDK dies at 1 MiB. 256 MiB takes such a line with room to
 * spare, while staying at half of V8's string limit ({@link maxLineBytesLimit}), beyond which no
 * line can be decoded. What a line that size costs: its bytes while it arrives, then its text
 * and its parsed object, about three to four times its size at the peak, and only while it is
 * read. Lower it (`maxLineBytes`) where memory is tight; a line over the cap is reported as an
 * {@link Oversized} frame, with its message type when the line's head or tail shows it.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLineBytes = 256 * 1024 * 1024

/**
 * A line longer than the cap. Its bytes were dropped as they arrived (never buffered whole);
 * `head` and `tail` keep its first 2 KiB and last 64 KiB, and `type` is its
 * message's top-level `type` when the head or the tail shows it (see {@link lineType}): a `user`
 * or `assistant` line names it first, a `result` line near its end, after the result text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Oversized {
  /** Tells it apart from a line (a `string`). */
  readonly _tag: "Oversized"
  /** The line's whole length in bytes. */
  readonly bytes: number
  /** The first 2 KiB of the line. */
  readonly head: string
  /** The last 64 KiB of the line (where a `result`'s type is). */
  readonly tail: string
  /** The message's top-level `type`, when the head or the tail shows it. */
  readonly type: string | undefined
}

/**
 * One framed piece: a line (without its newline), or a line over the cap.
 *
 * @since 0.1.0
 * @category models
 */
export type Frame = string | Oversized

const NEWLINE = 10
const HEAD_BYTES = 2048
/**
 * The tail kept of a line over the cap: enough to find a `result`'s type, which CLI 2.1.332
 * writes before `begun_message_ids` (an id an API call) and `model_usage_since_last_result`
 * (about 450 bytes a model), several KiB on a long turn.
 */
const TAIL_BYTES = 64 * 1024

/** A Buffer view of `bytes` (no copy), for its native `indexOf` and `toString`. */
const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * The UTF-8 text of `bytes[start, end)`, a leading byte order mark dropped (`TextDecoder`'s
 * default; this replaced it: by hand, 3.5% more events a second on a long turn).
 */
const decodeLine = (bytes: Buffer, start: number, end: number): string =>
  bytes.toString(
    "utf8",
    end - start >= 3 && bytes[start] === 0xEF && bytes[start + 1] === 0xBB && bytes[start + 2] === 0xBF ? start + 3 : start,
    end
  )

const oversized = (bytes: number, head: string, tail: string): Oversized => ({
  _tag: "Oversized",
  bytes,
  head,
  tail,
  type: lineType(head, tail)
})

/** The last `limit` bytes of `parts` joined, copied (the parts' buffers may be reused). */
const lastBytes = (parts: ReadonlyArray<Uint8Array>, limit: number): Uint8Array => {
  const out: Array<Uint8Array> = []
  let size = 0
  for (let i = parts.length - 1; i >= 0 && size < limit; i--) {
    const part = parts[i]!
    const take = Math.min(part.length, limit - size)
    out.unshift(part.subarray(part.length - take))
    size += take
  }
  return Buffer.concat(out)
}

/** Decodes a fragment with a fresh decoder: a character cut at either end becomes U+FFFD. */
const decodeFragment = (bytes: Uint8Array): string => new TextDecoder("utf-8").decode(bytes)

/**
 * A stateful splitter of bytes into lines. One per stream; `push` each chunk, then `end` once.
 *
 * Invariants: `pending` holds the bytes of the current unfinished line, `pendingBytes` their
 * total; once that total passes `maxLineBytes` the splitter drops bytes until the next newline
 * (`skipping`), keeping only the head, so memory stays bounded by the cap.
 *
 * @since 0.1.0
 * @category constructors
 */
export class LineSplitter {
  private pending: Array<Uint8Array> = []
  private pendingBytes = 0
  /**
   * The line over the cap being skipped: its size, its head, and the pieces of its tail (trimmed
   * to {@link TAIL_BYTES} once they hold twice that, so that skipping costs a copy per 64 KiB
   * read, not per chunk).
   */
  private skipping: { bytes: number; head: string; tail: Array<Uint8Array>; tailBytes: number } | undefined = undefined

  /** The cap in force: the one given, lowered to {@link maxLineBytesLimit}. */
  readonly maxLineBytes: number

  /**
   * Throws a `RangeError` for a cap that is no positive number (`NaN`, zero, below): compared
   * with every line's size, `NaN` would let any line through whole (a session checks its
   * `maxLineBytes` first, `InvalidInput`).
   */
  constructor(maxLineBytes: number = defaultMaxLineBytes) {
    if (!(typeof maxLineBytes === "number" && maxLineBytes > 0)) {
      throw new RangeError(`maxLineBytes must be a positive number or Infinity (got ${String(maxLineBytes)})`)
    }
    this.maxLineBytes = Math.min(maxLineBytes, maxLineBytesLimit)
  }

  /** Splits one chunk; returns the lines it completes, in order. Empty lines are dropped. */
  push(bytes: Uint8Array, out: Array<Frame> = []): Array<Frame> {
    const chunk = asBuffer(bytes)
    let start = 0
    const first = chunk.indexOf(NEWLINE)
    if (first === -1) {
      this.keep(chunk)
      return out
    }
    // The line that was open before this chunk ends at `first`.
    this.finishOpenLine(chunk, first, out)
    start = first + 1
    // The whole lines that follow, each decoded on its own: decoding them in one string and
    // splitting it made every line a slice of one string, two bytes a character for all of them
    // as soon as one line held a character beyond Latin-1 (the CLI's texts often do); JSON.parse
    // is slower on those and the strings twice the size. A line decoded alone is one byte a
    // character when it can be.
    let next: number
    while ((next = chunk.indexOf(NEWLINE, start)) !== -1) {
      this.emitChecked(chunk, start, next, out)
      start = next + 1
    }
    if (start < chunk.length) this.keep(chunk.subarray(start))
    return out
  }

  /** Flushes a last line that had no trailing newline. */
  end(out: Array<Frame> = []): Array<Frame> {
    if (this.skipping !== undefined || this.pendingBytes > 0) this.finishOpenLine(Buffer.alloc(0), 0, out)
    return out
  }

  private keep(bytes: Uint8Array): void {
    if (this.skipping !== undefined) {
      const skipping = this.skipping
      skipping.bytes += bytes.length
      skipping.tail.push(bytes)
      skipping.tailBytes += bytes.length
      if (skipping.tailBytes > 2 * TAIL_BYTES) {
        skipping.tail = [lastBytes(skipping.tail, TAIL_BYTES)]
        skipping.tailBytes = TAIL_BYTES
      }
      return
    }
    // A view, not a copy: a chunk is the producer's to give away (Node's streams allocate each
    // read), and copying the parts of a line that spans many chunks doubled its bytes until the
    // next GC (peak RSS 224 -> 295 MB on a 1M-event turn whose final lines hold the whole text).
    this.pending.push(bytes)
    this.pendingBytes += bytes.length
    if (this.pendingBytes > this.maxLineBytes) {
      const tail = lastBytes(this.pending, TAIL_BYTES)
      this.skipping = { bytes: this.pendingBytes, head: this.headOfPending(), tail: [tail], tailBytes: tail.length }
      this.pending = []
      this.pendingBytes = 0
    }
  }

  /** Ends the open line with `chunk[0, end)`. */
  private finishOpenLine(chunk: Buffer, end: number, out: Array<Frame>): void {
    if (this.skipping === undefined && this.pendingBytes === 0) {
      if (end > 0) this.emitChecked(chunk, 0, end, out)
      return
    }
    const tail = chunk.subarray(0, end)
    if (this.skipping !== undefined) {
      const { bytes, head } = this.skipping
      out.push(oversized(bytes + tail.length, head, decodeFragment(lastBytes([...this.skipping.tail, tail], TAIL_BYTES))))
      this.skipping = undefined
      return
    }
    if (end > 0) this.pending.push(tail)
    const total = this.pendingBytes + tail.length
    if (total > this.maxLineBytes) {
      out.push(oversized(total, this.headOfPending(), decodeFragment(lastBytes(this.pending, TAIL_BYTES))))
      this.pending = []
      this.pendingBytes = 0
      return
    }
    const line = this.decodePending()
    this.pending = []
    this.pendingBytes = 0
    this.emit(line, out)
  }

  /** Emits the line `chunk[start, end)`, or an {@link Oversized} frame for it. */
  private emitChecked(chunk: Buffer, start: number, end: number, out: Array<Frame>): void {
    if (end - start > this.maxLineBytes) {
      out.push(oversized(
        end - start,
        decodeFragment(chunk.subarray(start, Math.min(end, start + HEAD_BYTES))),
        decodeFragment(chunk.subarray(Math.max(start, end - TAIL_BYTES), end))
      ))
      return
    }
    this.emit(decodeLine(chunk, start, end), out)
  }

  /** Emits a decoded line, measured on the wire already (its bytes, not its text: U+FFFD). */
  private emit(line: string, out: Array<Frame>): void {
    if (line.length === 0 || (line.length === 1 && line === "\r")) return
    out.push(line)
  }

  private headOfPending(): string {
    const parts: Array<Uint8Array> = []
    let size = 0
    for (const part of this.pending) {
      if (size >= HEAD_BYTES) break
      parts.push(part)
      size += part.length
    }
    // A fresh decoder: the head may end inside a character, which becomes U+FFFD.
    return new TextDecoder("utf-8").decode(Buffer.concat(parts).subarray(0, HEAD_BYTES))
  }

  /**
   * The open line's text, its pieces joined then decoded at once. Tried instead, and measured by
   * hand: decoding each piece as it came (a streaming `TextDecoder`, the texts joined at the end),
   * which holds no second copy of the bytes. On a 1M-event turn whose final lines hold the whole
   * text, peak RSS went from 276 to 236 MB loaded module by module, but from 177-231 to 240-273 MB
   * bundled (medians of three series); a 100 MiB ASCII line peaked at 525 MB instead of 487, a
   * 100 MiB CJK one at 360 instead of 420. The text of a decoded piece lives in V8's heap, where a
   * long line's is held outside it; which is lower depends on when V8 collects, so neither way
   * wins everywhere.
   */
  private decodePending(): string {
    const bytes = this.pending.length === 1 ? asBuffer(this.pending[0]!) : Buffer.concat(this.pending)
    return decodeLine(bytes, 0, bytes.length)
  }
}

// -----------------------------------------------------------------------------
// The message type of a line seen only in part
// -----------------------------------------------------------------------------

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r"

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && isSpace(text[i])) i++
  return i
}

/** The index just after the string that opens at `start`, or -1 when the text ends inside it. */
const stringEnd = (text: string, start: number): number => {
  for (let j = start + 1; j < text.length; j++) {
    const c = text[j]
    if (c === "\\") j++
    else if (c === "\"") return j + 1
  }
  return -1
}

/** The index of the quote that opens the string closing at `end`, or -1 when it starts before the text. */
const stringStart = (text: string, end: number): number => {
  for (let j = end - 1; j >= 0; j--) {
    if (text[j] !== "\"") continue
    let backslashes = 0
    while (j - 1 - backslashes >= 0 && text[j - 1 - backslashes] === "\\") backslashes++
    if (backslashes % 2 === 0) return j
  }
  return -1
}

/** The index just after the JSON value that starts at `start`, or -1 when the text ends inside it. */
const valueEnd = (text: string, start: number): number => {
  const first = text[start]
  if (first === "\"") return stringEnd(text, start)
  if (first === "{" || first === "[") {
    let depth = 0
    for (let j = start; j < text.length; j++) {
      const c = text[j]
      if (c === "\"") {
        j = stringEnd(text, j) - 1
        if (j < 0) return -1
      } else if (c === "{" || c === "[") depth++
      else if (c === "}" || c === "]") {
        depth--
        if (depth === 0) return j + 1
      }
    }
    return -1
  }
  let j = start
  while (j < text.length && text[j] !== "," && text[j] !== "}" && text[j] !== "]" && !isSpace(text[j])) j++
  return j < text.length ? j : -1
}

const stringAt = (text: string, start: number): string | undefined => {
  if (text[start] !== "\"") return undefined
  const end = stringEnd(text, start)
  if (end < 0) return undefined
  try {
    const value: unknown = JSON.parse(text.slice(start, end))
    return typeof value === "string" ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * The top-level `type` of the JSON object a line starts with, read from the line's first bytes
 * alone (`head`, e.g. an {@link Oversized} frame's): undefined when `type` is not among the
 * members the head holds whole. Only top-level members count: a `"type"` inside a nested object
 * (a content block's) is skipped.
 *
 * @since 0.1.0
 * @category parsing
 */
export const headType = (head: string): string | undefined => {
  let i = skipSpace(head, 0)
  if (head[i] !== "{") return undefined
  i = skipSpace(head, i + 1)
  while (head[i] === "\"") {
    const key = stringAt(head, i)
    const keyEnd = stringEnd(head, i)
    if (key === undefined || keyEnd < 0) return undefined
    i = skipSpace(head, keyEnd)
    if (head[i] !== ":") return undefined
    i = skipSpace(head, i + 1)
    if (key === "type") return stringAt(head, i)
    const end = valueEnd(head, i)
    if (end < 0) return undefined
    i = skipSpace(head, end)
    if (head[i] !== ",") return undefined
    i = skipSpace(head, i + 1)
  }
  return undefined
}

/**
 * The top-level `type` of the JSON object a line ends with, read from the line's last bytes alone
 * (`tail`), scanning back from the closing brace: undefined when `type` is not among the members
 * the tail holds whole. The CLI writes a `result`'s `type` after its `result` text, so a huge
 * result shows its type only here.
 *
 * @since 0.1.0
 * @category parsing
 */
export const tailType = (tail: string): string | undefined => {
  let i = tail.length - 1
  while (i >= 0 && isSpace(tail[i])) i--
  if (tail[i] !== "}") return undefined
  let depth = 0
  for (i = i - 1; i >= 0; i--) {
    const c = tail[i]
    if (c === "\"") {
      const start = stringStart(tail, i)
      if (start < 0) return undefined
      if (depth === 0) {
        const colon = skipSpace(tail, i + 1)
        if (tail[colon] === ":" && stringAt(tail, start) === "type") return stringAt(tail, skipSpace(tail, colon + 1))
      }
      i = start
    } else if (c === "}" || c === "]") depth++
    else if (c === "{" || c === "[") {
      if (depth === 0) return undefined
      depth--
    }
  }
  return undefined
}

/**
 * The top-level `type` of a line known only by its `head` and `tail`: {@link headType}, else
 * {@link tailType}.
 *
 * @since 0.1.0
 * @category parsing
 */
export const lineType = (head: string, tail: string): string | undefined => headType(head) ?? tailType(tail)

/**
 * Parses one line as JSON. Returns `undefined` for a line that is not JSON (the CLI may print
 * the odd non-protocol line; it is skipped and counted, never fatal).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (line: string): unknown => {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/**
 * The `type` of what a transcript records for a line the CLI wrote on stdout that is not JSON
 * (`Transcript.NonJsonLine`: its text), next to {@link oversizedLineType}: the reader makes it, and
 * the timeline and a replay read it, without loading `Transcript`.
 *
 * @since 0.2.0
 * @category transcripts
 */
export const nonJsonLineType = "effect-claude-code/non-json-line"

/**
 * The `type` of what a transcript records for a line over the cap ({@link OversizedLine}).
 *
 * @since 0.2.0
 * @category transcripts
 */
export const oversizedLineType = "effect-claude-code/oversized-line"

/**
 * What a transcript records for a line over the cap, whose bytes were never kept: its size, its
 * message type when its head or tail shows it, its head and its tail. A replay plays a line of
 * that size with that head and tail again ({@link oversizedLineChunks}), over the same cap.
 *
 * @since 0.2.0
 * @category transcripts
 */
export interface OversizedLine {
  /** Tells it apart from the CLI's messages ({@link oversizedLineType}). */
  readonly type: typeof oversizedLineType
  /** The line's whole length in bytes. */
  readonly bytes: number
  /** The message's top-level `type`, when the head or the tail shows it. */
  readonly messageType?: string
  /** The first 2 KiB of the line. */
  readonly head: string
  /** The last 64 KiB of the line. */
  readonly tail: string
}

/**
 * The {@link OversizedLine} a transcript records for `frame`.
 *
 * @since 0.2.0
 * @category transcripts
 */
export const toOversizedLine = (frame: Oversized): OversizedLine => ({
  type: oversizedLineType,
  bytes: frame.bytes,
  ...(frame.type === undefined ? {} : { messageType: frame.type }),
  head: frame.head,
  tail: frame.tail
})

/** What a recorded line's middle is played as: spaces (its bytes were never kept); made on first use. */
let fill: Buffer | undefined

/**
 * A recorded {@link OversizedLine} played again, without its newline, in pieces: its head, spaces
 * where its middle was, its tail; `bytes` long in all, so framed as the same {@link Oversized}
 * (head, tail and type) under the same cap. A line no longer than the tail is the tail itself;
 * a head and tail that overlap (a line under 66 KiB) are joined where they meet.
 *
 * @since 0.2.0
 * @category transcripts
 */
export const oversizedLineChunks = (line: OversizedLine): ReadonlyArray<Uint8Array> => {
  const tail = Buffer.from(line.tail)
  if (tail.length >= line.bytes) return [tail.subarray(tail.length - line.bytes)]
  const head = Buffer.from(line.head).subarray(0, line.bytes - tail.length)
  const chunks: Array<Uint8Array> = [head]
  const spaces = fill ??= Buffer.alloc(64 * 1024, 0x20)
  for (let left = line.bytes - head.length - tail.length; left > 0; left -= spaces.length) {
    chunks.push(left >= spaces.length ? spaces : spaces.subarray(0, left))
  }
  chunks.push(tail)
  return chunks
}
