/**
 * A tool call's permission, asked twice at once: CLI 2.1.332 sends the `can_use_tool` request
 * (the session's `Permissions`) and calls the `PermissionRequest` hooks of the call together, and
 * takes the first answer. A handler's quick allow then beat a guard's deny (or a failing guard's
 * refusal), and the tool ran; and it beat a hook's allow that rewrote the input
 * (`updatedInput`), and the original command ran (the CLI reads its hooks' answers more slowly
 * than the `can_use_tool` answer). So the `can_use_tool` answer waits for the `PermissionRequest`
 * hooks the CLI calls for that tool (those whose matcher matches its name, or another name the CLI
 * calls them by: a `Monitor` command's `Bash`, `toolMatcher.ts`), within their deadlines, and is
 * their decision when they made one: a deny of any (at once), else the first allow, with its
 * `updatedInput` and `updatedPermissions`; else the handler decides. A request the CLI asks
 * without its hooks (a few of its own asks do) waits that long too: fail safe, not fast. The CLI
 * takes the first hook that decides too, so one hook's quick allow beat a slower guard's deny
 * (with or without a handler): a hook's allow is held until the call's other hooks have answered
 * ({@link PermissionRequestGate.held}), and a deny of any is its answer. A hook's allow whose mode
 * switch (`updatedPermissions` `setMode`) the session refuses (`ModeGuard.checkAnswer`) is a deny, in
 * its own answer and in the `can_use_tool` answer alike.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Hooks from "../Hooks.ts"
import { isRecord } from "./json.ts"
import { matchesCall } from "./toolMatcher.ts"

/**
 * The deadline of a hook the library gives none (`onFailure: "continue"` without a `timeout`, an
 * infinite one): the CLI's own for a permission hook, 600 s (its binary's default), and a margin.
 */
const unbounded = Duration.seconds(600)
const margin = Duration.seconds(1)

/** A `PermissionRequest` hook's `hookSpecificOutput.decision`, as it was written. */
type Decision = Readonly<Record<string, unknown>>

/** The answers of one tool call's `PermissionRequest` hooks so far. */
interface Answers {
  count: number
  /** The first deny. */
  denied: Decision | undefined
  /** The first allow. */
  allowed: Decision | undefined
  /** How many hooks the CLI asks about the call, the most any of its requests tells. */
  expected: number
  /** Done at the next answer. */
  next: Deferred.Deferred<void>
}

/** At most this many calls' answers are kept (a call the CLI never asked `can_use_tool` about). */
const kept = 256

export class PermissionRequestGate {
  private readonly calls = new Map<string, Answers>()
  private readonly registrations: ReadonlyArray<Hooks.Registration>
  /** Every registration, by the index of its callback id (`hook_<index>`, `Hooks.bind`). */
  private readonly byIndex: ReadonlyArray<Hooks.Registration>
  private readonly deadlineOf: (registration: Hooks.Registration) => Duration.Duration | undefined
  /** Why a decision is not sent (a mode switch the session refuses); undefined when it may be. */
  private readonly refuse: ((decision: Decision) => string | undefined) | undefined

  constructor(
    registrations: ReadonlyArray<Hooks.Registration>,
    deadlineOf: (registration: Hooks.Registration) => Duration.Duration | undefined,
    refuse?: (decision: Readonly<Record<string, unknown>>) => string | undefined
  ) {
    this.refuse = refuse
    this.byIndex = registrations
    this.registrations = registrations.filter((registration) => registration.event === "PermissionRequest")
    this.deadlineOf = deadlineOf
  }

  /** Whether any `PermissionRequest` hook is registered (else nothing waits). */
  get active(): boolean {
    return this.registrations.length > 0
  }

  private entry(toolUseId: string): Answers {
    let answers = this.calls.get(toolUseId)
    if (answers === undefined) {
      answers = { count: 0, denied: undefined, allowed: undefined, expected: 0, next: Deferred.makeUnsafe<void>() }
      this.calls.set(toolUseId, answers)
      if (this.calls.size > kept) this.calls.delete(this.calls.keys().next().value!)
    }
    return answers
  }

  /** A `PermissionRequest` hook of the call `toolUseId` answered (or failed: no opinion). */
  answered(toolUseId: string, exit: Exit.Exit<unknown, unknown>): Answers {
    const answers = this.entry(toolUseId)
    answers.count++
    const decision = exit._tag === "Success" ? decisionOf(exit.value) : undefined
    if (decision?.behavior === "deny") answers.denied ??= decision
    else if (decision?.behavior === "allow") answers.allowed ??= decision
    const next = answers.next
    answers.next = Deferred.makeUnsafe<void>()
    Deferred.doneUnsafe(next, Exit.void)
    return answers
  }

