/**
 * The CLI's stderr as a stream of lines, for every `Connection` (the real process, the scripted
 * fake, replay): bytes or text are split into lines as they arrive and published to whoever
 * listens, while the exit status keeps its own bounded tail.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Mailbox } from "./mailbox.ts"

/** The longest line kept; a longer one is cut into pieces of this many characters. */
export const MAX_LINE_CHARS = 16 * 1024
/** Lines a stream that starts late still gets (an early error, written before anyone listened). */
export const REPLAY_LINES = 100
/** Lines a subscriber may fall behind before the oldest are dropped. */
export const BUFFERED_LINES = 4096
/** The stderr an exit reports (`stderrTail`): its last this many characters, cut after redacting. */
export const TAIL_CHARS = 8 * 1024
/**
 * What a transport keeps before the last {@link TAIL_CHARS}: the secrets are taken out of all it
 * kept, then the tail is cut, so a secret the reported tail starts inside of (one no longer than
 * this) is out whole.
 */
export const TAIL_MARGIN = 8 * 1024

/**
 * Splits text into lines (without `\n` or `\r\n`), keeping an unfinished last line for the next
 * push. Bytes are decoded as UTF-8 across chunk boundaries.
 */
export class LineBuffer {
  private readonly decoder = new TextDecoder("utf-8")
  private pending = ""

  push(chunk: Uint8Array | string): Array<string> {
    const text = this.pending + (typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }))
    const parts = text.split("\n")
    this.pending = parts.pop()!
    const lines: Array<string> = []
    for (const part of parts) this.add(part.endsWith("\r") ? part.slice(0, -1) : part, lines)
    while (this.pending.length > MAX_LINE_CHARS) {
      lines.push(this.pending.slice(0, MAX_LINE_CHARS))
      this.pending = this.pending.slice(MAX_LINE_CHARS)
    }
    return lines
  }

  /** The unfinished last line, if any. */
  end(): Array<string> {
    const rest = this.pending + this.decoder.decode()
    this.pending = ""
    const lines: Array<string> = []
    if (rest.length > 0) this.add(rest.endsWith("\r") ? rest.slice(0, -1) : rest, lines)
    return lines
  }

  private add(line: string, lines: Array<string>): void {
    for (let start = 0; start < line.length; start += MAX_LINE_CHARS) lines.push(line.slice(start, start + MAX_LINE_CHARS))
    if (line.length === 0) lines.push("")
  }
}

/**
 * `lines` with `redact` applied, also across the cuts of a line over {@link MAX_LINE_CHARS}: each
 * piece redacted alone would show a secret cut there in two clear halves. A piece of full length
 * (which a cut may follow) is held until the next one; if a secret spans the two, the first is
 * written only up to where that secret starts, and the rest goes with the next piece. Otherwise
 * the pieces are written as they came. A secret longer than a piece may still be cut.
 */
export const redactLines = (redact: (text: string) => string) =>
<E, R>(lines: Stream.Stream<string, E, R>): Stream.Stream<string, E, R> =>
  Stream.mapAccum(lines, () => "", (held: string, piece: string) => {
    const out: Array<string> = []
    let rest = piece
    if (held.length > 0) {
      const text = held + piece
      const whole = redact(text)
      // A secret spans `at` when redacting the two sides apart differs from redacting them whole.
      let at = held.length
      while (at > 0 && redact(text.slice(0, at)) + redact(text.slice(at)) !== whole) at--
      if (at > 0) out.push(redact(text.slice(0, at)))
      rest = text.slice(at)
    }
    if (piece.length === MAX_LINE_CHARS) return [rest, out] as const
    out.push(redact(rest))
    return ["", out] as const
  }, { onHalt: (held) => held.length > 0 ? [redact(held)] : [] })

/** Where a connection writes its stderr, and the `Connection.stderr` stream that reads it. */
export interface StderrFeed {
  /** Splits and publishes a chunk. */
  readonly push: (chunk: Uint8Array | string) => Effect.Effect<void>
  /** `push`, for a caller outside Effect (a stream's `data` listener). */
  readonly pushUnsafe: (chunk: Uint8Array | string) => void
  /** Publishes the unfinished last line and ends every stream. Idempotent. */
  readonly end: Effect.Effect<void>
  /** `end`, for a caller outside Effect. */
  readonly endUnsafe: () => void
  readonly stream: Stream.Stream<string>
}

export const makeStderrFeed: Effect.Effect<StderrFeed> = Effect.sync(() => {
  // Not a `PubSub.sliding`: its ring is allocated whole up front (~96 KB a session for
  // BUFFERED_LINES slots), for a stream that mostly carries nothing.
  const buffer = new LineBuffer()
  const replay: Array<string> = []
  const readers = new Set<Mailbox<string, never>>()
  let ended = false
  const publish = (lines: ReadonlyArray<string>): void => {
    if (lines.length === 0) return
    for (const line of lines) {
      replay.push(line)
      if (replay.length > REPLAY_LINES) replay.shift()
      for (const reader of readers) reader.offer(line)
    }
    for (const reader of readers) reader.wake()
  }
  const subscribe = Effect.acquireRelease(
    Effect.sync(() => {
      const reader = new Mailbox<string, never>(BUFFERED_LINES)
      reader.offerAll(replay)
      if (ended) reader.end()
      else readers.add(reader)
      return reader
    }),
    (reader) => Effect.sync(() => readers.delete(reader))
  )
  const pushUnsafe = (chunk: Uint8Array | string): void => {
    if (!ended) publish(buffer.push(chunk))
  }
  const endUnsafe = (): void => {
    if (ended) return
    ended = true
    publish(buffer.end())
    for (const reader of readers) {
      reader.end()
      reader.wake()
    }
    readers.clear()
  }
  return {
    push: (chunk) => Effect.sync(() => pushUnsafe(chunk)),
    pushUnsafe,
    end: Effect.sync(endUnsafe),
    endUnsafe,
    stream: Stream.unwrap(Effect.map(subscribe, (reader) => reader.stream))
  }
})
