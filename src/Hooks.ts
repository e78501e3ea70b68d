/**
 * Hooks: Effect handlers the `claude` CLI calls at points of its loop (before a tool runs, when
 * the turn is about to stop, when a prompt is submitted, ...), over `hook_callback` control
 * requests.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Hooks } from "effect-claude-code"
 *
 * const HooksLive = Hooks.layer(
 *   Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
 *     // The matcher names Bash exactly, so the input is Bash's: `tool_input.command` is a string
 *     // (without a matcher, `input.tool_name === "Bash"` narrows the same way).
 *     Effect.succeed(
 *       input.tool_input.command.includes("rm -rf")
 *         ? Hooks.deny("not here")
 *         : Hooks.allow()
 *     )),
 *   Hooks.on("Stop", (input) =>
 *     Effect.succeed(input.stop_hook_active ? Hooks.allow() : Hooks.block("Also say goodbye.")))
 * )
 *
 * // or, keyed by event:
 * const HooksLive2 = Hooks.layer({
 *   PreToolUse: [{ matcher: "Bash", handler: () => Effect.succeed(Hooks.allow()) }],
 *   Stop: [() => Effect.succeed(Hooks.allow())]
 * })
 * ```
 *
 * **Composition.** Several `Hooks` layers add up: a `Hooks` layer, when built, reads the `Hooks`
 * service already in its context (if any) and provides the concatenation, earlier
 * registrations first. So all of these give the registrations of both A and B:
 *
 * - `program.pipe(Effect.provide(A), Effect.provide(B))` (B is built first, A sees it);
 * - `Layer.provideMerge(A, B)` / `A.pipe(Layer.provideMerge(B))`, and `Layer.provide(A, B)`;
 * - {@link mergeLayers}`(A, B)`.
 *
 * `Layer.mergeAll(A, B)` / `Layer.merge(A, B)` build A and B side by side, so neither sees the
 * other and only one of them survives: use {@link mergeLayers} for that. A
 * `Layer.succeed(Hooks.Hooks, ...)` replaces whatever was there.
 *
 * **Guards fail closed.** A handler of an event whose answer can let an action through
 * ({@link guardEvents}: `PreToolUse`, `PermissionRequest`, `UserPromptSubmit`, ...) that fails,
 * dies, throws, interrupts itself, answers something the event's schema refuses (a key the
 * event's answer does not have too: `permissionDecision` outside `hookSpecificOutput`), or runs
 * past its deadline (its `timeout`, else {@link defaultGuardTimeout}) answers the CLI with the event's
 * {@link refusal}, whose reason says what happened: the tool does not run, the prompt is dropped.
 * `{ onFailure: "continue" }` on a registration opts out. A failing handler of any other event
 * gets the non-blocking error answer (the CLI goes on as if the hook had said nothing). Every
 * failure is logged as a warning and passed to the `report` of {@link bind}
 * ({@link HandlerFailure.HandlerFailed}).
 *
 * **Scope and span.** Each call runs in a scope of its own, closed when the call ends, and under
 * the span of the fiber that dispatches it (not the scope or span its layer was built in).
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
import { matcherProblems } from "./internal/matcherProblems.ts"
import { answerBy, effectOf, readAnswer, redactFailure, warnFailure, writable } from "./internal/handlerCall.ts"
import { isRecord } from "./internal/json.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { deadlineProblem } from "./internal/sessionOptionsCheck.ts"
import * as HookEvents from "./HookEvents.ts"
import type { HookMatcher } from "./protocol/control.ts"

export type {
  /**
   * @since 0.1.0
   * @category models
   */
  HookEventName,
  /**
   * @since 0.1.0
   * @category models
   */
  HookInput,
  /**
   * @since 0.1.0
   * @category models
   */
  HookOutput,
  /**
   * @since 0.1.0
   * @category models
   */
  KnownEvent
} from "./HookEvents.ts"
import { Hooks } from "./internal/services.ts"

const TypeId = "~effect-claude-code/Hooks/Hook" as const

/**
 * What a handler learns besides the input.
 *
 * @since 0.1.0
 * @category models
 */
export interface HookMeta {
  /** The `tool_use_id` of the request: the tool call's id, or a random uuid for non-tool events. */
  readonly toolUseId: string | undefined
  /** The callback id of this registration in the current session (`hook_0`, `hook_1`, ...). */
  readonly callbackId: string
}

/**
 * A handler for event `K`. With `M`, the `matcher` it is registered with: a matcher naming
 * built-in tools exactly (`"Bash"`, `"Edit|Write"`) narrows the input to those tools
 * ({@link HookEvents.HookInputMatching}).
 *
 * @since 0.1.0
 * @category models
 */
export type Handler<K extends string, E = never, R = never, M extends string = string> = (
  input: HookEvents.HookInputMatching<K, M>,
  meta: HookMeta
) => Effect.Effect<HookEvents.HookOutput<K>, E, R>

/**
 * Options of a registration.
 *
 * @since 0.1.0
 * @category models
 */
