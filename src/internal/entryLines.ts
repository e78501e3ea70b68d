/**
 * The line each transcript entry was read from, when a store read it from a file: kept beside
 * the entry (a weak map), not in it, so that entries stay the CLI's objects. `Sessions` names the
 * line of an entry that breaks its schema with it.
 */
const lines = new WeakMap<object, number>()

/** Records that `entry` was read from line `line` (1-based). */
export const remember = <A extends object>(entry: A, line: number): A => {
  lines.set(entry, line)
  return entry
}

/** The line `entry` was read from, when known. */
export const lineOf = (entry: object): number | undefined => lines.get(entry)
