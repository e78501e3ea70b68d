/**
 * Transcript replay: a `Transport` layer that plays a recorded transcript (`Transcript.toFile`)
 * as a fake CLI, so a program recorded once against the real CLI runs again without it.
 *
 * How it plays: the `recv` lines are written in their recorded order; each waits until every
 * `send` recorded before it has been matched by a line the library wrote. A line the library
 * writes matches the first expected `send` not matched yet with the same key, ids, uuids and
 * timestamps aside:
 * - a `control_request` by its `subtype` and what it sets (a permission mode, a model, an MCP
 *   server's switch or permission mode override: a program that now sets another is a
 *   mismatch); its `request_id` is mapped, so the recorded `control_response`s are rewritten to
 *   the library's id;
 * - a `control_response` (the library answering the CLI) by its `request_id` (the CLI's requests
 *   are played with their recorded ids), its `subtype` and the decision it carries (a
 *   permission's or a dialog's `behavior`, an elicitation's `action`, a hook's `decision`,
 *   `continue` and `permissionDecision`, a PermissionRequest hook's `decision.behavior`, an
 *   Elicitation hook's `action`, a PermissionDenied hook's `retry`, whether an MCP answer is an
 *   error): a handler that now decides otherwise is a mismatch, one whose words or values vary
 *   from run to run is not;
 * - a `user` turn by its content (text and images), in its recorded order (with the first
 *   recorded turn not matched yet: a turn skipped is a mismatch, not a wait), each `[redacted]`
 *   in it standing for any non-empty text (the recorder wrote it in place of a secret the prompt
 *   held: the account e-mail, a `Redacted` value of the session's environment); its recorded
 *   uuid is mapped to the one the library wrote, in every `recv` line played after it (the CLI
 *   echoes it as `user_message_uuid(s)` and `command_uuid`, by which the library matches a
 *   turn's events);
 * - anything else by its `type`.
 * Lines recorded before the first `send` (the CLI starts its MCP servers first) are played at
 * once. A line the CLI wrote that is not JSON (`Transcript.NonJsonLine`) is written again as its
 * text. A line that matches nothing fails the replay with `ReplayMismatch { expected, actual }`
 * (`actual` with the session's secrets masked, those of its launch environment and those a
 * `[redacted]` stood for so far, and what differs from a recorded line holding `[redacted]`:
 * the recording shows no secret, nor does its mismatch):
 * the `send` that wrote it fails with it, the "process" exits with code 1 and the mismatch on
 * its stderr, and the session's reader fails with it, so the running turn and the pending
 * control requests fail with that reason.
 *
 * The program must write what the recorded one wrote, in an order the recording allows: a
 * program that waits for a line the recording only has after a later `send` (awaiting
 * `initializeResult` before the first turn, when the recorded program sent the turn at once)
 * waits for it until its own deadline. So does a session replaying a recording in which messages
 * were written while a turn ran, to a CLI that echoed no uuid: the session now writes such a CLI
 * one message at a time (it waits for the turn's result, which the recording has only after
 * those messages); record it again. At stdin EOF the playable lines are written and stdout
 * ends (exit code 0); lines gated by `send`s that never came are not played.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import * as Framing from "../Framing.ts"
import * as SecretText from "../internal/secretText.ts"
import { secretsOf } from "../internal/tracing.ts"
import * as Launch from "../Launch.ts"
import { splitText } from "../internal/textChunks.ts"
import * as Transcript from "../Transcript.ts"
import { type Connection, type ExitStatus, Transport } from "../Transport.ts"

type Json = Record<string, unknown>

const asRecord = (u: unknown): Json => (u !== null && typeof u === "object" ? u as Json : {})

/** What an answer to the CLI decides, its words and values aside (see the module's comment). */
const decisionOf = (body: unknown): string => {
  const answer = asRecord(body)
  if (answer.behavior !== undefined) return `behavior ${String(answer.behavior)}`
  if (answer.action !== undefined) return `action ${String(answer.action)}`
  if (answer.mcp_response !== undefined) {
    const rpc = asRecord(answer.mcp_response)
    return rpc.error !== undefined ? "mcp error" : asRecord(rpc.result).isError === true ? "mcp isError" : "mcp result"
  }
  // A hook's: its `decision` and `continue`, and its event's own (`permissionDecision`, a
  // PermissionRequest's `decision.behavior`, an Elicitation's `action`, a PermissionDenied's `retry`).
  const specific = asRecord(answer.hookSpecificOutput)
  return `hook ${String(answer.decision)} ${String(answer.continue)} ${String(specific.permissionDecision)} ${
    String(asRecord(specific.decision).behavior)
  } ${String(specific.action)} ${String(specific.retry)}`
}

