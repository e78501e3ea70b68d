/**
 * The CLI's stdout as JSON values: lines framed by `Framing.LineSplitter`, and the whole lines of
 * one chunk parsed with one `JSON.parse`, not one a line.
 *
 * Why: a read of the CLI's stdout is up to 64 KiB, some two hundred lines on a long turn. Parsed
 * as one array (`[line,line,…]`) and decoded with one `toString`, they cost about a fifth less
 * than a `toString` and a `JSON.parse` each (by hand, on the load fake's lines); on the few larger
 * lines of a short turn, the same within 4%. V8 makes each parsed string one byte a character
 * when it can, whatever the other lines hold (the reason the splitter decodes each line alone).
 *
 * Invariants: the values come out in the order of the lines, one a line. The run is the whole
 * lines after a chunk's first newline; it is parsed in one piece only when each of its lines
 * opens with `{` and closes with `}` with one newline between them (no empty line, no `\r`, no
 * byte order mark), it fits a pipe's read and the cap on one line, and the parse gives exactly
 * one value a line; otherwise its lines go through the splitter one by one, where each is
 * parsed, skipped or reported on its own.
 *
 * What this does not tell apart: lines that are not JSON each on their own but were written to
 * pair up (one opening a string or an array that a later one closes, and another holding two
 * objects, so that the count still matches) parse as values the line by line path would have
 * skipped, and a violation among them is reported with the text of the line at its position. The
 * CLI writes one `JSON.stringify`d object a line, and whatever could write such lines to its
 * stdout could write those values as lines of their own.
 */
import * as Framing from "../Framing.ts"

const NEWLINE = 10
const OPEN = 0x7B // {
const CLOSE = 0x7D // }
const COMMA = 0x2C
const OPEN_ARRAY = 0x5B // [
const CLOSE_ARRAY = 0x5D // ]

/**
 * The longest run parsed in one piece: a read of a pipe (64 KiB). One buffer for the process,
 * made on first use (the JavaScript thread is the only one to use it, and only within `push`);
 * one a session would add its size to every idle session.
 */
const RUN_BYTES = 64 * 1024
let scratch: Buffer | undefined

/**
 * Whole lines of one chunk, parsed together: `values[i]` is line `i`'s JSON value. It reads its
 * chunk again for {@link line}: the reader routes a run before its next read, while the chunk is
 * as it came.
 */
export class ParsedRun {
  readonly values: ReadonlyArray<unknown>
  private readonly chunk: Buffer
  private readonly start: number
  private readonly end: number
  /** The run's lines as text, made on the first {@link line} (once, however many lines fail). */
  private texts: ReadonlyArray<string> | undefined = undefined
  constructor(values: ReadonlyArray<unknown>, chunk: Buffer, start: number, end: number) {
    this.values = values
    this.chunk = chunk
    this.start = start
    this.end = end
  }
  /** Line `index`'s text, for an error message (not on the hot path). */
  line(index: number): string {
    this.texts ??= this.chunk.toString("utf8", this.start, this.end).split("\n")
    return this.texts[index] ?? ""
  }
}

/** One piece of stdout: a frame the splitter made (a line to parse, an oversized line), or a parsed run. */
export type JsonFrame = Framing.Frame | ParsedRun

/**
 * The lines of `chunk[start, end)` (`end` at a newline) as JSON values, one a line, or undefined
 * when they are not exactly that: copied into the scratch buffer as `[line,line,…]` (each
 * newline turned into a comma, checked to stand between a `}` and a `{`), decoded once, parsed
 * once.
 */
const parseRun = (chunk: Buffer, start: number, end: number): ReadonlyArray<unknown> | undefined => {
  const length = end - start
  if (length > RUN_BYTES || chunk[start] !== OPEN || chunk[end - 1] !== CLOSE) return undefined
  const buffer = scratch ??= Buffer.allocUnsafe(RUN_BYTES + 2)
  buffer[0] = OPEN_ARRAY
  chunk.copy(buffer, 1, start, end)
  buffer[length + 1] = CLOSE_ARRAY
  let lines = 1
  for (let i = chunk.indexOf(NEWLINE, start); i !== -1 && i < end; i = chunk.indexOf(NEWLINE, i + 1)) {
    if (chunk[i - 1] !== CLOSE || chunk[i + 1] !== OPEN) return undefined
    buffer[i - start + 1] = COMMA
    lines++
  }
  let values: unknown
  try {
    values = JSON.parse(buffer.toString("utf8", 0, length + 2))
  } catch {
    return undefined
  }
  return Array.isArray(values) && values.length === lines ? values : undefined
}

/** The splitter only appends frames, which are JSON frames. */
const asFrames = (out: Array<JsonFrame>): Array<Framing.Frame> => out as Array<Framing.Frame>

/** One per session's stdout, as `Framing.LineSplitter` is: `push` each chunk, then `end` once. */
export class JsonLines {
  private readonly splitter: Framing.LineSplitter

  constructor(maxLineBytes: number) {
    this.splitter = new Framing.LineSplitter(maxLineBytes)
  }

  /** The cap on one line in force (see `Framing.LineSplitter`). */
  get maxLineBytes(): number {
    return this.splitter.maxLineBytes
  }

  /** Frames one chunk; appends what it completes to `out`, in order (the splitter only appends). */
  push(bytes: Uint8Array, out: Array<JsonFrame>): void {
    const chunk = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const first = chunk.indexOf(NEWLINE)
    const last = first === -1 ? -1 : chunk.lastIndexOf(NEWLINE)
    // One newline at most: nothing to parse together.
    if (last <= first) {
      this.splitter.push(chunk, asFrames(out))
      return
    }
    // The line open before this chunk ends at `first`; the lines after it up to `last` are whole.
    this.splitter.push(chunk.subarray(0, first + 1), asFrames(out))
    const start = first + 1
    const values = last - start <= this.splitter.maxLineBytes ? parseRun(chunk, start, last) : undefined
    if (values === undefined) this.splitter.push(chunk.subarray(start, last + 1), asFrames(out))
    else out.push(new ParsedRun(values, chunk, start, last))
    if (last + 1 < chunk.length) this.splitter.push(chunk.subarray(last + 1), asFrames(out))
  }

  /** stdout ended: a last line without newline is framed too. */
  end(out: Array<JsonFrame>): void {
    this.splitter.end(asFrames(out))
  }
}
