/**
 * A session's spans and metrics (see `Tracing.ts` for what a program sees). The engine calls it at
 * four points: the reader with every message it routes (`observe`) and with every control request
 * it dispatches (`parentOf`, `requestSpan`, `answered`); the turn runner when a turn's span starts
 * and ends; the session when it ends.
 *
 * Invariants:
 * - Synchronous and never failing: spans are made with the program's `Tracer` directly and
 *   metrics updated with `updateUnsafe`, so the reader never waits (see `reader.ts`).
 * - Content (prompts, texts, tool inputs and outputs) is written only when `TraceContent` is on,
 *   always through `redact`; without it, attributes are names, ids, counts and reasons.
 * - Every span it opens is ended: tool uses and model requests at their turn's result (a
 *   background subagent's at its own lines, or when its task's notification or the session's end
 *   comes), the rest when the session ends.
 * - Only a line of the main thread starts a turn's span of the library's own: a background
 *   subagent's lines after their turn's result are under its `Agent` tool use.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import type * as Launch from "../Launch.ts"
import * as ClaudeError from "../ClaudeError.ts"
import type { Event, TurnResult } from "../Events.ts"
import type * as Protocol from "../Protocol.ts"
import * as Tracing from "../Tracing.ts"
import type { Turn } from "./turns.ts"
import { isRecord, str } from "./json.ts"
import * as Metrics from "./metrics.ts"
import { type Kind, MetricSeries } from "./metricSeries.ts"
import * as SecretText from "./secretText.ts"
import * as SpanExits from "./spanExits.ts"
import { failureOf } from "./turnOutcome.ts"
import { cutText } from "./textChunks.ts"
import { SmallMap } from "./smallMap.ts"

const PROVIDER = "anthropic"
const REDACTED = "[redacted]"
/** The thread of the main agent; a subagent's lines carry their `parent_tool_use_id`. */
const MAIN = ""

const MODEL = "gen_ai.request.model"
const TURN_KIND = "claude.turn.kind"
// The session's metrics and their attributes (`internal/metricSeries.ts`).
const SUBTYPE = "claude.result.subtype"
const turnDuration: Kind = { make: Metrics.turnDuration, names: [MODEL, TURN_KIND, SUBTYPE] }
/** A failed turn's: `error.type` is the library's reason (an API error's subtype is `success`). */
const failedTurnDuration: Kind = { make: Metrics.turnDuration, names: [MODEL, TURN_KIND, SUBTYPE, "error.type"] }
const turnCost: Kind = { make: Metrics.turnCost, names: [MODEL, TURN_KIND] }
const turnToolCalls: Kind = { make: Metrics.turnToolCalls, names: [MODEL, TURN_KIND] }
const tokenUsage: Kind = { make: Metrics.tokenUsage, names: [MODEL, "gen_ai.provider.name", "gen_ai.token.type"] }
const toolCalls: Kind = { make: Metrics.toolCalls, names: ["gen_ai.tool.name", "claude.tool.outcome"] }

export interface TracingOptions {
  readonly tracer: Tracer.Tracer
  /** False when the program turned tracing off: no span is made. */
  readonly enabled: boolean
  readonly sessionSpan: Tracer.Span
  /** The context metrics are updated in (its `MetricRegistry`). */
  readonly context: Context.Context<never>
  readonly now: () => bigint
  readonly content: boolean
  /** Secret values never written (the environment's `Redacted` values, the API key). */
  readonly secrets: ReadonlyArray<string>
}

/**
 * A tool use not yet answered: its span (none with tracing off), its name (for the metrics), and
 * its thread.
 */
interface ToolUse {
  readonly span: Tracer.Span | undefined
  readonly name: string
  readonly thread: string
}

/**
 * A model request's span; `failed`: the API's error type, when the CLI reported it failed.
 * `streamed`: its `message_start` came as a stream event, so its `message_delta` (its final output
 * tokens and stop reason) will come; `delta`: it came; `answered`: its tool results came before
 * it, and its span ends at it (at the latest with the thread's next request or its turn's end).
 */
interface ModelCall {
  readonly span: Tracer.Span
  readonly id: string
  failed?: string | undefined
  streamed?: boolean
  delta?: boolean
  answered?: boolean
}

type Attributes = Record<string, unknown>


const reasonOf = (cause: unknown): string | undefined => {
  if (ClaudeError.isClaudeError(cause)) return cause.reason._tag
  // Another tagged failure of the library's (`Unsupported`: a request it does not handle).
  if (isRecord(cause) && typeof cause._tag === "string") return cause._tag
  return undefined
}

const failureReason = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  for (const reason of exit.cause.reasons) {
    if (reason._tag === "Fail") return reasonOf(reason.error) ?? "Failed"
    if (reason._tag === "Die") return "Defect"
  }
  return "Interrupted"
}

