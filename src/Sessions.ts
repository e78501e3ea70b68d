/**
 * Past sessions: list them, read their messages, rename, tag, fork and delete them, over any
 * {@link SessionStore.SessionStore} (the CLI's own config directory with {@link layerDisk}, or a
 * store of yours). The semantics are the official TypeScript SDK's session functions
 * (`listSessions`, `getSessionMessages`, `getSessionInfo`, `renameSession`, `tagSession`,
 * `forkSession`, `deleteSession`), read from its 0.3.332 sources:
 *
 * - a session's title is its custom title (`rename`), else the CLI's AI title, else its last
 *   prompt, else a summary, else its first prompt, else "Image" or "Document" for a first prompt
 *   of only that;
 * - `rename` and `tag` APPEND an entry (`custom-title`, `tag`), as the CLI does, so a session the
 *   CLI is writing at the same time stays whole; the last such entry wins;
 * - `messages` follows the `parentUuid` chain from the newest leaf back to the root, as the CLI
 *   does on `--resume`: the live branch, not lines abandoned by a rewind or a retry; the messages
 *   a `/compact` kept follow its summary, and every result of parallel tool calls is in; a
 *   prompt the CLI queued (sent while a turn ran) and delivered is the user message it is, with
 *   the uuid it was sent with;
 * - a lookup by `cwd` searches the project of `cwd` and those of its git repository's worktrees;
 * - `fork` copies the live history to a new session id with fresh message uuids, resumable with
 *   `resume`; `upToMessageId` may name a queued prompt by the uuid it was sent with.
 *
 * Reading is streaming: a session file of any size is read a chunk at a time, and `messages`
 * keeps only a small index of each line (uuid, parent, kind, tool ids) between its two passes,
 * and holds back only the lines a compaction moved after its summary.
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeError from "./ClaudeError.ts"
import * as ProjectKey from "./internal/projectKey.ts"
import * as EntryLines from "./internal/entryLines.ts"
import * as DirectoryStores from "./internal/directoryStores.ts"
import * as ForkCut from "./internal/forkCut.ts"
import { renamedReferences, sourceUuidOf } from "./internal/forkReferences.ts"
import { worktreesOf } from "./internal/gitWorktrees.ts"
import * as LiveBranch from "./internal/liveBranch.ts"
import { cutText } from "./internal/textChunks.ts"
import { ApiAssistantMessage, ApiUserMessage } from "./protocol/content.ts"
import { makeDecoder } from "./protocol/codec.ts"
import { StringOtherThan } from "./protocol/internal.ts"
import * as SessionStore from "./SessionStore.ts"
import { isRecord, isUuid, str } from "./internal/json.ts"

const opt = Schema.optionalKey

// ---------------------------------------------------------------------------------------------
// Transcript lines
// ---------------------------------------------------------------------------------------------

const chainFields = {
  uuid: Schema.String,
  parentUuid: Schema.NullOr(Schema.String),
  sessionId: Schema.String,
  timestamp: Schema.String,
  isSidechain: opt(Schema.Boolean),
  isMeta: opt(Schema.Boolean),
  cwd: opt(Schema.String),
  gitBranch: opt(Schema.String),
  version: opt(Schema.String),
  agentId: opt(Schema.String)
}

/**
 * A user line of a transcript: a prompt, or tool results (`message.content` blocks of type
 * `tool_result`).
 *
 * @since 0.2.0
 * @category lines
 */
