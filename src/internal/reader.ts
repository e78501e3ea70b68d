/**
 * The one reader of the CLI's stdout: frames bytes into lines and parses them (`jsonLines.ts`: the
 * whole lines of a chunk in one `JSON.parse`), decodes each line, and routes it.
 *
 * - `control_response` completes the host's request it answers;
 * - `control_request` starts its handler (forked) or, when it breaks its schema, is answered with
 *   an error at once; `control_cancel_request` interrupts the handler it names;
 * - every other message becomes an event: for each `events` subscriber, and for the user turns
 *   it belongs to (see `turns.ts`).
 *
 * Invariants: reading a chunk never waits on anything (a handler, a consumer, a finalizer): it is
 * synchronous from bytes to queued events. Each read is published as one batch, in four steps
 * whose order matters: the batch is queued for every subscriber and turn; then waiting fibers
 * are completed (control answers, turn results), so a fiber woken by a result (the next turn,
 * say) never sees that turn's events still unpublished; then the consumers waiting on their
 * queues are woken (see `subscribers.ts` for why at once); last, the batch's control requests
 * start their handlers (and its cancels interrupt them), in the order read. A handler forked
 * while routing would run at once, before the events read before its request were published:
 * a Stop hook printing a line would print it inside the text it follows.
 */
import * as Deferred from "effect/Deferred"
import * as Exit from "effect/Exit"
import * as ClaudeError from "../ClaudeError.ts"
import type { Event } from "../Events.ts"
import * as Framing from "../Framing.ts"
import type * as Protocol from "../Protocol.ts"
import { decodeMessage } from "../protocol/codec.ts"
import type * as SessionStore from "../SessionStore.ts"
import type * as Transcript from "../Transcript.ts"
import type { Incoming } from "./incoming.ts"
import { type JsonFrame, JsonLines, ParsedRun } from "./jsonLines.ts"
import type { ControlAnswer, Outgoing } from "./outgoing.ts"
import type { Subscribers } from "./subscribers.ts"
import type { SessionTracing } from "./tracing.ts"
import type { Turns } from "./turns.ts"

export interface ReaderOptions {
  readonly maxLineBytes: number
  readonly outgoing: Outgoing
  readonly incoming: Incoming
  readonly turns: Turns
  readonly subscribers: Subscribers<Event>
  readonly sessionId: Deferred.Deferred<string, ClaudeError.ClaudeError>
  /** The session's spans and metrics: each routed event, and the parent of each handler call. */
  readonly tracing: SessionTracing
  readonly record: ((direction: "recv", message: unknown) => void) | undefined
  /** Whether `record` is given `stream_event`s too. */
  readonly recordStreamEvents: boolean
  /**
   * Where `transcript_mirror` frames go (the `sessionStore` option), and the end of each turn (a
   * `result`, when the mirror flushes). Without one, the frames are dropped: never events.
   */
  readonly mirror: {
    readonly frame: (filePath: string, entries: ReadonlyArray<SessionStore.Entry>) => void
    readonly endOfTurn: () => void
  } | undefined
  /** The permission mode the CLI says it runs in (`system/init`, `system/status` after a switch). */
  readonly permissionMode?: ((mode: string) => void) | undefined
}

/** A JSON string's value, from its text as a line holds it. */
const jsonString = (text: string | undefined): string | undefined => {
  try {
    return text === undefined ? undefined : JSON.parse(text) as string
  } catch {
    return undefined
  }
}

/** The first `"request_id":"…"` of a line's head (a request's own, or its answer's). */
const requestIdIn = (head: string): string | undefined =>
  jsonString(/"request_id"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1])

/**
 * Whether a request the library could not read is a `hook_callback`: such a request still goes to
 * the hooks, which do not run a handler and answer as for a failed call, a guard with its refusal
 * (by its callback id, or as any guard's when that cannot be read: `Hooks.bind`'s dispatch). An
 * error answer would be the CLI's "no opinion": a CLI that does not honour `onFailure: "block"`
 * (before 2.1.332, or for a callback id it cannot match) would run the tool.
 */
const isHookCallback = (request: unknown): request is Record<string, unknown> =>
  typeof request === "object" && request !== null && (request as { readonly subtype?: unknown }).subtype === "hook_callback"

/**
 * The same from an over-cap line's head and tail, as the CLI writes a hook request: the subtype
 * first, the callback id right after it, the input, then the `tool_use_id` last (which puts its
 * span under its tool use). A `callback_id` or `tool_use_id` the input holds is never taken.
 */
const hookCallbackIn = (head: string, tail: string): Record<string, unknown> | undefined => {
  const request = /"request"\s*:\s*\{\s*"subtype"\s*:\s*"hook_callback"\s*,/.exec(head)
  if (request === null) return undefined
  const callbackId = jsonString(/^\s*"callback_id"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head.slice(request.index + request[0].length))?.[1])
  const toolUseId = jsonString(/,\s*"tool_use_id"\s*:\s*("(?:[^"\\]|\\.)*")\s*\}\s*\}\s*$/.exec(tail)?.[1])
  return {
    subtype: "hook_callback",
    ...(callbackId === undefined ? {} : { callback_id: callbackId }),
    ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId })
  }
}

