/**
 * Transcripts: every line a session writes and reads (`stream_event`s only when asked), one JSON
 * line each, `{"dir":"send"|"recv","ts":...,"msg":...}`, for debugging, for bug reports, for replay
 * (`Replay.layer` from `effect-claude-code/testing`) and for the timeline page
 * (`npx effect-claude-code view <transcript.ndjson>`, {@link Timeline}).
 *
 * `ts` is when the line was written or read, in milliseconds since the epoch (the `Clock`'s
 * time). Transcripts recorded before 0.2.0 have no `ts`; they still parse and replay. A line over
 * the session's `maxLineBytes`, whose bytes are never kept, is recorded as what is known of it
 * (`Framing.OversizedLine`), which a replay plays as a line of its size again; a line the CLI
 * wrote on stdout that is not JSON, as its text ({@link NonJsonLine}), which a replay writes again.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Claude, Transcript } from "effect-claude-code"
 *
 * const program = Effect.gen(function*() {
 *   const recorder = yield* Transcript.toFile("session.ndjson")
 *   const session = yield* Claude.open({ transcript: recorder })
 *   return yield* session.run("Say hello")
 * })
 * ```
 *
 * Recording never slows the session: `record` only enqueues (unbounded), and a fiber writes.
 * The account e-mail from the `initialize` answer (in any casing) and the session's secrets (the
 * `Redacted` values of its environment, given through `Recorder.secrets`) are replaced with
 * `[redacted]` in every line, also escaped inside JSON text in a string (as JavaScript, Go or
 * Python escape it) and, a secret, in base64; lines are held back until that answer is seen
 * (or the recorder closes), so even the lines written before it are redacted. A recorder given to
 * several sessions holds each session's lines back until its own `initialize` is answered, so
 * each session's account e-mail is redacted in them; the other sessions' lines are written
 * meanwhile (a session whose CLI never answers holds back its own only). An answer over the
 * cap is read from its head and tail; when they show no whole account, they are dropped (a cut may
 * have left a part of it there). A failing sink never ends the session: the failure is logged
 * and kept in `failure`, and the lines after it are dropped. Closing the scope flushes what is
 * queued, waiting at most `flushTimeout`.
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import type { Recorder } from "./Claude.ts"
import * as ClaudeError from "./ClaudeError.ts"
import * as Framing from "./Framing.ts"
import { emailOfAccount } from "./internal/accountEmail.ts"
import { describeError } from "./internal/describeCause.ts"
import { openOwnerOnly } from "./internal/ownerOnlyFile.ts"
import * as SecretText from "./internal/secretText.ts"
import * as SchemaJit from "./internal/schemaJit.ts"

/**
 * One line of a transcript.
 *
 * @since 0.1.0
 * @category models
 */
export const Line = Schema.Struct({
  dir: Schema.Literals(["send", "recv"]),
  /**
   * When the line was written or read, ms since the epoch (a time a `Date` can hold: within
   * +-8.64e15); absent in transcripts before 0.2.0.
   */
  ts: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: -8.64e15, maximum: 8.64e15 }))),
  msg: Schema.Unknown,
  /**
   * Which session of the recorder the line is, in the order they opened (`Recorder.record`'s):
   * absent for the first (and for a recorder of one session), `1` for the second, and so on.
   * `Replay` plays the n-th session's lines to the n-th session opened on it.
   *
   * @since 0.2.0
   */
  session: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})

/**
 * @since 0.1.0
 * @category models
 */
export interface Line extends Schema.Schema.Type<typeof Line> {}

/**
 * What a transcript records for a line the CLI wrote on stdout that is not JSON (a warning it
 * printed; the session skips it): its text, redacted as every recorded line is. A replay writes
 * the text again as a line; the timeline shows it as a problem. Its `type` is
 * `Framing.nonJsonLineType`.
 *
 * @since 0.2.0
 * @category models
 */
export const NonJsonLine = Schema.Struct({
  type: Schema.Literal(Framing.nonJsonLineType),
  text: Schema.String
})

/**
 * @since 0.2.0
 * @category models
 */
export interface NonJsonLine extends Schema.Schema.Type<typeof NonJsonLine> {}

