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
 * const layer = Permissions.layer((request) =>
 *   Effect.gen(function*() {
 *     const policy = yield* Policy // your own service, captured when the layer is built
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
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as ClaudeError from "./ClaudeError.ts"
import * as HandlerFailure from "./HandlerFailure.ts"
import { describeCause } from "./internal/describeCause.ts"
import { openLiterals } from "./protocol/internal.ts"
import * as Protocol from "./Protocol.ts"

// -----------------------------------------------------------------------------
// schemas
// -----------------------------------------------------------------------------

/**
 * Where a permission update is stored. Known values: `userSettings`, `projectSettings`,
 * `localSettings`, `session`, `cliArg`; any other string (from a later CLI) is accepted as is.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionUpdateDestination = openLiterals([
  "userSettings",
  "projectSettings",
  "localSettings",
  "session",
  "cliArg"
])

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionUpdateDestination = typeof PermissionUpdateDestination.Type

/**
 * A permission rule: a tool name and, optionally, the rule content (e.g. a Bash command).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionRuleValue = Schema.Struct({
  toolName: Schema.String,
  ruleContent: Schema.optionalKey(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionRuleValue = typeof PermissionRuleValue.Type

/**
 * What a rule does. Known values: `allow`, `deny`, `ask`; any other string (from a later CLI) is
 * accepted as is.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionBehavior = openLiterals(["allow", "deny", "ask"])

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionBehavior = typeof PermissionBehavior.Type

const rulesUpdate = <const T extends string>(type: T) =>
  Schema.Struct({
    type: Schema.Literal(type),
    rules: Schema.Array(PermissionRuleValue),
    behavior: PermissionBehavior,
    destination: PermissionUpdateDestination
  })

const directoriesUpdate = <const T extends string>(type: T) =>
  Schema.Struct({
    type: Schema.Literal(type),
    directories: Schema.Array(Schema.String),
    destination: PermissionUpdateDestination
  })

/**
 * A change to the permission rules, as suggested by the CLI in `permission_suggestions` and as
 * sent back in `updatedPermissions` (e.g. "always allow `touch one.txt` for this session").
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionUpdate = Schema.Union([
  rulesUpdate("addRules"),
  rulesUpdate("replaceRules"),
  rulesUpdate("removeRules"),
  Schema.Struct({
    type: Schema.Literal("setMode"),
    mode: Schema.String,
    destination: PermissionUpdateDestination
  }),
  directoriesUpdate("addDirectories"),
  directoriesUpdate("removeDirectories"),
  // Last: an update of a type a later CLI adds decodes as the wire shape, so a can_use_tool that
  // suggests one still reaches the handler instead of becoming a denial.
  Protocol.PermissionUpdate
])

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionUpdate = typeof PermissionUpdate.Type

/**
 * The CLI's `can_use_tool` control request (the `request` object of the envelope; `subtype` may
 * be present or not). Decoding validates the listed fields; the handler gets the CLI's original
 * object, so fields added by later CLIs are kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CanUseToolRequest = Schema.Struct({
  subtype: Schema.optionalKey(Schema.Literal("can_use_tool")),
  tool_name: Schema.String,
  input: Schema.Record(Schema.String, Schema.Unknown),
  tool_use_id: Schema.String,
  display_name: Schema.optionalKey(Schema.String),
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  permission_suggestions: Schema.optionalKey(Schema.Array(PermissionUpdate)),
  blocked_path: Schema.optionalKey(Schema.String),
  decision_reason: Schema.optionalKey(Schema.String),
  decision_reason_type: Schema.optionalKey(Schema.String),
  classifier_approvable: Schema.optionalKey(Schema.Boolean),
  suppress_always_allow_rule: Schema.optionalKey(Schema.Boolean),
  default_to_no: Schema.optionalKey(Schema.Boolean),
  matched_ask_rule: Schema.optionalKey(Schema.Struct({
    source: Schema.String,
    tool_name: Schema.String,
    rule_content: Schema.optionalKey(Schema.String)
  })),
  agent_id: Schema.optionalKey(Schema.String),
  mcp_server: Schema.optionalKey(Schema.Struct({ name: Schema.String, source: Schema.String })),
  requires_user_interaction: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type CanUseToolRequest = typeof CanUseToolRequest.Type

const DecisionClassification = Schema.Literals(["user_temporary", "user_permanent", "user_reject"])

/**
 * Let the tool run, optionally with a rewritten input and new permission rules.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionAllow = Schema.Struct({
  behavior: Schema.Literal("allow"),
  updatedInput: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  updatedPermissions: Schema.optionalKey(Schema.Array(PermissionUpdate)),
  decisionClassification: Schema.optionalKey(DecisionClassification)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionAllow = typeof PermissionAllow.Type

/**
 * Refuse the tool; `message` becomes the tool result the model sees. `interrupt: true` also
 * aborts the turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionDeny = Schema.Struct({
  behavior: Schema.Literal("deny"),
  message: Schema.String,
  interrupt: Schema.optionalKey(Schema.Boolean),
  decisionClassification: Schema.optionalKey(DecisionClassification)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionDeny = typeof PermissionDeny.Type

/**
 * The answer to a `can_use_tool` request. Its wire form (the control_response body) is the same
 * object: `{"behavior":"allow","updatedInput":{...}}` or `{"behavior":"deny","message":"..."}`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionResult = Schema.Union([PermissionAllow, PermissionDeny])

/**
 * @since 0.1.0
 * @category schemas
 */
export type PermissionResult = typeof PermissionResult.Type

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

/**
 * Allow the tool call. `updatedInput` replaces the tool's input (the CLI runs the new one);
 * `updatedPermissions` adds rules (e.g. one of the request's `permission_suggestions`) so the
 * same call is not asked about again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allow = (options?: {
  readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
  readonly updatedPermissions?: ReadonlyArray<PermissionUpdate> | undefined
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
  readonly interrupt?: boolean | undefined
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
 * The control_response body for a result, exactly as the CLI reads it:
 * `{"behavior":"allow"}`, `{"behavior":"allow","updatedInput":{...},"updatedPermissions":[...]}`,
 * `{"behavior":"deny","message":"...","interrupt":true}`. Only the known keys are written.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toWire = (result: PermissionResult): Record<string, unknown> => {
  const wire: Record<string, unknown> = { behavior: result.behavior }
  if (result.behavior === "allow") {
    if (result.updatedInput !== undefined) wire.updatedInput = result.updatedInput
    if (result.updatedPermissions !== undefined) wire.updatedPermissions = result.updatedPermissions
  } else {
    wire.message = result.message
    if (result.interrupt !== undefined) wire.interrupt = result.interrupt
  }
  if (result.decisionClassification !== undefined) wire.decisionClassification = result.decisionClassification
  return wire
}

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

/**
 * A handler for `can_use_tool` requests.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler<E = never, R = never> = (
  request: CanUseToolRequest
) => Effect.Effect<PermissionResult, E, R>

/**
 * Options of {@link Permissions.layer}.
 *
 * @since 0.1.0
 * @category models
 */
export interface PermissionsOptions {
  /**
   * How long the handler may take for one request. Past it the handler is interrupted and the
   * tool call is denied (a `timed_out` failure). Default: none (the CLI waits for the answer as
   * long as the turn runs).
   */
  readonly timeout?: Duration.Input | undefined
}

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

const describeRequest = (request: unknown): string => {
  const fields = (typeof request === "object" && request !== null ? request : {}) as Record<string, unknown>
  return `${String(fields.tool_name)} (${String(fields.tool_use_id)})`
}

/**
 * The permission callback. When present in the session's context, the session launches the CLI
 * with `--permission-prompt-tool stdio` and answers each `can_use_tool` request with `decide`.
 *
 * `decide` never needs services: the handler's requirements are captured when the layer is built
 * (see {@link layer}); each call runs in a scope of its own and under the caller's span. It fails
 * with a `ClaudeError` when the handler fails (its own `ClaudeError`, `ControlTimeout` past the
 * layer's `timeout`, else `InvalidInput`), and dies when it dies. Interrupting `decide` (the
 * CLI's `control_cancel_request`) interrupts the handler and runs its finalizers.
 *
 * What reaches the CLI is decided by {@link Permissions.bind}: a handler that fails, dies,
 * interrupts itself, times out or answers something invalid **denies** the tool call (fails
 * closed), with the reason as the message, and the failure is logged and reported.
 *
 * @since 0.1.0
 * @category services
 */
export class Permissions extends Context.Service<Permissions, {
  readonly decide: (request: CanUseToolRequest) => Effect.Effect<PermissionResult, ClaudeError.ClaudeError>
}>()("effect-claude-code/Permissions") {
  /**
   * Builds the service from a handler, capturing the handler's requirements `R` from the
   * context the effect runs in. The captured context leaves out the build's `Scope` and parent
   * span: a call runs in a scope of its own (closed when the call ends) and under the span of the
   * fiber that calls `decide`.
   *
   * @since 0.1.0
   */
  static readonly fromHandler = <E, R>(
    handler: Handler<E, R>,
    options?: PermissionsOptions
  ): Effect.Effect<Permissions["Service"], never, R> =>
    Effect.map(Effect.context<R>(), (captured) => {
      const context = Context.omit(Tracer.ParentSpan, Scope.Scope)(captured)
      const timeout = options?.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout)
      const timeoutMillis = timeout === undefined ? Infinity : Duration.toMillis(timeout)
      return Permissions.of({
        decide: (request) => {
          const run = Effect.suspend(() => handler(request)).pipe(
            Effect.provideContext(context),
            Effect.scoped,
            Effect.mapError((error) =>
              ClaudeError.isClaudeError(error)
                ? error
                : invalid(
                  `The permission handler for ${describeRequest(request)} failed: ${describeCause(Cause.fail(error))}`
                )
            )
          ) as Effect.Effect<PermissionResult, ClaudeError.ClaudeError>
          return Number.isFinite(timeoutMillis)
            ? Effect.timeoutOrElse(run, {
              duration: timeout!,
              orElse: () => Effect.fail(ClaudeError.make(new ClaudeError.ControlTimeout({ subtype: "can_use_tool", timeoutMillis })))
            })
            : run
        }
      })
    })

  /**
   * A layer of the service. The handler's requirements `R` are taken from the context the layer
   * is built in (like `Toolkit.toLayer`), so provide them to the layer: the handler then runs in
   * that context whichever fiber calls `decide`.
   *
   * @since 0.1.0
   */
  static readonly layer = <E, R>(handler: Handler<E, R>, options?: PermissionsOptions): Layer.Layer<Permissions, never, R> =>
    Layer.effect(Permissions, Permissions.fromHandler(handler, options))

  /**
   * @since 0.1.0
   */
  static readonly allow = allow

  /**
   * @since 0.1.0
   */
  static readonly deny = deny

  /**
   * @since 0.1.0
   */
  static readonly toWire = toWire

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
   * An `allow` without `updatedInput` is sent with the request's original input as
   * `updatedInput` (as the Python SDK does): CLI 2.1.332 accepts a bare `{"behavior":"allow"}`,
   * older CLIs required the field.
   *
   * @since 0.1.0
   */
  static override readonly bind = (service: Permissions["Service"], report?: HandlerFailure.Report): {
    readonly decide: (
      request: unknown,
      requestId?: string | undefined
    ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
  } => ({ decide: (raw, requestId) => decideWire(service, raw, requestId, report) })
}

const decodeRequest = Schema.decodeUnknownEffect(CanUseToolRequest)
const decodeResult = Schema.decodeUnknownEffect(PermissionResult)

/** A failed call, before it is answered. */
interface CallFailure {
  readonly failure: HandlerFailure.FailureKind
  readonly error: ClaudeError.ClaudeError
  readonly cause: Cause.Cause<unknown>
}

/**
 * Classifies the handler's own failure, defect or self-interruption. Interrupting the caller's
 * fiber (control_cancel_request) never reaches `catchCause`: it stays an interruption.
 */
const guard = <A>(effect: Effect.Effect<A, unknown>, request: CanUseToolRequest): Effect.Effect<A, CallFailure> =>
  Effect.catchCause(effect, (cause) => {
    const failure = Cause.findErrorOption(cause)
    const claudeError = Option.isSome(failure) && ClaudeError.isClaudeError(failure.value) ? failure.value : undefined
    const how = Cause.hasFails(cause) ? "failed" : Cause.hasDies(cause) ? "died" : "interrupted"
    const kind: HandlerFailure.FailureKind = claudeError?.reason._tag === "ControlTimeout" &&
        claudeError.reason.subtype === "can_use_tool"
      ? "timed_out"
      : how
    const error = claudeError ?? invalid(
      `The permission handler for ${describeRequest(request)} ${how === "interrupted" ? "was interrupted" : how}: ${
        describeCause(cause)
      }`
    )
    return Effect.fail({ failure: kind, error, cause })
  })

const decideWire = Effect.fn("Permissions.decide")(function*(
  service: Permissions["Service"],
  raw: unknown,
  requestId: string | undefined,
  report: HandlerFailure.Report | undefined
) {
  // The schema is structural: keep the CLI's object, with any field a newer CLI added.
  const request = raw as CanUseToolRequest
  const answered = yield* decodeRequest(raw).pipe(
    Effect.mapError((error): CallFailure => ({
      failure: "invalid_input",
      error: invalid(`Invalid can_use_tool request: ${error.message}`),
      cause: Cause.fail(error)
    })),
    Effect.andThen(guard(Effect.suspend(() => service.decide(request)), request)),
    Effect.tap((result) =>
      decodeResult(result).pipe(
        Effect.mapError((error): CallFailure => ({
          failure: "invalid_answer",
          error: invalid(`The permission handler for ${describeRequest(request)} gave an invalid answer: ${error.message}`),
          cause: Cause.fail(error)
        }))
      )
    ),
    Effect.result
  )
  if (answered._tag === "Success") {
    const result = answered.success
    // Validated, then sent as the handler gave it: decoding would drop the fields of an update
    // type this library does not know yet.
    const wire = toWire(result)
    if (result.behavior === "allow" && result.updatedInput === undefined) {
      return { behavior: "allow", updatedInput: request.input, ...omitBehavior(wire) }
    }
    return wire
  }
  const failed = answered.failure
  const message = `The permission handler for ${describeRequest(request)} failed, so the tool call was denied: ${failed.error.message}`
  const fields = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>
  const toolName = typeof fields.tool_name === "string" ? fields.tool_name : undefined
  const toolUseId = typeof fields.tool_use_id === "string" ? fields.tool_use_id : undefined
  yield* Effect.logWarning(message, failed.cause).pipe(
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
})

const omitBehavior = (wire: Record<string, unknown>): Record<string, unknown> => {
  const { behavior: _behavior, ...rest } = wire
  return rest
}