export interface HookOptions {
  /**
   * Which tools the handler guards, for tool events, as CLI 2.1.332 reads it: a matcher of
   * letters, digits, `_`, `-` and spaces only, names separated by `|` or `,`, is a list of exact
   * tool names (`"Bash"`, `"Bash|Edit"`; a former name, `Task`, names its tool too), so
   * `"mcp__byre"` guards no tool of server `byre`; anything else is a regular expression, not
   * anchored (`"mcp__byre__.*"`, `"^mcp__byre__"`). `"*"`, `""` or absent: every call of the event.
   * Tool names are compared with their case, and a permission rule (`"Bash(rm:*)"`) is no
   * matcher, nor is a glob (`"mcp__*__delete"`, where `_*` is any number of `_`: write
   * `"mcp__.*__delete"`): such matchers, and `mcp__<server>` alone, are `InvalidInput` when the
   * layer is built. A `Bash` matcher is asked about a `Monitor` command too (`tool_name: "Bash"`),
   * where a rewrite is refused ({@link allowWith}).
   */
  readonly matcher?: string | undefined
  /**
   * How long the handler may take. Past it the handler is interrupted and the call counts as a
   * failure (`timed_out`, see {@link HookOptions.onFailure}). The CLI gets the registration's
   * `timeout` in whole seconds rounded up plus {@link cliTimeoutMarginSeconds}, so the library
   * always answers (and the program learns of it) before the CLI gives up on its own.
   *
   * Default: none for most events; {@link defaultGuardTimeout} for a registration that fails
   * closed (a guard event with `onFailure: "block"`), because CLI 2.1.332 on its own timeout
   * cancels the request and refuses the action without telling the program why. A positive
   * duration: anything else is `InvalidInput` when the hooks' layer is built.
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * What a failure of the handler (a typed failure, a defect, a self-interruption, a timeout,
   * an answer that breaks the event's schema) answers the CLI:
   *
   * - `"block"` (the default on the {@link guardEvents}): a refusal carrying the reason, so the
   *   action the hook guards (a tool call, a permission request, a prompt) does not happen; the
   *   registration also carries `onFailure: "block"` in `initialize`, so the CLI blocks on an
   *   error answer too;
   * - `"continue"` (the default, and the only behaviour, on every other event): an error
   *   control_response, which the CLI treats as "no opinion" and goes on.
   *
   * Either way the failure is logged and reported ({@link HandlerFailure.HandlerFailed}). Set
   * `"continue"` on a guard to let the action through when the guard itself is broken.
   *
   * Named explicitly on a guard event, `"block"` also asks the CLI to honor it: a CLI whose
   * `initialize` answer lacks `hook_on_failure_supported` (before 2.1.332) gets no turn
   * (`ControlRejected`), as the official SDK refuses it. Left to its default, a guard still runs
   * there: the library answers it by its deadline (with its refusal on a failure), before the
   * CLI's own.
   */
  readonly onFailure?: "block" | "continue" | undefined
}

/**
 * One registration: an event, an optional matcher and timeout, and a handler whose
 * requirements `R` are still to be provided (by {@link layer}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Hook<out R = never> {
  /** Marks a value made by {@link on}: how {@link layer} tells a list of hooks from a {@link Spec}. */
  readonly [TypeId]: typeof TypeId
  /** The hook event's name (`"PreToolUse"`, `"Stop"`, …), the key under `initialize.hooks`. */
  readonly event: string
  /** The tool-name regular expression ({@link HookOptions.matcher}); `undefined` matches every call. */
  readonly matcher: string | undefined
  /** The handler's deadline ({@link HookOptions.timeout}); `undefined` for the event's default. */
  readonly timeout: Duration.Duration | undefined
  /** What a failure of the handler answers ({@link HookOptions.onFailure}); `undefined` for the event's default. */
  readonly onFailure: "block" | "continue" | undefined
  /** The handler; its input and answer were typed by the event where it was registered. */
  readonly handler: (input: never, meta: HookMeta) => Effect.Effect<unknown, unknown, R>
}

/**
 * A registration held by the service: a {@link Hook} whose requirements were provided when its
 * layer was built.
 *
 * @since 0.1.0
 * @category models
 */
export type Registration = Hook<never>

/**
 * The requirements of a union of hooks.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements<H> = H extends Hook<infer R> ? R : never

/**
 * One entry of the keyed form of {@link layer}: a handler, or a handler with options.
 *
 * @since 0.1.0
 * @category models
 */
export type Entry<K extends string, E = unknown, R = unknown> =
  | Handler<K, E, R>
  | (HookOptions & {
    /** The handler of the event. */
    readonly handler: Handler<K, E, R>
  })

/**
 * The keyed form of {@link layer}: per known event, one entry or a list of entries.
 *
 * @since 0.1.0
 * @category models
 */
export type Spec = {
  readonly [K in HookEvents.KnownEvent]?: Entry<K> | ReadonlyArray<Entry<K>>
}

type EntryRequirements<En> = En extends (...args: never) => Effect.Effect<unknown, unknown, infer R> ? R
  : En extends { readonly handler: (...args: never) => Effect.Effect<unknown, unknown, infer R> } ? R
  : never

/**
 * The requirements of the handlers of a {@link Spec}.
 *
 * @since 0.1.0
 * @category models
 */
export type SpecRequirements<S> = {
  [K in keyof S]-?: S[K] extends ReadonlyArray<infer En> ? EntryRequirements<En> : EntryRequirements<S[K]>
}[keyof S]

/**
 * The JSON of one `initialize.hooks` entry: the protocol's {@link HookMatcher}.
 *
 * @since 0.1.0
 * @category models
 */
export type InitializeMatcher = HookMatcher

/**
 * What the session gets from {@link bind}: the `hooks` field of its `initialize` request,
 * and the function answering `hook_callback` requests.
 *
 * @since 0.1.0
 * @category models
 */
export interface Bound {
  /** The `hooks` field of `initialize`: `{ <Event>: [{ matcher, hookCallbackIds, timeout? }] }`. */
  readonly initialize: Record<string, Array<InitializeMatcher>>
  /**
   * Whether a guard's registration names `onFailure: "block"` itself: then a CLI that does not
   * honor it (its `initialize` answer lacks `hook_on_failure_supported`) gets no turn, as the
   * official SDK refuses the session. (A guard's default is to fail closed as well; on such a CLI
   * the library still answers it before the CLI's own deadline, with its refusal.)
   */
  readonly blockAsked: boolean
  /**
   * Answers a `hook_callback` request: finds the registration by `callback_id`, decodes `input`
   * with the event's schema, runs the handler (in a scope of its own, under the caller's span)
   * and returns the control_response body (the hook output JSON).
   *
   * A failure of the call (a bad input, a handler failure, defect or self-interruption, a
   * timeout, an answer that breaks the event's schema) is logged as a warning and reported; then
   * a registration that fails closed (see {@link HookOptions.onFailure}) succeeds with the
   * event's refusal ({@link refusal}), and any other fails with a `ClaudeError` (the handler's
   * own `ClaudeError`, `ControlTimeout`, else `InvalidInput`), which the session sends as an
   * error answer. An unknown callback id fails with `InvalidInput`. Interrupting `dispatch`
   * (a `control_cancel_request`) interrupts the handler and is neither a failure nor reported.
   *
   * `requestId`, when given, is carried in the {@link HandlerFailure.HandlerFailed} event.
   * `unreadable`, when given, says why the library could not read the request (a field that
   * breaks its schema, a line over `maxLineBytes`): the handler is not run, and the call fails
   * with `InvalidInput` saying so, answered as above (a guard's refusal). A `callbackId` that
   * could not be read (`undefined`) is any hook's: with a guard registered for the event the input
   * names (any guard, when it names none) the call is refused, as that event's {@link refusal} or
   * as {@link refusalOfAnyEvent}; else it fails with `InvalidInput`.
   */
  readonly dispatch: (
    callbackId: string | undefined,
    input: unknown,
    toolUseId: string | undefined,
    requestId?: string | undefined,
    unreadable?: string | undefined
  ) => Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError>
}