export class SessionTracing {
  private readonly options: TracingOptions
  private readonly secrets: Array<string>
  /**
   * Whether a program's tracer sees the spans: not with Effect's `nativeTracer` (no tracer
   * installed), whose spans go nowhere. Then the spans that parent a handler call (the turn's,
   * a tool use's) are still made, a handler may read its span chain; the rest is skipped: the
   * spans of model requests, every attribute. Metrics are kept: a registry is read without a
   * tracer.
   */
  private readonly observed: boolean
  /** The span of a turn the library did not start a span for (`send`, automatic turns). */
  private ownTurn: Tracer.Span | undefined
  // Per thread (the main one is `MAIN`, a subagent's its Task tool use's id) and per tool use:
  // small maps, which V8 does not re-table as entries come and go (`smallMap.ts`).
  private readonly tools = new SmallMap<string, ToolUse>()
  /**
   * The tasks running in the background (by their tool use's id, from their `system/task_started`
   * with `is_backgrounded`): a subagent's tool result comes at its launch, its lines are under that
   * tool use's span (none with tracing off), and its model requests and tool uses outlive their
   * turn's result. Forgotten at the task's `system/task_notification` and when the session ends.
   */
  private readonly background = new SmallMap<string, Tracer.Span | undefined>()
  private readonly calls = new SmallMap<string, ModelCall>()
  /** When each thread's next model request had its input (the turn began, a tool result came). */
  private readonly marks = new SmallMap<string, bigint>()
  private toolUsesThisTurn = 0
  /** The prompts of the turns that run, when content is on. */
  private readonly prompts = new SmallMap<Tracer.Span, string>()
  /**
   * The text of each `turn`/`run` whose span is open, by its span: a prompt's hook that comes
   * before its turn started (on a CLI that echoes no uuids) is under the turn of its prompt.
   */
  private readonly texts = new SmallMap<Tracer.Span, string>()
  private model: string | undefined
  /**
   * The tools the CLI announced (its last `system/init`); unknown before one. Kept as the line's
   * own array, read only for a refused use: nothing is built a turn.
   */
  private toolNames: ReadonlyArray<string> | undefined
  private conversationId: string | undefined
  private readonly series: MetricSeries

  constructor(options: TracingOptions) {
    this.options = options
    this.secrets = options.secrets.filter((secret) => secret.length > 0)
    this.observed = options.enabled && options.tracer !== Tracer.nativeTracer
    this.series = new MetricSeries(options.context)
    options.sessionSpan.attribute("gen_ai.provider.name", PROVIDER)
    options.sessionSpan.attribute("gen_ai.system", PROVIDER)
  }

  /**
   * A value never to be written (the account e-mail, once `initialize` told it); `anyCase`: in
   * any casing too (an e-mail address is one in any casing: `git log` may print it capitalized).
   */
  addSecret(secret: string | undefined, options?: { readonly anyCase?: boolean }): void {
    if (secret === undefined || secret.length === 0) return
    if (!this.secrets.includes(secret)) this.secrets.push(secret)
    if (options?.anyCase === true && !this.anyCase.includes(secret)) this.anyCase.push(secret)
    this.forms = undefined
    this.textForms = undefined
    this.folded = undefined
  }

  /** The secrets matched in any casing too ({@link addSecret}). */
  private readonly anyCase: Array<string> = []
  /** The forms of the secrets inside a string value, longest first (made when first needed). */
  private forms: ReadonlyArray<string> | undefined
  /** The forms of the secrets inside a text that may hold JSON text (escaped once more). */
  private textForms: ReadonlyArray<string> | undefined
  /** The any-case secrets' forms as one pattern (base64 aside: it tells cases apart). */
  private folded: RegExp | undefined

  private foldedPattern(): RegExp | undefined {
    if (this.anyCase.length === 0) return undefined
    return this.folded ??= SecretText.foldedPattern(this.anyCase.flatMap((secret) => SecretText.escapedFormsOf(secret, 3)))
  }

  /** `value` with the secrets taken out of its strings: a copy where one was in it. */
  redactValue<A>(value: A): A {
    this.forms ??= [...new Set(this.secrets.flatMap((secret) => SecretText.formsOf(secret)))].sort((a, b) => b.length - a.length)
    return SecretText.redactValue(value, this.forms, this.foldedPattern()) as A
  }

  /**
   * `value` as text, secrets replaced: each in every form `SecretText.formsOf` knows, JSON-escaped
   * up to three times (JSON text inside a JSON string, as a tool's printed config inside its
   * result).
   */
  redact(value: unknown): string {
    const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
    this.textForms ??= [...new Set(this.secrets.flatMap((secret) => SecretText.formsOf(secret, 3)))]
      .sort((a, b) => b.length - a.length)
    const replaced = SecretText.replaceAll(text, this.textForms)
    const folded = this.foldedPattern()
    return folded === undefined ? replaced : replaced.replace(folded, REDACTED)
  }

  /**
   * `value` as text, secrets replaced, cut to `max` characters; a part of a secret at the end
   * (where the text was cut, here or before: the head of a line over the cap) is replaced too.
   */
  redactCut(value: unknown, max: number): string {
    const forms = this.secrets.flatMap((secret) => SecretText.formsOf(secret, 3))
    return SecretText.redactCutEnd(cutText(this.redact(value), max), forms)
  }