/**
 * The `session_id` of a `system/init` over the cap, from its head (the CLI writes `type`,
 * `subtype`, `cwd`, `session_id` first).
 */
const initSessionIdIn = (head: string): string | undefined =>
  /^\s*\{\s*"type"\s*:\s*"system"\s*,\s*"subtype"\s*:\s*"init"\s*,/.test(head)
    ? jsonString(/"session_id"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1])
    : undefined

/**
 * What a transcript records for a line that is not JSON. Its shape is `Transcript.NonJsonLine`'s
 * (checked by the type): Transcript.ts itself loads only when a session records.
 */
const nonJsonLine = (text: string): Transcript.NonJsonLine => ({ type: Framing.nonJsonLineType, text })

export class Reader {
  private readonly lines: JsonLines
  private readonly frames: Array<JsonFrame> = []
  /** The batch of one read; the subscribers' queues copy it, so the array is reused. */
  private readonly events: Array<Event> = []
  private readonly answers: Array<readonly [string, ControlAnswer]> = []
  /** The batch's control requests and cancels, run in order once its events are out. */
  private readonly controls: Array<() => void> = []
  /** Lines that were not JSON (the CLI's stray output), counted for one debug line at the end. */
  skippedLines = 0
  /** control_responses for no pending request (a request that timed out, say). */
  unmatchedAnswers = 0

  private readonly options: ReaderOptions

  constructor(options: ReaderOptions) {
    this.options = options
    this.lines = new JsonLines(options.maxLineBytes)
  }

  /** Reads one batch of stdout chunks. */
  push(chunks: ReadonlyArray<Uint8Array>): void {
    for (let i = 0; i < chunks.length; i++) this.lines.push(chunks[i]!, this.frames)
    this.flush()
  }

  /** stdout ended: a last line without newline is read too. */
  end(): void {
    this.lines.end(this.frames)
    this.flush()
  }

  private flush(): void {
    const { subscribers, turns } = this.options
    for (let i = 0; i < this.frames.length; i++) {
      const frame = this.frames[i]!
      if (frame instanceof ParsedRun) {
        for (let j = 0; j < frame.values.length; j++) this.routeJson(frame.values[j], frame, j)
      } else {
        this.route(frame)
      }
    }
    this.frames.length = 0
    if (this.events.length > 0) {
      subscribers.publish(this.events)
      this.events.length = 0
    }
    turns.publish()
    for (let i = 0; i < this.answers.length; i++) {
      const [requestId, answer] = this.answers[i]!
      if (!this.options.outgoing.complete(requestId, answer)) this.unmatchedAnswers++
    }
    this.answers.length = 0
    turns.complete()
    subscribers.wake()
    // Taken out before they run: a closure that throws must not leave the others to run again
    // at the next flush (reader.end() flushes once more).
    if (this.controls.length === 0) return
    const controls = this.controls.splice(0)
    for (let i = 0; i < controls.length; i++) controls[i]!()
  }

  /**
   * A line that broke the protocol, its text and why redacted whole (a CLI may echo a secret),
   * then cut: it reaches the caller's error and the span that ends with it.
   */
  private violation(description: string, line: string): ClaudeError.ProtocolViolation {
    const tracing = this.options.tracing
    return new ClaudeError.ProtocolViolation({
      description: tracing.redact(description),
      line: tracing.redactCut(line, 2048)
    })
  }

  private problem(error: ClaudeError.ProtocolViolation, messageType: string | undefined): void {
    const event: Event = { type: "protocol_problem", error, messageType }
    this.events.push(event)
    this.options.turns.note(event)
    // A result that cannot be read still ends its turn, as a typed failure: never a hang.
    if (messageType === "result") {
      // Still the turn's end: the mirror flushes as for a result read whole.
      this.options.mirror?.endOfTurn()
      const failure = ClaudeError.make(error)
      this.options.turns.failCurrent(failure)
      this.options.tracing.turnOver(failure)
    }
  }

  /**
   * The session id, from the first `system/init`, set once. An init the library cannot read in
   * full (over the cap, a field of the wrong type) still gives it: the session goes on, and
   * `sessionId` must not wait for its end.
   */
  private initSessionId(id: string | undefined): void {
    if (id !== undefined && !Deferred.isDoneUnsafe(this.options.sessionId)) {
      Deferred.doneUnsafe(this.options.sessionId, Exit.succeed(id))
    }
  }