// -----------------------------------------------------------------------------
// registrations
// -----------------------------------------------------------------------------

const isHook = (u: unknown): u is Hook<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * What is wrong with a hook, by hook, for {@link register} to refuse (`on` gives a hook, not an
 * effect): a `timeout` Effect reads as a deadline every call misses (`NaN`, `-1`, `0`: a guard
 * then refused every call), a matcher that guards no tool though it looks as if it meant some.
 */
const hookProblems = new WeakMap<Hook<unknown>, string>()

const makeHook = <R>(
  event: string,
  options: HookOptions | undefined,
  handler: (input: never, meta: HookMeta) => Effect.Effect<unknown, unknown, R>
): Hook<R> => {
  const problem = options?.timeout === undefined ? undefined : deadlineProblem("timeout", options.timeout)
  const hook: Hook<R> = {
    [TypeId]: TypeId,
    event,
    matcher: options?.matcher,
    timeout: options?.timeout === undefined || problem !== undefined ? undefined : Duration.fromInputUnsafe(options.timeout),
    onFailure: options?.onFailure,
    handler
  }
  const problems = [
    ...eventProblems(event),
    ...(problem === undefined ? [] : [`the ${event} hook's ${problem}`]),
    ...(options?.matcher === undefined ? [] : matcherProblems(event, options.matcher))
  ]
  if (problems.length > 0) hookProblems.set(hook, problems.join("; "))
  return hook
}

/**
 * An event named as one the library knows, in another case (`pretooluse`): the CLI compares
 * names exactly, so it never sends it, and the hook never runs. A name the library does not know
 * at all is left to the CLI (a newer CLI's event).
 */
const eventProblems = (event: string): ReadonlyArray<string> => {
  if (HookEvents.isKnownEvent(event)) return []
  const known = Object.keys(HookEvents.events).find((name) => name.toLowerCase() === event.toLowerCase())
  return known === undefined ? [] : [`the hook's event "${event}" is no event the CLI sends (it compares names exactly): write "${known}"`]
}

/**
 * An answer with `async: true` and a decision (`decision`, `continue`, a `hookSpecificOutput`
 * beyond its event's name): CLI 2.1.332 reads an async answer as no decision and ignores the rest
 * of it, so a guard's deny or block there let the tool run.
 */
const asyncProblem = (answer: unknown): string | undefined => {
  if (!isRecord(answer) || answer.async !== true) return undefined
  const specific = answer.hookSpecificOutput
  const decisions = Object.keys(answer).filter((key) =>
    key === "decision" || key === "continue" ||
    (key === "hookSpecificOutput" && isRecord(specific) && Object.keys(specific).some((name) => name !== "hookEventName"))
  )
  return decisions.length === 0 ? undefined : `an async answer (async: true) with ${decisions.join(", ")}, which the CLI ` +
    `ignores in an async answer (a deny or block there lets the action go ahead): answer the decision without async`
}

/**
 * A `PermissionRequest` answer `{"decision":"block","reason":…}` ({@link block}): CLI 2.1.332
 * reads no decision from it on this event (only `hookSpecificOutput.decision`), so a guard's
 * block let the tool run. It is sent as the deny it means, with the reason as its message; with
 * an allow decision beside it, it says two things, an invalid answer (a guard refuses).
 */
const blockOfPermissionRequest = (
  event: string,
  answer: unknown
): { readonly answer: unknown } | { readonly problem: string } => {
  if (event !== "PermissionRequest" || !isRecord(answer) || answer.decision !== "block") return { answer }
  const { decision: _block, reason, ...rest } = answer
  const specific = isRecord(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {}
  if (isRecord(specific.decision) && specific.decision.behavior !== "deny") {
    return { problem: `decision "block" beside hookSpecificOutput.decision ${JSON.stringify(specific.decision.behavior)}: answer one decision` }
  }
  const message = typeof reason === "string" && reason.length > 0 ? reason : "a PermissionRequest hook blocked it"
  return {
    answer: {
      ...rest,
      hookSpecificOutput: { ...specific, decision: isRecord(specific.decision) ? specific.decision : { behavior: "deny", message } }
    }
  }
}

/**
 * An `Elicitation` / `ElicitationResult` answer written where CLI 2.1.332 reads it: it runs these
 * hooks apart from the others and reads of an SDK host's answer only `decision: "block"` (the
 * server is told decline) and the `systemMessage` text, parsed as the hook's JSON; it ignores
 * `hookSpecificOutput`, so a hook's decline was no opinion and the dialog (or the `Elicitation`
 * handler) accepted. The action is kept in `hookSpecificOutput` and also written as a decline's
 * `decision: "block"`, or as an accept's or a cancel's JSON in `systemMessage` (which the CLI
 * shows nowhere on these events). An accept or cancel beside a `block` says two things: an
 * invalid answer.
 */
const elicitationAnswer = (
  event: string,
  answer: Record<string, unknown>
): { readonly answer: Record<string, unknown> } | { readonly problem: string } => {
  if (event !== "Elicitation" && event !== "ElicitationResult") return { answer }
  const specific = answer.hookSpecificOutput
  if (!isRecord(specific) || specific.action === undefined) return { answer }
  if (specific.action === "decline") return { answer: { ...answer, decision: "block" } }
  if (answer.decision === "block") {
    return { problem: `decision "block" beside hookSpecificOutput.action ${JSON.stringify(specific.action)}: answer one decision` }
  }
  return { answer: { ...answer, systemMessage: JSON.stringify({ hookSpecificOutput: specific }) } }
}

/**
 * Registers a handler for an event, optionally with a tool-name `matcher` and a `timeout`. The
 * handler's input and answer are typed by the event (`PreToolUse` → {@link HookEvents.PreToolUseInput},
 * answer with `hookSpecificOutput.permissionDecision`, ...); an event name without a schema gets
 * the CLI's object ({@link HookEvents.UnknownHookInput}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const on: {
  <const K extends HookEvents.HookEventName, E = never, R = never>(event: K, handler: Handler<NoInfer<K>, E, R>): Hook<R>
  <const K extends HookEvents.HookEventName, const M extends string = string, E = never, R = never>(
    event: K,
    options: HookOptions & {
      /** The tool-name regular expression; one naming built-in tools exactly narrows the handler's input. */
      readonly matcher?: M | undefined
    },
    handler: Handler<NoInfer<K>, E, R, NoInfer<M>>
  ): Hook<R>
} = <K extends string, E, R>(
  event: K,
  optionsOrHandler: HookOptions | Handler<K, E, R>,
  handler?: Handler<K, E, R>
): Hook<R> =>
  typeof optionsOrHandler === "function"
    ? makeHook(event, undefined, optionsOrHandler as Hook<R>["handler"])
    : makeHook(event, optionsOrHandler, handler as Hook<R>["handler"])