/**
 * What a control request of the program sets, which the program decides (not ids, paths or
 * times that vary from run to run): the permission mode, the model, an MCP server's switch or
 * permission mode override.
 */
const settingOf = (request: Json): string => {
  switch (request.subtype) {
    case "set_permission_mode":
      return ` ${String(request.mode)}`
    case "set_model":
      return ` ${String(request.model)}`
    case "mcp_toggle":
      return ` ${String(request.serverName)} ${String(request.enabled)}`
    case "set_mcp_permission_mode_override":
      return ` ${String(request.serverName)} ${String(request.mode)}`
    default:
      return ""
  }
}

/** The key a `send` is matched by. */
const sendKey = (message: unknown): string => {
  const m = asRecord(message)
  switch (m.type) {
    case "control_request":
      return `control_request/${String(asRecord(m.request).subtype)}${settingOf(asRecord(m.request))}`
    case "control_response": {
      const response = asRecord(m.response)
      const decision = response.subtype === "success" ? decisionOf(response.response) : ""
      return `control_response/${String(response.request_id)}/${String(response.subtype)}/${decision}`
    }
    case "control_cancel_request":
      return "control_cancel_request"
    case "user":
      // Its content is matched apart (`redactedMatch`).
      return "user"
    default:
      return String(m.type)
  }
}

const isNonJsonLine = Schema.is(Transcript.NonJsonLine)

const encoder = new TextEncoder()
const NEWLINE = encoder.encode("\n")

const show = (message: unknown): string => {
  const text = JSON.stringify(message) ?? String(message)
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text
}

/**
 * The texts each `[redacted]` of `recorded` stands for in `actual`, in order, when `actual` is
 * `recorded` with each `[redacted]` standing for a non-empty text; undefined when it is not. Its
 * other parts are placed leftmost, which finds a match whenever there is one.
 */
const redactedText = (recorded: string, actual: string): ReadonlyArray<string> | undefined => {
  if (!recorded.includes(SecretText.REDACTED)) return recorded === actual ? [] : undefined
  const parts = recorded.split(SecretText.REDACTED)
  const last = parts[parts.length - 1]!
  if (!actual.startsWith(parts[0]!) || !actual.endsWith(last)) return undefined
  const bound: Array<string> = []
  let at = parts[0]!.length
  for (let i = 1; i < parts.length - 1; i++) {
    const next = actual.indexOf(parts[i]!, at + 1)
    if (next === -1) return undefined
    bound.push(actual.slice(at, next))
    at = next + parts[i]!.length
  }
  const end = actual.length - last.length
  if (end <= at) return undefined
  bound.push(actual.slice(at, end))
  return bound
}

/**
 * The texts the `[redacted]`s of `recorded` stand for in `actual` when the two are the same JSON
 * value, each string of `actual` matching its counterpart by {@link redactedText}; undefined
 * when they differ. The recorder wrote `[redacted]` in place of each secret of the session (the
 * account e-mail, a `Redacted` value of its environment), which a replayed prompt holds in clear.
 */
