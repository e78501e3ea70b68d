/**
 * Host dialogs: the CLI's `request_user_dialog` control request (a blocking dialog a tool asks
 * the host to render, such as `refusal_fallback_prompt`), answered by a handler of yours.
 *
 * The CLI sends a dialog kind only to a host that declared it in `initialize`
 * (`supportedDialogKinds`, as the official SDK's option of that name): the layer's `kinds` are
 * announced so. Without a `UserDialogs` layer nothing is announced, the CLI sends no dialogs and
 * falls back to each dialog's no-dialog behavior.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { UserDialogs } from "effect-claude-code"
 *
 * // Offered the fallback model after a refusal: retry with it.
 * const layer = UserDialogs.layer(["refusal_fallback_prompt"], (request) =>
 *   Effect.succeed(UserDialogs.completed("retry_fallback"))
 * )
 * ```
 *
 * @since 0.2.0
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
import { stringify } from "./internal/json.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { UserDialogs } from "./internal/services.ts"

// -----------------------------------------------------------------------------
// schemas
// -----------------------------------------------------------------------------

/**
 * The `request_user_dialog` control request (the `request` object of the envelope), as the
 * official SDK's `SDKControlRequestUserDialogRequest` has it. The handler gets the CLI's
 * original object.
 *
 * @since 0.2.0
 * @category schemas
 */