  // ---- spans ---------------------------------------------------------------------------------

  private open(name: string, parent: Tracer.AnySpan, attributes: Attributes, startTime?: bigint): Tracer.Span {
    const span = this.options.tracer.span({
      name,
      parent: Option.some(parent),
      annotations: Context.empty(),
      links: [],
      startTime: startTime ?? this.options.now(),
      kind: "internal",
      root: false,
      sampled: parent.sampled
    })
    if (this.observed) for (const key in attributes) if (attributes[key] !== undefined) span.attribute(key, attributes[key])
    return span
  }

  private end(span: Tracer.Span, exit: Exit.Exit<unknown, unknown> = Exit.void): void {
    if (span.status._tag !== "Ended") span.end(this.options.now(), exit)
  }

  /** The span of the turn the CLI runs now: the library's, or one of its own. */
  /** The span of the user turn that runs, if any has one. */
  private runningSpan(running: ReadonlyArray<Turn>): Tracer.AnySpan | undefined {
    for (const turn of running) if (turn.span !== undefined) return turn.span
    return undefined
  }

  private turnSpan(running: ReadonlyArray<Turn>): Tracer.AnySpan {
    const own = this.runningSpan(running)
    if (own !== undefined) return own
    if (this.ownTurn === undefined && this.options.enabled) {
      this.ownTurn = this.open("claude.turn", this.options.sessionSpan, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.conversation.id": this.conversationId,
        "claude.turn.kind": running.length > 0 ? "user" : "automatic"
      })
      this.marks.set(MAIN, this.options.now())
    }
    return this.ownTurn ?? this.options.sessionSpan
  }

  /**
   * The parent of a line of `thread`: the subagent's tool use, or the turn. A subagent's line
   * never starts a turn's span (a background one's comes after its turn's result): without its
   * tool use's span, it is under the turn that runs, else the session.
   */
  private parentIn(thread: string, running: ReadonlyArray<Turn>): Tracer.AnySpan {
    if (thread === MAIN) return this.turnSpan(running)
    return this.tools.get(thread)?.span ?? this.background.get(thread) ?? this.runningSpan(running) ?? this.ownTurn ??
      this.options.sessionSpan
  }

  /** The attributes a `turn`/`run` span starts with; the prompt when content is on. */
  turnStarted(span: Tracer.Span, input: string | Protocol.UserTurnInput): void {
    this.texts.set(span, typeof input === "string" ? input : input.text)
    if (!this.observed) return
    span.attribute("gen_ai.operation.name", "invoke_agent")
    span.attribute("gen_ai.provider.name", PROVIDER)
    if (this.conversationId !== undefined) span.attribute("gen_ai.conversation.id", this.conversationId)
    if (this.model !== undefined) span.attribute("gen_ai.request.model", this.model)
    span.attribute("claude.turn.kind", "user")
    this.marks.set(MAIN, this.options.now())
    // Written when the turn ends: by then the account e-mail (a secret) is known.
    if (this.options.content) this.prompts.set(span, typeof input === "string" ? input : input.text)
  }

  /**
   * A `turn`/`run` span is about to end: its result's attributes, or why it failed. Gives the exit
   * to end it with: a failed result's failure when the turn gave it as a value (`errorResults:
   * "return"`), for the CLI's turn failed all the same; a success without its value.
   */
  turnEnded(
    span: Tracer.Span,
    result: Exit.Exit<TurnResult, ClaudeError.ClaudeError> | undefined,
    exit: Exit.Exit<unknown, unknown>
  ): Exit.Exit<unknown, unknown> {
    const returned = Exit.isSuccess(exit) && result !== undefined && Exit.isSuccess(result)
      ? this.failureOf(result.value)
      : undefined
    const ending = returned === undefined ? exit : Exit.fail(returned)
    this.texts.delete(span)
    if (!this.observed) return this.spanExit(ending)
    const prompt = this.prompts.get(span)
    if (prompt !== undefined) {
      this.prompts.delete(span)
      span.attribute(
        "gen_ai.input.messages",
        this.redact(JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]))
      )
    }
    if (result !== undefined && Exit.isSuccess(result)) this.annotateResult(span, result.value)
    const reason = failureReason(ending) ?? (result === undefined ? undefined : failureReason(result))
    if (reason !== undefined) {
      span.attribute("claude.error.reason", reason)
      span.attribute("error.type", reason)
    }
    return this.spanExit(ending)
  }

  /** The failure `result` stands for, its copy of the result and its text without the secrets. */
  private failureOf(result: TurnResult): ClaudeError.ClaudeError | undefined {
    return failureOf(result, (value) => this.redactValue(value))
  }

  private annotateResult(span: Tracer.Span, result: TurnResult): void {
    if (!this.observed) return
    let input = 0
    let output = 0
    for (const usage of Object.values(result.turn.modelUsage)) {
      input += usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens
      output += usage.outputTokens
    }
    const attributes: Attributes = {
      "gen_ai.conversation.id": result.session_id,
      "gen_ai.request.model": this.model,
      "gen_ai.usage.input_tokens": input,
      "gen_ai.usage.output_tokens": output,
      "gen_ai.response.finish_reasons": typeof result.stop_reason === "string" ? [result.stop_reason] : undefined,
      "claude.cost_usd": result.turn.costUsd,
      "claude.result.subtype": result.subtype,
      "claude.terminal_reason": result.terminal_reason,
      "claude.turn.kind": result.turn.kind,
      "claude.turn.num_turns": result.num_turns,
      "claude.turn.duration_ms": result.duration_ms,
      "claude.turn.duration_api_ms": result.duration_api_ms
    }
    // The library's reason for a failure (an API error's subtype is `success`); an interrupted
    // turn's subtype.
    if (result.is_error) attributes["error.type"] = failureOf(result)?.reason._tag ?? result.subtype
    if (this.options.content && result.result !== undefined) {
      attributes["gen_ai.output.messages"] = this.redact(JSON.stringify([{
        role: "assistant",
        parts: [{ type: "text", content: result.result }],
        ...(typeof result.stop_reason === "string" ? { finish_reason: result.stop_reason } : {})
      }]))
    }
    for (const key in attributes) if (attributes[key] !== undefined) span.attribute(key, attributes[key])
  }

  // ---- the CLI's lines -----------------------------------------------------------------------

  /** Every event the reader routes, with the user turns the CLI runs for it. */
  observe(event: Event, running: ReadonlyArray<Turn>): void {
    switch (event.type) {
      case "system": {
        if (event.subtype === "init") this.init(event as Protocol.SystemInit, running)
        else if (event.subtype === "task_started") this.taskStarted(event as Protocol.SystemTaskStarted)
        else if (event.subtype === "task_notification") this.taskEnded(event as Protocol.SystemTaskNotification)
        return
      }
      case "stream_event":
        return this.streamEvent(event, running)
      case "assistant":
        return this.assistant(event, running)
      case "user":
        return this.user(event)
      case "result":
        return this.result(event as TurnResult, running)
    }
  }

  private init(init: Protocol.SystemInit, running: ReadonlyArray<Turn>): void {
    const { sessionSpan } = this.options
    this.toolNames = init.tools
    if (this.conversationId === undefined) {
      this.conversationId = init.session_id
      sessionSpan.attribute("gen_ai.conversation.id", init.session_id)
      sessionSpan.attribute("claude.cli.version", init.claude_code_version)
    }
    if (this.model !== init.model) {
      this.model = init.model
      sessionSpan.attribute("gen_ai.request.model", init.model)
    }
    if (this.observed) this.annotateTurns(init, running)
    this.turnSpan(running)
  }

  private annotateTurns(init: Protocol.SystemInit, running: ReadonlyArray<Turn>): void {
    for (const turn of running) {
      if (turn.span === undefined || turn.span._tag !== "Span") continue
      turn.span.attribute("gen_ai.conversation.id", init.session_id)
      turn.span.attribute("gen_ai.request.model", init.model)
    }
  }

  private modelCall(thread: string, message: Protocol.ApiAssistantMessage, running: ReadonlyArray<Turn>): ModelCall | undefined {
    if (!this.observed) return undefined
    const current = this.calls.get(thread)
    if (current !== undefined && current.id === message.id) return current
    if (current !== undefined) this.endCall(current)
    // The session's model for its own requests; a subagent's may run on another (its definition's
    // `model`), which only its answer tells.
    const requested = thread === MAIN ? this.model ?? message.model : message.model
    const span = this.open(`chat ${requested}`, this.parentIn(thread, running), {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": PROVIDER,
      "gen_ai.system": PROVIDER,
      "gen_ai.request.model": requested,
      "gen_ai.response.model": message.model,
      "gen_ai.response.id": message.id,
      "gen_ai.conversation.id": this.conversationId
    }, this.marks.get(thread))
    this.usage(span, message.usage)
    const call: ModelCall = { span, id: message.id }
    this.calls.set(thread, call)
    return call
  }

  /**
   * Ends a model request's span: failed when the CLI reported its API error, or with `reason`
   * when its turn was cut off by it before the request's end was read.
   */
  private endCall(call: ModelCall, reason?: ClaudeError.ClaudeError): void {
    if (call.failed === undefined && reason !== undefined) return this.endFailed(call.span, reason)
    this.end(call.span, call.failed === undefined ? Exit.void : Exit.fail(call.failed))
  }

  private usage(span: Tracer.Span, usage: Partial<Protocol.Usage> | undefined): void {
    if (usage === undefined) return
    const cacheRead = usage.cache_read_input_tokens ?? 0
    const cacheCreation = usage.cache_creation_input_tokens ?? 0
    if (typeof usage.input_tokens === "number") {
      span.attribute("gen_ai.usage.input_tokens", usage.input_tokens + cacheRead + cacheCreation)
      span.attribute("gen_ai.usage.cache_read.input_tokens", cacheRead)
      span.attribute("gen_ai.usage.cache_creation.input_tokens", cacheCreation)
    }
    if (typeof usage.output_tokens === "number") span.attribute("gen_ai.usage.output_tokens", usage.output_tokens)
  }

  private streamEvent(event: Protocol.StreamEvent, running: ReadonlyArray<Turn>): void {
    const thread = event.parent_tool_use_id ?? MAIN
    const inner = event.event as { readonly type?: unknown; readonly message?: unknown; readonly delta?: unknown; readonly usage?: unknown }
    if (inner.type === "message_start" && isRecord(inner.message)) {
      const call = this.modelCall(thread, inner.message as unknown as Protocol.ApiAssistantMessage, running)
      if (call !== undefined) call.streamed = true
    } else if (inner.type === "message_delta") {
      const call = this.calls.get(thread)
      if (call === undefined) return
      call.delta = true
      const stop = isRecord(inner.delta) ? str(inner.delta.stop_reason) : undefined
      if (stop !== undefined) call.span.attribute("gen_ai.response.finish_reasons", [stop])
      if (isRecord(inner.usage)) {
        const output = inner.usage.output_tokens
        if (typeof output === "number") call.span.attribute("gen_ai.usage.output_tokens", output)
      }
      if (call.answered === true) {
        this.endCall(call)
        this.calls.delete(thread)
      }
    }
  }

  private assistant(event: Protocol.AssistantMessage, running: ReadonlyArray<Turn>): void {
    const thread = event.parent_tool_use_id ?? MAIN
    const call = this.modelCall(thread, event.message, running)
    if (call !== undefined) {
      const span = call.span
      if (event.message.stop_reason !== null) span.attribute("gen_ai.response.finish_reasons", [event.message.stop_reason])
      if (event.error !== undefined || event.is_api_error_message === true) {
        call.failed = event.api_error_type ?? event.error ?? "api_error"
        span.attribute("error.type", call.failed)
      }
    }
    for (const block of event.message.content) {
      if (block.type !== "tool_use") continue
      const use = block as Protocol.ToolUseBlock
      // A background subagent's uses are its own, not its turn's (they go on past its result).
      if (!this.background.has(thread)) this.toolUsesThisTurn++
      if (this.tools.has(use.id)) continue
      // Kept with tracing off too: `claude.tool.calls` names the tool when its result comes.
      if (!this.options.enabled) {
        this.tools.set(use.id, { span: undefined, name: use.name, thread })
        continue
      }
      const mcp = use.name.startsWith("mcp__") ? use.name.split("__")[1] : undefined
      const span = this.open(`execute_tool ${use.name}`, this.parentIn(thread, running), {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": use.name,
        "gen_ai.tool.call.id": use.id,
        "gen_ai.tool.type": "function",
        "claude.mcp.server": mcp,
        "gen_ai.tool.call.arguments": this.observed && this.options.content && use.input !== undefined
          ? this.redact(use.input)
          : undefined
      })
      this.tools.set(use.id, { span, name: use.name, thread })
    }
  }

  private user(event: Protocol.UserMessage): void {
    const thread = event.parent_tool_use_id ?? MAIN
    const content = event.message.content
    if (typeof content === "string") return
    let results = 0
    for (const block of content) {
      if (block.type !== "tool_result") continue
      results++
      const { is_error, tool_use_id } = block as { readonly tool_use_id: string; readonly is_error?: boolean | null }
      const tool = this.tools.get(tool_use_id)
      const failed = is_error === true
      // A name the model made up (the CLI refused the use as no tool it has, and announced none of
      // that name) is not a series of its own: the metric's attributes stay few whatever the
      // model writes. Any other use was of a real tool (an MCP server's connected later, `Agent`,
      // which init lists as `Task`).
      const toolName = tool === undefined
        ? "unknown"
        : failed && !this.announced(tool.name) && noSuchTool.test(toolResultText(block))
        ? "other"
        : tool.name
      const outcome = failed ? "error" : "ok"
      this.series.update(toolCalls, 1, toolName, outcome)
      // Launched in the background: the subagent goes on, its lines under this tool use.
      const launched = !failed && this.background.has(tool_use_id)
      if (failed) this.background.delete(tool_use_id)
      // A (foreground) subagent's last model request is over when its Task tool use is.
      const subagent = launched ? undefined : this.calls.get(tool_use_id)
      if (subagent !== undefined) {
        this.endCall(subagent)
        this.calls.delete(tool_use_id)
      }
      if (!launched) this.marks.delete(tool_use_id)
      if (tool === undefined) continue
      this.tools.delete(tool_use_id)
      if (tool.span === undefined) continue
      const meta = this.observed ? event.tool_result_meta?.find((m) => m.id === tool_use_id) : undefined
      if (meta?.permission_decision !== undefined) {
        tool.span.attribute("claude.permission.decision", meta.permission_decision.decision)
        tool.span.attribute("claude.permission.source", meta.permission_decision.source)
      }
      if (this.options.content && this.observed) {
        tool.span.attribute("gen_ai.tool.call.result", this.redact((block as { readonly content?: unknown }).content ?? ""))
      }
      if (failed && this.observed) tool.span.attribute("error.type", "tool_error")
      this.end(tool.span, failed ? Exit.fail("tool_error") : Exit.void)
    }
    if (results === 0) return
    // The model's answer is over; the next request of this thread has its input from now. An
    // instant tool's result comes before its request's `message_delta` (the CLI runs a tool once
    // its block is complete): a streamed request's span ends at that delta, which it needs.
    const call = this.calls.get(thread)
    if (call !== undefined) {
      if (call.streamed === true && call.delta !== true) call.answered = true
      else {
        this.endCall(call)
        this.calls.delete(thread)
      }
    }
    this.marks.set(thread, this.options.now())
  }

  /** Whether the CLI announced a tool of this name (any name, before it announced its tools). */
  private announced(name: string): boolean {
    return this.toolNames === undefined || this.toolNames.includes(name)
  }

  /**
   * Ends the spans of the calls and tools still open; a tool's says it did not finish. With
   * `keepBackground` (a turn's result), a background subagent's are kept: it goes on. With
   * `reason` (the turn or the session was cut off by it), each ends failed with it, as its turn's.
   */
  private endOpen(keepBackground = false, reason?: ClaudeError.ClaudeError): void {
    if (!keepBackground || this.background.size === 0) {
      this.calls.drain((call) => this.endCall(call, reason))
      this.tools.drain((tool) => this.endUnfinished(tool, reason))
      this.background.drain((_, thread) => this.marks.delete(thread))
      return
    }
    this.calls.removeWhere((_, thread) => !this.background.has(thread), (call) => this.endCall(call))
    this.tools.removeWhere((tool) => !this.background.has(tool.thread), (tool) => this.endUnfinished(tool))
  }

  private endUnfinished(tool: ToolUse, reason?: ClaudeError.ClaudeError): void {
    if (tool.span === undefined) return
    tool.span.attribute("claude.tool.unfinished", true)
    if (reason === undefined) this.end(tool.span)
    else this.endFailed(tool.span, reason)
  }

  /** The tool the model called under this tool use id, while its call runs (tracing on or off). */
  toolNameOf(toolUseId: string): string | undefined {
    return this.tools.get(toolUseId)?.name
  }

  /** A task started in the background: its tool use's thread goes on after its turn's result. */
  private taskStarted(started: Protocol.SystemTaskStarted): void {
    const id = started.tool_use_id
    if (started.is_backgrounded !== true || id === undefined) return
    const tool = this.tools.get(id)
    if (tool !== undefined) this.background.set(id, tool.span)
  }

  /** A task ended: a background subagent's model request and tool uses still open end with it. */
  private taskEnded(notification: Protocol.SystemTaskNotification): void {
    const thread = notification.tool_use_id
    if (thread === undefined || !this.background.has(thread)) return
    this.background.delete(thread)
    this.marks.delete(thread)
    const call = this.calls.get(thread)
    if (call !== undefined) {
      this.endCall(call)
      this.calls.delete(thread)
    }
    this.tools.removeWhere((tool) => tool.thread === thread, (tool) => this.endUnfinished(tool))
  }

  /** A result, with the user turns it ends (those that ran before it). */
  private result(result: TurnResult, running: ReadonlyArray<Turn>): void {
    this.endOpen(true)
    const model = this.model ?? "unknown"
    const kind = result.turn.kind
    const failure = this.failureOf(result)
    if (failure === undefined) this.series.update(turnDuration, result.duration_ms, model, kind, result.subtype)
    else this.series.update(failedTurnDuration, result.duration_ms, model, kind, result.subtype, failure.reason._tag)
    this.series.update(turnCost, result.turn.costUsd, model, kind)
    this.series.update(turnToolCalls, this.toolUsesThisTurn, model, kind)
    const modelUsage = result.turn.modelUsage
    for (const model in modelUsage) {
      const usage = modelUsage[model]!
      const input = usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens
      this.series.update(tokenUsage, input, model, PROVIDER, "input")
      this.series.update(tokenUsage, usage.outputTokens, model, PROVIDER, "output")
    }
    this.toolUsesThisTurn = 0
    this.marks.delete(MAIN)
    if (this.ownTurn !== undefined) {
      // A user turn of the library's folded into this one carries the result on its own span
      // (`turnEnded`): a trace has each turn's usage and cost once.
      if (this.runningSpan(running) === undefined) this.annotateResult(this.ownTurn, result)
      if (failure === undefined) this.end(this.ownTurn)
      else this.endFailed(this.ownTurn, failure)
      this.ownTurn = undefined
    }
  }

  // ---- control requests from the CLI ---------------------------------------------------------

  /** The span a CLI-to-host request is handled under: its tool use's, else the turn's. */
  parentOf(request: Record<string, unknown>, running: ReadonlyArray<Turn>): Tracer.AnySpan {
    const toolUseId = this.toolUseIdOf(request)
    if (toolUseId !== undefined) {
      const span = this.tools.get(toolUseId)?.span
      if (span !== undefined) return span
    }
    if (request.subtype === "mcp_message") {
      // A tools/call without the CLI's tool-use id: the open use of that tool.
      const message = isRecord(request.message) ? request.message : {}
      const params = isRecord(message.params) ? message.params : {}
      if (message.method === "tools/call" && typeof params.name === "string") {
        const name = `mcp__${String(request.server_name)}__${params.name}`
        for (const tool of this.tools.values()) if (tool.name === name && tool.span !== undefined) return tool.span
      }
    }
    if (running.length === 0 && this.ownTurn === undefined) return this.promptTurn(request) ?? this.options.sessionSpan
    return this.turnSpan(running)
  }

  /**
   * The span of the `turn`/`run` whose prompt a prompt's hook (`UserPromptSubmit`,
   * `UserPromptExpansion`) carries, when no turn runs yet: the CLI asks it before the turn's
   * `system/init`, and one that echoes no uuids started no turn the library can see.
   */
  private promptTurn(request: Record<string, unknown>): Tracer.Span | undefined {
    if (request.subtype !== "hook_callback" || this.texts.size === 0 || !isRecord(request.input)) return undefined
    const { hook_event_name, prompt } = request.input
    if (hook_event_name !== "UserPromptSubmit" && hook_event_name !== "UserPromptExpansion") return undefined
    if (typeof prompt !== "string") return undefined
    return this.texts.findKey((text) => text === prompt)
  }

  private toolUseIdOf(request: Record<string, unknown>): string | undefined {
    const direct = str(request.tool_use_id)
    if (direct !== undefined) return direct
    if (isRecord(request.input)) {
      const fromInput = str(request.input.tool_use_id)
      if (fromInput !== undefined) return fromInput
    }
    if (isRecord(request.message) && isRecord(request.message.params) && isRecord(request.message.params._meta)) {
      return str(request.message.params._meta["claudecode/toolUseId"])
    }
    return undefined
  }

  /** The name and attributes of the span a CLI-to-host request is handled in. */
  requestSpan(requestId: string, request: Record<string, unknown>): { readonly name: string; readonly attributes: Attributes } {
    const subtype = String(request.subtype)
    const base: Attributes = {
      "claude.request_id": requestId,
      "claude.subtype": subtype,
      "claude.control.direction": "cli_to_host"
    }
    const toolUseId = this.toolUseIdOf(request)
    if (toolUseId !== undefined) base["gen_ai.tool.call.id"] = toolUseId
    switch (subtype) {
      case "hook_callback": {
        const input = isRecord(request.input) ? request.input : {}
        const event = str(input.hook_event_name) ?? "unknown"
        base["claude.hook.event"] = event
        base["claude.hook.callback_id"] = str(request.callback_id)
        base["gen_ai.tool.name"] = str(input.tool_name)
        if (this.options.content && input.tool_input !== undefined) base["gen_ai.tool.call.arguments"] = this.redact(input.tool_input)
        if (this.options.content && typeof input.prompt === "string") {
          base["gen_ai.input.messages"] = this.redact(JSON.stringify([{ role: "user", parts: [{ type: "text", content: input.prompt }] }]))
        }
        return { name: `claude.hook ${event}`, attributes: base }
      }
      case "can_use_tool": {
        const tool = str(request.tool_name) ?? "unknown"
        base["gen_ai.tool.name"] = tool
        if (this.options.content && request.input !== undefined) base["gen_ai.tool.call.arguments"] = this.redact(request.input)
        return { name: `claude.permission ${tool}`, attributes: base }
      }
      case "mcp_message": {
        const message = isRecord(request.message) ? request.message : {}
        const method = str(message.method) ?? "notification"
        base["claude.mcp.server"] = str(request.server_name)
        base["claude.mcp.method"] = method
        const params = isRecord(message.params) ? message.params : {}
        if (method === "tools/call") {
          base["gen_ai.tool.name"] = str(params.name)
          if (this.options.content && params.arguments !== undefined) base["gen_ai.tool.call.arguments"] = this.redact(params.arguments)
        }
        return { name: `claude.mcp ${method}`, attributes: base }
      }
      default:
        return { name: `claude.control_request ${subtype}`, attributes: base }
    }
  }

  /** The attributes of a CLI-to-host request's answer: the decision, or why it failed. */
  answered(request: Record<string, unknown>, exit: Exit.Exit<unknown, unknown>): Attributes {
    const attributes = this.answerAttributes(request, exit)
    for (const key in attributes) if (attributes[key] === undefined) delete attributes[key]
    return attributes
  }

  private answerAttributes(request: Record<string, unknown>, exit: Exit.Exit<unknown, unknown>): Attributes {
    if (Exit.isFailure(exit)) {
      const reason = failureReason(exit) ?? "Failed"
      return { "claude.error.reason": reason, "error.type": reason }
    }
    const body = isRecord(exit.value) ? exit.value : {}
    switch (request.subtype) {
      case "can_use_tool":
        return { "claude.permission.behavior": str(body.behavior) }
      case "hook_callback": {
        const specific = isRecord(body.hookSpecificOutput) ? body.hookSpecificOutput : {}
        return {
          "claude.hook.decision": str(specific.permissionDecision) ?? str(body.decision) ??
            (body.continue === false ? "stop" : undefined)
        }
      }
      case "mcp_message": {
        const response = isRecord(body.mcp_response) ? body.mcp_response : {}
        const result = isRecord(response.result) ? response.result : {}
        if (response.error !== undefined) return { "error.type": "jsonrpc_error" }
        if (result.isError === true) return { "error.type": "tool_error" }
        return {}
      }
      default:
        return {}
    }
  }

  // ---- the end -------------------------------------------------------------------------------

  /** The session ends: every span still open ends, and the session span says why. */
  ended(reason: ClaudeError.ClaudeError | undefined): void {
    if (reason !== undefined) this.options.sessionSpan.attribute("claude.session.end_reason", reason.reason._tag)
    this.turnOver(reason)
  }

  /**
   * The running turn ended without a result that could be read (a `result` line that broke its
   * schema or the cap, the CLI gone): what was open in it ends, its own span failed with
   * `reason`, and the next turn starts afresh (its tool uses counted from zero, spans of its own).
   */
  turnOver(reason: ClaudeError.ClaudeError | undefined): void {
    this.endOpen(false, reason)
    this.toolUsesThisTurn = 0
    this.marks.delete(MAIN)
    const own = this.ownTurn
    if (own === undefined) return
    this.ownTurn = undefined
    if (reason === undefined) return this.end(own)
    this.endFailed(own, reason)
  }

  /** Ends `span` failed with `reason`: its attributes name the reason, its exit leaves the text out. */
  private endFailed(span: Tracer.Span, reason: ClaudeError.ClaudeError): void {
    if (this.observed) {
      span.attribute("claude.error.reason", reason.reason._tag)
      span.attribute("error.type", reason.reason._tag)
    }
    this.end(span, this.spanExit(Exit.fail(reason)))
  }

  /**
   * `exit` as the library's spans record it: a success without its value (the account e-mail,
   * the model's text), the CLI's and the model's texts of a failure left out without `TraceContent`.
   */
  spanExit<A, E>(exit: Exit.Exit<A, E>): Exit.Exit<void, unknown> {
    return SpanExits.forSpan(exit, this.options.content)
  }
}