const redactedMatch = (recorded: unknown, actual: unknown): ReadonlyArray<string> | undefined => {
  const bound: Array<string> = []
  const same = (r: unknown, a: unknown): boolean => {
    if (typeof r === "string") {
      const texts = typeof a === "string" ? redactedText(r, a) : undefined
      if (texts !== undefined) bound.push(...texts)
      return texts !== undefined
    }
    if (Array.isArray(r)) return Array.isArray(a) && a.length === r.length && r.every((item, i) => same(item, a[i]))
    if (r === null || typeof r !== "object") return r === a
    if (a === null || typeof a !== "object" || Array.isArray(a)) return false
    const keys = Object.keys(r)
    return keys.length === Object.keys(a).length &&
      keys.every((key) => Object.hasOwn(a, key) && same((r as Json)[key], (a as Json)[key]))
  }
  return same(recorded, actual) ? bound : undefined
}

const holdsRedacted = (value: unknown): boolean =>
  typeof value === "string"
    ? value.includes(SecretText.REDACTED)
    : value !== null && typeof value === "object" && Object.values(value).some(holdsRedacted)

/** A recorded line's part facing a part of the line shown, and whether it holds a `[redacted]`. */
interface Counterpart {
  readonly value: unknown
  readonly redacted: boolean
}

/** The counterpart's part at `key`: where it has none, none, as redacted as the counterpart. */
const counterpartAt = (counterpart: Counterpart, key: string | number): Counterpart => {
  const value = counterpart.value !== null && typeof counterpart.value === "object"
    ? (counterpart.value as Record<string | number, unknown>)[key]
    : undefined
  return value === undefined ? { value, redacted: counterpart.redacted } : { value, redacted: holdsRedacted(value) }
}

/**
 * `text` with the parts that may be a secret masked, facing each counterpart that holds a
 * `[redacted]`: what lies between the start and the end the two share (the whole text when the
 * counterpart has no text there).
 */
const maskText = (text: string, counterparts: ReadonlyArray<Counterpart>): string => {
  const ranges: Array<readonly [number, number]> = []
  for (const { redacted, value } of counterparts) {
    if (!redacted) continue
    if (typeof value !== "string") {
      ranges.push([0, text.length])
      continue
    }
    let start = 0
    while (start < text.length && start < value.length && text[start] === value[start]) start++
    let end = 0
    while (end < text.length - start && end < value.length - start && text[text.length - 1 - end] === value[value.length - 1 - end]) end++
    if (start < text.length - end) ranges.push([start, text.length - end])
  }
  if (ranges.length === 0) return text
  ranges.sort((a, b) => a[0] - b[0])
  let out = ""
  let at = 0
  for (const [start, end] of ranges) {
    if (end <= at) continue
    out += text.slice(at, Math.max(at, start)) + SecretText.REDACTED
    at = end
  }
  return out + text.slice(at)
}

/** `value` with {@link maskText} applied to each of its strings, facing the counterparts' parts there. */
const maskLike = (value: unknown, counterparts: ReadonlyArray<Counterpart>): unknown => {
  if (!counterparts.some((counterpart) => counterpart.redacted)) return value
  if (typeof value === "string") return maskText(value, counterparts)
  if (Array.isArray(value)) return value.map((item, i) => maskLike(item, counterparts.map((c) => counterpartAt(c, i))))
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, maskLike(item, counterparts.map((c) => counterpartAt(c, key)))])
  )
}

