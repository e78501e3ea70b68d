/**
 * The live branch of a session transcript: the lines of the conversation a `--resume` continues,
 * in conversation order, as CLI 2.1.332 links them and as the official SDK's
 * `getSessionMessages` (0.3.332) recovers them. Three rules, each the SDK's:
 *
 * 1. `/compact` relinking: a `compact_boundary` keeps messages after its summary
 *    (`compactMetadata.preservedMessages`, else `preservedSegment`); those lines keep their old
 *    parents in the file, and are relinked after the summary (the anchor) before anything else.
 * 2. The leaf: the newest main-chain line no other main line continues, walked up to its nearest
 *    user or assistant line; the branch is that line's parent chain, root first.
 * 3. Parallel tool calls: one API message with several `tool_use` blocks is one assistant line a
 *    block, chained, and each tool result is a child of its own `tool_use` line, so the chain
 *    holds only the last. The assistant lines sharing a `message.id` with one on the chain, and
 *    the tool results under them (or answering one of their `tool_use` ids), are spliced in
 *    after that message's last line on the chain, ordered by timestamp.
 *
 * Only a small index of each line ({@link Node}) is kept, never the lines.
 */
import type * as SessionStore from "../SessionStore.ts"
import { isRecord, str } from "./json.ts"

/** The line kinds that take part in the chain. */
const chainTypes = new Set(["user", "assistant", "system", "attachment", "progress"])

/** What the branch rules need of one line: a few fields, not the line. */
export interface Node {
  readonly uuid: string
  /** `parentUuid` (relinked by a compaction: see {@link liveBranch}). */
  parent: string | undefined
  /** The line's position in the file (of the last line with this uuid, which is the one read). */
  readonly index: number
  readonly type: string
  readonly sidechain: boolean
  readonly team: boolean
  readonly meta: boolean
  readonly forkBriefing: boolean
  readonly agentId: string | undefined
  readonly timestamp: string
  /** An assistant line's API message id, shared by the lines of one message. */
  readonly messageId: string | undefined
  /** An assistant line's `tool_use` block ids. */
  readonly toolUses: ReadonlyArray<string>
  /** The `tool_use_id`s of the line's `tool_result` blocks. */
  readonly toolResults: ReadonlyArray<string>
  /** A user line with a `tool_result` block (whatever its id). */
  readonly carriesToolResult: boolean
  readonly sourceToolAssistant: string | undefined
  /** A `compact_boundary`'s preserved messages, when it names any. */
  readonly compaction: Compaction | undefined
}

/** What a `compact_boundary` says it kept after its summary (`compactMetadata`). */
export interface Compaction {
  readonly preservedMessages: { readonly anchor: string | undefined; readonly uuids: ReadonlyArray<unknown> } | undefined
  readonly preservedSegment: {
    readonly head: string | undefined
    readonly anchor: string | undefined
    readonly tail: string | undefined
  } | undefined
}

const none: ReadonlyArray<string> = []

/** The blocks of `type` in a line's `message.content`. */
const blocksOf = (message: unknown, type: string): ReadonlyArray<Record<string, unknown>> => {
  if (!isRecord(message) || !Array.isArray(message.content)) return []
  return message.content.filter((block): block is Record<string, unknown> =>
    typeof block === "object" && block !== null && (block as { type?: unknown }).type === type
  )
}

/** The string `field` of each block. */
const fieldOf = (blocks: ReadonlyArray<Record<string, unknown>>, field: string): ReadonlyArray<string> => {
  const found = blocks.flatMap((block) => typeof block[field] === "string" ? [block[field]] : [])
  return found.length === 0 ? none : found
}