export const UserDialogRequest = Schema.Struct({
  subtype: Schema.Literal("request_user_dialog"),
  /** Which dialog (an open set: `refusal_fallback_prompt`, ...). */
  dialog_kind: Schema.String,
  /** The dialog's data; its shape is defined per `dialog_kind`. */
  payload: Schema.Record(Schema.String, Schema.Unknown),
  /** The tool call the dialog belongs to, when it belongs to one. */
  tool_use_id: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.2.0
 * @category schemas
 */
export interface UserDialogRequest extends Schema.Schema.Type<typeof UserDialogRequest> {}

/**
 * The answer to a `request_user_dialog` (the control_response body): `completed` with the
 * dialog's `result` (its shape is defined per `dialog_kind`), or `cancelled` (the user dismissed
 * it: the CLI applies the dialog's default).
 *
 * @since 0.2.0
 * @category schemas
 */
export const UserDialogResult = Schema.Union([
  Schema.Struct({ behavior: Schema.Literal("completed"), result: Schema.Unknown }),
  Schema.Struct({ behavior: Schema.Literal("cancelled") })
])

/**
 * @since 0.2.0
 * @category schemas
 */
export type UserDialogResult = typeof UserDialogResult.Type

/**
 * The results CLI 2.1.332 takes for its dialog kinds whose result is one of a closed list (its
 * binary's definitions): it replaces any other result by the kind's default without a word, so
 * such an answer is an invalid answer here (cancelled and reported). A kind not listed (one whose
 * result is an object, a newer CLI's) is left to the program and the CLI.
 *
 * @since 0.2.0
 * @category schemas
 */
export const knownResults: Readonly<Record<string, ReadonlyArray<string>>> = {
  auto_default_nudge: ["accept", "decline", "cancelled"],
  auto_mode_end_offer: ["stay", "switch", "interrupt", "cancelled"],
  auto_mode_server_fallback: ["continue", "interrupt", "cancelled"],
  bypass_switch_back: ["next_mode", "plan", "setup", "bypass_now", "bypass_always", "stay", "cancelled"],
  cold_resume_quota: ["resume", "new_conversation", "dismiss", "cancelled"],
  cost_threshold: ["acknowledged", "cancelled"],
  fullscreen_upsell: ["accept", "dismiss", "cancelled"],
  newer_model_offer: ["resume_on_newer_model", "keep", "dismiss", "cancelled"],
  send_to_project_remote_control_offer: ["turned_on", "already_on", "declined", "failed"],
  ultraplan_choice: ["here", "fresh", "cancel", "cancelled"],
  resume_return: ["compact", "continue", "dismiss", "never", "cancelled"],
  check_in_question: ["new", "chat", "tried", "agents", "own", "check", "step", "other_question", "skip", "cancelled"],
  auto_mode_outside_reads: ["allow", "block", "ask_again", "allow_once"],
  auto_mode_setup_review: ["accept", "decline", "cancelled"],
  chrome_install_setup: ["continue", "keep_waiting", "skip", "cancelled"],
  chrome_install_upsell: ["install", "not_now", "dont_ask_again", "cancelled"],
  computer_use_first_use: ["not_now", "turn_off", "turn_on", "cancelled"],
  device_mcp_consent: ["allow", "deny", "not_now"],
  fable_overage_consent_prompt: ["consent", "switch_default", "cancelled", "request_admin"],
  ide_onboarding: ["dismissed", "cancelled"],
  it2_setup: ["installed", "use-tmux", "cancelled"],
  left_arrow_confirm: ["confirm", "stay", "cancelled"],
  lsp_recommendation: ["yes", "no", "timeout", "never", "disable", "cancelled"],
  managed_settings_security: ["approved", "rejected", "deferred_no_consent_surface"],
  mcp_elicitation_waiting: ["dismiss", "retry", "cancel", "cancelled"],
  plugin_hint: ["yes", "no", "disable", "cancelled"],
  refusal_fallback_prompt: ["retry_fallback", "edit_prompt", "cancelled"],
  remote_callout: ["enable", "dismiss", "cancelled"],
  ultraplan_launch: ["run", "run_with_upload_notice", "cancel", "cancelled"],
  unattended_serving_consent: ["accept", "decline", "not_now"]
}

/**
 * The dialog was answered with `result`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const completed = (result: unknown): UserDialogResult => ({ behavior: "completed", result })

/**
 * The dialog was dismissed: the CLI applies its default.
 *
 * @since 0.2.0
 * @category constructors
 */
export const cancelled = (): UserDialogResult => ({ behavior: "cancelled" })

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

/**
 * A handler for `request_user_dialog` requests.
 *
 * @since 0.2.0
 * @category models
 */
export type Handler<E = never, R = never> = (request: UserDialogRequest) => Effect.Effect<UserDialogResult, E, R>

/**
 * Options of {@link layer}.
 *
 * @since 0.2.0
 * @category models
 */
export interface UserDialogsOptions {
  /**
   * How long the handler may take for one dialog. Past it the handler is interrupted and the
   * dialog is cancelled (a `timed_out` failure). Default: none.
   */
  readonly timeout?: Duration.Input | undefined
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

// The tag is declared (and documented) in `internal/services.ts`, which `Claude.ts` imports
// without this module.
export { UserDialogs }

/**
 * Checks the kinds: each a non-empty string, none twice. Fails with `InvalidInput`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const validateKinds = (kinds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, ClaudeError.ClaudeError> => {
  const problems: Array<string> = []
  const seen = new Set<string>()
  for (const kind of kinds as ReadonlyArray<unknown>) {
    if (typeof kind !== "string" || kind.trim() === "") problems.push(`a dialog kind must be a non-empty string, got ${JSON.stringify(kind)}`)
    else if (seen.has(kind)) problems.push(`the dialog kind ${kind} is listed twice`)
    else seen.add(kind)
  }
  return problems.length === 0
    ? Effect.succeed(kinds)
    : Effect.fail(invalid(`Invalid UserDialogs kinds: ${problems.join("; ")}`))
}

/**
 * Builds the service from the kinds it renders and a handler, capturing the handler's
 * requirements `R` (leaving out the build's `Scope` and parent span). Fails with `InvalidInput`
 * when the kinds are not valid ({@link validateKinds}).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromHandler = <E, R>(
  kinds: ReadonlyArray<string>,
  handler: Handler<E, R>,
  options?: UserDialogsOptions
): Effect.Effect<UserDialogs["Service"], ClaudeError.ClaudeError, R> =>
  Effect.flatMap(validateKinds(kinds), (valid) =>
    Effect.map(
      captureHandler(handler, {
        subtype: "request_user_dialog",
        timeout: options?.timeout,
        who: (request) => `dialog handler for ${request.dialog_kind}`
      }),
      (show) => UserDialogs.of({ kinds: [...valid], show })
    ))

/**
 * A layer of the service: `kinds` are the dialog kinds the handler renders (declare only those:
 * the CLI sends only these). Fails with `InvalidInput` when the kinds are not valid.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = <E, R>(
  kinds: ReadonlyArray<string>,
  handler: Handler<E, R>,
  options?: UserDialogsOptions
): Layer.Layer<UserDialogs, ClaudeError.ClaudeError, R> => Layer.effect(UserDialogs, fromHandler(kinds, handler, options))

const decodeRequest = Schema.decodeUnknownEffect(UserDialogRequest)
const decodeResult = Schema.decodeUnknownEffect(UserDialogResult)

const kindOf = (request: unknown): string =>
  typeof request === "object" && request !== null && typeof (request as { dialog_kind?: unknown }).dialog_kind === "string"
    ? (request as { dialog_kind: string }).dialog_kind
    : "an unknown kind"

/**
 * What the session calls for a `request_user_dialog`: decodes the raw request, asks the service,
 * checks the answer and returns the control_response body.
 *
 * - A kind the service did not declare fails with `InvalidInput` (the session answers with an
 *   error, which the CLI discards: the dialog stays pending for a client that renders it, as
 *   the protocol asks; never `cancelled`, which would settle it).
 * - **Fails closed**: a request that breaks its schema, a handler that fails, dies, interrupts
 *   itself or times out, and an answer that is not a {@link UserDialogResult} are answered
 *   `cancelled` (the CLI applies the dialog's default, as when a user dismisses it), logged as a
 *   warning and passed to `report` (handler `request_user_dialog`, outcome `cancelled`).
 * - Interrupting `show` (a `control_cancel_request`: the CLI withdrew the dialog) interrupts the
 *   handler; nothing is reported.
 * - `redact` (a session passes its own) replaces the session's secrets in a failure's text
 *   before it is logged or reported.
 *
 * @since 0.2.0
 * @category session
 */
export const bind = (
  service: UserDialogs["Service"],
  report?: HandlerFailure.Report,
  redact?: (text: string) => string
): {
  /** Answers one `request_user_dialog` request body with the JSON of the `control_response`. */
  readonly show: (
    request: unknown,
    requestId?: string | undefined
  ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
} => ({ show: (raw, requestId) => showWire(service, raw, requestId, report, redact) })

// Its span ends without the answer (what the user answered), its failure's texts left out
// without `TraceContent`.
const showWire = Effect.fnUntraced(function*(
  service: UserDialogs["Service"],
  raw: unknown,
  requestId: string | undefined,
  report: HandlerFailure.Report | undefined,
  redact: Redact | undefined
) {
  const kind = kindOf(raw)
  if (!service.kinds.includes(kind)) {
    return yield* Effect.fail(invalid(
      `The CLI sent a request_user_dialog of kind ${kind}, which this host did not declare (${service.kinds.join(", ")})`
    ))
  }
  const answered = yield* decodeRequest(raw).pipe(
    Effect.mapError((error): CallFailure => ({
      failure: "invalid_input",
      error: invalid(`Invalid request_user_dialog request: ${error.message}`),
      cause: Cause.fail(error)
    })),
    Effect.andThen(
      guard(Effect.suspend(() => service.show(raw as UserDialogRequest)), "request_user_dialog", `dialog handler for ${kind}`)
    ),
    Effect.flatMap((result) =>
      decodeResult(result).pipe(
        Effect.mapError((error): CallFailure => ({
          failure: "invalid_answer",
          error: invalid(`The dialog handler for ${kind} gave an invalid answer: ${error.message}`),
          cause: Cause.fail(error)
        }))
      )
    ),
    Effect.flatMap((result) => {
      const expected = Object.hasOwn(knownResults, kind) ? knownResults[kind] : undefined
      const given = result.behavior === "completed" ? result.result : undefined
      if (expected === undefined || result.behavior !== "completed" || (typeof given === "string" && expected.includes(given))) {
        return Effect.succeed(result)
      }
      return refuseAnswer(
        `The dialog handler for ${kind} gave the result ${stringify(given)}, which the CLI would ` +
          `replace by the dialog's default: it takes one of ${expected.map((value) => `"${value}"`).join(", ")}`
      )
    }),
    Effect.flatMap((result) => writable(result, `dialog handler for ${kind}`)),
    (reading) => readAnswer(reading, `dialog handler for ${kind}`),
    Effect.result
  )
  if (answered._tag === "Success") {
    const result = answered.success
    return result.behavior === "completed" ? { behavior: "completed", result: result.result } : { behavior: "cancelled" }
  }
  // What follows is logged, reported and ends this span: the secrets out first.
  const failed = redactFailure(answered.failure, redact)
  const message = `The dialog handler for ${kind} failed, so the dialog was cancelled: ${failed.error.message}`
  const toolUseId = typeof raw === "object" && raw !== null && typeof (raw as { tool_use_id?: unknown }).tool_use_id === "string"
    ? (raw as { tool_use_id: string }).tool_use_id
    : undefined
  yield* warnFailure(message, failed.cause).pipe(
    Effect.annotateLogs({ dialog_kind: kind, ...(requestId !== undefined ? { request_id: requestId } : {}) })
  )
  yield* HandlerFailure.callReport(report, {
    type: "handler_failed",
    handler: "request_user_dialog",
    hookEvent: undefined,
    callbackId: undefined,
    toolName: undefined,
    toolUseId,
    requestId,
    failure: failed.failure,
    outcome: "cancelled",
    message,
    error: failed.error,
    cause: failed.cause
  })
  return { behavior: "cancelled" }
}, SpanExits.withSpan("UserDialogs.show"))