export const UserLine = Schema.Struct({
  type: Schema.Literal("user"),
  ...chainFields,
  message: ApiUserMessage,
  isCompactSummary: opt(Schema.Boolean),
  toolUseResult: opt(Schema.Unknown)
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface UserLine extends Schema.Schema.Type<typeof UserLine> {}

/**
 * An assistant line: one API message (text, thinking, tool uses).
 *
 * @since 0.2.0
 * @category lines
 */
export const AssistantLine = Schema.Struct({
  type: Schema.Literal("assistant"),
  ...chainFields,
  message: ApiAssistantMessage,
  requestId: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface AssistantLine extends Schema.Schema.Type<typeof AssistantLine> {}

/**
 * A system line (`compact_boundary`, informational notices, ...).
 *
 * @since 0.2.0
 * @category lines
 */
export const SystemLine = Schema.Struct({
  type: Schema.Literal("system"),
  ...chainFields,
  subtype: opt(Schema.String),
  content: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface SystemLine extends Schema.Schema.Type<typeof SystemLine> {}

/**
 * A summary the CLI wrote of the conversation up to `leafUuid`.
 *
 * @since 0.2.0
 * @category lines
 */
export const SummaryLine = Schema.Struct({
  type: Schema.Literal("summary"),
  summary: Schema.String,
  leafUuid: opt(Schema.String)
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface SummaryLine extends Schema.Schema.Type<typeof SummaryLine> {}

/**
 * A title given to the session (`rename`, `/rename`, the `rename_session` control). The last wins.
 *
 * @since 0.2.0
 * @category lines
 */
export const CustomTitleLine = Schema.Struct({
  type: Schema.Literal("custom-title"),
  customTitle: Schema.String,
  sessionId: Schema.String
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface CustomTitleLine extends Schema.Schema.Type<typeof CustomTitleLine> {}

/**
 * A tag given to the session (`tag`); an empty tag clears it. The last wins.
 *
 * @since 0.2.0
 * @category lines
 */
export const TagLine = Schema.Struct({
  type: Schema.Literal("tag"),
  tag: Schema.String,
  sessionId: Schema.String
})

/**
 * @since 0.2.0
 * @category lines
 */
export interface TagLine extends Schema.Schema.Type<typeof TagLine> {}

const knownTypes = ["user", "assistant", "system", "summary", "custom-title", "tag"] as const

/**
 * A line of a kind this library does not model (`attachment`, `last-prompt`, `queue-operation`,
 * `file-history-snapshot`, ... and whatever a later CLI adds), passed through as it is.
 *
 * @since 0.2.0
 * @category lines
 */
export const OtherLine = Schema.StructWithRest(
  Schema.Struct({ type: StringOtherThan(knownTypes, "transcript line type") }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @since 0.2.0
 * @category lines
 */
export type OtherLine = Schema.Schema.Type<typeof OtherLine>

/**
 * Any line of a session transcript, Schema-decoded. Decoding is validation: the value is the
 * parsed line itself, fields this module does not model included.
 *
 * @since 0.2.0
 * @category lines
 */
export const Line = Schema.Union([UserLine, AssistantLine, SystemLine, SummaryLine, CustomTitleLine, TagLine, OtherLine])

/**
 * @since 0.2.0
 * @category lines
 */
export type Line = Schema.Schema.Type<typeof Line>

/**
 * A message of the conversation: what {@link messages} yields.
 *
 * @since 0.2.0
 * @category lines
 */
export type Message = UserLine | AssistantLine | SystemLine

const decodeLine = makeDecoder(Line, "transcript line")

/**
 * A line that could not be read: not JSON (broken, or the truncated last line of a file cut
 * short), or a known kind that does not match its schema. Reported by {@link entries} in its
 * place; the read goes on.
 *
 * @since 0.2.0
 * @category problems
 */
export class Problem extends Schema.TaggedClass<Problem>()("Problem", {
  /** The 1-based line number, when the store knows it (the directory store does). */
  line: Schema.optionalKey(Schema.Number),
  description: Schema.String,
  /** The line's first 200 characters. */
  excerpt: Schema.String
}) {}

/**
 * @since 0.2.0
 * @category problems
 */
export const isProblem = (u: unknown): u is Problem => u instanceof Problem

const toLine = (entry: SessionStore.Entry): Line | Problem => {
  if (SessionStore.isUnreadableLine(entry)) {
    return new Problem({ line: entry.line, description: entry.description, excerpt: entry.excerpt })
  }
  const decoded = decodeLine(entry)
  if (Result.isSuccess(decoded)) return decoded.success
  const line = EntryLines.lineOf(entry)
  return new Problem({ ...(line === undefined ? {} : { line }), description: decoded.failure, excerpt: cutText(JSON.stringify(entry), 200) })
}

// ---------------------------------------------------------------------------------------------
// Session info
// ---------------------------------------------------------------------------------------------

/**
 * What {@link list} and {@link info} tell of a session.
 *
 * @since 0.2.0
 * @category models
 */
export interface SessionInfo {
  /** The session's id (a UUID), what `resume` takes. */
  readonly sessionId: string
  /** The project directory name (see {@link projectKey}). */
  readonly projectKey: string
  /**
   * Custom title, else AI title, else last prompt, else summary, else first prompt, else "Image"
   * or "Document" for a first prompt that is only one.
   */
  readonly title: string
  /** The title given with `rename` (or the CLI's `/rename`, `rename_session`), when there is one. */
  readonly customTitle?: string | undefined
  /** The first meaningful prompt (no tool results, meta lines or commands), at most 200 characters. */
  readonly firstPrompt?: string | undefined
  /** The git branch of the last line that names one. */
  readonly gitBranch?: string | undefined
  /** The working directory of the session. */
  readonly cwd?: string | undefined
  /** The tag given with `tag`, unless cleared. */
  readonly tag?: string | undefined
  /** The first line's timestamp, Unix epoch milliseconds. */
  readonly createdAt?: number | undefined
  /** The store's last modification time, Unix epoch milliseconds. */
  readonly lastModified: number
  /** Bytes, when the store knows (the directory store does). */
  readonly size?: number | undefined
}

interface Fold {
  lines: number
  sidechain: boolean
  customTitle?: string
  aiTitle?: string
  lastPrompt?: string
  summary?: string
  firstPrompt?: string
  commandFallback: string
  /** "Image" or "Document": the first prompt without text but an image or a document (the SDK's last resort). */
  mediaFallback?: string
  gitBranch?: string
  cwd?: string
  relocatedCwd?: string
  tag?: string
  createdAt?: number
}

const interruptedOrTag = /^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])/
const commandName = /<command-name>(.*?)<\/command-name>/
const bashInput = /<bash-input>([\s\S]*?)<\/bash-input>/


/** The SDK's first-prompt rule: the first user text that is not a tool result, meta, command or tag. */
const promptOf = (entry: SessionStore.Entry, fold: Fold): string | undefined => {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true) return undefined
  const message = entry.message
  if (!isRecord(message)) return undefined
  const content = message.content
  const texts: Array<string> = []
  if (typeof content === "string") texts.push(content)
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (!isRecord(block)) continue
      if (block.type === "tool_result") return undefined
      if (block.type === "text" && typeof block.text === "string") texts.push(block.text)
    }
  }
  for (const raw of texts) {
    let text = raw.replaceAll("\n", " ").trim()
    if (text === "") continue
    const command = commandName.exec(text)
    if (command?.[1] !== undefined) {
      if (fold.commandFallback === "") fold.commandFallback = command[1]
      continue
    }
    const bash = bashInput.exec(text)
    if (bash?.[1] !== undefined) return `! ${bash[1].trim()}`
    if (interruptedOrTag.test(text)) continue
    if (text.length > 200) text = `${cutText(text, 200).trim()}…`
    return text
  }
  return undefined
}

/** The SDK's title of a prompt without text: "Image" when it holds an image, else "Document" for a document. */
const mediaOf = (entry: SessionStore.Entry): string | undefined => {
  if (entry.type !== "user" || entry.isMeta === true || !isRecord(entry.message)) return undefined
  const content = entry.message.content
  if (!Array.isArray(content) || content.some((b) => isRecord(b) && b.type === "tool_result")) return undefined
  const has = (type: string) => content.some((b) => isRecord(b) && b.type === type)
  return has("image") ? "Image" : has("document") ? "Document" : undefined
}

const foldEntry = (fold: Fold, entry: SessionStore.Entry): Fold => {
  if (SessionStore.isUnreadableLine(entry)) return fold
  fold.lines++
  if (fold.lines === 1 && entry.isSidechain === true) fold.sidechain = true
  if (fold.createdAt === undefined && typeof entry.timestamp === "string") {
    const t = Date.parse(entry.timestamp)
    if (!Number.isNaN(t)) fold.createdAt = t
  }
  switch (entry.type) {
    case "custom-title": {
      const title = str(entry.customTitle)?.trim()
      if (title !== undefined && title !== "") fold.customTitle = title
      break
    }
    case "ai-title": {
      const title = str(entry.aiTitle)
      if (title !== undefined && title !== "") fold.aiTitle = title
      break
    }
    case "tag":
      if (typeof entry.tag === "string") fold.tag = entry.tag
      break
    case "relocated":
      if (typeof entry.relocatedCwd === "string") fold.relocatedCwd = entry.relocatedCwd
      break
  }
  const lastPrompt = str(entry.lastPrompt)
  if (lastPrompt !== undefined && lastPrompt !== "") fold.lastPrompt = lastPrompt
  const summary = str(entry.summary)
  if (summary !== undefined && summary !== "") fold.summary = summary
  const gitBranch = str(entry.gitBranch)
  if (gitBranch !== undefined && gitBranch !== "") fold.gitBranch = gitBranch
  const cwd = str(entry.cwd)
  if (fold.cwd === undefined && cwd !== undefined) fold.cwd = cwd
  if (fold.firstPrompt === undefined) {
    const prompt = promptOf(entry, fold)
    if (prompt !== undefined) fold.firstPrompt = prompt
  }
  // Only a session with no first prompt yet may need it.
  if (fold.firstPrompt === undefined && fold.mediaFallback === undefined) {
    const media = mediaOf(entry)
    if (media !== undefined) fold.mediaFallback = media
  }
  return fold
}

const infoOf = (stored: SessionStore.StoredSession, fold: Fold): SessionInfo | undefined => {
  if (fold.sidechain || fold.lines === 0) return undefined
  const firstPrompt = fold.firstPrompt ?? (fold.commandFallback === "" ? undefined : fold.commandFallback)
  const title = fold.customTitle ?? fold.aiTitle ?? fold.lastPrompt ?? fold.summary ?? firstPrompt ?? fold.mediaFallback
  if (title === undefined) return undefined
  return {
    sessionId: stored.sessionId,
    projectKey: stored.projectKey,
    title,
    customTitle: fold.customTitle,
    firstPrompt,
    gitBranch: fold.gitBranch,
    cwd: fold.relocatedCwd ?? fold.cwd,
    tag: fold.tag === undefined || fold.tag === "" ? undefined : fold.tag,
    createdAt: fold.createdAt,
    lastModified: stored.mtime,
    size: stored.size
  }
}

// ---------------------------------------------------------------------------------------------
// The live branch (its rules: internal/liveBranch.ts)
// ---------------------------------------------------------------------------------------------

/** Whether a line of the live branch is a message `messages` yields. */
const isMessageOfBranch = (
  entry: SessionStore.Entry,
  options: { readonly includeSystem: boolean; readonly sidechain: boolean }
): boolean => {
  if (entry.type !== "user" && entry.type !== "assistant" && !(entry.type === "system" && options.includeSystem)) {
    return false
  }
  if (entry.isMeta === true) return false
  if (!options.sidechain && (entry.isSidechain === true || entry.teamName !== undefined)) return false
  return true
}

/**
 * The prompt of a queued command the CLI wrote as an attachment (`queued_command`: a prompt sent
 * while a turn ran), when it is one the conversation shows: not meta, not a forwarded one.
 */
const queuedPromptOf = (entry: SessionStore.Entry): string | ReadonlyArray<unknown> | undefined => {
  const command = entry.attachment
  if (entry.type !== "attachment" || !isRecord(command) || command.type !== "queued_command") return undefined
  if (command.isMeta === true || isRecord(command.forwardedIntent)) return undefined
  const prompt = command.prompt
  return typeof prompt === "string" || Array.isArray(prompt) ? prompt : undefined
}

/**
 * The queued prompts of the branch the model answered: an assistant line follows before the next
 * prompt (the SDK's `getSessionMessages` rule).
 */
const deliveredPrompts = (
  branch: ReadonlyArray<LiveBranch.Node>,
  queued: ReadonlySet<string>,
  summaries: ReadonlySet<string>
): Set<string> => {
  const delivered = new Set<string>()
  let next: "reply" | "prompt" | undefined
  for (let i = branch.length - 1; i >= 0; i--) {
    const node = branch[i]!
    if (next === "reply" && queued.has(node.uuid)) delivered.add(node.uuid)
    if (node.type === "assistant") next = "reply"
    else if (node.type === "user" && !node.meta && !summaries.has(node.uuid)) next = "prompt"
  }
  return delivered
}

/**
 * The queued prompts after the end of the branch, not answered yet (the turn still runs, or the
 * session ended first), in file order: reached from the branch's last message through lines that
 * are no messages, and leading to no message off the branch (the SDK's rule).
 */
const trailingPrompts = (
  nodes: ReadonlyMap<string, LiveBranch.Node>,
  branch: ReadonlyArray<LiveBranch.Node>,
  onBranch: ReadonlySet<string>,
  queued: ReadonlySet<string>
): ReadonlyArray<LiveBranch.Node> => {
  if ([...queued].every((uuid) => onBranch.has(uuid))) return []
  const isMessage = (node: LiveBranch.Node) => node.type === "user" || node.type === "assistant"
  // The branch's last message: the one no line of the branch continues.
  const continued = new Set(branch.flatMap((node) => node.parent === undefined ? [] : [node.parent]))
  const leaf = branch.findLast((node) => isMessage(node) && !continued.has(node.uuid))
  if (leaf === undefined) return []
  // The lines off the branch that lead to a message of the main conversation off it.
  const leading = new Set<string>()
  for (const node of nodes.values()) {
    if (!isMessage(node) || node.sidechain || node.team || onBranch.has(node.uuid)) continue
    for (
      let at = node.parent === undefined ? undefined : nodes.get(node.parent);
      at !== undefined && !onBranch.has(at.uuid) && !leading.has(at.uuid);
      at = at.parent === undefined ? undefined : nodes.get(at.parent)
    ) leading.add(at.uuid)
  }
  const trailing: Array<LiveBranch.Node> = []
  for (const uuid of queued) {
    const node = nodes.get(uuid)
    if (node === undefined || onBranch.has(uuid) || leading.has(uuid)) continue
    const seen = new Set<string>()
    let at: LiveBranch.Node | undefined = node
    while (at !== undefined && !isMessage(at) && !onBranch.has(at.uuid) && !seen.has(at.uuid)) {
      seen.add(at.uuid)
      at = at.parent === undefined ? undefined : nodes.get(at.parent)
    }
    if (at === leaf) trailing.push(node)
  }
  return trailing.sort((a, b) => a.index - b.index)
}

/**
 * A delivered queued prompt as the user line it is, as the SDK gives it: its uuid the one it was
 * sent with (`source_uuid`), unless another line of the branch has that uuid.
 */
const queuedAsUser = (entry: SessionStore.Entry, branchUuids: ReadonlySet<string>): SessionStore.Entry => {
  const prompt = queuedPromptOf(entry)
  const uuid = entry.uuid as string
  const source = sourceUuidOf(entry)
  if (prompt === undefined || (source !== undefined && source !== uuid && branchUuids.has(source))) return entry
  return {
    type: "user",
    uuid: source ?? uuid,
    parentUuid: entry.parentUuid ?? null,
    sessionId: entry.sessionId,
    timestamp: entry.timestamp,
    ...(entry.isSidechain === undefined ? {} : { isSidechain: entry.isSidechain }),
    ...(entry.teamName === undefined ? {} : { teamName: entry.teamName }),
    ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
    ...(entry.gitBranch === undefined ? {} : { gitBranch: entry.gitBranch }),
    ...(entry.version === undefined ? {} : { version: entry.version }),
    message: { role: "user", content: prompt },
    isQueuedCommand: true
  }
}

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

/**
 * Where to look for a session: the project of `cwd` (and of its repository's worktrees), or every
 * project when `cwd` is absent.
 *
 * @since 0.2.0
 * @category options
 */
export interface LookupOptions {
  /** The session's working directory (its project); every project is searched without it. */
  readonly cwd?: string | undefined
  /**
   * With `cwd` in a git repository, also search the projects of the repository's worktrees (the
   * main one and the linked ones), as the official SDK's `listSessions({ dir })` and lookups by
   * `dir` do: a session run in a worktree is found from the repository's directory, and the
   * other way round. `list` searches them only when the repository has a linked worktree;
   * `info`, `messages`, `rename`, `tag`, `fork`, `delete` search the project of `cwd` first,
   * and the worktrees' only when it does not hold the session. The worktrees are read from the files git keeps (no `git` process); a directory in no
   * repository, or one whose files cannot be read, has none. Needs `FileSystem` and `Path` in
   * the service's context (`layerDisk` has them). Default: true.
   */
  readonly includeWorktrees?: boolean | undefined
}

/**
 * @since 0.2.0
 * @category options
 */
export interface ListOptions extends LookupOptions {
  /** At most this many sessions (after `offset`). */
  readonly limit?: number | undefined
  /** Skip this many of the newest sessions first. */
  readonly offset?: number | undefined
}

/**
 * @since 0.2.0
 * @category options
 */
export interface MessagesOptions extends LookupOptions {
  /** Also yield the branch's `system` lines (compact boundaries, notices). Default: false. */
  readonly includeSystem?: boolean | undefined
  /**
   * Read a subagent's transcript instead: its agent id (the CLI writes
   * `<sessionId>/subagents/agent-<agentId>.jsonl`): letters, digits, `_` and `-`, else
   * `InvalidInput`, as is an agent the session has no transcript of.
   */
  readonly agentId?: string | undefined
}

/**
 * @since 0.2.0
 * @category options
 */
export interface ForkOptions extends LookupOptions {
  /**
   * Copy the history up to this message uuid (inclusive; a queued prompt's is the uuid it was
   * sent with, as {@link messages} gives it); everything when absent. In a compacted
   * session, as the official SDK's `forkSession`: up to a `/compact`'s summary, the messages the
   * compaction kept (which follow the summary) are not copied; up to its boundary, the copy ends
   * before the boundary.
   */
  readonly upToMessageId?: string | undefined
  /** The fork's title. Default: the source's title followed by ` (fork)`. */
  readonly title?: string | undefined
}

/**
 * The sessions service.
 *
 * @since 0.2.0
 * @category services
 */
export class Sessions extends Context.Service<Sessions, {
  /** The store it reads and writes. */
  readonly store: SessionStore.SessionStore["Service"]
  /**
   * The sessions of a project (or of all), newest first. With `cwd`, not those of another
   * existing directory the CLI keys alike (`/x/a-b` and `/x/a.b`), as the SDK's `listSessions`.
   */
  readonly list: (options?: ListOptions) => Effect.Effect<ReadonlyArray<SessionInfo>, ClaudeError.ClaudeError>
  /** One session's info; `SessionNotFound` when no project holds it. */
  readonly info: (sessionId: string, options?: LookupOptions) => Effect.Effect<SessionInfo, ClaudeError.ClaudeError>
  /** Every line of a session's transcript in file order, decoded, with a {@link Problem} for each unreadable one. */
  readonly entries: (
    sessionId: string,
    options?: LookupOptions & {
      /** Read this subagent's transcript instead (as {@link MessagesOptions.agentId}). */
      readonly agentId?: string | undefined
    }
  ) => Stream.Stream<Line | Problem, ClaudeError.ClaudeError>
  /** The live branch's messages in conversation order, oldest first. */
  readonly messages: (sessionId: string, options?: MessagesOptions) => Stream.Stream<Message, ClaudeError.ClaudeError>
  /** Sets the session's title (appends a `custom-title` line). */
  readonly rename: (
    sessionId: string,
    title: string,
    options?: LookupOptions
  ) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** Sets the session's tag (appends a `tag` line). */
  readonly tag: (sessionId: string, tag: string, options?: LookupOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** Clears the session's tag (appends an empty `tag` line). */
  readonly untag: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
  /** Copies the live history into a new session; returns its id (resumable with `resume`). */
  readonly fork: (sessionId: string, options?: ForkOptions) => Effect.Effect<string, ClaudeError.ClaudeError>
  /** Removes the session and its subagent transcripts. */
  readonly delete: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, ClaudeError.ClaudeError>
}>()("effect-claude-code/Sessions") {}

const invalid = (description: string): ClaudeError.ClaudeError =>
  ClaudeError.make(new ClaudeError.InvalidInput({ description }))

const checkId = (operation: string, sessionId: string): Effect.Effect<void, ClaudeError.ClaudeError> =>
  isUuid(sessionId)
    ? Effect.void
    : Effect.fail(invalid(`Sessions.${operation}: ${JSON.stringify(sessionId)} is not a session id (a UUID)`))

const agentIdPattern = /^[A-Za-z0-9_-]+$/

/** {@link checkId}, and the subagent's id (a name, never a path) when one is given. */
const checkIds = (
  operation: string,
  sessionId: string,
  agentId: string | undefined
): Effect.Effect<void, ClaudeError.ClaudeError> =>
  Effect.andThen(
    checkId(operation, sessionId),
    agentId === undefined || agentIdPattern.test(agentId)
      ? Effect.void
      : Effect.fail(invalid(`Sessions.${operation}: ${JSON.stringify(agentId)} is not an agent id (letters, digits, _ and -)`))
  )

/**
 * The CLI's project directory name for a working directory (CLI 2.1.332): every character that
 * is not an ASCII letter or digit becomes `-`; a name longer than 200 characters is cut to 200
 * and gets `-` and a hash of the path. Give the real (resolved) path, as the CLI uses.
 *
 * @since 0.2.0
 * @category project keys
 */
export const projectKey = (cwd: string): string => ProjectKey.fromCwd(cwd)

/** The characters `tag` removes: controls, format, private-use and unassigned ones, line and paragraph separators. */
const invisibleInTag = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\u2028\u2029]/gu

/** Lines of history a fork appends at a time. */
const forkBatch = 500
/** How long a fork that failed waits for its copy to be removed. */
const forkCleanupTimeout = Duration.seconds(30)

/**
 * Options of {@link makeWith}.
 *
 * @since 0.2.0
 * @category options
 */
export interface MakeOptions {
  /**
   * The project key of a working directory (its real path). Default: {@link projectKey}, the CLI's
   * rule. {@link layerDisk} passes the CLI's `CLAUDE_CODE_PROJECT_DIR_NAME` override when the
   * environment sets it (with `CLAUDE_CONFIG_DIR`, as the CLI requires).
   */
  readonly projectKey?: ((cwd: string) => string) | undefined
}

/**
 * Builds the service over the `SessionStore` in context. A `cwd` is resolved to its real path
 * with `FileSystem` and `Path` when the context has them (as the CLI resolves its own), and used
 * as given otherwise.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeWith: (
  options?: MakeOptions
) => Effect.Effect<Sessions["Service"], never, SessionStore.SessionStore> = Effect.fn("Sessions.makeWith")(
  function*(options: MakeOptions = {}) {
    const projectKeyOf = options.projectKey ?? ProjectKey.fromCwd
    const store = yield* SessionStore.SessionStore
    const fs = yield* Effect.serviceOption(FileSystem.FileSystem)
    const path = yield* Effect.serviceOption(Path.Path)

    const keyOfDir = (dir: string) => projectKeyOf(ProjectKey.keyedCwd(dir))

    /** `cwd`'s real path (as the CLI resolves its own cwd) and its project key. */
    const ownProject = Effect.fnUntraced(function*(cwd: string) {
      const resolved = Option.isSome(path) ? path.value.resolve(cwd) : cwd
      const dir = Option.isNone(fs) ? resolved : yield* fs.value.realPath(resolved).pipe(Effect.orElseSucceed(() => resolved))
      return { dir, key: keyOfDir(dir) }
    })

    /**
     * The projects of the worktrees of `dir`'s repository, the main one first (none with
     * `includeWorktrees: false`, or without `FileSystem` and `Path`).
     */
    const worktreeProjects = (dir: string, options: LookupOptions) =>
      options.includeWorktrees === false || Option.isNone(fs) || Option.isNone(path)
        ? Effect.succeed([])
        : Effect.map(worktreesOf(fs.value, path.value, dir), (worktrees) =>
          worktrees.map((worktree) => ({ dir: worktree, key: keyOfDir(worktree) })))

    /**
     * The projects `list` lists for `cwd`: its own, and its worktrees' only when the repository
     * has a linked one (the SDK's `listSessions({ dir })`); with the directories they are of.
     */
    const listProjects = Effect.fnUntraced(function*(options: LookupOptions & { readonly cwd: string }) {
      const own = yield* ownProject(options.cwd)
      const worktrees = yield* worktreeProjects(own.dir, options)
      if (worktrees.length <= 1) return { projects: [own], worktrees: undefined }
      const projects = [own]
      for (const w of worktrees) if (!projects.some((p) => p.key === w.key)) projects.push(w)
      return { projects, worktrees: [own.dir, ...worktrees.map((w) => w.dir)] }
    })

    const caseInsensitive = process.platform === "win32" || process.platform === "darwin"
    const folded = (p: string) => caseInsensitive ? p.toLowerCase() : p
    /** Two paths the CLI keys alike that are not the same path (the SDK's rule). */
    const keyedAlike = (a: string, b: string) =>
      folded(ProjectKey.sanitize(a)) === folded(ProjectKey.sanitize(b)) &&
      folded(a.replaceAll("\\", "/")) !== folded(b.replaceAll("\\", "/"))

    /**
     * Whether a session whose `cwd` is `cwd`, found in the project of `dir`, is another
     * directory's: one the CLI keys as `dir` (`/x/a-b` and `/x/a.b` are both `-x-a-b`) that
     * exists and is not `dir` (nor, when `list` lists them, in one of its repository's
     * worktrees). The SDK's `listSessions({ dir })` leaves such sessions out; a directory that
     * is gone cannot be told apart and keeps them.
     */
    const ofAnotherDirectory = Effect.fnUntraced(
      function*(cwd: string, dir: string, worktrees: ReadonlyArray<string> | undefined) {
        if (Option.isNone(fs) || Option.isNone(path)) return false
        const own = ProjectKey.keyedCwd(cwd)
        if (!keyedAlike(own, dir) || !path.value.isAbsolute(own) || own.split(/[\\/]/).includes("..")) return false
        const within = (p: string) => {
          const w = folded(ProjectKey.keyedCwd(p))
          const c = folded(own)
          return c === w || c.startsWith(w.endsWith("/") ? w : `${w}/`)
        }
        if (worktrees?.some(within) === true) return false
        const real = yield* fs.value.realPath(own).pipe(Effect.option)
        if (Option.isNone(real)) return false
        const realDir = yield* fs.value.realPath(dir).pipe(Effect.orElseSucceed(() => dir))
        return keyedAlike(ProjectKey.keyedCwd(real.value), ProjectKey.keyedCwd(realDir))
      }
    )

    /** `sessionId`'s newest copy in the project `projectKey` (in any, when undefined). */
    const findIn = (sessionId: string, projectKey: string | undefined) =>
      Effect.map(store.list(projectKey), (stored) => {
        const matches = stored.filter((s) => s.sessionId === sessionId)
        return matches.length === 0 ? undefined : matches.reduce((a, b) => (b.mtime > a.mtime ? b : a))
      })

    /**
     * The stored session: in the first project of `cwd` that holds it, its own then its
     * repository's other worktrees', the main one first (the SDK's `getSessionInfo({ dir })`), or
     * the newest copy in any. Git's files are read only when its own project does not hold it.
     */
    const find = Effect.fnUntraced(function*(sessionId: string, options?: LookupOptions) {
      if (options?.cwd === undefined) {
        const found = yield* findIn(sessionId, undefined)
        if (found !== undefined) return found
        return yield* Effect.fail(ClaudeError.make(new ClaudeError.SessionNotFound({ sessionId, searched: store.name })))
      }
      const own = yield* ownProject(options.cwd)
      const keys = [own.key]
      const found = yield* findIn(sessionId, own.key)
      if (found !== undefined) return found
      for (const worktree of yield* worktreeProjects(own.dir, options)) {
        if (worktree.dir === own.dir || keys.includes(worktree.key)) continue
        keys.push(worktree.key)
        const found = yield* findIn(sessionId, worktree.key)
        if (found !== undefined) return found
      }
      return yield* Effect.fail(ClaudeError.make(
        new ClaudeError.SessionNotFound({
          sessionId,
          searched: `${store.name}, ${keys.length === 1 ? "project" : "projects"} ${keys.join(", ")}`
        })
      ))
    })

    const summarize = (stored: SessionStore.StoredSession) =>
      store.load({ projectKey: stored.projectKey, sessionId: stored.sessionId }).pipe(
        Stream.runFold((): Fold => ({ lines: 0, sidechain: false, commandFallback: "" }), foldEntry),
        Effect.map((fold) => infoOf(stored, fold))
      )

    const list = Effect.fn("Sessions.list")(function*(options?: ListOptions) {
      const offset = options?.offset ?? 0
      const limit = options?.limit
      if (!Number.isInteger(offset) || offset < 0) {
        return yield* Effect.fail(invalid(`Sessions.list: offset must be a whole number >= 0, got ${offset}`))
      }
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
        return yield* Effect.fail(invalid(`Sessions.list: limit must be a whole number >= 0, got ${limit}`))
      }
      const listing = options?.cwd === undefined ? undefined : yield* listProjects({ ...options, cwd: options.cwd })
      const keys = listing === undefined ? [undefined] : listing.projects.map((p) => p.key)
      const stored = (yield* Effect.forEach(keys, (key) => store.list(key))).flat().sort((a, b) =>
        b.mtime !== a.mtime ? b.mtime - a.mtime : b.sessionId < a.sessionId ? -1 : b.sessionId > a.sessionId ? 1 : 0
      )
      // Newest first, reading only as many sessions as the page needs (a session without a title is skipped).
      const page: Array<SessionInfo> = []
      let skipped = 0
      // A session id in two projects (a copied config directory) is listed once, its newest copy,
      // as the official SDK lists it.
      const listed = new Set<string>()
      for (const s of stored) {
        if (limit !== undefined && page.length >= limit) break
        if (!isUuid(s.sessionId) || listed.has(s.sessionId)) continue
        const info = yield* summarize(s).pipe(
          // A session deleted between the listing and its read is not listed.
          Effect.catchIf((e) => e.reason._tag === "SessionNotFound", () => Effect.succeed(undefined)),
          // Nor, in the CLI's directory, a file it may not read (one `sudo claude` left, say):
          // each session is a file of its own, as the SDK's `listSessions` skips it. Another
          // failure (too many open files, an I/O error, another store's) fails the list: it could
          // miss any session.
          Effect.catchIf(
            (e) =>
              e.reason._tag === "StoreFailed" && DirectoryStores.isDirectory(store) &&
              e.reason.description.startsWith("PermissionDenied:"),
            (e) => Effect.as(Effect.logWarning(`Sessions.list: session ${s.sessionId} is not listed: ${e.message}`), undefined)
          )
        )
        if (info === undefined) continue
        const dir = listing?.projects.find((p) => p.key === s.projectKey)?.dir
        if (dir !== undefined && info.cwd !== undefined && (yield* ofAnotherDirectory(info.cwd, dir, listing?.worktrees))) continue
        listed.add(s.sessionId)
        if (skipped < offset) {
          skipped++
          continue
        }
        page.push(info)
      }
      return page
    })

    const info = Effect.fn("Sessions.info")(function*(sessionId: string, options?: LookupOptions) {
      yield* checkId("info", sessionId)
      const stored = yield* find(sessionId, options)
      const found = yield* summarize(stored)
      if (found !== undefined) return found
      return {
        sessionId,
        projectKey: stored.projectKey,
        title: "",
        lastModified: stored.mtime,
        size: stored.size
      } satisfies SessionInfo
    })

    const keyOf = (stored: SessionStore.StoredSession, agentId: string | undefined): SessionStore.SessionKey =>
      agentId === undefined
        ? { projectKey: stored.projectKey, sessionId: stored.sessionId }
        : { projectKey: stored.projectKey, sessionId: stored.sessionId, subpath: `subagents/agent-${agentId}` }

    /**
     * The transcript of a session found, or of its subagent `agentId`: one the session has no
     * transcript of is `InvalidInput` naming the agent (the session exists: not `SessionNotFound`).
     */
    const loadOf = (operation: string, stored: SessionStore.StoredSession, agentId: string | undefined) => {
      const loaded = store.load(keyOf(stored, agentId))
      return agentId === undefined ? loaded : loaded.pipe(
        Stream.mapError((error) =>
          error.reason._tag === "SessionNotFound"
            ? invalid(`Sessions.${operation}: session ${stored.sessionId} has no subagent ${JSON.stringify(agentId)}`)
            : error
        )
      )
    }

    const entries = (sessionId: string, options?: LookupOptions & { readonly agentId?: string | undefined }) =>
      Stream.unwrap(
        Effect.map(
          Effect.andThen(checkIds("entries", sessionId, options?.agentId), find(sessionId, options)),
          (stored) => loadOf("entries", stored, options?.agentId).pipe(Stream.map(toLine))
        )
      ).pipe(Stream.withSpan("Sessions.entries"))

    const messages = (sessionId: string, options?: MessagesOptions) =>
      Stream.unwrap(
        Effect.gen(function*() {
          yield* checkIds("messages", sessionId, options?.agentId)
          const stored = yield* find(sessionId, options)
          const load = () => loadOf("messages", stored, options?.agentId)
          // Pass 1: the index of the chain (uuid, parent, kind, tool ids), not the lines.
          const nodes = new Map<string, LiveBranch.Node>()
          // The queued prompts (`queued_command` attachments) and compaction summaries among them.
          const queued = new Set<string>()
          const summaries = new Set<string>()
          let index = 0
          yield* load().pipe(
            Stream.runForEach((entry) =>
              Effect.sync(() => {
                const node = LiveBranch.nodeOf(entry, index++)
                if (node === undefined) return
                nodes.set(node.uuid, node)
                if (queuedPromptOf(entry) !== undefined) queued.add(node.uuid)
                if (entry.isCompactSummary === true) summaries.add(node.uuid)
              })
            )
          )
          // The place in the conversation of each line of the branch, by its position in the file.
          const placeOf = new Map<number, number>()
          const branch = LiveBranch.liveBranch(nodes)
          for (const node of branch) placeOf.set(node.index, placeOf.size)
          const delivered = deliveredPrompts(branch, queued, summaries)
          const branchUuids = new Set(branch.map((node) => node.uuid))
          // The queued prompts not answered yet follow the conversation, as the SDK shows them.
          for (const node of trailingPrompts(nodes, branch, branchUuids, queued)) {
            placeOf.set(node.index, placeOf.size)
            delivered.add(node.uuid)
          }
          nodes.clear()
          const filter = { includeSystem: options?.includeSystem === true, sidechain: options?.agentId !== undefined }
          // Pass 2: the branch's messages in conversation order. That is file order but for the
          // lines a compaction relinked, held here until their place comes (a few).
          return load().pipe(
            Stream.zipWithIndex,
            Stream.filterMap(([entry, at]) => {
              const place = placeOf.get(at)
              return place === undefined ? Result.failVoid : Result.succeed({ entry, place })
            }),
            Stream.mapEffect(({ entry: read, place }): Effect.Effect<{ readonly place: number; readonly message: Message | undefined }> => {
              const entry = typeof read.uuid === "string" && delivered.has(read.uuid) ? queuedAsUser(read, branchUuids) : read
              if (!isMessageOfBranch(entry, filter)) return Effect.succeed({ place, message: undefined })
              const line = toLine(entry)
              return isProblem(line)
                ? Effect.as(Effect.logWarning(`Sessions.messages: ${line.description}`), { place, message: undefined })
                : Effect.succeed({ place, message: line as Message })
            }),
            Stream.mapAccum(
              () => ({ next: 0, held: new Map<number, Message | undefined>() }),
              (state, { message, place }) => {
                state.held.set(place, message)
                const ready: Array<Message> = []
                for (; state.held.has(state.next); state.next++) {
                  const held = state.held.get(state.next)
                  state.held.delete(state.next)
                  if (held !== undefined) ready.push(held)
                }
                return [state, ready]
              },
              {
                // A line that was not read again (the file changed between the passes) holds
                // nothing back: what is held follows in its order.
                onHalt: (state) =>
                  [...state.held].sort(([a], [b]) => a - b).flatMap(([, held]) => (held === undefined ? [] : [held]))
              }
            )
          )
        })
      ).pipe(Stream.withSpan("Sessions.messages"))

    const appendMeta = (operation: string, sessionId: string, options: LookupOptions | undefined, entry: Record<string, unknown>) =>
      Effect.gen(function*() {
        yield* checkId(operation, sessionId)
        const stored = yield* find(sessionId, options)
        const timestamp = new Date(yield* Clock.currentTimeMillis).toISOString()
        yield* store.append({ projectKey: stored.projectKey, sessionId }, [{
          ...entry,
          type: entry.type as string,
          sessionId,
          uuid: crypto.randomUUID(),
          timestamp
        }])
      })

    const rename = Effect.fn("Sessions.rename")(function*(sessionId: string, title: string, options?: LookupOptions) {
      const trimmed = title.trim()
      if (trimmed === "") return yield* Effect.fail(invalid("Sessions.rename: a title must not be empty"))
      yield* appendMeta("rename", sessionId, options, { type: "custom-title", customTitle: trimmed })
    })

    const tag = Effect.fn("Sessions.tag")(function*(sessionId: string, tag: string, options?: LookupOptions) {
      // NFKC, without the characters that show nothing (controls, format characters such as
      // zero-width spaces and bidi overrides, private-use and unassigned ones), as the SDK's
      // `tagSession` cleans a tag: one of only those is empty.
      const cleaned = tag.normalize("NFKC").replace(invisibleInTag, "").trim()
      if (cleaned === "") return yield* Effect.fail(invalid("Sessions.tag: a tag must not be empty (untag clears it)"))
      yield* appendMeta("tag", sessionId, options, { type: "tag", tag: cleaned })
    })

    const untag = Effect.fn("Sessions.untag")(function*(sessionId: string, options?: LookupOptions) {
      yield* appendMeta("untag", sessionId, options, { type: "tag", tag: "" })
    })

    const fork = Effect.fn("Sessions.fork")(function*(sessionId: string, options?: ForkOptions) {
      yield* checkId("fork", sessionId)
      const stored = yield* find(sessionId, options)
      const source = { projectKey: stored.projectKey, sessionId }
      // Pass 1: which lines are copied (the main chain's, up to `upToMessageId`), and the parents
      // of progress lines, which are not copied (a copied line's parent skips over them).
      const parents = new Map<string, { readonly parent: string | undefined; readonly progress: boolean }>()
      let upTo = options?.upToMessageId
      // With `upTo`, the lines up to it, for where a compaction makes the copy end (internal/forkCut.ts).
      const lines: Array<ForkCut.Line> = []
      let cut: number | undefined
      let index = 0
      let copied = 0
      // The first main-chain line holding the queued prompt `upTo` names (its `source_uuid`, the
      // uuid `send` returned): the message cut at when no line has that uuid, as for the SDK.
      let queuedMatch: string | undefined
      const scan = Effect.suspend(() => {
        parents.clear()
        lines.length = 0
        cut = undefined
        index = 0
        copied = 0
        return store.load(source).pipe(
          Stream.runForEach((entry) =>
            Effect.sync(() => {
              const at = index++
              if (cut !== undefined) return
              const node = LiveBranch.nodeOf(entry, at)
              if (node === undefined || entry.isSidechain === true) return
              const progress = node.type === "progress"
              parents.set(node.uuid, { parent: node.parent, progress })
              if (upTo === undefined) {
                if (!progress) copied++
                return
              }
              lines.push(ForkCut.lineOf(entry, node.uuid))
              if (entry.uuid === upTo) cut = at
              else if (queuedMatch === undefined && sourceUuidOf(entry) === upTo) queuedMatch = node.uuid
            })
          )
        )
      })
      yield* scan
      if (upTo !== undefined && cut === undefined && queuedMatch !== undefined) {
        upTo = queuedMatch
        yield* scan
      }
      if (upTo !== undefined && cut === undefined) {
        return yield* Effect.fail(invalid(`Sessions.fork: message ${options?.upToMessageId} is not in session ${sessionId}`))
      }
      // The boundaries anchored at the message cut at, copied without the messages they kept.
      const unkept = new Set<string>()
      if (upTo !== undefined) {
        const kept = ForkCut.kept(lines)
        const copiedLines = new Set(lines.slice(0, kept).map((l) => l.uuid))
        for (const line of lines.slice(kept)) if (!copiedLines.has(line.uuid)) parents.delete(line.uuid)
        // Counted here, of the lines the cut keeps.
        for (const line of lines.slice(0, kept)) {
          if (line.type !== "progress") copied++
          if (ForkCut.anchoredAt(line, upTo)) unkept.add(line.uuid)
        }
      }
      if (copied === 0) return yield* Effect.fail(invalid(`Sessions.fork: session ${sessionId} has no messages to fork`))
      // A fresh uuid for every line of the main chain; the progress lines are not copied, but a
      // reference to one is renamed all the same, as by the SDK.
      const renamed = new Map<string, string>()
      const fresh = new Map<string, string>()
      for (const [uuid, p] of parents) {
        const uuidOfFork = crypto.randomUUID()
        renamed.set(uuid, uuidOfFork)
        if (!p.progress) fresh.set(uuid, uuidOfFork)
      }
      const parentOf = (uuid: string | undefined): string | null => {
        const seen = new Set<string>()
        for (let at = uuid; at !== undefined && !seen.has(at);) {
          seen.add(at)
          const p = parents.get(at)
          if (p === undefined) return null
          if (!p.progress) return fresh.get(at) ?? null
          at = p.parent
        }
        return null
      }
      const forkId = crypto.randomUUID()
      const target = { projectKey: stored.projectKey, sessionId: forkId }
      const title = options?.title?.trim() || `${(yield* summarize(stored))?.title || "Forked session"} (fork)`
      // Pass 2: copy in batches, with fresh uuids and the new session id, then the title; all or
      // nothing: a copy that fails (or is interrupted) part way is removed, never left to be
      // listed as a session of its own.
      let written = 0
      const copy = store.load(source).pipe(
        Stream.filter((entry) =>
          typeof entry.uuid === "string" && fresh.has(entry.uuid) && entry.isSidechain !== true && written < copied
        ),
        Stream.map((line): SessionStore.Entry => {
          written++
          const uuid = line.uuid as string
          const entry = unkept.has(uuid) ? ForkCut.withoutKept(line) : line
          const logicalParent = entry.logicalParentUuid
          return {
            ...entry,
            // The uuids a line names in its body (a compaction's preserved messages, a queued
            // command's source) name the fork's lines too.
            ...renamedReferences(entry, renamed, fresh),
            uuid: fresh.get(uuid)!,
            parentUuid: parentOf(typeof entry.parentUuid === "string" ? entry.parentUuid : undefined),
            ...(logicalParent === undefined || logicalParent === null
              ? {}
              : { logicalParentUuid: typeof logicalParent === "string" ? renamed.get(logicalParent) ?? null : null }),
            sessionId: forkId,
            forkedFrom: { sessionId, messageUuid: uuid }
          }
        }),
        Stream.grouped(forkBatch),
        Stream.runForEach((batch) => store.append(target, batch)),
        Effect.andThen(Clock.currentTimeMillis),
        Effect.flatMap((now) =>
          store.append(target, [{
            type: "custom-title",
            customTitle: title,
            sessionId: forkId,
            uuid: crypto.randomUUID(),
            timestamp: new Date(now).toISOString()
          }])
        )
      )
      yield* copy.pipe(Effect.onExit((exit) =>
        Exit.isFailure(exit)
          ? store.delete(target).pipe(
            // Bounded: an interrupted fork must not wait on a store that hangs.
            Effect.timeout(forkCleanupTimeout),
            Effect.catchCause((cause) =>
              Effect.logWarning(`Sessions.fork: the copy ${forkId} that failed could not be removed`, cause)
            )
          )
          : Effect.void
      ))
      return forkId
    })

    const remove = Effect.fn("Sessions.delete")(function*(sessionId: string, options?: LookupOptions) {
      yield* checkId("delete", sessionId)
      const stored = yield* find(sessionId, options)
      yield* store.delete({ projectKey: stored.projectKey, sessionId })
    })

    return Sessions.of({ store, list, info, entries, messages, rename, tag, untag, fork, delete: remove })
  }
)

/**
 * {@link makeWith} with the CLI's project keys.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: Effect.Effect<Sessions["Service"], never, SessionStore.SessionStore> = makeWith()

/**
 * {@link make} as a layer, over the `SessionStore` it is given.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer: Layer.Layer<Sessions, never, SessionStore.SessionStore> = Layer.effect(Sessions, make)

/**
 * {@link makeWith} as a layer.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (options: MakeOptions): Layer.Layer<Sessions, never, SessionStore.SessionStore> =>
  Layer.effect(Sessions, makeWith(options))

/**
 * The CLI's config directory as the CLI finds it: `CLAUDE_CONFIG_DIR` when set, else `.claude` in
 * the home directory (`HOME`, else `USERPROFILE`).
 *
 * @since 0.2.0
 * @category config
 */
export const configDir: Effect.Effect<string, Config.ConfigError, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  const fromHome = Config.NonEmptyString("HOME").pipe(
    Config.orElse(() => Config.NonEmptyString("USERPROFILE")),
    Config.map((home) => path.join(home, ".claude"))
  )
  const dir = yield* Config.NonEmptyString("CLAUDE_CONFIG_DIR").pipe(Config.orElse(() => fromHome))
  return dir.normalize("NFC")
})

/**
 * The sessions the CLI keeps on this machine: {@link layer} over `SessionStore.layerDirectory`
 * on the CLI's config directory ({@link configDir}). Provides the store too. With
 * `CLAUDE_CONFIG_DIR` set, a valid `CLAUDE_CODE_PROJECT_DIR_NAME` is every working directory's
 * project key, as for the CLI.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerDisk: Layer.Layer<
  Sessions | SessionStore.SessionStore,
  Config.ConfigError,
  FileSystem.FileSystem | Path.Path
> = Layer.unwrap(Effect.gen(function*() {
  const dir = yield* configDir
  const env = {
    CLAUDE_CONFIG_DIR: Option.getOrUndefined(yield* Config.option(Config.NonEmptyString("CLAUDE_CONFIG_DIR"))),
    CLAUDE_CODE_PROJECT_DIR_NAME: Option.getOrUndefined(yield* Config.option(Config.String("CLAUDE_CODE_PROJECT_DIR_NAME")))
  }
  return layerWith({ projectKey: (cwd) => ProjectKey.forEnvironment(cwd, env) }).pipe(
    Layer.provideMerge(SessionStore.layerDirectory(dir))
  )
}))