const compactionOf = (entry: SessionStore.Entry): Compaction | undefined => {
  if (entry.type !== "system" || entry.subtype !== "compact_boundary" || !isRecord(entry.compactMetadata)) return undefined
  const { preservedMessages: messages, preservedSegment: segment } = entry.compactMetadata
  // The SDK tests each for truthiness, and uses the messages when present, valid or not.
  const preservedMessages = !messages ? undefined : {
    anchor: isRecord(messages) ? str(messages.anchorUuid) : undefined,
    uuids: isRecord(messages) && Array.isArray(messages.uuids) ? messages.uuids : []
  }
  const preservedSegment = !segment ? undefined : {
    head: isRecord(segment) ? str(segment.headUuid) : undefined,
    anchor: isRecord(segment) ? str(segment.anchorUuid) : undefined,
    tail: isRecord(segment) ? str(segment.tailUuid) : undefined
  }
  return preservedMessages === undefined && preservedSegment === undefined ? undefined : { preservedMessages, preservedSegment }
}

/** The index of a line of the chain; `undefined` for lines that take no part in it. */
export const nodeOf = (entry: SessionStore.Entry, index: number): Node | undefined => {
  if (typeof entry.uuid !== "string" || !chainTypes.has(entry.type)) return undefined
  const attachment = entry.attachment
  const assistant = entry.type === "assistant"
  const message = entry.message
  const messageId = assistant && isRecord(message) ? str(message.id) : undefined
  const toolUses = messageId === undefined ? none : fieldOf(blocksOf(message, "tool_use"), "id")
  const resultBlocks = blocksOf(message, "tool_result")
  const carriesToolResult = entry.type === "user" && resultBlocks.length > 0
  return {
    uuid: entry.uuid,
    parent: typeof entry.parentUuid === "string" && entry.parentUuid !== "" ? entry.parentUuid : undefined,
    index,
    type: entry.type,
    sidechain: entry.isSidechain === true,
    team: Boolean(entry.teamName),
    meta: Boolean(entry.isMeta),
    forkBriefing: entry.type === "attachment" && isRecord(attachment) && attachment.type === "fork_briefing",
    agentId: str(entry.agentId),
    // Only the lines whose order is decided by time keep it.
    timestamp: assistant || carriesToolResult ? str(entry.timestamp) ?? "" : "",
    messageId,
    toolUses,
    toolResults: fieldOf(resultBlocks, "tool_use_id"),
    carriesToolResult,
    sourceToolAssistant: str(entry.sourceToolAssistantUUID),
    compaction: compactionOf(entry)
  }
}

const isMessage = (node: Node): boolean => node.type === "user" || node.type === "assistant"

/** A candidate of the main chain: not a sidechain, team, progress or fork-briefing line. */
const isMain = (node: Node): boolean => !node.sidechain && !node.team && node.type !== "progress" && !node.forkBriefing

/** A user line carrying tool results, under a parent (the SDK's test for a result line). */
const isToolResultLine = (node: Node): boolean => node.carriesToolResult && node.parent !== undefined

/**
 * Rule 1: each compaction's preserved messages follow its anchor (the summary), and what else the
 * anchor led to follows the last of them. Boundaries apply in file order, each on the links the
 * earlier ones left.
 */
const relinkCompactions = (nodes: Map<string, Node>): void => {
  for (const boundary of nodes.values()) {
    const compaction = boundary.compaction
    if (compaction === undefined) continue
    const { preservedMessages: messages, preservedSegment: segment } = compaction
    if (messages !== undefined) {
      // Named lines that are not all in the file relink nothing (nor does the segment then).
      const uuids = messages.uuids
      if (uuids.length === 0 || !uuids.every((u) => typeof u === "string" && nodes.has(u))) continue
      let previous = messages.anchor
      for (const uuid of uuids as ReadonlyArray<string>) {
        nodes.get(uuid)!.parent = previous
        previous = uuid
      }
      const [first] = uuids as ReadonlyArray<string>
      if (messages.anchor !== undefined) {
        for (const node of nodes.values()) {
          if (node.parent === messages.anchor && node.uuid !== first) node.parent = previous
        }
      }
    } else if (segment !== undefined) {
      const head = segment.head === undefined ? undefined : nodes.get(segment.head)
      if (head !== undefined) head.parent = segment.anchor
      if (segment.anchor !== undefined) {
        for (const node of nodes.values()) {
          if (node.parent === segment.anchor && node.uuid !== segment.head) node.parent = segment.tail
        }
      }
    }
  }
}

