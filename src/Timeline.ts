/**
 * A transcript as a timeline: the session's turns in order, each with its prompt, what the
 * assistant said and thought, its tool uses with their inputs and results, the hook and
 * permission decisions, the other control requests, errors and protocol problems, and its
 * duration, tokens and cost. A pure function of the transcript's lines ({@link fromLines}), or
 * built line by line while a session still writes its transcript ({@link make}).
 *
 * The page of `npx effect-claude-code view <transcript.ndjson>` shows it.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Timeline, Transcript } from "effect-claude-code"
 *
 * const program = Effect.gen(function*() {
 *   const lines = yield* Transcript.read("session.ndjson")
 *   const timeline = Timeline.fromLines(lines)
 *   for (const turn of timeline.turns) console.log(turn.prompt, turn.summary?.costUsd)
 * })
 * ```
 *
 * Turns are told apart as the CLI runs them: each prompt the program sends opens a turn. A line
 * read goes to the turn of the tool use it is about (a subagent's line, `parent_tool_use_id`, to
 * its Agent tool use's turn, though a background subagent writes on while later turns run; a
 * permission or hook request to its tool use's), else to the turn it names (`user_message_uuid(s)`,
 * which newer CLIs echo, 2.1.332 among them), else to the turn the CLI started by itself, if one
 * runs, else to the oldest turn still open; a `result` ends the turns it names, else that turn of
 * the CLI's own, else the oldest open one (first in, first out, as queued prompts run). In a
 * transcript of several sessions (a line's `session`), the turns of the CLI's own, the open ones
 * and the costs are each session's. The CLI starts a turn by itself (after a
 * background task finished) with a `system/init` that names no prompt while none waits (or, on
 * a CLI that echoes uuids, while the oldest waiting one has a uuid), or with a `result` that has
 * an `origin`; a `result` before any turn (its prompt not in the transcript) is shown in a turn
 * of its own. A prompt withdrawn before it ran ends `cancelled`. What comes before the first
 * prompt (the `initialize` request, MCP start-up) is the timeline's `preamble`.
 *
 * @since 0.2.0
 */
import * as Result from "effect/Result"
import * as Framing from "./Framing.ts"
import { TurnUsageTracker } from "./internal/turnUsage.ts"
import type * as Protocol from "./Protocol.ts"
import * as Codec from "./protocol/codec.ts"
import type * as Transcript from "./Transcript.ts"
import { isRecord, str, stringify } from "./internal/json.ts"

/**
 * What the `system/init` line told about the session.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionInfo {
  /** The CLI's session id. */
  readonly sessionId?: string | undefined
  /** The model of the session. */
  readonly model?: string | undefined
  /** The CLI's working directory. */
  readonly cwd?: string | undefined
  /** The CLI's version. */
  readonly cliVersion?: string | undefined
  /** The permission mode at start. */
  readonly permissionMode?: string | undefined
  /** How many tools the CLI offered the model. */
  readonly tools: number
}

/**
 * A tool's result as the CLI reported it.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolResult {
  /** The result's text (text blocks joined; images as `[image]`). */
  readonly text: string
  /** Whether the tool failed. */
  readonly isError: boolean
  /** When it was reported. */
  readonly ts?: number | undefined
}

/**
 * One thing that happened in a turn, in the order of the transcript. `ts` is the line's time
 * (absent in transcripts recorded before 0.2.0).
 *
 * - `text`, `thinking`: what the assistant said or thought (`subagent`: the tool use id of the
 *   subagent that said it).
 * - `tool`: a tool use, with its input and, once reported, its result.
 * - `permission`: a `can_use_tool` request and the program's decision.
 * - `hook`: a `hook_callback` request (the hook event) and the program's answer.
 * - `control`: any other control request, either way, and its answer.
 * - `system`: a `system` line other than `init` (retries, compaction, status, …).
 * - `error`: an error the CLI reported (a failed result, an assistant message's error).
 * - `problem`: a line the protocol's schemas do not accept, one over the session's cap, or one
 *   the CLI wrote on stdout that is not JSON.
 *
 * @since 0.2.0
 * @category models
 */
