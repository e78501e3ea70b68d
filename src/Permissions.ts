/**
 * The tool-permission callback: the CLI's `can_use_tool` control request, answered by a handler
 * of yours.
 *
 * Provide a `Permissions` layer and the session launches the CLI with
 * `--permission-prompt-tool stdio`, so every tool call that needs approval arrives as a
 * `can_use_tool` request. Without the flag (no `Permissions` service) such calls are denied
 * silently by the CLI.
 *
 * ```ts
 * import * as Context from "effect/Context"
 * import * as Effect from "effect/Effect"
 * import { Permissions } from "effect-claude-code"
 *
 * // your own service
 * class Policy extends Context.Service<Policy, {
 *   readonly allows: (tool: string, input: unknown) => Effect.Effect<boolean>
 * }>()("app/Policy") {}
 *
 * const layer = Permissions.layer((request) =>
 *   Effect.gen(function*() {
 *     const policy = yield* Policy // captured when the layer is built
 *     return (yield* policy.allows(request.tool_name, request.input))
 *       ? Permissions.allow()
 *       : Permissions.deny(`${request.tool_name} is not allowed here`)
 *   })
 * )
 * ```
 *
 * The handler receives the request as the CLI sent it ({@link CanUseToolRequest}, snake_case
 * keys such as `tool_name`, `tool_use_id`, `blocked_path`), so what you read is exactly what is on
 * the wire.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ClaudeError from "./ClaudeError.ts"
import * as HandlerFailure from "./HandlerFailure.ts"
import {
  type CallFailure,
  captureHandler,
  guard,
  readAnswer,
  type Redact,
  redactFailure,
  refuseAnswer,
  warnFailure,
  writable
} from "./internal/handlerCall.ts"
import { isRecord } from "./internal/json.ts"
import * as SpanExits from "./internal/spanExits.ts"
import {
  CanUseToolRequest,
  type PermissionAllow,
  type PermissionDeny,
  PermissionResult,
  type PermissionUpdate,
  type ToolPermissionRequest
} from "./protocol/permissions.ts"

// -----------------------------------------------------------------------------
// schemas (one definition each, in the protocol)
// -----------------------------------------------------------------------------

export {
  /**
   * @since 0.1.0
   * @category schemas
   */
  CanUseToolRequest,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionAllow,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionBehavior,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionDeny,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionResult,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionRuleValue,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionUpdate,
  /**
   * @since 0.1.0
   * @category schemas
   */
  PermissionUpdateDestination
} from "./protocol/permissions.ts"

export type {
  /**
   * @since 0.2.0
   * @category models
   */
  ToolPermissionRequest
} from "./protocol/permissions.ts"
import { Permissions } from "./internal/services.ts"

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

/**
 * Allow the tool call. `updatedInput` replaces the tool's input (the CLI runs the new one);
 * `updatedPermissions` adds rules (e.g. one of the request's `permission_suggestions`) so the
 * same call is not asked about again. An update's `destination` says where the CLI keeps it:
 * `session` for this session only; `localSettings`, `projectSettings` and `userSettings` are
 * written to a settings file on disk (`.claude/settings.local.json` in the cwd for
 * `localSettings`, the destination CLI 2.1.332 suggests its rules with) and hold for later
 * sessions too. A rule without `ruleContent` covers every call of the tool; one whose
 * `ruleContent` is `undefined` is refused (the call denied), as JSON would drop the key.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allow = (options?: {
  /** The tool input to run instead of the requested one. */
  readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
  /** Permission rules to add, so the same call is not asked about again. */
  readonly updatedPermissions?: ReadonlyArray<PermissionUpdate> | undefined
  /** How the user decided (`user_temporary`, `user_permanent`, …), for the CLI's telemetry. */
  readonly decisionClassification?: PermissionAllow["decisionClassification"] | undefined
}): PermissionResult => ({
  behavior: "allow",
  ...(options?.updatedInput !== undefined ? { updatedInput: options.updatedInput } : {}),
  ...(options?.updatedPermissions !== undefined ? { updatedPermissions: options.updatedPermissions } : {}),
  ...(options?.decisionClassification !== undefined
    ? { decisionClassification: options.decisionClassification }
    : {})
})

