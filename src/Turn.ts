/**
 * What a turn said, read from its events: the text as it streams ({@link textDeltas}), the
 * assistant's final text ({@link finalText}), and each tool call with its result
 * ({@link toolCalls}). Each takes a stream of events, such as `session.turn(...)`, so they
 * compose with `pipe`:
 *
 * ```ts
 * import * as Console from "effect/Console"
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
 * import { Claude, Turn } from "effect-claude-code"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* Claude.open()
 *   // Print the answer as it is written.
 *   yield* session.turn("Write a haiku").pipe(
 *     Turn.textDeltas,
 *     Stream.runForEach((text) => Console.log(text))
 *   )
 *   // Or only the answer, once the turn is over.
 *   const answer = yield* session.turn("And another").pipe(Turn.finalText)
 *   // Or what the tools did.
 *   yield* session.turn("List the files").pipe(
 *     Turn.toolCalls,
 *     Stream.runForEach(({ toolUse, result }) => Console.log(toolUse.name, result.is_error === true ? "failed" : "ok"))
 *   )
 *   return answer
 * })
 * ```
 *
 * Only the main agent counts for the text: a subagent's messages and deltas (those with a
 * `parent_tool_use_id`) are left out. Tool calls of subagents are kept (their ids pair the same
 * way).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as ClaudeError from "./ClaudeError.ts"
import type * as Events from "./Events.ts"
import { isApiErrorLine } from "./internal/apiErrorLine.ts"
import * as ResultRedaction from "./internal/resultRedaction.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { failureOf } from "./internal/turnOutcome.ts"
import type * as Protocol from "./Protocol.ts"

/**
 * What the helpers read: a session's events, or the CLI's messages as `Protocol` decodes them (a
 * replayed transcript).
 *
 * @since 0.2.0
 * @category models
 */
export type Input = Events.Event | Protocol.Message

/**
 * The turn's text as it streams: the text of each `text_delta` of the main agent, in order; a
 * message of the main agent the CLI did not stream comes whole, from its `assistant` line (the
 * CLI's retry without streaming after a stream broke, a local command's output, every message
 * with `includePartialMessages: false`). Thinking, tool inputs, subagents' text and the CLI's own
 * API-error lines are left out.
 *
 * @since 0.2.0
 * @category text
 */
export const textDeltas = <E, R>(events: Stream.Stream<Input, E, R>): Stream.Stream<string, E, R> =>
  Stream.suspend(() => {
    // The main agent's messages whose text came as deltas (from their `message_start`), and
    // whether text deltas came since its last message ended or its last `assistant` line (which
    // the CLI writes before the block's `content_block_stop`).
    const streamed = new Set<string>()
    let deltas = false
    return Stream.filterMap(events, (event) => {
      if (event.type === "stream_event") {
        if (event.parent_tool_use_id !== null) return Result.failVoid
        const inner = event.event
        if (inner.type === "message_start") {
          const id = (inner as { readonly message?: { readonly id?: unknown } }).message?.id
          if (typeof id === "string") streamed.add(id)
        } else if (inner.type === "message_stop") {
          deltas = false
        } else if (inner.type === "content_block_delta" && inner.delta.type === "text_delta") {
          deltas = true
          return Result.succeed(inner.delta.text)
        }
        return Result.failVoid
      }
      if (event.type !== "assistant" || event.parent_tool_use_id !== null) return Result.failVoid
      const whole = !deltas && !streamed.has(event.message.id) && !isApiErrorLine(event)
      deltas = false
      const text = whole ? textOf(event) : ""
      return text === "" ? Result.failVoid : Result.succeed(text)
    })
  })

const isResult = (event: Input): boolean => event.type === "result"

/** The text blocks of an `assistant` line, joined. */
const textOf = (message: Protocol.AssistantMessage): string => {
  let text = ""
  for (const block of message.message.content) if (block.type === "text") text += block.text
  return text
}

interface FinalTextState {
  /** The API message id of the last main-agent message with text, and its text so far. */
  readonly messageId: string | undefined
  readonly text: string
  /** The `result` field of the turn's result, when it had one. */
  readonly result: string | undefined
  /** What the turn's result says went wrong, when it failed. */
  readonly failure: ClaudeError.ClaudeError | undefined
}