export type Item =
  | TextItem
  | ThinkingItem
  | ToolItem
  | PermissionItem
  | HookItem
  | ControlItem
  | SystemItem
  | ErrorItem
  | ProblemItem

/**
 * What every item has.
 *
 * @since 0.2.0
 * @category models
 */
export interface ItemBase {
  /** When its line was written or read (ms since the epoch); absent in transcripts before 0.2.0. */
  readonly ts?: number | undefined
}

/**
 * What the assistant said.
 *
 * @since 0.2.0
 * @category models
 */
export interface TextItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "text"
  /** The text. */
  readonly text: string
  /** The tool use id of the subagent that said it, if a subagent did. */
  readonly subagent?: string | undefined
}

/**
 * What the assistant thought (`[redacted thinking]` when the API redacted it).
 *
 * @since 0.2.0
 * @category models
 */
export interface ThinkingItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "thinking"
  /** The thinking. */
  readonly text: string
  /** The tool use id of the subagent that thought it, if a subagent did. */
  readonly subagent?: string | undefined
}

/**
 * A tool use (built-in, MCP or server tool), with its result once reported.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "tool"
  /** The tool use id. */
  readonly id: string
  /** The tool's name (`Bash`, `mcp__server__tool`, …). */
  readonly name: string
  /** The tool's input as the model gave it. */
  readonly input: unknown
  /** The result the CLI reported, when it did. */
  result?: ToolResult | undefined
  /** The tool use id of the subagent that used it, if a subagent did. */
  readonly subagent?: string | undefined
}

/**
 * A `can_use_tool` request and the program's decision.
 *
 * @since 0.2.0
 * @category models
 */
export interface PermissionItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "permission"
  /** The control request's id. */
  readonly requestId: string
  /** The tool asked about. */
  readonly toolName: string
  /** The tool's input as asked about. */
  readonly input: unknown
  /** The answer, once sent (`summary`: `allow` or `deny`). */
  decision?: Answer | undefined
}

/**
 * A `hook_callback` request (a hook event) and the program's answer.
 *
 * @since 0.2.0
 * @category models
 */
export interface HookItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "hook"
  /** The control request's id. */
  readonly requestId: string
  /** The hook event (`PreToolUse`, `Stop`, …). */
  readonly event: string
  /** The tool the event is about, for tool events. */
  readonly toolName?: string | undefined
  /** The hook's input. */
  readonly input: unknown
  /** The answer, once sent (`summary`: the permission decision or `decision`, else `continue` or `stop`). */
  decision?: Answer | undefined
}

/**
 * Any other control request, either way (`send`: the program asked the CLI), and its answer.
 *
 * @since 0.2.0
 * @category models
 */
export interface ControlItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "control"
  /** The control request's id. */
  readonly requestId: string
  /** Who asked: `send` the program, `recv` the CLI. */
  readonly dir: "send" | "recv"
  /** The request's subtype (`initialize`, `set_model`, `mcp_message`, …). */
  readonly subtype: string
  /** The request. */
  readonly request: unknown
  /** The answer, once sent. */
  decision?: Answer | undefined
}

/**
 * A `system` line other than `init` (status, retries, compaction, …).
 *
 * @since 0.2.0
 * @category models
 */
export interface SystemItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "system"
  /** The line's subtype. */
  readonly subtype: string
  /** The whole line. */
  readonly message: unknown
}

/**
 * An error the CLI reported: a failed result, an assistant message's `error`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ErrorItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "error"
  /** What failed, and why. */
  readonly text: string
}

/**
 * A line the protocol's schemas do not accept.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProblemItem extends ItemBase {
  /** The item's kind. */
  readonly kind: "problem"
  /** What does not fit. */
  readonly description: string
  /** The line (its first 4 KiB). */
  readonly line: string
}