/** Rule 2: the line the branch ends at, `undefined` when no line leads to a message. */
const leafOf = (nodes: Map<string, Node>): Node | undefined => {
  const continued = new Set<string>()
  const continuedByMain = new Set<string>()
  for (const node of nodes.values()) {
    if (node.parent === undefined) continue
    continued.add(node.parent)
    if (isMain(node)) continuedByMain.add(node.parent)
  }
  const mainLeaves = [...nodes.values()].filter((n) => isMain(n) && !continuedByMain.has(n.uuid))
    .sort((a, b) => b.index - a.index)
  const visited = new Set<string>()
  for (const leaf of mainLeaves) {
    const seen: Array<string> = []
    const onPath = new Set<string>()
    for (let at: Node | undefined = leaf; at !== undefined && !visited.has(at.uuid) && !onPath.has(at.uuid);) {
      if (isMessage(at)) return at
      onPath.add(at.uuid)
      seen.push(at.uuid)
      at = at.parent === undefined ? undefined : nodes.get(at.parent)
    }
    for (const uuid of seen) visited.add(uuid)
  }
  // No main leaf leads to a message: the newest message reached from any leaf, preferring one of
  // the main conversation.
  const reached: Array<Node> = []
  for (const node of nodes.values()) {
    if (continued.has(node.uuid)) continue
    const onPath = new Set<string>()
    for (let at: Node | undefined = node; at !== undefined && !onPath.has(at.uuid);) {
      onPath.add(at.uuid)
      if (isMessage(at)) {
        reached.push(at)
        break
      }
      at = at.parent === undefined ? undefined : nodes.get(at.parent)
    }
  }
  const newest = (candidates: ReadonlyArray<Node>) => candidates.reduce((a, b) => (b.index > a.index ? b : a))
  const ofMain = reached.filter((n) => !n.sidechain && !n.team && !n.meta)
  return ofMain.length > 0 ? newest(ofMain) : reached.length > 0 ? newest(reached) : undefined
}