/**
 * Deny the tool call with `message` (what the model sees as the tool result). With
 * `interrupt: true` the CLI also aborts the turn.
 *
 * @since 0.1.0
 * @category constructors
 */
export const deny = (message: string, options?: {
  /** Also aborts the turn. */
  readonly interrupt?: boolean | undefined
  /** How the user decided (`user_reject`, …), for the CLI's telemetry. */
  readonly decisionClassification?: PermissionDeny["decisionClassification"] | undefined
}): PermissionResult => ({
  behavior: "deny",
  message,
  ...(options?.interrupt !== undefined ? { interrupt: options.interrupt } : {}),
  ...(options?.decisionClassification !== undefined
    ? { decisionClassification: options.decisionClassification }
    : {})
})

/**
 * The control_response body for a result, exactly as the CLI reads it: the result encoded with
 * the protocol's {@link PermissionResult} schema (`{"behavior":"allow"}`,
 * `{"behavior":"allow","updatedInput":{...},"updatedPermissions":[...]}`,
 * `{"behavior":"deny","message":"...","interrupt":true}`). Only the known keys are written; a
 * permission update of a type a later CLI added is written whole.
 *
 * **Gotchas**: throws on a value that breaks the schema (the type does not allow one; a cast
 * might). {@link bind} checks the handler's answer and denies instead.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toWire = (result: PermissionResult): Record<string, unknown> => encodeResultSync(result)

const encodeResultSync = Schema.encodeSync(PermissionResult)

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

/**
 * A handler for `can_use_tool` requests. The request is typed per tool
 * ({@link ToolPermissionRequest}): `if (request.tool_name === "Bash") request.input.command` is a
 * `string`, with no cast. That typing is not checked at run time (a later CLI may change a tool's
 * input); a handler that fails on an input it did not expect denies the tool call.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler<E = never, R = never> = (
  request: ToolPermissionRequest
) => Effect.Effect<PermissionResult, E, R>

/**
 * Options of {@link layer}.
 *
 * @since 0.1.0
 * @category models
 */