/**
 * A recorder for `SessionOptions.transcript`, with the recording's failure, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface TranscriptRecorder extends Recorder {
  /**
   * `Some(TranscriptFailed)` once the sink has failed (or the flush at close timed out, or a line
   * came after the recorder's scope closed). The session is never failed by it; look here to know
   * whether the transcript is complete.
   */
  readonly failure: Effect.Effect<Option.Option<ClaudeError.ClaudeError>>
}

/**
 * Options of a recorder.
 *
 * @since 0.1.0
 * @category options
 */
export interface RecorderOptions {
  /** How long closing the scope waits for the queued lines to be written. Default 5 seconds. */
  readonly flushTimeout?: Duration.Input | undefined
  /**
   * Also records the CLI's `stream_event`s (the deltas of `includePartialMessages`). Default
   * `false`: they are many and repeat what the final messages hold.
   *
   * @since 0.2.0
   */
  readonly streamEvents?: boolean | undefined
}

interface Entry {
  readonly dir: "send" | "recv"
  readonly ts: number
  readonly msg: unknown
  /** The recorder's session the line is (0: the first, not written). */
  readonly session: number
}

type Holder = { readonly type?: unknown; readonly request?: unknown; readonly response?: unknown }

const initializeRequestId = (message: unknown): string | undefined => {
  const m = message as Holder | null
  if (m === null || typeof m !== "object" || m.type !== "control_request") return undefined
  const request = m.request as { subtype?: unknown } | null
  const id = (m as { request_id?: unknown }).request_id
  return request !== null && typeof request === "object" && request.subtype === "initialize" && typeof id === "string"
    ? id
    : undefined
}

/**
 * What an `initialize` answer tells of the account e-mail: the e-mail (`undefined`: the account
 * has none), or nothing readable: an answer over the cap whose head and tail show no whole
 * account, where a cut may have left a part of the e-mail.
 */
type AccountEmail =
  | { readonly _tag: "Read"; readonly email: string | undefined }
  | { readonly _tag: "Unreadable" }

/** What the answer to the initialize request `id` tells of the account e-mail. */
interface InitializeAnswer {
  readonly id: string
  readonly email: AccountEmail
}

/** `Some(what it tells of the e-mail)` when `message` answers one of the initialize requests `ids`. */
const initializeAnswer = (message: unknown, ids: ReadonlySet<string>): Option.Option<InitializeAnswer> => {
  const m = message as Holder | null
  if (m === null || typeof m !== "object") return Option.none()
  if (m.type === Framing.oversizedLineType) return overCapAnswer(m as Partial<Framing.OversizedLine>, ids)
  if (m.type !== "control_response") return Option.none()
  const response = m.response as { request_id?: unknown; response?: unknown } | null
  if (response === null || typeof response !== "object" || typeof response.request_id !== "string") return Option.none()
  if (!ids.has(response.request_id)) return Option.none()
  const account = (response.response as { account?: unknown } | null | undefined)?.account
  return Option.some({ id: response.request_id, email: { _tag: "Read", email: emailOfAccount(account) } })
}