/** Rule 3: the branch with the lines of its parallel tool calls spliced in. */
const withParallelToolResults = (nodes: Map<string, Node>, branch: ReadonlyArray<Node>, included: Set<string>): ReadonlyArray<Node> => {
  const assistants = branch.filter((n) => n.type === "assistant")
  if (assistants.length === 0) return branch
  // The last line of each API message on the branch: where its recovered lines go.
  const lastOnBranch = new Map<string, Node>()
  for (const node of assistants) if (node.messageId !== undefined) lastOnBranch.set(node.messageId, node)
  const linesOfMessage = new Map<string, Array<Node>>()
  // The line of each tool_use id; null when lines of different messages claim it.
  const toolUseLine = new Map<string, Node | null>()
  const resultLines: Array<Node> = []
  for (const node of nodes.values()) {
    if (node.messageId !== undefined) {
      const lines = linesOfMessage.get(node.messageId)
      if (lines === undefined) linesOfMessage.set(node.messageId, [node])
      else lines.push(node)
      for (const id of node.toolUses) {
        const before = toolUseLine.get(id)
        toolUseLine.set(id, before === undefined || (before !== null && before.messageId === node.messageId) ? node : null)
      }
    } else if (isToolResultLine(node)) resultLines.push(node)
  }
  // The result lines under each line: its children, and those naming it as their source or
  // answering one of its tool_use ids (of the same sidechain and agent).
  const under = new Map<string, Array<Node>>()
  const linked = new Set<string>()
  const link = (parent: string, child: Node) => {
    const key = `${parent}\n${child.uuid}`
    if (linked.has(key)) return
    linked.add(key)
    const children = under.get(parent)
    if (children === undefined) under.set(parent, [child])
    else children.push(child)
  }
  const sameThread = (a: Node, b: Node) => a.sidechain === b.sidechain && a.agentId === b.agentId
  for (const result of resultLines) {
    link(result.parent!, result)
    const source = result.sourceToolAssistant !== undefined && result.sourceToolAssistant !== result.parent
      ? nodes.get(result.sourceToolAssistant)
      : undefined
    if (source !== undefined && sameThread(result, source)) link(source.uuid, result)
    for (const id of result.toolResults) {
      const line = toolUseLine.get(id)
      if (line != null && sameThread(result, line)) link(line.uuid, result)
    }
  }
  const answeredOnBranch = new Set<string>()
  for (const node of branch) for (const id of node.toolResults) answeredOnBranch.add(id)
  let order: Map<string, number> | undefined
  const fileOrder = (node: Node) => {
    if (order === undefined) {
      order = new Map()
      let i = 0
      for (const uuid of nodes.keys()) order.set(uuid, i++)
    }
    return order.get(node.uuid) ?? Number.MAX_SAFE_INTEGER
  }
  const byTime = (a: Node, b: Node) => a.timestamp.localeCompare(b.timestamp)
  const done = new Set<string>()
  const spliced = new Map<string, ReadonlyArray<Node>>()
  for (const assistant of assistants) {
    const id = assistant.messageId
    if (id === undefined || done.has(id)) continue
    done.add(id)
    const group = linesOfMessage.get(id) ?? [assistant]
    const inGroup = new Set(group.map((n) => n.uuid))
    const offBranch = group.filter((n) => !included.has(n.uuid))
    const results: Array<Node> = []
    const elsewhere: Array<Node> = []
    const taken = new Set<string>()
    for (const line of group) {
      for (const result of under.get(line.uuid) ?? []) {
        if (included.has(result.uuid) || taken.has(result.uuid)) continue
        taken.add(result.uuid)
        if (inGroup.has(result.parent!)) results.push(result)
        else elsewhere.push(result)
      }
    }
    if (elsewhere.length > 0) {
      // A result under another line joins only if it answers a tool call of this message that
      // nothing has answered yet.
      const answered = new Set(answeredOnBranch)
      for (const result of results) for (const id of result.toolResults) answered.add(id)
      elsewhere.sort((a, b) => fileOrder(a) - fileOrder(b))
      for (const result of elsewhere) {
        const answers = result.toolResults.some((id) => {
          const line = toolUseLine.get(id)
          return !answered.has(id) && line != null && inGroup.has(line.uuid)
        })
        if (!answers) continue
        for (const id of result.toolResults) answered.add(id)
        results.push(result)
      }
    }
    if (offBranch.length === 0 && results.length === 0) continue
    offBranch.sort(byTime)
    results.sort(byTime)
    const recovered = [...offBranch, ...results]
    for (const node of recovered) included.add(node.uuid)
    spliced.set(lastOnBranch.get(id)!.uuid, recovered)
  }
  if (spliced.size === 0) return branch
  return branch.flatMap((node) => {
    const after = spliced.get(node.uuid)
    return after === undefined ? [node] : [node, ...after]
  })
}

/**
 * The live branch of the lines indexed in `nodes` (keyed by uuid, in file order of first
 * appearance), in conversation order: root first, with the recovered lines of parallel tool
 * calls. Relinks the nodes' parents in place (rule 1).
 */
export const liveBranch = (nodes: Map<string, Node>): ReadonlyArray<Node> => {
  relinkCompactions(nodes)
  const leaf = leafOf(nodes)
  if (leaf === undefined) return []
  const branch: Array<Node> = []
  const included = new Set<string>()
  for (let at: Node | undefined = leaf; at !== undefined && !included.has(at.uuid);) {
    included.add(at.uuid)
    branch.push(at)
    at = at.parent === undefined ? undefined : nodes.get(at.parent)
  }
  branch.reverse()
  return withParallelToolResults(nodes, branch, included)
}