const fromSpec = (spec: Spec): Array<Hook<unknown>> => {
  const hooks: Array<Hook<unknown>> = []
  for (const [event, value] of Object.entries(spec) as Array<[string, unknown]>) {
    if (value === undefined) continue
    const entries: ReadonlyArray<unknown> = Array.isArray(value) ? value : [value]
    for (const entry of entries) {
      if (typeof entry === "function") {
        hooks.push(makeHook(event, undefined, entry as Hook<unknown>["handler"]))
      } else {
        const { handler, ...options } = entry as HookOptions & { readonly handler: Hook<unknown>["handler"] }
        hooks.push(makeHook(event, options, handler))
      }
    }
  }
  return hooks
}

// -----------------------------------------------------------------------------
// failing closed
// -----------------------------------------------------------------------------

/**
 * The events whose answer can let an action through, and so whose handlers fail closed by
 * default: a tool call (`PreToolUse`; `PreSkillShellCommand`, a skill's shell command), a
 * permission request (`PermissionRequest`), a prompt (`UserPromptSubmit`,
 * `UserPromptExpansion`), a model switch (`PreModelSwitch`), a settings change (`ConfigChange`).
 * A failure of another event's handler (`PostToolUse`, `Stop`, `SessionStart`, ...) has nothing
 * to refuse and keeps the non-blocking answer.
 *
 * @since 0.1.0
 * @category failing closed
 */
export const guardEvents: ReadonlyArray<string> = [
  "PreToolUse",
  "PermissionRequest",
  "PreSkillShellCommand",
  "PreModelSwitch",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "ConfigChange"
]

const permissionDecisionEvents = new Set(["PreToolUse", "PreSkillShellCommand", "PreModelSwitch"])

/**
 * The answer that refuses what a guard event is about, with `reason`: for `PreToolUse`,
 * `PreSkillShellCommand` and `PreModelSwitch` a `permissionDecision: "deny"` (the model sees
 * `PreToolUse:<Tool> hook error: <reason>`); for `PermissionRequest` a `deny` decision; for the
 * other guard events `{"decision":"block","reason":reason}` (the prompt is dropped, the change not
 * applied). `undefined` for an event that is not a guard.
 *
 * @since 0.1.0
 * @category failing closed
 */
export const refusal = (event: string, reason: string): Record<string, unknown> | undefined => {
  if (permissionDecisionEvents.has(event)) {
    return { hookSpecificOutput: { hookEventName: event, permissionDecision: "deny", permissionDecisionReason: reason } }
  }
  if (event === "PermissionRequest") {
    return { hookSpecificOutput: { hookEventName: event, decision: { behavior: "deny", message: reason } } }
  }
  return guardEvents.includes(event) ? { decision: "block", reason } : undefined
}

/**
 * The refusal of a guard whose event is not known (a request the library could not read): what
 * every guard event's answer refuses with on CLI 2.1.332 (`UnreadableHookRefusalLive.test.ts`),
 * `continue: false` ending the turn and `decision: "block"` refusing the action: the tool does
 * not run, the prompt is dropped, a `PermissionRequest` gets no allow.
 *
 * @since 0.2.0
 * @category failing closed
 */
export const refusalOfAnyEvent = (reason: string): HookEvents.HookOutputBase => ({
  continue: false,
  stopReason: reason,
  decision: "block",
  reason
})

/**
 * The deadline of a registration that fails closed and names no `timeout`: 60 seconds.
 *
 * @since 0.1.0
 * @category failing closed
 */
export const defaultGuardTimeout: Duration.Duration = Duration.seconds(60)

/**
 * How much longer than the library's deadline the CLI is told to wait for a hook (in seconds):
 * the library's refusal must reach the CLI before the CLI's own timeout cancels the request.
 *
 * @since 0.1.0
 * @category failing closed
 */
export const cliTimeoutMarginSeconds = 5

/** Whether a registration fails closed: a guard event, unless it opted into `continue`. */
const failsClosed = (registration: Registration): boolean =>
  guardEvents.includes(registration.event) && registration.onFailure !== "continue"

/**
 * The library's deadline for a call of a registration (`undefined`: none): its `timeout`, else
 * {@link defaultGuardTimeout} for one that fails closed.
 *
 * @since 0.2.0
 * @category failing closed
 */
export const deadlineOf = (registration: Registration): Duration.Duration | undefined => {
  const timeout = registration.timeout ?? (failsClosed(registration) ? defaultGuardTimeout : undefined)
  return timeout !== undefined && Number.isFinite(Duration.toMillis(timeout)) ? timeout : undefined
}

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

// The tag is declared (and documented) in `internal/services.ts`, which `Claude.ts` imports
// without this module.
export { Hooks }

