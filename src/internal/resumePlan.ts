/**
 * Where a session run by the cluster entity is resumed after a runner was lost mid-turn, so that
 * the conversation the model sees never holds a lost attempt (pure: the entity reads the
 * transcript and the ledger, and opens the CLI as planned). The CLI's transcript is a tree: each
 * entry names its `parentUuid`, and `--resume-session-at <uuid>` resumes the chain ending there.
 */

/**
 * Where to resume a transcript so that it does not hold a lost attempt: the last top-level
 * assistant message before the first of the lost user messages it holds (following
 * `parentUuid`). `"whole"` when it holds none of them; `"none"` when one is there with no
 * assistant message before it (a lost first turn).
 */
export const resumePoint = (
  transcript: ReadonlyArray<Record<string, unknown>>,
  lost: ReadonlySet<string>
): string | "whole" | "none" => {
  const byUuid = new Map<string, Record<string, unknown>>()
  for (const entry of transcript) if (typeof entry.uuid === "string") byUuid.set(entry.uuid, entry)
  const first = transcript.find((entry) => typeof entry.uuid === "string" && lost.has(entry.uuid))
  if (first === undefined) return "whole"
  const seen = new Set<string>()
  let parent = first.parentUuid
  while (typeof parent === "string" && !seen.has(parent)) {
    seen.add(parent)
    const entry = byUuid.get(parent)
    if (entry === undefined) return "none"
    if (entry.type === "assistant" && entry.isSidechain !== true) return parent
    parent = entry.parentUuid
  }
  return "none"
}

/**
 * How a session whose ledger knows abandoned attempts (lost with a runner, now or before) is
 * opened again so that the conversation the model sees holds none of them:
 * - `whole`: the transcript holds none (or, with no finished turn to anchor on, nothing better);
 * - `{ at }`: resumed at that assistant message: of the finished turns' ends the transcript holds
 *   (`ends`: the ledger's), the latest in the transcript, the conversation's leaf; else the last
 *   assistant message before the first abandoned prompt;
 * - `fresh`: no turn finished and the abandoned first prompt has nothing before it: the session
 *   starts anew under its id (a lost first turn's prompt must not be seen twice).
 * `transcript` undefined: it cannot be read here (the ledger's last end decides).
 */
export const planResume = (
  transcript: ReadonlyArray<Record<string, unknown>> | undefined,
  abandoned: ReadonlySet<string>,
  ends: ReadonlyArray<string>,
  finishedAny: boolean
): "whole" | "fresh" | { readonly at: string } => {
  const last = ends.at(-1)
  if (transcript === undefined) return last !== undefined ? { at: last } : finishedAny ? "whole" : "fresh"
  if (!transcript.some((entry) => typeof entry.uuid === "string" && abandoned.has(entry.uuid))) return "whole"
  const byUuid = new Map<string, Record<string, unknown>>()
  for (const entry of transcript) if (typeof entry.uuid === "string") byUuid.set(entry.uuid, entry)
  // An end whose conversation (its chain of parents) holds no abandoned attempt: a turn that
  // finished on a CLI still holding an interrupted attempt carries it, and is passed over.
  const clean = (end: string): boolean => {
    const seen = new Set<string>()
    for (let uuid: unknown = end; typeof uuid === "string" && !seen.has(uuid);) {
      if (abandoned.has(uuid)) return false
      seen.add(uuid)
      const entry = byUuid.get(uuid)
      if (entry === undefined) return false
      uuid = entry.parentUuid
    }
    return true
  }
  // The clean end latest in the conversation: the ledger records outcomes in the order they were
  // written (a retried write can put an earlier turn's last), not in the conversation's.
  const position = new Map<string, number>()
  transcript.forEach((entry, index) => {
    if (typeof entry.uuid === "string") position.set(entry.uuid, index)
  })
  let end: string | undefined
  for (const uuid of ends) {
    if (byUuid.has(uuid) && clean(uuid) && (end === undefined || position.get(uuid)! > position.get(end)!)) end = uuid
  }
  if (end !== undefined) return { at: end }
  const point = resumePoint(transcript, abandoned)
  return point === "whole" ? "whole" : point === "none" ? (finishedAny ? "whole" : "fresh") : { at: point }
}