  /**
   * The call `dispatched` of the `PermissionRequest` hook `callbackId` (`undefined`: unreadable) about the tool call
   * `toolUseId` (the CLI's `input`): its answer counted ({@link answered}) and, when it allows,
   * held ({@link held}).
   */
  hook<E>(
    callbackId: string | undefined,
    toolUseId: string,
    input: unknown,
    dispatched: Effect.Effect<Record<string, unknown>, E>
  ): Effect.Effect<Record<string, unknown>, E> {
    return Effect.flatMap(Clock.currentTimeMillis, (asked) => {
      let answers: Answers | undefined
      return dispatched.pipe(
        // A refused allow is a deny before it counts: the other hooks' held allows and the
        // `can_use_tool` answer take it as such.
        Effect.flatMap((output) => this.denyIfRefused(output)),
        Effect.onExit((exit) => Effect.sync(() => {
          answers = this.answered(toolUseId, exit)
        })),
        Effect.flatMap((output) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            answers === undefined ? Effect.succeed(output) : this.held(answers, callbackId, input, output, now - asked))
        )
      )
    })
  }

  /**
   * A `PermissionRequest` hook's answer, or a deny (logged) where its allow holds a mode switch the
   * session refuses: for every such answer, held by the gate or not (one without a tool use id).
   */
  denyIfRefused(output: Record<string, unknown>): Effect.Effect<Record<string, unknown>> {
    const decision = decisionOf(output)
    const problem = decision?.behavior === "allow" ? this.refuse?.(decision) : undefined
    if (problem === undefined) return Effect.succeed(output)
    const message = `A PermissionRequest hook's allow was refused, so the tool call was denied: ${problem}`
    return Effect.as(
      Effect.logWarning(message),
      { ...output, hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message } } }
    )
  }

  /**
   * Waits for the `PermissionRequest` hooks the CLI calls for `request`'s tool, within their
   * deadlines: the `can_use_tool` answer their decision makes, or none (the handler decides).
   */
  decidedBeforeHandler(request: Record<string, unknown>): Effect.Effect<Record<string, unknown> | undefined> {
    const toolName = typeof request.tool_name === "string" ? request.tool_name : undefined
    const toolUseId = typeof request.tool_use_id === "string" ? request.tool_use_id : undefined
    if (toolName === undefined || toolUseId === undefined) return Effect.succeed(undefined)
    // By the tool's name, or another the CLI calls them by (a Monitor command's `Bash`).
    const asked = this.registrations.filter((registration) => matchesCall(registration.matcher, toolName, request.input))
    if (asked.length === 0) return Effect.succeed(undefined)
    const longest = asked
      .map((registration) => this.deadlineOf(registration) ?? unbounded)
      .reduce((a, b) => Duration.max(a, b))
    const deadline = Duration.sum(longest, margin)
    const answers = this.entry(toolUseId)
    answers.expected = Math.max(answers.expected, asked.length)
    return waitFor(answers).pipe(
      Effect.timeoutOption(deadline),
      Effect.map(() => answerOf(answers, request)),
      // Kept while a hook has not answered: its answer counts with the others' (a held allow
      // waits for it). The oldest go past `kept` calls.
      Effect.ensuring(Effect.sync(() => {
        if (answers.count >= answers.expected) this.calls.delete(toolUseId)
      }))
    )
  }

  /**
   * The answer `output` of the `PermissionRequest` hook `callbackId` (counted in `answers`) to
   * the CLI's `input`, `elapsed` ms after the CLI asked: an allow is held while other hooks the CLI
   * asks about the call have not answered, since the CLI takes the first decision. A deny of
   * another (or a failing guard's refusal) is its answer then; one still out at this hook's own
   * deadline (before the CLI's) leaves it no decision (`{}`): the CLI waits for the others.
   */
  private held(
    answers: Answers,
    callbackId: string | undefined,
    input: unknown,
    output: Record<string, unknown>,
    elapsed: number
  ): Effect.Effect<Record<string, unknown>> {
    const fields = isRecord(input) ? input : {}
    const toolName = typeof fields.tool_name === "string" ? fields.tool_name : undefined
    const registration = callbackId === undefined ? undefined : this.byIndex[Number(/^hook_(\d+)$/.exec(callbackId)?.[1] ?? NaN)]
    if (decisionOf(output)?.behavior !== "allow" || toolName === undefined) {
      return Effect.succeed(output)
    }
    const asked = this.registrations.filter((each) => matchesCall(each.matcher, toolName, fields.tool_input))
    answers.expected = Math.max(answers.expected, asked.length)
    const own = registration === undefined ? unbounded : this.deadlineOf(registration) ?? unbounded
    const left = Duration.subtract(own, Duration.millis(Math.max(0, elapsed)))
    return waitFor(answers).pipe(
      Effect.timeoutOption(Duration.max(left, Duration.zero)),
      Effect.map(() => {
        if (answers.denied !== undefined) {
          return { hookSpecificOutput: { hookEventName: "PermissionRequest", decision: answerOf(answers, {}) } }
        }
        return answers.count >= answers.expected ? output : {}
      })
    )
  }
}

/** Until a hook of the call denied, or all it asks answered. */
const waitFor = (answers: Answers): Effect.Effect<void> =>
  Effect.suspend(() =>
    answers.denied !== undefined || answers.count >= answers.expected
      ? Effect.void
      : Effect.andThen(Deferred.await(answers.next), waitFor(answers))
  )

/** A `PermissionRequest` hook's decision (`hookSpecificOutput.decision`), if it made one. */
const decisionOf = (output: unknown): Decision | undefined => {
  const specific = isRecord(output) ? output.hookSpecificOutput : undefined
  const decision = isRecord(specific) ? specific.decision : undefined
  return isRecord(decision) && (decision.behavior === "deny" || decision.behavior === "allow") ? decision : undefined
}

/**
 * The `can_use_tool` answer of the hooks' decision (the same fields: a hook's decision is the
 * answer the CLI would take from it); an allow without `updatedInput` carries the request's
 * input, as the handler's does.
 */
const answerOf = (answers: Answers, request: Record<string, unknown>): Record<string, unknown> | undefined => {
  const { allowed, denied } = answers
  if (denied !== undefined) {
    const message = typeof denied.message === "string" && denied.message.length > 0
      ? denied.message
      : "a PermissionRequest hook denied it"
    return { behavior: "deny", message, ...(denied.interrupt === true ? { interrupt: true } : {}) }
  }
  if (allowed === undefined) return undefined
  return {
    behavior: "allow",
    updatedInput: isRecord(allowed.updatedInput) ? allowed.updatedInput : request.input,
    ...(Array.isArray(allowed.updatedPermissions) ? { updatedPermissions: allowed.updatedPermissions } : {})
  }
}
