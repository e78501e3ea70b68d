/**
 * NDJSON framing: bytes from the CLI's stdout to lines, and lines to bytes for its stdin.
 *
 * The splitter works on whole chunks, not per byte or per line: it finds newlines with the native
 * `indexOf`, decodes everything up to the last newline of a chunk in one `TextDecoder` call and
 * splits that string. Newline (0x0A) never occurs inside a multi-byte UTF-8 sequence, so a chunk
 * boundary that falls inside a character only ever lands in the kept tail.
 *
 * @since 0.1.0
 */

/**
 * The default cap on one line: 64 MiB. The official Python SDK dies at 1 MiB, which a large
 * `Read` or tool result exceeds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLineBytes = 64 * 1024 * 1024

/**
 * A line longer than the cap. Its bytes were dropped as they arrived (never buffered whole);
 * `head` keeps its first 2 KiB for the error report.
 *
 * @since 0.1.0
 * @category models
 */
export interface Oversized {
  readonly _tag: "Oversized"
  readonly bytes: number
  readonly head: string
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
  private readonly decoder = new TextDecoder("utf-8")
  private pending: Array<Uint8Array> = []
  private pendingBytes = 0
  private skipping: { bytes: number; head: string } | undefined = undefined

  readonly maxLineBytes: number

  constructor(maxLineBytes: number = defaultMaxLineBytes) {
    this.maxLineBytes = maxLineBytes
  }

  /** Splits one chunk; returns the lines it completes, in order. Empty lines are dropped. */
  push(chunk: Uint8Array, out: Array<Frame> = []): Array<Frame> {
    let start = 0
    const first = chunk.indexOf(NEWLINE)
    if (first === -1) {
      this.keep(chunk)
      return out
    }
    // The line that was open before this chunk ends at `first`.
    this.finishOpenLine(chunk.subarray(0, first), out)
    start = first + 1
    const last = chunk.lastIndexOf(NEWLINE)
    if (last > first) {
      // Everything between the first and the last newline is whole lines: one decode, one split.
      const text = this.decoder.decode(chunk.subarray(start, last))
      const lines = text.split("\n")
      for (let i = 0; i < lines.length; i++) this.emit(lines[i]!, out)
      start = last + 1
    }
    if (start < chunk.length) this.keep(chunk.subarray(start))
    return out
  }

  /** Flushes a last line that had no trailing newline. */
  end(out: Array<Frame> = []): Array<Frame> {
    if (this.skipping !== undefined || this.pendingBytes > 0) this.finishOpenLine(new Uint8Array(0), out)
    return out
  }

  private keep(bytes: Uint8Array): void {
    if (this.skipping !== undefined) {
      this.skipping.bytes += bytes.length
      return
    }
    // A chunk's buffer may be reused by the producer: copy the tail we keep.
    this.pending.push(bytes.slice())
    this.pendingBytes += bytes.length
    if (this.pendingBytes > this.maxLineBytes) {
      this.skipping = { bytes: this.pendingBytes, head: this.headOfPending() }
      this.pending = []
      this.pendingBytes = 0
    }
  }

  private finishOpenLine(tail: Uint8Array, out: Array<Frame>): void {
    if (this.skipping !== undefined) {
      out.push({ _tag: "Oversized", bytes: this.skipping.bytes + tail.length, head: this.skipping.head })
      this.skipping = undefined
      return
    }
    if (this.pendingBytes === 0) {
      if (tail.length > 0) this.emitChecked(tail, out)
      return
    }
    this.pending.push(tail)
    const total = this.pendingBytes + tail.length
    if (total > this.maxLineBytes) {
      out.push({ _tag: "Oversized", bytes: total, head: this.headOfPending() })
      this.pending = []
      this.pendingBytes = 0
      return
    }
    const line = this.decodePending()
    this.pending = []
    this.pendingBytes = 0
    this.emit(line, out)
  }

  private emitChecked(bytes: Uint8Array, out: Array<Frame>): void {
    if (bytes.length > this.maxLineBytes) {
      out.push({ _tag: "Oversized", bytes: bytes.length, head: this.decoder.decode(bytes.subarray(0, HEAD_BYTES)) })
      return
    }
    this.emit(this.decoder.decode(bytes), out)
  }

  private emit(line: string, out: Array<Frame>): void {
    // Lines within one chunk were never measured in bytes: a string's UTF-16 length is a lower
    // bound of its UTF-8 size, and 3x is an upper bound, so only a near-cap line costs a count.
    if (line.length * 3 > this.maxLineBytes && Buffer.byteLength(line, "utf8") > this.maxLineBytes) {
      out.push({ _tag: "Oversized", bytes: Buffer.byteLength(line, "utf8"), head: line.slice(0, HEAD_BYTES) })
      return
    }
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

  private decodePending(): string {
    if (this.pending.length === 1) return this.decoder.decode(this.pending[0]!)
    return this.decoder.decode(Buffer.concat(this.pending))
  }
}

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