/**
 * The answer to a control request: `ok` unless it was an error response; `summary` is the
 * permission behavior or the hook's decision when there is one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Answer {
  /** `false` for an error response, and for a request the CLI cancelled (no answer). */
  readonly ok: boolean
  /** The decision in a word (`allow`, `deny`, `continue`, `ok`, `error`, `cancelled`, …). */
  readonly summary: string
  /** The answer as sent (the error's text for an error response; none for a cancelled request). */
  readonly body: unknown
  /** When it was sent. */
  readonly ts?: number | undefined
}

/**
 * How a turn ended, from its `result` line. `costUsd` and the tokens are the turn's own (the
 * CLI's totals are running totals); `totalCostUsd` is the session's so far.
 *
 * @since 0.2.0
 * @category models
 */
export interface Summary {
  /** The result's subtype (`success`, `error_during_execution`, …). */
  readonly subtype: string
  /** Whether the turn failed. */
  readonly isError: boolean
  /** The turn's duration as the CLI measured it. */
  readonly durationMs: number
  /** The time spent waiting for the API. */
  readonly durationApiMs?: number | undefined
  /** How many model requests the turn made. */
  readonly numTurns?: number | undefined
  /** The turn's own cost. */
  readonly costUsd: number
  /** The session's cost so far. */
  readonly totalCostUsd: number
  /** Input tokens (not cached). */
  readonly inputTokens: number
  /** Output tokens. */
  readonly outputTokens: number
  /** Input tokens read from the cache. */
  readonly cacheReadTokens: number
  /** Input tokens written to the cache. */
  readonly cacheCreationTokens: number
  /** Why the turn ended (`completed`, `api_error`, …). */
  readonly terminalReason?: string | undefined
  /** When the result was read. */
  readonly ts?: number | undefined
}

/**
 * One turn: a user turn (its prompt), or a turn the CLI started by itself (`origin`); what
 * happened, and how it ended (`summary` is absent while it runs, or when the transcript ends
 * before its result).
 *
 * @since 0.2.0
 * @category models
 */
export interface Turn {
  /** 1-based, in the order the turns began (a prompt sent, or a turn the CLI started). */
  readonly index: number
  /** The prompt's text (images as `[image]`); empty for a turn the CLI started by itself. */
  readonly prompt: string
  /** When the prompt was sent, or the CLI started the turn. */
  readonly ts?: number | undefined
  /**
   * Set on a turn the CLI started by itself, with no prompt (a background task it was told of
   * finished): what started it, the `kind` of its result's `origin` (`task-notification`, …), or
   * `unknown` until that result is read.
   *
   * @since 0.2.0
   */
  readonly origin?: string | undefined
  /** What happened, in order. */
  readonly items: ReadonlyArray<Item>
  /** How it ended. */
  readonly summary?: Summary | undefined
  /** The turn whose result answered this prompt too (the CLI merged queued prompts into one turn). */
  readonly mergedInto?: number | undefined
  /**
   * `running` until its result; `error` when the result says so or an error was reported while
   * it ran (a control request refused after its result leaves it as it was);
   * `cancelled` when the prompt was withdrawn before it ran (`cancel_async_message`, or the CLI's
   * `command_lifecycle` `cancelled`).
   */
  readonly status: "running" | "ok" | "error" | "cancelled"
}

/**
 * A whole timeline.
 *
 * @since 0.2.0
 * @category models
 */
export interface Timeline {
  /** What `system/init` told. */
  readonly session: SessionInfo
  /** What happened before the first prompt. */
  readonly preamble: ReadonlyArray<Item>
  /** The turns, in the order of their prompts. */
  readonly turns: ReadonlyArray<Turn>
  /** How many transcript lines were read. */
  readonly lines: number
  /** The cost so far: the last result's `total_cost_usd` of each session in the transcript, summed. */
  readonly totalCostUsd: number
}