const makeConnection = (lines: ReadonlyArray<Transcript.Line>, sessionSecrets: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const stdout = yield* Queue.unbounded<Uint8Array, ClaudeError.ClaudeError | Cause.Done>()
    const exited = yield* Deferred.make<ExitStatus>()
    const matched = lines.map(() => false)
    const keys = lines.map((line) => line.dir === "send" ? sendKey(line.msg) : undefined)
    // The forms of the session's secrets (its launch environment's, as the recorder was given
    // them) and of the texts the recording's `[redacted]`s stood for so far (longest first):
    // masked in a mismatch's line.
    const secrets: Array<string> = []
    for (const secret of sessionSecrets) {
      for (const form of SecretText.formsOf(secret)) if (!secrets.includes(form)) secrets.push(form)
    }
    secrets.sort((a, b) => b.length - a.length)
    // Recorded request ids of the library's control requests → the ids the library used now.
    const requestIds = new Map<string, string>()
    // Recorded uuids of the user messages → the uuids the library wrote now.
    const uuids = new Map<string, string>()
    let nextRecv = 0
    let inputEnded = false
    let failed: ClaudeError.ClaudeError | undefined

    /**
     * A `recv` line's text as played now: the library's request ids and the user messages' uuids
     * recorded in it replaced by today's. Every `recv` line goes through it, an over-cap line's
     * head and tail too: the reader reads a request id out of an over-cap answer's head to fail
     * that request, so a recorded id there would leave the replayed request waiting.
     */
    const rewriteText = (text: string): string => {
      // A `request_id` field's whole value only; the library's ids (`req_N_<random>`) have no escapes.
      if (requestIds.size > 0) {
        text = text.replace(/("request_id"\s*:\s*")([^"\\]*)"/g, (field, key: string, id: string) => {
          const now = requestIds.get(id)
          return now === undefined ? field : `${key}${now}"`
        })
      }
      for (const [recorded, now] of uuids) text = text.replaceAll(recorded, now)
      return text
    }

    /**
     * An over-cap line rewritten (`rewriteText`), its size moved by what the rewrite added, so it
     * is still its head, the spaces its middle was played as, and its tail.
     */
    const rewriteOverCap = (line: Framing.OversizedLine): Framing.OversizedLine => {
      const headBytes = Buffer.byteLength(line.head)
      const tailBytes = Buffer.byteLength(line.tail)
      const head = rewriteText(line.head)
      if (headBytes + tailBytes >= line.bytes) {
        // Head and tail hold the whole line (they may overlap): rewrite it whole, played as its tail.
        const whole = rewriteText(Buffer.concat(Framing.oversizedLineChunks(line)).toString())
        return { ...line, bytes: Buffer.byteLength(whole), head, tail: whole }
      }
      const tail = rewriteText(line.tail)
      const middle = line.bytes - headBytes - tailBytes
      return { ...line, bytes: Buffer.byteLength(head) + middle + Buffer.byteLength(tail), head, tail }
    }

    /** Writes every `recv` line whose earlier `send`s are all matched. */
    const play = () => {
      while (nextRecv < lines.length) {
        const line = lines[nextRecv]!
        if (line.dir === "send") {
          if (!matched[nextRecv]) break
          nextRecv++
          continue
        }
        if (asRecord(line.msg).type === Framing.oversizedLineType) {
          // A line over the cap, played as one of its size with its head and tail.
          const played = rewriteOverCap(line.msg as Framing.OversizedLine)
          for (const chunk of Framing.oversizedLineChunks(played)) Queue.offerUnsafe(stdout, chunk)
          Queue.offerUnsafe(stdout, NEWLINE)
          nextRecv++
          continue
        }
        // A line the CLI wrote that is not JSON is written again as it was read.
        const text = isNonJsonLine(line.msg) ? line.msg.text : rewriteText(JSON.stringify(line.msg))
        Queue.offerUnsafe(stdout, encoder.encode(text + "\n"))
        nextRecv++
      }
      // Everything played and nothing more is expected: the recorded CLI is done, once stdin ends.
      if (nextRecv >= lines.length && inputEnded) {
        Queue.endUnsafe(stdout)
        Deferred.doneUnsafe(exited, Effect.succeed({ code: 0, signal: null, stderrTail: "" }))
      }
    }

    /**
     * A line that matches nothing, as its mismatch shows it. The recording holds no secret in
     * clear, the program's line may (its prompt names the account e-mail): masked are the secrets
     * learnt so far, and whatever differs from a recorded line of its type not yet matched that
     * holds a `[redacted]` (`maskLike`).
     */
    const masked = (actual: unknown): unknown => {
      const type = asRecord(actual).type
      const counterparts = lines.flatMap((line, i): ReadonlyArray<Counterpart> =>
        line.dir === "send" && !matched[i] && asRecord(line.msg).type === type && holdsRedacted(line.msg)
          ? [{ value: line.msg, redacted: true }]
          : []
      )
      return SecretText.redactValue(maskLike(actual, counterparts), secrets)
    }

    const mismatch = (actual: unknown): ClaudeError.ClaudeError => {
      const expected = lines.findIndex((line, i) => line.dir === "send" && !matched[i])
      const error = ClaudeError.make(
        new ClaudeError.ReplayMismatch({
          expected: expected === -1 ? "(the transcript expects no more lines)" : show(lines[expected]!.msg),
          actual: show(masked(actual))
        })
      )
      failed = error
      Queue.failCauseUnsafe(stdout, Cause.fail(error))
      Deferred.doneUnsafe(exited, Effect.succeed({ code: 1, signal: null, stderrTail: error.message }))
      return error
    }

    const endInput = Effect.sync(() => {
      if (inputEnded) return
      inputEnded = true
      if (Deferred.isDoneUnsafe(exited)) return
      play()
      // Lines gated by sends that will never come are not played: the recorded CLI is gone.
      Queue.endUnsafe(stdout)
      Deferred.doneUnsafe(exited, Effect.succeed({ code: 0, signal: null, stderrTail: "" }))
    })
    yield* Effect.addFinalizer(() => endInput)

    play()

    const connection: Connection = {
      pid: undefined,
      incoming: Stream.fromQueue(stdout),
      // A transcript records no stderr: the stream ends, empty, when the recorded CLI is done.
      stderr: Stream.fromEffectDrain(Deferred.await(exited)),
      send: (line) =>
        Effect.suspend(() => {
          if (failed !== undefined) return Effect.fail(failed)
          if (inputEnded || Deferred.isDoneUnsafe(exited)) {
            return Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "send" })))
          }
          const message = JSON.parse(line) as unknown
          const key = sendKey(message)
          const m = asRecord(message)
          let bound: ReadonlyArray<string> = []
          // The first recorded line of its key not matched yet. A user turn matches that one or
          // nothing: matching a later turn would leave its answer gated behind the skipped one,
          // waiting for ever.
          let index = lines.findIndex((_, i) => keys[i] === key && !matched[i])
          if (m.type === "user" && index !== -1) {
            const texts = redactedMatch(asRecord(asRecord(lines[index]!.msg).message).content, asRecord(m.message).content)
            if (texts === undefined) index = -1
            else bound = texts
          }
          if (index === -1) return Effect.fail(mismatch(message))
          matched[index] = true
          for (const text of bound) {
            for (const form of SecretText.formsOf(text)) if (!secrets.includes(form)) secrets.push(form)
          }
          secrets.sort((a, b) => b.length - a.length)
          if (m.type === "control_request") {
            const recorded = asRecord(lines[index]!.msg).request_id
            if (typeof recorded === "string" && typeof m.request_id === "string") requestIds.set(recorded, m.request_id)
          }
          if (m.type === "user") {
            const recorded = asRecord(lines[index]!.msg).uuid
            if (typeof recorded === "string" && typeof m.uuid === "string" && recorded !== m.uuid) uuids.set(recorded, m.uuid)
          }
          play()
          return Effect.void
        }),
      endInput,
      exit: Deferred.await(exited)
    }
    return connection
  })

