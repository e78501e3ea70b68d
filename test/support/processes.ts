/**
 * Whether a process still runs, read from /proc (Linux): for the live tests that check what a CLI
 * leaves behind. Starts nothing.
 */
import * as Fs from "node:fs"

/** True while a process with this pid exists and is not a zombie (read from /proc). */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z"
  } catch {
    return false
  }
}