/**
 * A timeline built line by line (for a transcript still being written).
 *
 * @since 0.2.0
 * @category models
 */
export interface Builder {
  /**
   * Adds one transcript line; returns the indexes of the turns it changed (`0` for the
   * preamble and the session's info).
   */
  readonly push: (line: Transcript.Line) => ReadonlyArray<number>
  /**
   * Adds a line that is not a transcript line (not JSON, or not `{"dir","msg"}`) as a `problem`
   * item; returns the indexes of the turns it changed, as `push` does.
   */
  readonly problem: (description: string, line: string) => ReadonlyArray<number>
  /** The timeline so far (the same object, updated in place by `push`). */
  readonly timeline: Timeline
}

type Json = Record<string, unknown>

const num = (u: unknown): number | undefined => (typeof u === "number" && Number.isFinite(u) ? u : undefined)

/** How deep tool results nested in tool results are shown; deeper, as JSON (a hostile line). */
const MAX_NESTING = 32

/** The text of a message's content: a string, or its text blocks (images as `[image]`). */
const contentText = (content: unknown, depth = 0): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : stringify(content)
  const parts: Array<string> = []
  for (const block of content) {
    if (!isRecord(block)) continue
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text)
    else if (block.type === "image") parts.push("[image]")
    else if (block.type === "tool_result" && depth < MAX_NESTING) parts.push(contentText(block.content, depth + 1))
    else parts.push(stringify(block))
  }
  return parts.join("\n")
}

/** What a permission or hook answer decided, in a word or two. */
const answerSummary = (kind: "permission" | "hook" | "control", body: unknown): string => {
  if (!isRecord(body)) return "answered"
  if (kind === "permission") return str(body.behavior) ?? "answered"
  if (kind === "hook") {
    const specific = isRecord(body.hookSpecificOutput) ? body.hookSpecificOutput : undefined
    const decision = str(specific?.permissionDecision) ?? str(body.decision)
    if (decision !== undefined) return decision
    if (body.continue === false) return "stop"
    return "continue"
  }
  return "ok"
}