/**
 * Options of {@link layer}.
 *
 * @since 0.2.0
 * @category options
 */
export interface Options {
  /**
   * Streams the text of each recorded `assistant` message whose text the transcript did not
   * stream, as `stream_event` lines before it (`content_block_start`, `text_delta`s,
   * `content_block_stop`), the way the CLI streams them with `--include-partial-messages` (on by
   * default; a session with `includePartialMessages: false` gets none, as from the CLI). A
   * recorder keeps no `stream_event`s unless made with `streamEvents: true`, so without this a
   * program that shows streamed text sees none in a replay of such a transcript. A message whose
   * recorded `text_delta`s precede it is played as recorded: its text streams once. Default
   * `false`: the transcript's lines only.
   */
  readonly streamText?: boolean | undefined
  /** The number of `text_delta`s per text block when `streamText` is on (default 2). */
  readonly chunks?: number | undefined
}


/**
 * The transcript with the text of each `recv` `assistant` line streamed before it as
 * `stream_event` lines, unless the transcript streamed it: a recorded `text_delta` of the same
 * agent (`parent_tool_use_id`) since that agent's previous `assistant` line. The CLI writes an
 * `assistant` line per content block once the block is done, after its deltas, so those deltas
 * are that line's (a turn's `result` ends them), and a transcript with deltas for some messages
 * only gets the others made up.
 */