export interface PermissionsOptions {
  /**
   * How long the handler may take for one request. Past it the handler is interrupted and the
   * tool call is denied (a `timed_out` failure). Default: none (the CLI waits for the answer as
   * long as the turn runs). A positive duration: anything else (`NaN`, `-1`, `{}`) fails
   * building the service with `InvalidInput`.
   */
  readonly timeout?: Duration.Input | undefined
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

const describeRequest = (request: unknown): string => {
  const fields = (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>
  return `${String(fields.tool_name)} (${String(fields.tool_use_id)})`
}

// The tag is declared (and documented) in `internal/services.ts`, which `Claude.ts` imports
// without this module.
export { Permissions }

/**
 * Builds the service from a handler, capturing the handler's requirements `R` from the
 * context the effect runs in. The captured context leaves out the build's `Scope` and parent
 * span: a call runs in a scope of its own (closed when the call ends) and under the span of the
 * fiber that calls `decide`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromHandler = <E, R>(
  handler: Handler<E, R>,
  options?: PermissionsOptions
): Effect.Effect<Permissions["Service"], ClaudeError.ClaudeError, R> =>
  Effect.map(
    // The built-in tools' inputs are types only (`Protocol.ToolCall`): the CLI's object is
    // passed through as it came.
    captureHandler((request: CanUseToolRequest) => handler(request as ToolPermissionRequest), {
      subtype: "can_use_tool",
      timeout: options?.timeout,
      who: (request) => `permission handler for ${describeRequest(request)}`
    }),
    (decide) => Permissions.of({ decide })
  )

/**
 * A layer of the service. The handler's requirements `R` are taken from the context the layer
 * is built in (like `Toolkit.toLayer`), so provide them to the layer: the handler then runs in
 * that context whichever fiber calls `decide`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E, R>(
  handler: Handler<E, R>,
  options?: PermissionsOptions
): Layer.Layer<Permissions, ClaudeError.ClaudeError, R> =>
  Layer.effect(Permissions, fromHandler(handler, options))

/**
 * What the session calls for a `can_use_tool` request: decodes the raw `request` object, asks
 * the service, checks the answer and returns the control_response body.
 *
 * **Fails closed.** A request that does not match its schema, a handler that fails, dies,
 * interrupts itself or times out, and an answer that is not a {@link PermissionResult} each
 * give a `deny` whose message says what happened (the model sees it as the tool result), are
 * logged as a warning, and are passed to `report` ({@link HandlerFailure.HandlerFailed},
 * outcome `denied`). Interrupting `decide` (a `control_cancel_request`) is no failure: the
 * handler is interrupted, nothing is reported.
 *
 * An answer whose `toolUseID` is not the request's `tool_use_id` is refused alike: CLI 2.1.332
 * runs the tool call an answer's `toolUseID` names when it no longer waits for that answer.
 *
 * An `allow` without `updatedInput` is sent with the request's original input as
 * `updatedInput` (as the Python SDK does): CLI 2.1.332 accepts a bare `{"behavior":"allow"}`,
 * older CLIs required the field.
 *
 * `redact` (a session passes its own) replaces the session's secrets in a failure's text before
 * it is logged, reported or sent: a handler's error may quote the tool input holding the API key.
 *
 * `refuse` (a session passes its own) says why an answer that passed every check is still not
 * sent: a `setMode` in its `updatedPermissions` to a mode the session refuses to switch to
 * (`bypassPermissions` with a `Permissions` layer, a mode that asks no one while it serves a tool
 * that needs approval). It is then refused as an invalid answer: the call is denied.
 *
 * @since 0.1.0
 * @category session
 */
export const bind = (
  service: Permissions["Service"],
  report?: HandlerFailure.Report,
  redact?: (text: string) => string,
  refuse?: (answer: Record<string, unknown>) => string | undefined
): {
  /** Answers one `can_use_tool` request body with the JSON of the `control_response`. */
  readonly decide: (
    request: unknown,
    requestId?: string | undefined
  ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
} => ({ decide: (raw, requestId) => decideWire(service, raw, requestId, report, redact, refuse) })

/** The longest answer text (and all answers, notes and response together) CLI 2.1.332 takes. */
const ANSWER_MAX = 32_768
/** The longest annotation notes CLI 2.1.332 takes. */
const NOTES_MAX = 8_192
/** What an annotation's `unanswered` may say. */
const unansweredReasons = new Set(["skipped", "replied_in_chat", "dismissed"])
/** The fields of an AskUserQuestion answer the host adds to the input (the rest are the model's). */
const answerFields = new Set(["answers", "annotations", "response", "followUp"])

/** Whether two JSON values are the same, whatever their keys' order. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]))
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  }
  return a === b
}

/**
 * What is wrong with an allow of AskUserQuestion whose `updatedInput` CLI 2.1.332 would refuse or
 * misread (its own check, read from its binary): `answers` are text keyed by the questions asked,
 * or for a multi-select question a list of labels, at most one more than it offers (the "other"
 * text), which the CLI joins; `annotations` are keyed by the questions too, with `preview` (text),
 * `notes` (text of at most 8,192 characters) or `unanswered` (`skipped`, `replied_in_chat`,
 * `dismissed`); `response` is text; answers, notes and response together at most 32,768
 * characters; `followUp` (a boolean) only for questions that all have a `kind`; no other field
 * than the input's and those, the input's `questions` unchanged. A list for a single-select
 * question reached the model as one answer, its labels joined; the rest as "the user did not
 * answer" or a configuration error of the host. (Whether a `preview` is one an option shows is
 * left to the CLI: it also takes rendered forms of them.)
 */
const answersProblem = (result: unknown, input: unknown): string | undefined => {
  if (!isRecord(result) || result.behavior !== "allow" || !isRecord(result.updatedInput)) return undefined
  const updated = result.updatedInput
  const { annotations, answers, response } = updated
  const original = isRecord(input) ? input : {}
  const questions = Array.isArray(original.questions) ? original.questions.filter(isRecord) : []
  const questionOf = (text: string) => questions.find((each) => each.question === text)
  const problems: Array<string> = []
  let size = 0
  if (answers !== undefined && !isRecord(answers)) problems.push("answers are not an object of answers by question")
  if (isRecord(answers)) {
    for (const text of Object.keys(answers)) {
      const answer = answers[text]
      const question = questionOf(text)
      const offered = Array.isArray(question?.options) ? question.options.length : 0
      const fits = question !== undefined && (typeof answer === "string" || (
        question.multiSelect === true && Array.isArray(answer) && answer.length <= offered + 1 &&
        answer.every((label) => typeof label === "string")
      ))
      if (!fits) {
        problems.push(`the answer to ${JSON.stringify(text)} is ${question === undefined ? "keyed by no question asked" : "no text (nor, for a multi-select question, a list of at most one more label than it offers)"}`)
      } else {
        size += typeof answer === "string" ? answer.length : (answer as ReadonlyArray<string>).join(",").length
      }
    }
  }
  if (annotations !== undefined && !isRecord(annotations)) problems.push("annotations are not an object by question")
  if (isRecord(annotations)) {
    for (const text of Object.keys(annotations)) {
      const annotation = annotations[text]
      const where = `the annotation of ${JSON.stringify(text)}`
      if (questionOf(text) === undefined) problems.push(`${where} is keyed by no question asked`)
      else if (!isRecord(annotation)) problems.push(`${where} is not an object`)
      else {
        for (const field of Object.keys(annotation)) {
          const value = annotation[field]
          if (field === "preview" ? typeof value !== "string"
            : field === "notes" ? typeof value !== "string" || value.length > NOTES_MAX
            : field === "unanswered" ? typeof value !== "string" || !unansweredReasons.has(value)
            : true) {
            problems.push(`${where} has a ${field} the CLI does not take (preview: text; notes: text of at most ${NOTES_MAX} characters; unanswered: skipped, replied_in_chat or dismissed)`)
          }
        }
        if (typeof annotation.notes === "string") size += annotation.notes.length
      }
    }
  }
  if (response !== undefined) {
    if (typeof response !== "string") problems.push("response is no text")
    else size += response.length
  }
  if (size > ANSWER_MAX) problems.push(`answers, notes and response hold ${size} characters, over the CLI's ${ANSWER_MAX}`)
  if (updated.followUp !== undefined) {
    if (typeof updated.followUp !== "boolean") problems.push("followUp is no boolean")
    else if (!questions.every((question) => typeof question.kind === "string")) problems.push("followUp is for questions that all have a kind")
  }
  const unknown = Object.keys(updated).filter((key) => !answerFields.has(key) && !Object.hasOwn(original, key))
  if (unknown.length > 0) problems.push(`updatedInput has fields the CLI does not take: ${unknown.join(", ")}`)
  if (Object.hasOwn(updated, "questions") && !sameJson(updated.questions, original.questions)) {
    problems.push("updatedInput changes the questions the user was shown")
  }
  return problems.length === 0 ? undefined : `AskUserQuestion's answers do not pass the CLI's check: ${problems.join("; ")}`
}

const decodeRequest = Schema.decodeUnknownEffect(CanUseToolRequest)
const encodeResult = Schema.encodeUnknownEffect(PermissionResult)

// Its span ends without the answer (an allow carries the tool input, which may hold the
// session's secrets), its failure's texts left out without `TraceContent`.
const decideWire = Effect.fnUntraced(function*(
  service: Permissions["Service"],
  raw: unknown,
  requestId: string | undefined,
  report: HandlerFailure.Report | undefined,
  redact: Redact | undefined,
  refuse: ((answer: Record<string, unknown>) => string | undefined) | undefined
) {
  // The schema is structural: keep the CLI's object, with any field a newer CLI added.
  const request = raw as CanUseToolRequest
  const answered = yield* decodeRequest(raw).pipe(
    Effect.mapError((error): CallFailure => ({
      failure: "invalid_input",
      error: invalid(`Invalid can_use_tool request: ${error.message}`),
      cause: Cause.fail(error)
    })),
    Effect.andThen(
      guard(Effect.suspend(() => service.decide(request)), "can_use_tool", `permission handler for ${describeRequest(request)}`)
    ),
    // The handler's own answer (the request's input, added below, came as JSON).
    Effect.flatMap((result) => writable(result, `permission handler for ${describeRequest(request)}`)),
    // A bare allow is sent with the request's original input as `updatedInput`. Anything but an
    // object (a handler that returned nothing) goes on as it is, to be denied by the check below.
    Effect.map((result: unknown): unknown =>
      isRecord(result) && result.behavior === "allow" && result.updatedInput === undefined
        ? { ...result, updatedInput: request.input }
        : result
    ),
    // The CLI runs the call an orphaned answer's `toolUseID` names: only the request's own goes out.
    Effect.flatMap((result) =>
      isRecord(result) && result.toolUseID !== undefined && result.toolUseID !== request.tool_use_id
        ? refuseAnswer(
          `The permission handler for ${describeRequest(request)} gave an invalid answer: its toolUseID ` +
            `${JSON.stringify(result.toolUseID)} names another tool call`
        )
        : Effect.succeed(result)
    ),
    Effect.flatMap((result) => {
      const problem = request.tool_name === "AskUserQuestion" ? answersProblem(result, request.input) : undefined
      return problem === undefined
        ? Effect.succeed(result)
        : refuseAnswer(`The permission handler for ${describeRequest(request)} gave an invalid answer: ${problem}`)
    }),
    // Checked and written by the protocol's schema of the answer.
    Effect.flatMap((result) =>
      encodeResult(result).pipe(
        Effect.mapError((error): CallFailure => ({
          failure: "invalid_answer",
          error: invalid(`The permission handler for ${describeRequest(request)} gave an invalid answer: ${error.message}`),
          cause: Cause.fail(error)
        }))
      )
    ),
    // Last: the session's own refusal (a mode switch it would not send), on the answer as sent.
    Effect.flatMap((encoded) => {
      const problem = refuse?.(encoded as Record<string, unknown>)
      return problem === undefined
        ? Effect.succeed(encoded)
        : refuseAnswer(`The permission handler for ${describeRequest(request)} gave an answer the session refuses: ${problem}`)
    }),
    (reading) => readAnswer(reading, `permission handler for ${describeRequest(request)}`),
    Effect.result
  )
  if (answered._tag === "Success") return answered.success as Record<string, unknown>
  // What follows is logged, reported, sent to the CLI and ends this span: the secrets out first.
  const failed = redactFailure(answered.failure, redact)
  const message = `The permission handler for ${describeRequest(request)} failed, so the tool call was denied: ${failed.error.message}`
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>
  const toolName = typeof fields.tool_name === "string" ? fields.tool_name : undefined
  const toolUseId = typeof fields.tool_use_id === "string" ? fields.tool_use_id : undefined
  yield* warnFailure(message, failed.cause).pipe(
    Effect.annotateLogs({
      ...(toolName !== undefined ? { tool_name: toolName } : {}),
      ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
      ...(requestId !== undefined ? { request_id: requestId } : {})
    })
  )
  yield* HandlerFailure.callReport(report, {
    type: "handler_failed",
    handler: "can_use_tool",
    hookEvent: undefined,
    callbackId: undefined,
    toolName,
    toolUseId,
    requestId,
    failure: failed.failure,
    outcome: "denied",
    message,
    error: failed.error,
    cause: failed.cause
  })
  return toWire(deny(message))
}, SpanExits.withSpan("Permissions.decide"))