/**
 * The service with no registrations (what the session uses when there is no `Hooks`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Hooks["Service"] = { registrations: [] }

/**
 * Builds the service value from registrations, appending them to the `Hooks` service already
 * in the context (if any). The context is captured here (it must hold the handlers'
 * requirements `R`) and provided to every handler call with `Effect.provideContext`, so a
 * handler sees the services of the place its layer was built, whichever fiber dispatches.
 *
 * The build's `Scope` and parent span are left out of the captured context: each call runs in
 * a scope of its own, closed when the call ends (a finalizer a handler adds runs then, not
 * when the program ends), and under the span of the fiber that dispatches it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const register = <const Hs extends ReadonlyArray<Hook<unknown>>>(
  ...hooks: Hs
): Effect.Effect<Hooks["Service"], ClaudeError.ClaudeError, Requirements<Hs[number]>> =>
  Effect.gen(function*() {
    const problems = hooks.flatMap((hook) => hookProblems.get(hook) ?? [])
    if (problems.length > 0) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: `Hooks: ${problems.join("; ")}` })))
    }
    const context = Context.omit(Tracer.ParentSpan, Scope.Scope)(yield* Effect.context<Requirements<Hs[number]>>())
    const existing = yield* Effect.serviceOption(Hooks)
    const own: Array<Registration> = hooks.map((hook) => ({
      ...hook,
      // `Scope` is provided per call by `dispatch`; the parent span is the caller's.
      handler: (input: never, meta: HookMeta) =>
        Effect.provideContext(
          Effect.suspend(() =>
            effectOf(hook.handler(input, meta), `${hook.event} hook handler (${meta.callbackId})`)
          ) as Effect.Effect<unknown, unknown, Requirements<Hs[number]>>,
          context
        ) as Effect.Effect<unknown, unknown>
    }))
    return Hooks.of({
      registrations: [...Option.getOrElse(existing, () => empty).registrations, ...own]
    })
  })

/**
 * A layer adding registrations to the session's hooks, given as {@link on} values or keyed by
 * event (`{ Stop: [handler], PreToolUse: [{ matcher: "Bash", handler }] }`).
 *
 * The handlers' requirements `R` become the layer's requirements: they are taken from the
 * context the layer is built in (like `Toolkit.toLayer` in `effect/unstable/ai`) and the
 * handlers run with them whichever fiber dispatches the call.
 *
 * The layer reads the `Hooks` already provided around it and appends to it, so stacked layers
 * add up; see the module docs for which compositions do and which do not.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: {
  <const Hs extends ReadonlyArray<Hook<unknown>>>(...hooks: Hs): Layer.Layer<Hooks, ClaudeError.ClaudeError, Requirements<Hs[number]>>
  <const S extends Spec>(spec: S): Layer.Layer<Hooks, ClaudeError.ClaudeError, SpecRequirements<S>>
} = (...args: ReadonlyArray<unknown>): Layer.Layer<Hooks, ClaudeError.ClaudeError, never> => {
  const hooks = args.length === 1 && !isHook(args[0]) ? fromSpec(args[0] as Spec) : (args as Array<Hook<unknown>>)
  return Layer.effect(Hooks, register(...hooks) as Effect.Effect<Hooks["Service"], ClaudeError.ClaudeError>)
}

/**
 * Concatenates service values, registrations in argument order.
 *
 * @since 0.1.0
 * @category combinators
 */
export const merge = (...services: ReadonlyArray<Hooks["Service"]>): Hooks["Service"] =>
  Hooks.of({ registrations: services.flatMap((service) => service.registrations) })

/**
 * Combines `Hooks` layers so that all their registrations are kept (in argument order), which
 * `Layer.mergeAll` does not do for a single service. Each layer is built with the previous
 * ones' output.
 *
 * @since 0.1.0
 * @category layers
 */
export const mergeLayers = <const Ls extends ReadonlyArray<Layer.Layer<Hooks, unknown, unknown>>>(
  ...layers: Ls
): Layer.Layer<Hooks, Layer.Error<Ls[number]>, Exclude<Layer.Services<Ls[number]>, Hooks>> =>
  layers.reduce<Layer.Layer<Hooks, unknown, unknown>>(
    (acc, layer) => Layer.provideMerge(layer, acc),
    Layer.succeed(Hooks, empty)
  ) as Layer.Layer<Hooks, Layer.Error<Ls[number]>, Exclude<Layer.Services<Ls[number]>, Hooks>>

// -----------------------------------------------------------------------------
// answers
// -----------------------------------------------------------------------------

/**
 * "No objection": `{}`. The CLI goes on as if there were no hook, so a `PreToolUse` guard that
 * answers `allow()` lets the tool call through to the CLI's usual permission check (`allowedTools`,
 * the permission mode, a `Permissions` layer), which may still refuse or ask. To run the tool
 * without that check, answer {@link allowWith}; to refuse it, {@link deny}.
 *
 * @since 0.1.0
 * @category answers
 */
export const allow = (): HookEvents.HookOutputBase => ({})

/**
 * `{"decision":"block","reason":reason}`. Stop / SubagentStop: the agent keeps going with
 * `reason` as feedback. UserPromptSubmit: the prompt is dropped. PreToolUse: the tool is not
 * run (like {@link deny}). PermissionRequest: sent as the deny it means
 * (`hookSpecificOutput.decision`, `reason` its message), since CLI 2.1.332 reads no decision from
 * a block there.
 *
 * @since 0.1.0
 * @category answers
 */
export const block = (reason: string): HookEvents.HookOutputBase => ({ decision: "block", reason })

/**
 * `{"async":true}` (with `asyncTimeout` in ms when given): the SDKs' "async" answer, which
 * makes no decision; CLI 2.1.332 ignores any other field sent with it, so an answer with
 * `async: true` and a decision (`decision`, `continue`, `hookSpecificOutput`) is an invalid
 * answer (a guard refuses, as for a failure).
 *
 * @since 0.1.0
 * @category answers
 */
export const async = (asyncTimeoutMillis?: number): HookEvents.HookOutputBase => ({
  async: true,
  ...(asyncTimeoutMillis !== undefined ? { asyncTimeout: asyncTimeoutMillis } : {})
})

/**
 * `{"continue":false,"stopReason":reason}`: end the turn after this hook. It keeps nothing from
 * happening: from a `PreToolUse` hook the tool still runs (CLI 2.1.332); a guard answers
 * {@link deny}.
 *
 * @since 0.1.0
 * @category answers
 */
export const stop = (reason: string): HookEvents.HookOutputBase => ({ continue: false, stopReason: reason })

