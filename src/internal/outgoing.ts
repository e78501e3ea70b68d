/**
 * Host → CLI control requests: a map of `Deferred`s keyed by `request_id`.
 *
 * Invariants: an entry lives exactly as long as its caller waits (removed on answer, timeout,
 * failure or interruption); a request whose caller stops waiting before the answer (a timeout,
 * an interruption) is withdrawn on the wire with a `control_cancel_request`; once `failAll` has
 * run, no new request is accepted, so nothing can wait on a CLI that is gone. A response body
 * keeps the fields its schema does not know.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as ClaudeError from "../ClaudeError.ts"
import type * as Protocol from "../Protocol.ts"
import * as Lines from "../protocol/lines.ts"
import { deadlineProblem } from "./sessionOptionsCheck.ts"
import * as SpanExits from "./spanExits.ts"
import type { Write } from "./stdinWriter.ts"

/** The `response` of a control_response as the CLI wrote it. */
export type ControlAnswer =
  | { readonly subtype: "success"; readonly response?: unknown }
  | { readonly subtype: "error"; readonly error?: string; readonly error_code?: string }

interface Pending {
  readonly subtype: string
  readonly deferred: Deferred.Deferred<unknown, ClaudeError.ClaudeError>
}

export interface Outgoing {
  /**
   * Sends a request and decodes its answer with `responseSchema`. The library's own (structural)
   * schemas keep the fields they do not know; `asDecoded` gives the decoded value as it is (a
   * caller's schema: a class instance, renamed keys).
   */
  readonly request: <S extends Schema.Top & { readonly DecodingServices: never }>(
    body: { readonly subtype: string } & Record<string, unknown>,
    responseSchema: S,
    timeout?: Duration.Input,
    asDecoded?: boolean
  ) => Effect.Effect<S["Type"], ClaudeError.ClaudeError>
  /** Completes the request a control_response answers; false when no request has that id. */
  readonly complete: (requestId: string, answer: ControlAnswer) => boolean
  /** Fails the request an unreadable control_response answers, naming it; false when none has that id. */
  readonly fail: (requestId: string, problem: ClaudeError.ProtocolViolation) => boolean
  /** Fails every pending request and refuses new ones. */
  readonly failAll: (error: ClaudeError.ClaudeError) => void
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const withUnknownFields = <A>(raw: unknown, decoded: A): A =>
  isObject(raw) && isObject(decoded) ? { ...raw, ...decoded } : decoded

/** Takes the session's secrets out of the CLI's text (the session's tracing). */
export interface Redactor {
  readonly redact: (text: string) => string
  /** Redacts, then cuts to `max` characters, a part of a secret left at the cut replaced too. */
  readonly redactCut: (text: string, max: number) => string
}

/**
 * Decodes the body of the CLI's answer to a `subtype` request; a body that breaks its schema is a
 * `ProtocolViolation` naming the request, its text redacted whole by `redactor` (a CLI may echo
 * a secret: a settings answer holds the environment), then cut. Decoding drops the fields the
 * schema does not know; the answer keeps them.
 */
export const decodeResponse = <S extends Schema.Top & { readonly DecodingServices: never }>(
  subtype: string,
  schema: S,
  response: unknown,
  redactor: Redactor,
  asDecoded = false
): Effect.Effect<S["Type"], ClaudeError.ClaudeError> =>
  Schema.decodeUnknownEffect(schema)(response ?? {}).pipe(
    Effect.map((decoded) => asDecoded ? decoded : withUnknownFields(response, decoded)),
    Effect.mapError((issue) =>
      ClaudeError.make(
        new ClaudeError.ProtocolViolation({
          description: redactor.redact(`The ${subtype} response does not match its schema: ${issue.message}`),
          line: redactor.redactCut(JSON.stringify(response ?? null), 2048)
        })
      )
    )
  )

/** A timeout or an interruption: the caller stopped waiting, not the CLI failing. */
const isGiveUp = (cause: Cause.Cause<ClaudeError.ClaudeError>): boolean =>
  Cause.hasInterrupts(cause) ||
  cause.reasons.some((reason) => Cause.isFailReason(reason) && reason.error.reason._tag === "ControlTimeout")

export const make = (options: {
  readonly send: Write
  readonly defaultTimeout: Duration.Duration
  /** False for a CLI that would exit on a `control_cancel_request` (2.1.0): none is sent then. */
  readonly cancels: () => boolean
  /** Takes the session's secrets out of the CLI's text the errors carry. */
  readonly redactor: Redactor
  /** The session's scope, where cancels are written. */
  readonly scope: Scope.Scope
}): Outgoing => {
  const pending = new Map<string, Pending>()
  // A per-session random part keeps ids of two sessions (or a replayed transcript) apart.
  const prefix = Math.random().toString(16).slice(2, 10)
  let counter = 0
  let closed: ClaudeError.ClaudeError | undefined

  const request: Outgoing["request"] = (body, responseSchema, timeout, asDecoded) =>
    Effect.suspend(() => {
      if (closed !== undefined) return Effect.fail(closed)
      const problem = timeout === undefined ? undefined : deadlineProblem("timeout", timeout)
      if (problem !== undefined) {
        return Effect.fail(
          ClaudeError.make(new ClaudeError.InvalidInput({ description: `Invalid request options: ${problem}` }))
        )
      }
      const requestId = `req_${++counter}_${prefix}`
      const deferred = Deferred.makeUnsafe<unknown, ClaudeError.ClaudeError>()
      const timeoutDuration = timeout === undefined ? options.defaultTimeout : Duration.fromInputUnsafe(timeout)
      pending.set(requestId, { subtype: body.subtype, deferred })
      return options.send(
        Lines.controlRequest(requestId, body as Protocol.OutgoingRequestBody)
      ).pipe(
        Effect.andThen(Deferred.await(deferred)),
        Effect.timeoutOrElse({
          duration: timeoutDuration,
          orElse: () =>
            Effect.fail(ClaudeError.make(
              new ClaudeError.ControlTimeout({ subtype: body.subtype, timeoutMillis: Duration.toMillis(timeoutDuration) })
            ))
        }),
        // The caller gave up (timeout or interruption): tell the CLI, unless it already answered
        // or is gone. Written from the session's scope: the caller does not wait for a full pipe
        // to drain (a CLI that stopped reading), which would hold its failure past its deadline.
        Effect.onExit((exit) =>
          Deferred.isDoneUnsafe(deferred) || closed !== undefined || !options.cancels() ||
            (exit._tag === "Failure" && !isGiveUp(exit.cause))
            ? Effect.void
            : Effect.forkIn(Effect.ignore(options.send(Lines.controlCancel(requestId))), options.scope, {
              startImmediately: true
            })
        ),
        Effect.ensuring(Effect.sync(() => pending.delete(requestId))),
        Effect.flatMap((response) => decodeResponse(body.subtype, responseSchema, response, options.redactor, asDecoded)),
        // Its span: see `Tracing.ts` for the names and attributes.
        Effect.tapError((error) =>
          Effect.annotateCurrentSpan({ "claude.error.reason": error.reason._tag, "error.type": error.reason._tag })
        ),
        // Ends without the answer (the `initialize` answer holds the account e-mail), and with the
        // CLI's text left out without `TraceContent` (its error answer, a broken body).
        SpanExits.withSpan(`claude.control_request ${body.subtype}`, {
          attributes: {
            "claude.request_id": requestId,
            "claude.subtype": body.subtype,
            "claude.control.direction": "host_to_cli"
          }
        })
      )
    })

  const complete = (requestId: string, answer: ControlAnswer): boolean => {
    const entry = pending.get(requestId)
    if (entry === undefined) return false
    pending.delete(requestId)
    Deferred.doneUnsafe(
      entry.deferred,
      answer.subtype === "success"
        ? Exit.succeed(answer.response)
        : Exit.fail(ClaudeError.make(
          new ClaudeError.ControlRejected({
            subtype: entry.subtype,
            error: answer.error === undefined ? "(no error text)" : options.redactor.redact(answer.error),
            ...(answer.error_code === undefined ? {} : { errorCode: answer.error_code })
          })
        ))
    )
    return true
  }

  const fail = (requestId: string, problem: ClaudeError.ProtocolViolation): boolean => {
    const entry = pending.get(requestId)
    if (entry === undefined) return false
    pending.delete(requestId)
    const description = `The CLI's answer to ${entry.subtype} breaks the protocol: ${problem.description}`
    Deferred.doneUnsafe(
      entry.deferred,
      Exit.fail(ClaudeError.make(new ClaudeError.ProtocolViolation({ description, line: problem.line })))
    )
    return true
  }

  const failAll = (error: ClaudeError.ClaudeError): void => {
    closed ??= error
    for (const entry of pending.values()) Deferred.doneUnsafe(entry.deferred, Exit.fail(error))
    pending.clear()
  }

  return { request, complete, fail, failAll }
}