  private route(frame: Framing.Frame): void {
    if (typeof frame !== "string") {
      // Its bytes were never kept: the transcript gets what is known of it, for a replay.
      const record = this.options.record
      if (record !== undefined && (this.options.recordStreamEvents || frame.type !== "stream_event")) {
        record("recv", Framing.toOversizedLine(frame))
      }
      const problem = this.violation(`a line of ${frame.bytes} bytes is over the cap of ${this.lines.maxLineBytes}`, frame.head)
      // A request or an answer too long to read is still one: the CLI gets an error answer (it
      // waits for one), the request fails now (the CLI did answer). Its id is in the line's
      // head: the CLI writes it right after the type (`request_id`, `response.request_id`).
      const id = frame.type === "control_request" || frame.type === "control_response" ? requestIdIn(frame.head) : undefined
      if (id !== undefined && frame.type === "control_request") {
        const request = hookCallbackIn(frame.head, frame.tail)
        if (request === undefined) {
          this.controls.push(() => this.options.incoming.reject(id, `The library could not read this request: ${problem.description}`))
        } else {
          // The hooks answer it, a guard with its refusal (`isHookCallback`), under its tool use
          // or turn as a readable one.
          const parent = this.options.tracing.parentOf(request, this.options.turns.current)
          this.controls.push(() => this.options.incoming.dispatch(id, request, parent, problem.description))
        }
      } else if (id !== undefined) {
        this.controls.push(() => this.options.outgoing.fail(id, problem))
      }
      if (frame.type === "system") this.initSessionId(initSessionIdIn(frame.head))
      this.problem(problem, frame.type)
      return
    }
    const json = Framing.parseJson(frame)
    if (json === undefined) {
      this.skippedLines++
      // Skipped, yet recorded: a transcript is every line read.
      if (this.options.record !== undefined) this.options.record("recv", nonJsonLine(frame))
      return
    }
    this.routeJson(json, frame, 0)
  }

  /** Routes a line's JSON value; `source` gives the line's text (`index` in a run) for a violation. */
  private routeJson(json: unknown, source: string | ParsedRun, index: number): void {
    const record = this.options.record
    if (record !== undefined && (this.options.recordStreamEvents || (json as { type?: unknown } | null)?.type !== "stream_event")) {
      record("recv", json)
    }
    const decoded = decodeMessage(json)
    if (decoded._tag === "Failure") {
      // `null`, a number, a string or an array is JSON too: only an object has a type.
      const object = typeof json === "object" && json !== null ? json as Record<string, unknown> : undefined
      const messageType = typeof object?.type === "string" ? object.type : undefined
      if (messageType === "control_request") {
        const request = object!.request
        const requestId = object!.request_id
        if (typeof requestId === "string" && isHookCallback(request)) {
          // The hooks answer it, a guard with its refusal (`isHookCallback`).
          const parent = this.options.tracing.parentOf(request, this.options.turns.current)
          this.controls.push(() => this.options.incoming.dispatch(requestId, request, parent, decoded.failure))
        } else {
          // The CLI waits for an answer to every request: one it cannot be served gets an error.
          const description = `The library could not read this request: ${decoded.failure}`
          this.controls.push(() => this.options.incoming.reject(requestId, description))
        }
      }
      const problem = this.violation(decoded.failure, typeof source === "string" ? source : source.line(index))
      const answered = messageType === "control_response" && typeof object!.response === "object" &&
          object!.response !== null
        ? (object!.response as { readonly request_id?: unknown }).request_id
        : undefined
      if (typeof answered === "string") {
        // Still the answer to its request, only unreadable: that request fails with it now, not
        // with ControlTimeout at its deadline (the CLI did answer).
        this.controls.push(() => this.options.outgoing.fail(answered, problem))
      }
      if (messageType === "system" && object!.subtype === "init" && typeof object!.session_id === "string") {
        this.initSessionId(object!.session_id)
      }
      this.problem(problem, messageType)
      return
    }
    const message = decoded.success
    switch (message.type) {
      case "control_response": {
        const answer = message.response as ControlAnswer & { readonly request_id: string }
        this.answers.push([answer.request_id, answer])
        return
      }
      case "control_request": {
        // The span of the tool use the request is about, else of the turn running when it was read.
        const parent = this.options.tracing.parentOf(
          message.request as Record<string, unknown>,
          this.options.turns.current
        )
        this.controls.push(() =>
          this.options.incoming.dispatch(message.request_id, message.request as Record<string, unknown>, parent)
        )
        return
      }
      case "control_cancel_request":
        this.controls.push(() => this.options.incoming.cancel(message.request_id))
        return
      case "keep_alive":
        return
      case "transcript_mirror":
        // Each entry is a JSON object; the CLI's transcript lines all have a string `type`.
        this.options.mirror?.frame(message.filePath, message.entries as ReadonlyArray<SessionStore.Entry>)
        return
      case "result":
        this.options.mirror?.endOfTurn()
        break
      case "system":
        if (message.subtype === "init") this.initSessionId(message.session_id)
        if ("permissionMode" in message && typeof message.permissionMode === "string") {
          this.options.permissionMode?.(message.permissionMode)
        }
    }
    // The turns a result ends are those running before it is routed; other lines may start one.
    const before = this.options.turns.current
    const event = this.options.turns.route(message)
    // A late result leaves the running turn running (`Turns.finish`): it closes none of its spans.
    if (event.type !== "result") this.options.tracing.observe(event, this.options.turns.current)
    else if (this.options.turns.current.length === 0) this.options.tracing.observe(event, before)
    this.events.push(event)
  }
}
