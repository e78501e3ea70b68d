/**
 * A fork gives every copied line a fresh uuid; the lines that name other lines by uuid inside
 * their body must then name the fork's copies, or the fork, resumed, is not the conversation it
 * copied (a compaction's preserved messages are lost). These are the references the official
 * SDK's `forkSession` (0.3.332) renames, with its rules:
 *
 * - `compactMetadata` of a system line: `preservedSegment.{headUuid,anchorUuid,tailUuid}` and
 *   `preservedMessages.{anchorUuid,uuids,allUuids}`, through the uuids of the copied lines; a
 *   uuid the fork does not hold is kept as it is; `runningTurnSends` (the sends of a turn that
 *   was running) is dropped;
 * - `source_uuid` of a queued command (an `attachment` of type `queued_command`, or the
 *   `fold.command` of a `voice_call_talk` system line), when the fork holds that line;
 * - `nameOnlyAnnouncements` of a `deferred_tools_record` attachment: the uuids the fork holds,
 *   the others left out.
 */
import type * as SessionStore from "../SessionStore.ts"
import { isRecord } from "./json.ts"

/** A fork's uuid for each line of the source (old uuid to new). */
export type Renames = ReadonlyMap<string, string>

const compactMetadataOf = (entry: SessionStore.Entry, copied: Renames): Record<string, unknown> | undefined => {
  const metadata = entry.compactMetadata
  if (entry.type !== "system" || !isRecord(metadata)) return undefined
  const { preservedMessages, preservedSegment, runningTurnSends, ...rest } = metadata
  if (preservedMessages === undefined && preservedSegment === undefined && runningTurnSends === undefined) return undefined
  const rename = (u: unknown) => (typeof u === "string" ? copied.get(u) ?? u : u)
  const renamed = (value: unknown, fields: ReadonlyArray<string>) => {
    if (!isRecord(value)) return value
    const out: Record<string, unknown> = { ...value }
    for (const field of fields) {
      if (!(field in out)) continue
      const v = out[field]
      out[field] = Array.isArray(v) ? v.map(rename) : rename(v)
    }
    return out
  }
  return {
    compactMetadata: {
      ...rest,
      ...(preservedMessages === undefined ? {} : { preservedMessages: renamed(preservedMessages, ["anchorUuid", "uuids", "allUuids"]) }),
      ...(preservedSegment === undefined ? {} : { preservedSegment: renamed(preservedSegment, ["headUuid", "anchorUuid", "tailUuid"]) })
    }
  }
}

const announcementsOf = (entry: SessionStore.Entry, all: Renames): Record<string, unknown> | undefined => {
  const attachment = entry.attachment
  if (entry.type !== "attachment" || !isRecord(attachment) || attachment.type !== "deferred_tools_record") return undefined
  const names = attachment.nameOnlyAnnouncements
  if (!Array.isArray(names)) return undefined
  return {
    attachment: {
      ...attachment,
      nameOnlyAnnouncements: names.flatMap((u) => (typeof u === "string" && all.has(u) ? [all.get(u)!] : []))
    }
  }
}

/** The queued command a line carries: a `queued_command` attachment, or a voice talk's folded command. */
const commandOf = (entry: SessionStore.Entry): Record<string, unknown> | undefined => {
  if (entry.type === "system" && entry.subtype === "voice_call_talk") {
    return isRecord(entry.fold) && isRecord(entry.fold.command) ? entry.fold.command : undefined
  }
  const attachment = entry.attachment
  return entry.type === "attachment" && isRecord(attachment) && attachment.type === "queued_command" ? attachment : undefined
}

/** The `source_uuid` of the queued command a line carries (the uuid its prompt was sent with), when not empty. */
export const sourceUuidOf = (entry: SessionStore.Entry): string | undefined => {
  const source = commandOf(entry)?.source_uuid
  return typeof source === "string" && source !== "" ? source : undefined
}

const sourceOf = (entry: SessionStore.Entry, all: Renames): Record<string, unknown> | undefined => {
  const command = commandOf(entry)
  const source = command?.source_uuid
  const renamed = typeof source === "string" && source !== "" ? all.get(source) : undefined
  if (command === undefined || renamed === undefined) return undefined
  return entry.type === "attachment"
    ? { attachment: { ...command, source_uuid: renamed } }
    : { fold: { ...(isRecord(entry.fold) ? entry.fold : {}), command: { ...command, source_uuid: renamed } } }
}

/**
 * The fields of a copied line that replace its own: its references renamed. `all` renames every
 * line of the source's main chain (progress lines too), `copied` only the lines the fork holds
 * (the SDK renames a compaction's references through the latter).
 */
export const renamedReferences = (entry: SessionStore.Entry, all: Renames, copied: Renames): Record<string, unknown> => ({
  ...announcementsOf(entry, all),
  ...compactMetadataOf(entry, copied),
  ...sourceOf(entry, all)
})