/**
 * The assistant's final text of a turn: the text of the main agent's last message that had
 * text (its text blocks, in order; the CLI writes one `assistant` line per block, so the lines of
 * one API message are joined). If the turn had no assistant text, the result's `result` field
 * when there is one; else the empty string (a turn that only ran tools).
 *
 * Reads up to and including the first `result`, so it ends on `session.events` too (with the
 * first turn that ends there); on a stream that ends with no result it uses what it saw. A
 * failed turn is never a text: its result (`is_error`, not an interruption) fails this effect
 * with the reason `session.run` would fail with (`ApiError`, `LimitReached`, …), also on
 * `session.events` and with `errorResults: "return"`; an interrupted turn gives what was written.
 *
 * @since 0.2.0
 * @category text
 */
export const finalText: <E, R>(
  events: Stream.Stream<Events.Event, E, R>
) => Effect.Effect<string, E | ClaudeError.ClaudeError, R> = Effect.fnUntraced(
  function*<E, R>(events: Stream.Stream<Events.Event, E, R>) {
    const state = yield* events.pipe(
      Stream.takeUntil(isResult),
      Stream.runFold(
        (): FinalTextState => ({ messageId: undefined, text: "", result: undefined, failure: undefined }),
        (state, event) => {
          if (event.type === "result") {
            return { ...state, result: event.result ?? state.result, failure: failureOf(event, ResultRedaction.redactorOf(event)) }
          }
          if (event.type !== "assistant" || event.parent_tool_use_id !== null) return state
          const text = textOf(event)
          if (text === "") return state
          return event.message.id === state.messageId
            ? { ...state, text: state.text + text }
            : { ...state, messageId: event.message.id, text }
        }
      )
    )
    if (state.failure !== undefined) return yield* Effect.fail(state.failure)
    return state.messageId !== undefined ? state.text : state.result ?? ""
  },
  // Its span leaves a failed turn's text out without `TraceContent`, as the turn's does.
  SpanExits.withSpan("Turn.finalText")
)

/**
 * A tool call of a turn: the model's `tool_use` block and the `tool_result` block the CLI
 * answered it with (`result.is_error` for a failed or refused call; `result.content` is what the
 * model read).
 *
 * @since 0.2.0
 * @category tools
 */
export interface ToolCall {
  /** The model's `tool_use` block: the tool's `name`, its `id` and its `input`. */
  readonly toolUse: Protocol.ToolUseBlock
  /** The `tool_result` block answering it (same `tool_use_id`). */
  readonly result: Protocol.ToolResultBlock
}

interface Pairing {
  readonly pending: ReadonlyMap<string, Protocol.ToolUseBlock>
}

/**
 * Each tool call of the turn with its result, paired by `tool_use_id`, in the order the results
 * arrive (tools that run in parallel may finish out of order). A call is emitted when its result
 * arrives.
 *
 * **A tool use whose result never arrives is not emitted**: when the stream ends first (the turn
 * was interrupted before the CLI answered, the consumer stopped, the CLI died) the unanswered
 * tool uses are dropped. A result with no tool use seen before it (a stream joined mid-turn) is
 * dropped too.
 *
 * @since 0.2.0
 * @category tools
 */
export const toolCalls = <E, R>(events: Stream.Stream<Input, E, R>): Stream.Stream<ToolCall, E, R> =>
  Stream.mapAccum(events, (): Pairing => ({ pending: new Map() }), (state, event): readonly [Pairing, ReadonlyArray<ToolCall>] => {
    if (event.type === "assistant") {
      let pending: Map<string, Protocol.ToolUseBlock> | undefined
      for (const block of event.message.content) {
        if (block.type !== "tool_use") continue
        pending ??= new Map(state.pending)
        pending.set(block.id, block)
      }
      return [pending === undefined ? state : { pending }, []]
    }
    if (event.type !== "user" || typeof event.message.content === "string") return [state, []]
    const calls: Array<ToolCall> = []
    let pending: Map<string, Protocol.ToolUseBlock> | undefined
    for (const block of event.message.content) {
      if (block.type !== "tool_result") continue
      const toolUse = (pending ?? state.pending).get(block.tool_use_id)
      if (toolUse === undefined) continue
      pending ??= new Map(state.pending)
      pending.delete(block.tool_use_id)
      calls.push({ toolUse, result: block })
    }
    return [pending === undefined ? state : { pending }, calls]
  })