/**
 * PreToolUse: do not run the tool; `reason` is the tool error the model sees.
 *
 * @since 0.1.0
 * @category answers
 */
export const deny = (reason: string): HookEvents.HookOutput<"PreToolUse"> => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason }
})

/**
 * PreToolUse: run the tool without asking for permission, with `updatedInput` replacing its
 * input when given.
 *
 * Not from a hook the CLI asks through another name of the tool: CLI 2.1.332 asks a `Bash` hook
 * about a `Monitor` command too, with `tool_name: "Bash"` (the handler cannot tell it apart), and
 * there ignores an allow's `updatedInput`: the original command would run. A session knows the
 * tool the model called, so it refuses such a rewrite (the call is denied, reported as an invalid
 * answer); a plain allow goes on to the CLI's usual permission check.
 *
 * @since 0.1.0
 * @category answers
 */
export const allowWith = (
  updatedInput?: Readonly<Record<string, unknown>>,
  reason?: string
): HookEvents.HookOutput<"PreToolUse"> => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    ...(reason !== undefined ? { permissionDecisionReason: reason } : {}),
    ...(updatedInput !== undefined ? { updatedInput } : {})
  }
})

/**
 * PreToolUse: ask for permission (the normal prompt), with `reason` shown.
 *
 * @since 0.1.0
 * @category answers
 */
export const ask = (reason?: string): HookEvents.HookOutput<"PreToolUse"> => ({
  hookSpecificOutput: {
    hookEventName: "PreToolUse",
    permissionDecision: "ask",
    ...(reason !== undefined ? { permissionDecisionReason: reason } : {})
  }
})

/**
 * Adds `text` to the model's context: UserPromptSubmit (appended, as
 * `UserPromptSubmit hook additional context: <text>`, to the `role: "system"` environment entry
 * of the turn's API request),
 * PostToolUse / PostToolUseFailure (a system message after the tool result), SessionStart,
 * and the other events with an `additionalContext` field.
 *
 * On `Stop` and `SubagentStop` it does more: the CLI adds the text and calls the model again (the
 * conversation, or the subagent, goes on), at every stop it answers so; a handler that does not
 * check `stop_hook_active` (true once a Stop hook kept it going) keeps the turn going for good.
 *
 * @since 0.1.0
 * @category answers
 */
export const addContext = <const K extends ContextEvent>(event: K, text: string): HookEvents.HookOutput<K> =>
  ({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }) as HookEvents.HookOutput<K>

/**
 * The events whose answer has an `additionalContext` field.
 *
 * @since 0.1.0
 * @category models
 */
export type ContextEvent =
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "UserPromptSubmit"
  | "SessionStart"
  | "Stop"
  | "SubagentStart"
  | "SubagentStop"
  | "Notification"
  | "PostToolBatch"
  | "UserPromptExpansion"
  | "Setup"
  | "PostModelSwitch"

// -----------------------------------------------------------------------------
// dispatch
// -----------------------------------------------------------------------------

const invalid = (description: string) => ClaudeError.make(new ClaudeError.InvalidInput({ description }))

/** A failed call, before it is answered: what failed, the error it became, the cause. */
interface CallFailure {
  readonly _tag: "CallFailure"
  readonly failure: HandlerFailure.FailureKind
  readonly error: ClaudeError.ClaudeError
  readonly cause: Cause.Cause<unknown>
}

const callFailure = (
  failure: HandlerFailure.FailureKind,
  error: ClaudeError.ClaudeError,
  cause: Cause.Cause<unknown>
): CallFailure => ({ _tag: "CallFailure", failure, error, cause })

const howItEnded = (cause: Cause.Cause<unknown>): "failed" | "died" | "interrupted" =>
  Cause.hasFails(cause) ? "failed" : Cause.hasDies(cause) ? "died" : "interrupted"

/**
 * The answer with `hookSpecificOutput.hookEventName` filled in with `event` when it is left out
 * (one naming another event is kept, and refused by the event's schema).
 */
const withEventName = (event: string, output: unknown): unknown => {
  if (typeof output !== "object" || output === null) return output
  const { hookSpecificOutput, ...base } = output as Record<string, unknown>
  if (typeof hookSpecificOutput !== "object" || hookSpecificOutput === null) return output
  const { hookEventName, ...specific } = hookSpecificOutput as Record<string, unknown>
  if (hookEventName !== undefined) return output
  return { ...base, hookSpecificOutput: { hookEventName: event, ...specific } }
}

interface BoundRegistration {
  readonly id: string
  readonly registration: Registration
  readonly failsClosed: boolean
  readonly deadline: Duration.Duration | undefined
  readonly decodeInput: (input: unknown) => Effect.Effect<unknown, Schema.SchemaError>
  readonly encodeOutput: (output: unknown) => Effect.Effect<unknown, Schema.SchemaError>
}

/**
 * Why a `PreToolUse` answer's rewrite (`updatedInput`) would not be applied, or undefined: CLI
 * 2.1.332 asks a hook about a call under another tool's name too (a `Bash` hook about a
 * `Monitor` command, as `tool_name: "Bash"`), and there drops an allow's `updatedInput`, running
 * the original input. `toolNameOf` gives the tool the model called (its `tool_use`); a call the
 * session did not read (its line over the cap) is taken as asked: a fake CLI may ask a hook about
 * a call it never wrote, and a real one writes its calls before it asks.
 */
const rewriteUnderOtherName = (
  event: string,
  input: unknown,
  output: Record<string, unknown>,
  toolUseId: string | undefined,
  toolNameOf: ((toolUseId: string) => string | undefined) | undefined
): string | undefined => {
  if (event !== "PreToolUse" || toolUseId === undefined || toolNameOf === undefined) return undefined
  const specific = output.hookSpecificOutput
  if (!isRecord(specific) || specific.updatedInput === undefined) return undefined
  const called = toolNameOf(toolUseId)
  const asked = isRecord(input) ? input.tool_name : undefined
  return called === undefined || called === asked
    ? undefined
    : `it rewrites the input of a ${called} call it was asked about as ${String(asked)}, and the CLI ignores a ` +
      `rewrite there (the original input would run)`
}