// An over-cap line is known by its head and tail only (`Framing.OversizedLine`); these read them.
// The CLI writes a control_response's `request_id` right after its `subtype`, in the head.
const requestIdPattern = /"request_id"\s*:\s*("(?:[^"\\]|\\.)*")/
// A whole `"account":{…}` of members that are no objects or arrays, as the CLI writes it.
const accountPattern = /"account"\s*:\s*(null|\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*\})/
// An `"account":{…` cut after its `"email"`.
const accountEmailPattern = /"account"\s*:\s*\{(?:[^{}[\]"]|"(?:[^"\\]|\\.)*")*?"email"\s*:\s*("(?:[^"\\]|\\.)*")/

const parsed = (json: string | undefined): unknown => json === undefined ? undefined : Framing.parseJson(json)

/**
 * An over-cap line taken for the answer to a pending `initialize` request: a `control_response`
 * whose head names that request. Its e-mail is read from the whole line when its head and tail
 * hold it (a line under 66 KiB), else from an `account` its head or tail shows; else it is
 * unreadable.
 */
const overCapAnswer = (marker: Partial<Framing.OversizedLine>, ids: ReadonlySet<string>): Option.Option<InitializeAnswer> => {
  const { bytes, head, tail } = marker
  if (marker.messageType !== "control_response" || typeof head !== "string" || typeof tail !== "string") return Option.none()
  const id = parsed(requestIdPattern.exec(head)?.[1])
  if (typeof id !== "string" || !ids.has(id)) return Option.none()
  if (typeof bytes === "number" && Buffer.byteLength(head) + Buffer.byteLength(tail) >= bytes) {
    const whole = Buffer.concat(Framing.oversizedLineChunks({ type: Framing.oversizedLineType, bytes, head, tail })).toString()
    const line = parsed(whole) as { response?: { response?: { account?: unknown } | null } | null } | undefined
    if (line !== null && typeof line === "object") {
      return Option.some({ id, email: { _tag: "Read", email: emailOfAccount(line.response?.response?.account) } })
    }
  }
  for (const text of [head, tail]) {
    const account = accountPattern.exec(text)
    if (account !== null) return Option.some({ id, email: { _tag: "Read", email: emailOfAccount(parsed(account[1])) } })
    const email = parsed(accountEmailPattern.exec(text)?.[1])
    if (typeof email === "string") return Option.some({ id, email: { _tag: "Read", email: email.length > 0 ? email : undefined } })
  }
  return Option.some({ id, email: { _tag: "Unreadable" } })
}

/** The account e-mails' forms, lower-case, and a pattern of them in any casing. */
interface Emails {
  readonly forms: Array<string>
  pattern: RegExp | undefined
}

/** A streamed part of a content block's text (its key names the block), with its field. */
interface Delta {
  readonly key: string
  readonly field: "text" | "thinking" | "partial_json"
  readonly text: string
}

const deltaFields = { text_delta: "text", thinking_delta: "thinking", input_json_delta: "partial_json" } as const

/** The key prefix of an agent's blocks: its session's (a recorder may record several) and its own. */
const agentKey = (entry: Entry): string =>
  `${entry.session}\u0000${String((entry.msg as { parent_tool_use_id?: unknown }).parent_tool_use_id ?? "")}\u0000`

const deltaOf = (entry: Entry): Delta | undefined => {
  const msg = entry.msg as { type?: unknown; event?: unknown; parent_tool_use_id?: unknown } | null
  if (entry.dir !== "recv" || msg === null || typeof msg !== "object" || msg.type !== "stream_event") return undefined
  const event = msg.event as { type?: unknown; index?: unknown; delta?: unknown } | null
  if (event === null || typeof event !== "object" || event.type !== "content_block_delta") return undefined
  const delta = event.delta as Record<string, unknown> | null
  if (delta === null || typeof delta !== "object" || typeof delta.type !== "string" || !Object.hasOwn(deltaFields, delta.type)) {
    return undefined
  }
  const field = deltaFields[delta.type as keyof typeof deltaFields]
  const text = delta[field]
  return typeof text === "string" ? { key: `${agentKey(entry)}${String(event.index)}`, field, text } : undefined
}

/** `entry` (a delta of `field`) with its text replaced by `text`. */
const withDeltaText = (entry: Entry, field: Delta["field"], text: string): Entry => {
  const msg = entry.msg as { event: { delta: Record<string, unknown> } }
  return { ...entry, msg: { ...msg, event: { ...msg.event, delta: { ...msg.event.delta, [field]: text } } } }
}

/** The block keys whose held deltas a line ends: a block's stop, its agent's message's end. */
const blockEnds = (entry: Entry, held: ReadonlyMap<string, unknown>): ReadonlyArray<string> => {
  const msg = entry.msg as { type?: unknown; event?: unknown; parent_tool_use_id?: unknown } | null
  if (entry.dir !== "recv" || msg === null || typeof msg !== "object") return []
  // A turn's result ends its session's blocks, not another session's.
  if (msg.type === "result") return [...held.keys()].filter((key) => key.startsWith(`${entry.session}\u0000`))
  const agent = agentKey(entry)
  const ofAgent = () => [...held.keys()].filter((key) => key.startsWith(agent))
  if (msg.type === "assistant") return ofAgent()
  if (msg.type !== "stream_event") return []
  const event = msg.event as { type?: unknown; index?: unknown } | null
  if (event?.type === "content_block_stop") return [`${agent}${String(event.index)}`]
  return event?.type === "message_stop" ? ofAgent() : []
}

/**
 * Streamed text with a secret split over several lines (`streamEvents`): a delta whose text ends
 * with what may begin a secret is held back and joined with the next delta of its block, so that
 * the secret is whole in one line when it is redacted (a block is known by its session, agent
 * and index). A session's lines keep their order: those after a held delta (another agent's
 * deltas, a control request, the program's answer to the text) wait behind it, and the joined
 * delta is written in its place; another session's lines do not wait. Its block's end, its agent's message or its session's turn
 * result lets it go, a part of a secret left at its end replaced. A recording has fewer, longer
 * deltas there; their text is the same, and no line comes before a text it came after.
 */
const makeDeltaJoiner = (forms: ReadonlyArray<string>, emails: Emails) => {
  // Each session's lines not written yet, in their order; a held delta's slot is empty until it
  // is let go. Invariant: after each push, a session's queue is empty or its first slot is a held
  // delta's. Another session's lines never wait (a replay plays each session on its own), so a
  // session whose CLI died with a delta held holds back its own lines only.
  const queues = new Map<number, Array<{ entry: Entry | undefined }>>()
  const held = new Map<string, { readonly slot: { entry: Entry | undefined }; readonly entry: Entry; readonly delta: Delta }>()
  const release = (keys: ReadonlyArray<string>): void => {
    for (const key of keys) {
      const joined = held.get(key)
      if (joined === undefined) continue
      held.delete(key)
      joined.slot.entry = withDeltaText(joined.entry, joined.delta.field, SecretText.redactCutEnd(joined.delta.text, forms))
    }
  }
  const drain = (queue: Array<{ entry: Entry | undefined }>): Array<Entry> => {
    const out: Array<Entry> = []
    while (queue.length > 0 && queue[0]!.entry !== undefined) out.push(queue.shift()!.entry!)
    return out
  }
  const queueOf = (session: number) => {
    let queue = queues.get(session)
    if (queue === undefined) {
      queue = []
      queues.set(session, queue)
    }
    return queue
  }
  return {
    push: (entry: Entry): ReadonlyArray<Entry> => {
      const delta = deltaOf(entry)
      const queue = queueOf(entry.session)
      if (delta === undefined) {
        if (queue.length === 0) return [entry]
        release(blockEnds(entry, held))
        queue.push({ entry })
        return drain(queue)
      }
      const before = held.get(delta.key)
      const text = (before?.delta.text ?? "") + delta.text
      const replaced = SecretText.replaceAll(text, forms)
      const redacted = emails.pattern === undefined ? replaced : replaced.replace(emails.pattern, SecretText.REDACTED)
      const open = SecretText.openPrefixLength(redacted, forms) + SecretText.openPrefixLength(redacted.toLowerCase(), emails.forms)
      if (before !== undefined) {
        // Joined in the place of the block's first held delta.
        held.delete(delta.key)
        if (open === 0) {
          before.slot.entry = withDeltaText(before.entry, delta.field, text)
          return drain(queue)
        }
        held.set(delta.key, { slot: before.slot, entry: before.entry, delta: { ...delta, text } })
        return []
      }
      if (open === 0) {
        if (queue.length === 0) return [entry]
        queue.push({ entry })
        return []
      }
      const slot: { entry: Entry | undefined } = { entry: undefined }
      queue.push(slot)
      held.set(delta.key, { slot, entry, delta })
      return drain(queue)
    },
    flush: (): ReadonlyArray<Entry> => {
      release([...held.keys()])
      return [...queues.values()].flatMap(drain)
    }
  }
}

/**
 * A message with the secrets in its strings replaced; the head and tail of a line over the cap,
 * cut where its bytes were dropped, lose a part of a secret at the cut too.
 */
const redactMessage = (msg: unknown, forms: ReadonlyArray<string>, emails: Emails): unknown => {
  const redacted = SecretText.redactValue(msg, forms, emails.pattern)
  const marker = redacted as Partial<Framing.OversizedLine> | null
  if (forms.length === 0 || marker === null || typeof marker !== "object" || marker.type !== Framing.oversizedLineType) {
    return redacted
  }
  return {
    ...marker,
    ...(typeof marker.head === "string" ? { head: SecretText.redactCutEnd(marker.head, forms) } : {}),
    ...(typeof marker.tail === "string" ? { tail: SecretText.redactCutStart(marker.tail, forms) } : {})
  }
}

/**
 * The redacting line encoder: turns entries into lines, holding them back until the e-mail of
 * the `initialize` answer is known (or known absent), and replacing the e-mail and the session's
 * secrets (`secrets`) with `[redacted]` in the strings of each message (a number that happens to
 * hold a secret's digits is left as it is: the line must still parse). `finish` releases what is
 * held.
 */
const makeEncoder = () => {
  // Each session of the recorder (by its number): its `initialize` requests not answered yet,
  // whether its account's e-mail is known (one answered, none pending), and its lines held back
  // until then, with their place among all lines. Another session's lines are not held for it.
  const sessions = new Map<
    number,
    { readonly pending: Set<string>; settled: boolean; readonly held: Array<readonly [number, Entry]> }
  >()
  let arrived = 0
  const sessionOf = (n: number) => {
    let session = sessions.get(n)
    if (session === undefined) {
      session = { pending: new Set(), settled: false, held: [] }
      sessions.set(n, session)
    }
    return session
  }
  // Longest first: a secret holding another is replaced whole.
  const forms: Array<string> = []
  // The forms of the secrets in a line's JSON text (a string value escaped once more): a line
  // without any is written as it is, not walked.
  const lineForms: Array<string> = []
  const addForms = (value: string) => {
    for (const form of SecretText.formsOf(value)) if (!forms.includes(form)) forms.push(form)
    forms.sort((a, b) => b.length - a.length)
    for (const form of SecretText.formsOf(value, 3).slice(1)) if (!lineForms.includes(form)) lineForms.push(form)
    if (!lineForms.includes(value)) lineForms.push(value)
  }
  // The account e-mails, replaced in any casing (a tool prints one as it was typed).
  const emails: Emails = { forms: [], pattern: undefined }
  const addEmail = (email: string) => {
    addForms(email)
    // Not its base64: that is not the same in another casing.
    for (const form of SecretText.escapedFormsOf(email.toLowerCase(), 3)) if (!emails.forms.includes(form)) emails.forms.push(form)
    emails.pattern = SecretText.foldedPattern(emails.forms)
  }
  const joiner = makeDeltaJoiner(forms, emails)
  const encode = (entry: Entry): string => {
    const plain = JSON.stringify(entry.msg) as string | undefined
    const walk = plain !== undefined && (lineForms.some((form) => plain.includes(form)) ||
      (emails.pattern !== undefined && plain.search(emails.pattern) !== -1) ||
      (forms.length > 0 && (entry.msg as { type?: unknown } | null)?.type === Framing.oversizedLineType))
    const msg = walk ? JSON.stringify(redactMessage(entry.msg, forms, emails)) : plain
    return `{"dir":${JSON.stringify(entry.dir)},"ts":${JSON.stringify(entry.ts)}${msg === undefined ? "" : `,"msg":${msg}`}${
      entry.session === 0 ? "" : `,"session":${entry.session}`
    }}\n`
  }
  const release = (entries: ReadonlyArray<Entry>): ReadonlyArray<string> => entries.flatMap(joiner.push).map(encode)
  return {
    secrets: (values: ReadonlyArray<string>): void => {
      for (const value of values) if (value.length > 0) addForms(value)
    },
    push: (entry: Entry): ReadonlyArray<string> => {
      const session = sessionOf(entry.session)
      if (entry.dir === "send") {
        const id = initializeRequestId(entry.msg)
        if (id !== undefined) {
          // The session starts: its lines are held until its account is known.
          session.pending.add(id)
          session.settled = false
        }
      }
      if (session.settled) return release([entry])
      session.held.push([arrived++, entry])
      if (entry.dir === "recv" && session.pending.size > 0) {
        const answer = initializeAnswer(entry.msg, session.pending)
        if (Option.isSome(answer)) {
          session.pending.delete(answer.value.id)
          if (answer.value.email._tag === "Unreadable") {
            // Fail closed: the head and tail may hold a part of the e-mail, which is not known.
            const at = session.held.length - 1
            session.held[at] = [session.held[at]![0], { ...entry, msg: { ...(entry.msg as Framing.OversizedLine), head: "", tail: "" } }]
          } else if (answer.value.email.email !== undefined) {
            addEmail(answer.value.email.email)
          }
          if (session.pending.size > 0) return []
          session.settled = true
          return release(session.held.splice(0).map(([, held]) => held))
        }
      }
      return []
    },
    finish: (): ReadonlyArray<string> => {
      // What is still held, in the order it came.
      const held = [...sessions.values()].flatMap((session) => session.held.splice(0)).sort(([a], [b]) => a - b)
      return [...release(held.map(([, entry]) => entry)), ...joiner.flush().map(encode)]
    }
  }
}

const transcriptFailed = (description: string) =>
  ClaudeError.make(new ClaudeError.TranscriptFailed({ description }))

/**
 * A recorder writing lines (each ending with `\n`) into `sink`. The sink runs in a fiber of the
 * scope; closing the scope ends the queue and waits (at most `flushTimeout`) for the sink to
 * finish. A failure of the sink is logged and kept in `failure` as `TranscriptFailed`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toSink: <E>(
  sink: Sink.Sink<void, string, never, E>,
  options?: RecorderOptions
) => Effect.Effect<TranscriptRecorder, ClaudeError.ClaudeError, Scope.Scope> = Effect.fn("Transcript.toSink")(
  function*<E>(sink: Sink.Sink<void, string, never, E>, options?: RecorderOptions) {
    const queue = yield* Queue.unbounded<Entry, Cause.Done>()
    const clock = yield* Clock.Clock
    const streamEvents = options?.streamEvents === true
    const encoder = makeEncoder()
    let failure: ClaudeError.ClaudeError | undefined
    const fail = (error: ClaudeError.ClaudeError) =>
      Effect.suspend(() => {
        failure ??= error
        Queue.shutdownUnsafe(queue)
        return Effect.logWarning("the transcript is incomplete", error)
      })

    const writer = yield* Stream.fromQueue(queue).pipe(
      Stream.map(encoder.push),
      Stream.concat(Stream.suspend(() => Stream.succeed(encoder.finish()))),
      Stream.flattenIterable,
      Stream.run(sink),
      Effect.catchCause((cause) => {
        const error = causeError(cause)
        return fail(
          ClaudeError.isClaudeError(error) && error.reason._tag === "TranscriptFailed"
            ? error
            : transcriptFailed(describeError(error))
        )
      }),
      Effect.forkDetach
    )

    const flushTimeout = Duration.fromInputUnsafe(options?.flushTimeout ?? "5 seconds")
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        Queue.endUnsafe(queue)
        const done = yield* Fiber.await(writer).pipe(Effect.timeoutOption(flushTimeout))
        if (Option.isNone(done)) {
          yield* Fiber.interrupt(writer)
          yield* fail(transcriptFailed(`writing the transcript did not finish within ${Duration.format(flushTimeout)}`))
        }
      })
    )

    // A line that comes once the recorder's scope has closed (the session outlives it) is lost:
    // said once, as a failing sink is, so that the transcript is not taken for complete.
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const recorder: TranscriptRecorder = {
      record: (dir, msg, session) => {
        if (!streamEvents && dir === "recv" && (msg as { type?: unknown } | null)?.type === "stream_event") return
        const entry = { dir, ts: clock.currentTimeMillisUnsafe(), msg, session: session ?? 0 }
        if (Queue.offerUnsafe(queue, entry) || failure !== undefined) return
        failure = transcriptFailed(
          "a line came after the recorder's scope closed: the lines from it on are not in the transcript " +
            "(open the recorder in a scope that outlives the session)"
        )
        runFork(fail(failure))
      },
      streamEvents,
      secrets: encoder.secrets,
      failure: Effect.sync(() => Option.fromUndefinedOr(failure))
    }
    return recorder
  }
)

const causeError = (cause: Cause.Cause<unknown>): unknown => {
  for (const reason of cause.reasons) {
    if (reason._tag === "Fail") return reason.error
    if (reason._tag === "Die") return reason.defect
  }
  return "interrupted"
}

/** The regular files (device and inode, whatever the path to them) recorders of `toFile` write now. */
const recordedFiles = new Set<string>()

/**
 * A recorder writing to the file at `path` (created or truncated, readable by its owner only;
 * its directory is created). Fails with `TranscriptFailed` when the file cannot be opened or
 * made owner-only, or when another recorder of this process writes it now (each would write
 * over the other's lines: sessions recorded in one file share one recorder).
 *
 * @since 0.1.0
 * @category constructors
 */
export const toFile: (
  path: string,
  options?: RecorderOptions
) => Effect.Effect<TranscriptRecorder, ClaudeError.ClaudeError, Scope.Scope> = Effect.fn("Transcript.toFile")(
  function*(path: string, options?: RecorderOptions) {
    const cannotOpen = (error: unknown) =>
      ClaudeError.isClaudeError(error) ? error : transcriptFailed(`cannot open ${path}: ${describeError(error)}`)
    // A regular file another recorder of this process writes (by any path to it: a link, a
    // relative one), known by its device and inode once opened, before it is truncated: each would
    // write over the other's lines. What is no regular file (`/dev/stdout`) may be shared.
    let claimed: string | undefined
    const claim = (stat: Fs.Stats) => {
      if (!stat.isFile()) return
      const key = `${stat.dev}:${stat.ino}`
      if (recordedFiles.has(key)) {
        throw transcriptFailed(
          `cannot record to ${path}: another recorder writes it now (to record several sessions in one file, give them one recorder)`
        )
      }
      recordedFiles.add(key)
      claimed = key
    }
    const handle = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          await Fs.promises.mkdir(Path.dirname(path), { recursive: true })
          return openOwnerOnly(path, claim)
        },
        catch: cannotOpen
      }),
      (handle) =>
        Effect.promise(() => handle.close()).pipe(
          Effect.ignore,
          Effect.ensuring(Effect.sync(() => claimed !== undefined && recordedFiles.delete(claimed)))
        )
    )
    const sink = Sink.forEachArray((lines: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: () => handle.write(lines.join("")),
        catch: (error) => transcriptFailed(`cannot write ${path}: ${describeError(error)}`)
      })
    )
    return yield* toSink(sink, options)
  }
)