/**
 * A timeline builder, empty; `push` each line of a transcript in order.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (): Builder => {
  const session: { -readonly [K in keyof SessionInfo]: SessionInfo[K] } = { tools: 0 }
  const preamble: Array<Item> = []
  const turns: Array<{ -readonly [K in keyof Turn]: Turn[K] } & { items: Array<Item> }> = []
  const timeline: { -readonly [K in keyof Timeline]: Timeline[K] } = {
    session,
    preamble,
    turns,
    lines: 0,
    totalCostUsd: 0
  }
  type MutableTurn = (typeof turns)[number]
  /** The uuid each user turn was sent with, if any. */
  const uuidOf = new Map<MutableTurn, string>()
  /**
   * What is told apart per session of the recorder (a line's `session`: one recorder may record
   * several sessions, at once too): a line that names no turn is a turn of its own session's.
   */
  interface Lane {
    /** Turns still waiting for their result, oldest first. */
    readonly open: Array<MutableTurn>
    /** The turn the CLI started by itself that runs now: the lines that name no turn are its. */
    automatic: MutableTurn | undefined
    /** Whether the CLI echoes the prompts' uuids (then a `system/init` naming none is its own turn). */
    echoes: boolean
    /** The CLI's totals are its session's running totals. */
    readonly usage: TurnUsageTracker
    /** The session's last result's `total_cost_usd`. */
    totalCostUsd: number
    /** The session's last turn. */
    last: MutableTurn | undefined
  }
  const lanes = new Map<number, Lane>()
  const laneOf = (session: number): Lane => {
    let found = lanes.get(session)
    if (found === undefined) {
      found = { open: [], automatic: undefined, echoes: false, usage: new TurnUsageTracker(), totalCostUsd: 0, last: undefined }
      lanes.set(session, found)
    }
    return found
  }
  /** The recorder's session of the line being read (a line that is no transcript line: the last one's). */
  let lineSession = 0
  /** The lane of the line being read. */
  let lane = laneOf(0)
  const byUuid = new Map<string, MutableTurn>()
  const tools = new Map<string, ToolItem>()
  /** By session and request id (each session's CLI and program make their own ids). */
  const requests = new Map<string, PermissionItem | HookItem | ControlItem>()
  const requestKey = (id: string): string => `${lineSession}\u0000${id}`
  /** The turn index of each item that is answered later (0: the preamble). */
  const turnOf = new Map<Item, number>()

  /** The turns a line names (`user_message_uuid(s)`, which the CLI echoes since 2.1). */
  const named = (msg: Json): ReadonlyArray<MutableTurn> => {
    const ids = Array.isArray(msg.user_message_uuids)
      ? msg.user_message_uuids
      : typeof msg.user_message_uuid === "string"
      ? [msg.user_message_uuid]
      : []
    if (ids.length > 0) lane.echoes = true
    const out: Array<MutableTurn> = []
    for (const id of ids) {
      const turn = typeof id === "string" ? byUuid.get(id) : undefined
      if (turn !== undefined) out.push(turn)
    }
    return out
  }
  /** The turn of a tool use read (none for one not read, or read before the first prompt). */
  const turnOfTool = (id: unknown): MutableTurn | undefined => {
    const tool = typeof id === "string" ? tools.get(id) : undefined
    const index = tool === undefined ? 0 : turnOf.get(tool) ?? 0
    return index > 0 ? turns[index - 1] : undefined
  }
  /**
   * The turn a line read belongs to: the turn of the tool use it is about (a subagent's line is
   * its Agent tool use's turn's, though a background subagent writes on after that turn's result,
   * while later turns run; a permission or hook request names its tool use), else the one it
   * names, else the turn its session's CLI started by itself, else its session's oldest open one,
   * else its session's last one.
   */
  const current = (msg?: Json, toolUseId?: unknown): MutableTurn | undefined => {
    const byName = msg === undefined ? undefined : named(msg)[0]
    return turnOfTool(str(msg?.parent_tool_use_id) ?? toolUseId) ?? byName ?? lane.automatic ?? lane.open[0] ?? lane.last
  }
  /** A turn the CLI starts by itself: it has no prompt, and is no user turn's. */
  const startAutomatic = (ts: number | undefined): MutableTurn => {
    const turn: MutableTurn = { index: turns.length + 1, prompt: "", origin: "unknown", ts, items: [], status: "running" }
    turns.push(turn)
    lane.automatic = turn
    lane.last = turn
    return turn
  }
  /** A prompt withdrawn before it ran: it ends, and later lines are no longer its. */
  const withdraw = (uuid: string | undefined): ReadonlyArray<number> => {
    const turn = uuid === undefined ? undefined : byUuid.get(uuid)
    const at = turn === undefined ? -1 : lane.open.indexOf(turn)
    if (turn === undefined || at === -1) return []
    lane.open.splice(at, 1)
    turn.status = "cancelled"
    return [turn.index]
  }
  const add = (item: Item, msg?: Json, toolUseId?: unknown): number => {
    const turn = current(msg, toolUseId)
    if (turn === undefined) {
      preamble.push(item)
      turnOf.set(item, 0)
      return 0
    }
    turn.items.push(item)
    turnOf.set(item, turn.index)
    if (item.kind === "error" && turn.status === "running") turn.status = "error"
    return turn.index
  }
  const turnOfRequest = (item: Item): number => turnOf.get(item) ?? 0

  const sent = (msg: Json, ts: number | undefined): ReadonlyArray<number> => {
    switch (msg.type) {
      case "user": {
        const message = isRecord(msg.message) ? msg.message : {}
        const index = turns.length + 1
        const turn: MutableTurn = { index, prompt: contentText(message.content), ts, items: [], status: "running" }
        turns.push(turn)
        lane.open.push(turn)
        lane.last = turn
        const uuid = str(msg.uuid)
        if (uuid !== undefined) {
          byUuid.set(uuid, turn)
          uuidOf.set(turn, uuid)
        }
        return [index]
      }
      case "control_request": {
        const request = isRecord(msg.request) ? msg.request : {}
        const requestId = str(msg.request_id) ?? ""
        const item: Item = { kind: "control", requestId, dir: "send", subtype: str(request.subtype) ?? "?", request, ts }
        requests.set(requestKey(requestId), item)
        return [add(item)]
      }
      case "control_response":
        return answered(msg, ts)
      default:
        return []
    }
  }

  const answered = (msg: Json, ts: number | undefined): ReadonlyArray<number> => {
    const response = isRecord(msg.response) ? msg.response : {}
    const requestId = str(response.request_id) ?? ""
    const item = requests.get(requestKey(requestId))
    if (item === undefined) return [0]
    requests.delete(requestKey(requestId))
    const ok = response.subtype !== "error"
    const body = ok ? response.response : response.error
    item.decision = { ok, summary: ok ? answerSummary(item.kind, body) : "error", body, ts }
    const index = turnOfRequest(item)
    // An error answer fails a turn that runs; a turn already over (a request of the program's
    // between turns goes to the last one) keeps the outcome its result gave it.
    const turn = index > 0 ? turns[index - 1]! : undefined
    if (!ok && turn?.status === "running") turn.status = "error"
    // The CLI withdrew the queued prompt the program asked it to.
    if (
      ok && item.kind === "control" && item.subtype === "cancel_async_message" && isRecord(item.request) &&
      isRecord(body) && body.cancelled === true
    ) {
      return [index, ...withdraw(str(item.request.message_uuid))]
    }
    return [index]
  }

  const received = (msg: Json, ts: number | undefined, raw: Transcript.Line): ReadonlyArray<number> => {
    if (msg.type === "stream_event") return []
    if (msg.type === Framing.oversizedLineType) {
      // What a transcript keeps of a line over the cap (its bytes never were).
      const type = str(msg.messageType)
      const what = type === undefined ? "a line" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type} line`
      const description = `${what} of ${num(msg.bytes) ?? "?"} bytes, over the session's maxLineBytes: not read, its bytes not kept`
      return [add({ kind: "problem", description, line: (str(msg.head) ?? "").slice(0, 4096), ts })]
    }
    if (msg.type === Framing.nonJsonLineType) {
      // What the CLI printed on stdout that is not JSON; the session skipped it.
      const description = "a line on the CLI's stdout that is not JSON: skipped"
      return [add({ kind: "problem", description, line: (str(msg.text) ?? "").slice(0, 4096), ts })]
    }
    const decoded = Codec.decodeMessage(msg)
    if (Result.isFailure(decoded)) {
      return [add({ kind: "problem", description: decoded.failure, line: stringify(raw.msg).slice(0, 4096), ts })]
    }
    const subagent = str(msg.parent_tool_use_id)
    switch (msg.type) {
      case "system": {
        if (msg.subtype === "init") {
          // A CLI turn for no prompt: none is waiting, or the CLI echoes uuids and names none
          // though the oldest waiting prompt has one (one sent without a uuid it cannot name).
          const own = named(msg).length === 0 && (lane.open.length === 0 || (lane.echoes && uuidOf.has(lane.open[0]!)))
          lane.automatic = own ? startAutomatic(ts) : undefined
          session.sessionId = str(msg.session_id)
          session.model = str(msg.model)
          session.cwd = str(msg.cwd)
          session.cliVersion = str(msg.claude_code_version)
          session.permissionMode = str(msg.permissionMode)
          session.tools = Array.isArray(msg.tools) ? msg.tools.length : 0
          return own ? [0, lane.automatic!.index] : [0]
        }
        return [add({ kind: "system", subtype: str(msg.subtype) ?? "?", message: msg, ts }, msg)]
      }
      case "assistant": {
        const message = isRecord(msg.message) ? msg.message : {}
        const changed: Array<number> = []
        const error = str(msg.error)
        if (error !== undefined) changed.push(add({ kind: "error", text: `assistant error: ${error}`, ts }, msg))
        for (const block of Array.isArray(message.content) ? message.content : []) {
          if (!isRecord(block)) continue
          if (block.type === "text") changed.push(add({ kind: "text", text: str(block.text) ?? "", subagent, ts }, msg))
          else if (block.type === "thinking") {
            changed.push(add({ kind: "thinking", text: str(block.thinking) ?? "", subagent, ts }, msg))
          } else if (block.type === "redacted_thinking") {
            changed.push(add({ kind: "thinking", text: "[redacted thinking]", subagent, ts }, msg))
          } else if (block.type === "tool_use" || block.type === "server_tool_use" || block.type === "mcp_tool_use") {
            const item: ToolItem = {
              kind: "tool",
              id: str(block.id) ?? "",
              name: str(block.name) ?? "?",
              input: block.input,
              subagent,
              ts
            }
            tools.set(item.id, item)
            changed.push(add(item, msg))
          }
        }
        return changed
      }
      case "user": {
        // The CLI's echo of tool results (and of the prompt, which the turn already has).
        const message = isRecord(msg.message) ? msg.message : {}
        const changed: Array<number> = []
        for (const block of Array.isArray(message.content) ? message.content : []) {
          if (!isRecord(block) || block.type !== "tool_result") continue
          const tool = tools.get(str(block.tool_use_id) ?? "")
          if (tool === undefined) continue
          tool.result = { text: contentText(block.content), isError: block.is_error === true, ts }
          changed.push(turnOfRequest(tool))
        }
        return changed
      }
      case "control_request": {
        const request = isRecord(msg.request) ? msg.request : {}
        const requestId = str(msg.request_id) ?? ""
        let item: PermissionItem | HookItem | ControlItem
        if (request.subtype === "can_use_tool") {
          item = { kind: "permission", requestId, toolName: str(request.tool_name) ?? "?", input: request.input, ts }
        } else if (request.subtype === "hook_callback") {
          const input = isRecord(request.input) ? request.input : {}
          item = {
            kind: "hook",
            requestId,
            event: str(input.hook_event_name) ?? "?",
            toolName: str(input.tool_name),
            input,
            ts
          }
        } else {
          item = { kind: "control", requestId, dir: "recv", subtype: str(request.subtype) ?? "?", request, ts }
        }
        requests.set(requestKey(requestId), item)
        // A subagent's request goes to its tool use's turn, as the subagent's lines do.
        return [add(item, undefined, request.tool_use_id)]
      }
      case "control_response":
        return answered(msg, ts)
      case "control_cancel_request": {
        // The CLI no longer waits for this answer (its turn was interrupted).
        const requestId = str(msg.request_id) ?? ""
        const item = requests.get(requestKey(requestId))
        if (item === undefined) return []
        requests.delete(requestKey(requestId))
        item.decision = { ok: false, summary: "cancelled", body: undefined, ts }
        return [turnOfRequest(item)]
      }
      case "command_lifecycle":
        lane.echoes = true
        return msg.state === "cancelled" ? withdraw(str(msg.command_uuid)) : []
      case "result": {
        const result = decoded.success as Protocol.ResultMessage
        const share = lane.usage.next(result)
        // Each session's CLI counts its own cost: the transcript's is theirs together.
        lane.totalCostUsd = result.total_cost_usd
        let total = 0
        for (const each of lanes.values()) total += each.totalCostUsd
        timeline.totalCostUsd = total
        // The turns it answers: the ones it names (queued prompts the CLI merged, or folded into
        // a turn the CLI started by itself), else the CLI's own turn, else the oldest open one.
        // A result with `origin` is never a prompt's own: it ends the CLI's own turn.
        const answers = named(msg)
        // A result that names prompts and has no origin is theirs: a turn taken for the CLI's
        // own ends with it, as answered by it.
        const mistaken = result.origin === undefined && answers.length > 0 ? lane.automatic : undefined
        const own = mistaken !== undefined ? undefined : lane.automatic ?? (result.origin !== undefined ? startAutomatic(ts) : undefined)
        lane.automatic = undefined
        if (own !== undefined && isRecord(result.origin)) own.origin = str(result.origin.kind) ?? "unknown"
        // A result before any turn (its prompt not in the transcript) is shown in a turn of its own.
        const turn = own ?? answers[0] ?? lane.open[0] ?? lane.last ?? startAutomatic(ts)
        lane.automatic = undefined
        const changed = [turn.index]
        if (mistaken !== undefined) {
          mistaken.mergedInto = turn.index
          mistaken.status = result.is_error ? "error" : "ok"
          changed.push(mistaken.index)
        }
        for (const t of answers.length === 0 ? [turn] : answers) {
          const at = lane.open.indexOf(t)
          if (at !== -1) lane.open.splice(at, 1)
          if (t !== turn) {
            t.mergedInto = turn.index
            t.status = result.is_error ? "error" : "ok"
            changed.push(t.index)
          }
        }
        const tokens = result.usage as { [k: string]: unknown }
        turn.summary = {
          subtype: result.subtype,
          isError: result.is_error,
          durationMs: result.duration_ms,
          durationApiMs: result.duration_api_ms,
          numTurns: result.num_turns,
          costUsd: share.costUsd,
          totalCostUsd: result.total_cost_usd,
          inputTokens: num(tokens.input_tokens) ?? 0,
          outputTokens: num(tokens.output_tokens) ?? 0,
          cacheReadTokens: num(tokens.cache_read_input_tokens) ?? 0,
          cacheCreationTokens: num(tokens.cache_creation_input_tokens) ?? 0,
          terminalReason: result.terminal_reason,
          ts
        }
        if (result.is_error) {
          const why = result.errors?.join("; ") ?? result.result ?? result.subtype
          turn.items.push({ kind: "error", text: `the turn failed (${result.subtype}): ${why}`, ts })
        }
        turn.status = result.is_error || turn.status === "error" ? "error" : "ok"
        return changed
      }
      default:
        // stream_event and the informational lines: kept out of the timeline.
        return []
    }
  }

  const push = (line: Transcript.Line): ReadonlyArray<number> => {
    timeline.lines++
    lineSession = line.session ?? 0
    lane = laneOf(lineSession)
    const msg = line.msg
    if (!isRecord(msg)) {
      if (line.dir === "send") return []
      return [add({ kind: "problem", description: "not a JSON object", line: stringify(msg).slice(0, 4096), ts: line.ts })]
    }
    // Never a throw, whatever the line holds (a stack overflow on a hostile one): a problem item,
    // and the lines after it are read.
    try {
      return line.dir === "send" ? sent(msg, line.ts) : received(msg, line.ts, line)
    } catch (error) {
      const description = `this line could not be shown (${error instanceof Error ? error.message : String(error)})`
      return [add({ kind: "problem", description, line: stringify(msg).slice(0, 4096), ts: line.ts })]
    }
  }

  const problem = (description: string, line: string): ReadonlyArray<number> => {
    timeline.lines++
    return [add({ kind: "problem", description, line: line.slice(0, 4096) })]
  }

  return { push, problem, timeline }
}

/**
 * The timeline of a whole transcript.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromLines = (lines: Iterable<Transcript.Line>): Timeline => {
  const builder = make()
  for (const line of lines) builder.push(line)
  return builder.timeline
}
