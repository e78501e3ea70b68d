/**
 * Where a fork up to a message (`Sessions.fork`'s `upToMessageId`) ends in a compacted
 * transcript, with the official SDK's `forkSession` (0.3.332) rules. The lines copied are those
 * of the main chain up to the message in file order, but a `/compact` writes its boundary and
 * summary AFTER the messages it keeps (`compactMetadata.preservedMessages`/`preservedSegment`,
 * relinked after the summary on resume), so a plain prefix is not the conversation up to the
 * message:
 *
 * - a prefix ending past a boundary with no user or assistant line after it (the boundary itself,
 *   or a line of it) ends before the boundary, at the last line it kept (else its logical
 *   parent): copied, the boundary relinked its kept messages to a summary the fork lacks, which
 *   cut them off from the conversation before them;
 * - a boundary whose summary (its anchor) is the message cut at keeps no messages: copied as
 *   they are, they would be relinked after the summary, past the cut.
 */
import type * as SessionStore from "../SessionStore.ts"
import { isRecord } from "./json.ts"

/** What the cut needs of one line of the main chain (a compaction's fields, for a boundary). */
export interface Line {
  readonly uuid: string
  readonly type: string
  readonly boundary: Boundary | undefined
}

/** A `compact_boundary` line's metadata, as the SDK reads it. */
export interface Boundary {
  /** Its kept messages' anchor (the summary), when its metadata names one. */
  readonly anchor: { readonly value: unknown } | undefined
  /** The uuids it kept: `preservedMessages.uuids`, `preservedSegment.headUuid` and `tailUuid`. */
  readonly kept: ReadonlyArray<unknown>
  readonly logicalParent: unknown
  /** An instant boundary anchored at itself (`durationMs` 0): never one a cut ends before. */
  readonly instant: boolean
}

const boundaryOf = (entry: SessionStore.Entry, uuid: string): Boundary | undefined => {
  const metadata = entry.compactMetadata
  if (entry.type !== "system" || entry.subtype !== "compact_boundary") return undefined
  if (!isRecord(metadata)) return { anchor: undefined, kept: [], logicalParent: entry.logicalParentUuid, instant: false }
  const messages = "preservedMessages" in metadata ? metadata.preservedMessages : undefined
  const segment = "preservedSegment" in metadata ? metadata.preservedSegment : undefined
  const preserved = messages ?? segment
  const anchor = isRecord(preserved) && "anchorUuid" in preserved ? { value: preserved.anchorUuid } : undefined
  return {
    anchor,
    kept: [
      ...(isRecord(messages) && Array.isArray(messages.uuids) ? messages.uuids : []),
      ...(isRecord(segment) ? [segment.headUuid, segment.tailUuid] : [])
    ],
    logicalParent: entry.logicalParentUuid,
    instant: metadata.durationMs === 0 && anchor?.value === uuid
  }
}

/** The line (whose uuid is `uuid`) as the cut reads it. */
export const lineOf = (entry: SessionStore.Entry, uuid: string): Line => ({
  uuid,
  type: entry.type,
  boundary: boundaryOf(entry, uuid)
})

/** A boundary the cut acts on: not an instant one. */
const cuttable = (line: Line): boolean => line.boundary !== undefined && !line.boundary.instant

/**
 * How many of `lines` (the main chain up to the message, in file order) the fork copies: all,
 * unless a boundary follows the last user or assistant line (see the module's header).
 */
export const kept = (lines: ReadonlyArray<Line>): number => {
  const lastMessage = lines.findLastIndex((l) => l.type === "user" || l.type === "assistant")
  const at = lines.findIndex((l, i) => i > lastMessage && cuttable(l))
  const boundary = lines[at]?.boundary
  if (boundary === undefined) return lines.length
  const before = lines.slice(0, at)
  const named = new Set(boundary.anchor?.value === lines[at]!.uuid ? [] : [...boundary.kept, boundary.logicalParent])
  const last = before.findLastIndex((l) => named.has(l.uuid))
  // A line an earlier boundary kept ends the copy at that boundary's anchor, if that is later.
  const earlier = before.findLast((l) => l.boundary !== undefined)?.boundary
  const anchor = last >= 0 && earlier !== undefined && !earlier.instant && earlier.kept.includes(before[last]!.uuid)
    ? before.findLastIndex((l) => l.uuid === earlier.anchor?.value)
    : -1
  const end = Math.max(last, anchor)
  const count = end < 0 ? before.length : end + 1
  return before.slice(0, count).some((l) => l.type !== "progress") ? count : lines.length
}

/** Whether the fork copies this line without its kept messages: a boundary anchored at the message cut at. */
export const anchoredAt = (line: Line, uuid: string): boolean => cuttable(line) && line.boundary?.anchor?.value === uuid

/** A boundary's line without its kept messages (and their token count), as {@link anchoredAt} asks. */
export const withoutKept = (entry: SessionStore.Entry): SessionStore.Entry => {
  if (!isRecord(entry.compactMetadata)) return entry
  const { postTokens: _postTokens, preservedMessages: _messages, preservedSegment: _segment, ...metadata } = entry.compactMetadata
  return { ...entry, compactMetadata: metadata }
}