/**
 * Parses transcript text (NDJSON; blank lines are skipped). Fails with `InvalidInput` on a line
 * that is not a transcript line, one that says so when it is the last line, cut off (the recorder
 * stopped while writing it: the text up to its last `\n` parses). Lines without `ts` (transcripts
 * before 0.2.0) are read as they are.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Effect.Effect<ReadonlyArray<Line>, ClaudeError.ClaudeError> =>
  Effect.suspend(() => {
    // The lines' messages are decoded next (`Timeline.fromLines`, in one synchronous run), with
    // Effect's schema JIT compiler once it is loaded: its loading starts here (`read` waits for it).
    SchemaJit.get()
    const lines: Array<Line> = []
    const decode = Schema.decodeUnknownOption(Line)
    const raws = text.split("\n")
    for (const [index, raw] of raws.entries()) {
      if (raw.trim() === "") continue
      let json: unknown
      try {
        json = JSON.parse(raw)
      } catch {
        json = undefined
      }
      const line = decode(json)
      if (Option.isNone(line)) {
        // Text ending inside a line that is no JSON: the recorder stopped while writing it.
        const cut = json === undefined && index === raws.length - 1
        const description = cut
          ? `transcript line ${index + 1}, the last, is cut off (the recorder stopped while writing it); ` +
            `the lines before it parse without it: ${raw.slice(0, 200)}`
          : `transcript line ${index + 1} is not {"dir","msg"}: ${raw.slice(0, 200)}`
        return Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description })))
      }
      lines.push(line.value)
    }
    return Effect.succeed(lines)
  })

/**
 * Reads and parses the transcript file at `path`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const read: (path: string) => Effect.Effect<ReadonlyArray<Line>, ClaudeError.ClaudeError> = Effect.fn(
  "Transcript.read"
)(function*(path: string) {
  const text = yield* Effect.tryPromise({
    try: () => Fs.promises.readFile(path, "utf8"),
    catch: (error) =>
      ClaudeError.make(new ClaudeError.InvalidInput({ description: `cannot read ${path}: ${describeError(error)}` }))
  })
  // While the file was read the compiler loaded; without it the guards are interpreted, slower.
  yield* SchemaJit.load
  return yield* parse(text)
})