/**
 * What the session does once per session with the hooks it found: callback ids are
 * generated in registration order (`hook_0`, `hook_1`, ...), `initialize` is the `hooks`
 * field of the `initialize` request, `dispatch` answers `hook_callback` requests.
 *
 * `report` is called (synchronously) for every failure of a call, after it is logged: the
 * session publishes it on its events. `redact` (a session passes its own) replaces the session's
 * secrets in a failure's text before it is logged, reported or answered: a handler's error may
 * quote the tool input holding the API key.
 *
 * @since 0.1.0
 * @category session
 */
export const bind = (
  hooks: Hooks["Service"],
  report?: HandlerFailure.Report,
  redact?: (text: string) => string,
  toolNameOf?: (toolUseId: string) => string | undefined
): Bound => {
  const byId = new Map<string, BoundRegistration>()
  const initialize: Record<string, Array<InitializeMatcher>> = {}
  hooks.registrations.forEach((registration, index) => {
    const id = `hook_${index}`
    const closed = failsClosed(registration)
    const deadline = deadlineOf(registration)
    byId.set(id, {
      id,
      registration,
      failsClosed: closed,
      deadline,
      decodeInput: Schema.decodeUnknownEffect(HookEvents.inputSchema(registration.event)),
      // A guard's answer with a key its event's answer lacks (`permissionDecision` outside
      // `hookSpecificOutput`, another event's `decision`) is invalid, so refused: dropping the key
      // sent the rest, often `{}`, which the CLI reads as no opinion. Other events keep the rest.
      encodeOutput: (output) =>
        Schema.encodeUnknownEffect(HookEvents.outputSchema(registration.event))(
          output,
          closed ? { onExcessProperty: "error" } : undefined
        )
    })
    const entry: InitializeMatcher = {
      matcher: registration.matcher ?? null,
      hookCallbackIds: [id],
      ...(deadline !== undefined
        ? { timeout: Math.max(1, Math.ceil(Duration.toMillis(deadline) / 1000)) + cliTimeoutMarginSeconds }
        : {}),
      ...(closed ? { onFailure: "block" as const } : {})
    }
    const list = initialize[registration.event]
    if (list === undefined) initialize[registration.event] = [entry]
    else list.push(entry)
  })

  /**
   * Logs and reports a failed call of the hook `callbackId` (`undefined`: unreadable) of `event`
   * (`undefined`: unknown), then answers it: `refused`, or the error.
   */
  const conclude = (
    call: {
      readonly event: string | undefined
      readonly callbackId: string | undefined
      readonly input: unknown
      readonly toolUseId: string | undefined
      readonly requestId: string | undefined
    },
    failed: CallFailure,
    message: string,
    refused: Record<string, unknown> | undefined
  ): Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError> => {
    const { callbackId, event, requestId, toolUseId } = call
    const toolName = (call.input as { tool_name?: unknown } | null)?.tool_name
    const reported: HandlerFailure.HandlerFailed = {
      type: "handler_failed",
      handler: "hook",
      hookEvent: event,
      callbackId,
      toolName: typeof toolName === "string" ? toolName : undefined,
      toolUseId,
      requestId,
      failure: failed.failure,
      outcome: refused !== undefined ? "denied" : "continued",
      message,
      error: failed.error,
      cause: failed.cause
    }
    return warnFailure(message, failed.cause).pipe(
      Effect.annotateLogs({
        ...(event !== undefined ? { hook_event: event } : {}),
        ...(callbackId !== undefined ? { callback_id: callbackId } : {}),
        ...(toolUseId !== undefined ? { tool_use_id: toolUseId } : {}),
        ...(requestId !== undefined ? { request_id: requestId } : {})
      }),
      Effect.andThen(HandlerFailure.callReport(report, reported)),
      Effect.andThen(refused !== undefined ? Effect.succeed(refused) : Effect.fail(failed.error))
    )
  }

  /** A failed call of `bound`: the refusal when it fails closed, else the error. */
  const answerFailure = (
    bound: BoundRegistration,
    input: unknown,
    toolUseId: string | undefined,
    requestId: string | undefined,
    unredacted: CallFailure
  ): Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError> => {
    // What follows is logged, reported, answered and ends the dispatch's span: the secrets out first.
    const failed = redactFailure(unredacted, redact)
    const { event } = bound.registration
    const reason = failed.failure === "timed_out" && bound.deadline !== undefined
      ? `The ${event} hook (${bound.id}) did not answer within ${Duration.toMillis(bound.deadline)} ms`
      : failed.error.message
    const refused = bound.failsClosed ? refusal(event, reason) : undefined
    const consequence = refused !== undefined
      ? `so the ${refusedWhat(event)} was refused`
      : "and the CLI goes on as if the hook had said nothing"
    const call = { event, callbackId: bound.id, input, toolUseId, requestId }
    return conclude(call, failed, `The ${event} hook (${bound.id}) failed: ${reason}; ${consequence}`, refused)
  }

  /**
   * Answers a request whose callback id could not be read (so no handler runs): a guard of the
   * event it names (any event, when that cannot be read either) may be the one asked, so with
   * one registered it is refused as that event's refusal, or {@link refusalOfAnyEvent}; without,
   * the error answer.
   */
  const answerUnreadable = (
    input: unknown,
    toolUseId: string | undefined,
    requestId: string | undefined,
    unreadable: string
  ): Effect.Effect<Record<string, unknown>, ClaudeError.ClaudeError> => {
    const named = (input as { hook_event_name?: unknown } | null)?.hook_event_name
    const event = typeof named === "string" ? named : undefined
    const error = invalid(`The library could not read this request: ${redact === undefined ? unreadable : redact(unreadable)}`)
    const guarded = [...byId.values()].some((bound) =>
      bound.failsClosed && (event === undefined || bound.registration.event === event)
    )
    const refused: Record<string, unknown> | undefined = !guarded
      ? undefined
      : event === undefined
      ? refusalOfAnyEvent(error.message)
      : refusal(event, error.message)
    const consequence = refused === undefined
      ? "and the CLI goes on as if the hook had said nothing"
      : event === undefined
      ? "so it was refused, as a guard's of any event is (the turn stops)"
      : `so the ${refusedWhat(event)} was refused`
    const message = `A ${event === undefined ? "hook" : event + " hook"} request (callback id unreadable) failed: ${error.message}; ${consequence}`
    const failed = callFailure("invalid_input", error, Cause.fail(error))
    return conclude({ event, callbackId: undefined, input, toolUseId, requestId }, failed, message, refused)
  }

  // Its span ends without the answer (a handler's output may echo the CLI's input, which may hold
  // the session's secrets), its failure's texts left out without `TraceContent`.
  const dispatch = Effect.fnUntraced(function*(
    callbackId: string | undefined,
    input: unknown,
    toolUseId: string | undefined,
    requestId?: string | undefined,
    unreadable?: string | undefined
  ) {
    if (callbackId === undefined) {
      return yield* answerUnreadable(input, toolUseId, requestId, unreadable ?? "it has no callback id")
    }
    const bound = byId.get(callbackId)
    if (bound === undefined) {
      const error = invalid(
        `Unknown hook callback id "${callbackId}" (registered: ${[...byId.keys()].join(", ") || "none"})`
      )
      yield* Effect.logWarning(`Unknown hook callback: ${error.message}`)
      return yield* error
    }
    const { event } = bound.registration
    if (unreadable !== undefined) {
      const error = invalid(`The library could not read this request: ${unreadable}`)
      return yield* answerFailure(bound, input, toolUseId, requestId, callFailure("invalid_input", error, Cause.fail(error)))
    }
    return yield* bound.decodeInput(input).pipe(
      Effect.mapError((error) => {
        const claudeError = invalid(`Invalid ${event} hook input (${callbackId}): ${error.message}`)
        return callFailure("invalid_input", claudeError, Cause.fail(error))
      }),
      // The schemas are structural: the handler gets the CLI's object, extra fields included.
      Effect.andThen(runHandler(bound, input, { toolUseId, callbackId })),
      Effect.flatMap((output) => {
        const blocked = blockOfPermissionRequest(event, output)
        const problem = "problem" in blocked ? blocked.problem : asyncProblem(output)
        if (problem === undefined && "answer" in blocked) return Effect.succeed(blocked.answer)
        const error = invalid(`The ${event} hook (${callbackId}) gave an invalid answer: ${problem}`)
        return Effect.fail(callFailure("invalid_answer", error, Cause.fail(error)))
      }),
      // JSON data as given (the schema's writing would turn a Map into `{}`), then checked and
      // written by the protocol's schema of the event's answer, with
      // `hookSpecificOutput.hookEventName` filled in.
      Effect.flatMap((output) =>
        writable(withEventName(event, output), `${event} hook (${callbackId})`).pipe(
          Effect.mapError((failed) => callFailure(failed.failure, failed.error, failed.cause))
        )
      ),
      Effect.flatMap((output) =>
        bound.encodeOutput(output).pipe(
          // The JSON object the schema wrote.
          Effect.map((encoded) => encoded as Record<string, unknown>),
          Effect.mapError((error) =>
            callFailure(
              "invalid_answer",
              invalid(`The ${event} hook (${callbackId}) gave an invalid answer: ${error.message}`),
              Cause.fail(error)
            )
          )
        )
      ),
      Effect.flatMap((output) => {
        const problem = rewriteUnderOtherName(event, input, output, toolUseId, toolNameOf)
        if (problem === undefined) return Effect.succeed(output)
        const error = invalid(`The ${event} hook (${callbackId}) gave an answer the CLI would not apply: ${problem}`)
        return Effect.fail(callFailure("invalid_answer", error, Cause.fail(error)))
      }),
      Effect.flatMap((output) => {
        const written = elicitationAnswer(event, output)
        if ("answer" in written) return Effect.succeed(written.answer)
        const error = invalid(`The ${event} hook (${callbackId}) gave an invalid answer: ${written.problem}`)
        return Effect.fail(callFailure("invalid_answer", error, Cause.fail(error)))
      }),
      (reading) =>
        readAnswer(reading, `${event} hook (${callbackId})`).pipe(
          Effect.mapError((failed) => callFailure(failed.failure, failed.error, failed.cause))
        ),
      Effect.catch((failed) => answerFailure(bound, input, toolUseId, requestId, failed))
    )
  }, SpanExits.withSpan("Hooks.dispatch"))
  return {
    initialize,
    // Only where it is asked of the CLI: on another event `"block"` changes nothing.
    blockAsked: hooks.registrations.some((registration) =>
      registration.onFailure === "block" && failsClosed(registration)
    ),
    dispatch
  }
}