const withStreamedText = (lines: ReadonlyArray<Transcript.Line>, chunks: number): ReadonlyArray<Transcript.Line> => {
  // The agents (by `parent_tool_use_id`) with recorded text deltas since their last `assistant` line.
  const streaming = new Set<unknown>()
  return lines.flatMap((line, lineIndex): ReadonlyArray<Transcript.Line> => {
    const m = asRecord(line.msg)
    if (line.dir !== "recv") return [line]
    const agent = m.parent_tool_use_id ?? null
    if (m.type === "stream_event") {
      const event = asRecord(m.event)
      if (event.type === "content_block_delta" && asRecord(event.delta).type === "text_delta") streaming.add(agent)
      return [line]
    }
    // A turn's end ends its deltas too (an interrupted message may have no `assistant` line).
    if (m.type === "result") streaming.clear()
    if (m.type !== "assistant" || streaming.delete(agent)) return [line]
    const content = asRecord(m.message).content
    const blocks = Array.isArray(content) ? content.map(asRecord) : []
    // The fields by which the library places the event in its turn, as on the assistant line.
    const envelope: Json = {
      session_id: m.session_id,
      parent_tool_use_id: agent,
      ...("user_message_uuid" in m ? { user_message_uuid: m.user_message_uuid } : {}),
      ...("user_message_uuids" in m ? { user_message_uuids: m.user_message_uuids } : {})
    }
    let n = 0
    const event = (e: Json): Transcript.Line => ({
      dir: "recv",
      msg: { type: "stream_event", event: e, ...envelope, uuid: `replay-stream-${lineIndex}-${n++}` }
    })
    const streamed = blocks.flatMap((block, index) =>
      block.type !== "text" || typeof block.text !== "string" ? [] : [
        event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }),
        ...(block.text === "" ? [""] : splitText(block.text, chunks)).map((text) =>
          event({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
        ),
        event({ type: "content_block_stop", index })
      ]
    )
    return [...streamed, line]
  })
}

/**
 * The lines of the recorder's `n`-th session (`Transcript.Line.session`; absent: the first). A
 * transcript of one session is every session's: each session opened replays it from its start.
 * Past the last recorded session, none: the first line the session writes is a mismatch.
 */
const sessionLines = (lines: ReadonlyArray<Transcript.Line>, n: number): ReadonlyArray<Transcript.Line> => {
  if (!lines.some((line) => line.session !== undefined)) return lines
  return lines.filter((line) => (line.session ?? 0) === n)
}

/**
 * A `Transport` that plays a transcript: a file path (read when a session opens) or the lines.
 * A transcript of several sessions (one `Transcript` recorder given to each, as
 * `ClaudeCodeLanguageModel`'s calls share one; its lines marked `session`) plays the n-th
 * recorded session to the n-th session opened on the layer, one after the other or at once
 * (open them in the recorded order); a session past the last recorded is a `ReplayMismatch`.
 * A transcript of one session is played from its start to every session opened. With
 * `{ streamText: true }` the recorded answers' text is streamed too (see {@link Options}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  transcript: string | ReadonlyArray<Transcript.Line>,
  options?: Options
): Layer.Layer<Transport> =>
  Layer.sync(Transport, () => {
    // The sessions opened on this layer so far: each takes the next recorded session.
    let opened = 0
    return Transport.of({
      open: (spec) => {
        const n = opened++
        return Effect.flatMap(
          typeof transcript === "string" ? Transcript.read(transcript) : Effect.succeed(transcript),
          (all) => {
            const lines = sessionLines(all, n)
            return makeConnection(
              options?.streamText === true && spec.args.includes("--include-partial-messages")
                ? withStreamedText(lines, options.chunks ?? 2)
                : lines,
              secretsOf(spec.env, Launch.defaultSecretEnv)
            )
          }
        )
      }
    })
  })