/** Secrets shorter than this are left alone: a short word in every line is noise, not a secret. */
const minSecretLength = 8

/**
 * The session's secrets: the `Redacted` values of its `env`, and the host's values of the secret
 * variables (`secretNames`) the CLI inherits from it (an `ANTHROPIC_API_KEY` of the host's own),
 * longest first (a secret holding another is replaced whole).
 */
export const secretsOf = (
  env: Readonly<Record<string, Launch.EnvValue>>,
  secretNames: ReadonlyArray<string>,
  host: Readonly<Record<string, string | undefined>> = process.env
): Array<string> => {
  const secrets = new Set<string>()
  const add = (name: string, value: string) => {
    secrets.add(value)
    for (const part of secretParts(name, value)) secrets.add(part)
  }
  for (const [name, value] of Object.entries(env)) if (Redacted.isRedacted(value)) add(name, Redacted.value(value))
  for (const name of secretNames) {
    const inherited = host[name]
    if (!Object.hasOwn(env, name) && inherited !== undefined) add(name, inherited)
  }
  return withSecrets([], [...secrets])
}

/**
 * `secrets` with `more` added (the secrets of external MCP servers' configs), as
 * {@link secretsOf} gives them: each once, 8 characters or more, longest first.
 */
export const withSecrets = (secrets: ReadonlyArray<string>, more: ReadonlyArray<string>): Array<string> =>
  [...new Set([...secrets, ...more])].filter((secret) => secret.length >= minSecretLength).sort((a, b) => b.length - a.length)