const refusedWhat = (event: string): string =>
  event === "PreToolUse" ? "tool call"
  : event === "PermissionRequest" ? "permission request"
  : event === "UserPromptSubmit" || event === "UserPromptExpansion" ? "prompt"
  : event === "PreSkillShellCommand" ? "shell command"
  : event === "PreModelSwitch" ? "model switch"
  : "change"

/**
 * Runs the handler in a scope of its own, bounded by the registration's deadline. Interrupting
 * the caller (control_cancel_request, end of the session) never reaches `catchCause`: the fiber
 * stays interrupted and the handler's finalizers run. What arrives there is the handler's own
 * failure, defect or self-interruption.
 */
const runHandler = (
  bound: BoundRegistration,
  input: unknown,
  meta: HookMeta
): Effect.Effect<unknown, CallFailure> => {
  const { event } = bound.registration
  const { callbackId } = meta
  const handled = Effect.scoped(
    Effect.suspend(() => effectOf(bound.registration.handler(input as never, meta), `${event} hook handler (${callbackId})`))
  ).pipe(
    Effect.catchCause((cause): Effect.Effect<never, CallFailure> => {
      const failure = Cause.findErrorOption(cause)
      const how = howItEnded(cause)
      const error = Option.isSome(failure) && ClaudeError.isClaudeError(failure.value)
        ? failure.value
        : invalid(`The ${event} hook handler (${callbackId}) ${how === "interrupted" ? "was interrupted" : how}: ${describeCause(cause)}`)
      return Effect.fail(callFailure(how, error, cause))
    })
  )
  const deadline = bound.deadline
  if (deadline === undefined) return handled
  const timeoutMillis = Duration.toMillis(deadline)
  return answerBy(handled, deadline, () => {
    const error = ClaudeError.make(new ClaudeError.ControlTimeout({ subtype: "hook_callback", timeoutMillis }))
    return Effect.fail(callFailure("timed_out", error, Cause.fail(error)))
  })
}