/**
 * The parts of a secret variable's value that are secrets on their own: each header's value of
 * `ANTHROPIC_CUSTOM_HEADERS` (`Name: value` lines), which a tool may print without its name.
 */
const secretParts = (name: string, value: string): ReadonlyArray<string> =>
  name === "ANTHROPIC_CUSTOM_HEADERS"
    ? value.split(/\r?\n/).flatMap((line) => {
      const colon = line.indexOf(":")
      return colon === -1 ? [] : [line.slice(colon + 1).trim()]
    })
    : []

/**
 * The tracing of a session whose span is `sessionSpan`, with the program's `Tracer`, metric
 * registry and `TraceContent`, keeping `secrets` ({@link secretsOf}) out of what it writes.
 */
export const make = (
  sessionSpan: Tracer.Span,
  secrets: ReadonlyArray<string>
): Effect.Effect<SessionTracing> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    return new SessionTracing({
      tracer: yield* Tracer.Tracer,
      enabled: yield* References.TracerEnabled,
      sessionSpan,
      context: yield* Effect.context<never>(),
      now: () => clock.currentTimeNanosUnsafe(),
      content: yield* Tracing.TraceContent,
      secrets
    })
  })

/** The CLI's answer to a use of a tool it does not have (CLI 2.1: `No such tool available: X`). */
const noSuchTool = /No such tool available/

/** The text of a `tool_result` block (a string, or text blocks). */
const toolResultText = (block: unknown): string => {
  const content = (block as { readonly content?: unknown }).content
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("")
}
