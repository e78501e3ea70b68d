/**
 * `examples/offline.ts` (the README's "Run your own program offline"), interrupted: it ends the
 * program it ran, and exits only once that program has exited, so the fake model and the
 * temporary HOME outlive it and no process is left running after it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { isAlive as alive } from "./support/live.ts"

const root = Path.resolve(import.meta.dirname, "..")

/** The pids of `pid`'s child processes (Linux: /proc). */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return Fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((s) => s !== "").map(Number)
  } catch {
    return []
  }
}


describe("examples/offline.ts, interrupted", { timeout: 60_000 }, () => {
  it.live("SIGTERM: it exits after the program it ran, not before", () =>
    Effect.gen(function*() {
      // The chat waits for stdin lines (kept open) with its session, and so its CLI, open.
      const offline = ChildProcess.spawn(
        process.execPath,
        [Path.join(root, "examples/offline.ts"), Path.join(root, "examples/first-hour/chat.ts"), "Hi."],
        // Its own process group: whatever it leaves behind goes with the group at the end.
        { cwd: root, stdio: ["pipe", "ignore", "ignore"], detached: true }
      )
      const exited = Effect.callback<void>((resume) => {
        if (offline.exitCode !== null || offline.signalCode !== null) return resume(Effect.void)
        offline.once("exit", () => resume(Effect.void))
      })
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (offline.pid !== undefined && alive(-offline.pid)) process.kill(-offline.pid, "SIGKILL")
        })
      )
      // The program is running once its own child (the CLI) is.
      const program = yield* Effect.suspend(() => {
        const [pid] = childrenOf(offline.pid ?? 0)
        return pid !== undefined && childrenOf(pid).length > 0 ? Effect.succeed(pid) : Effect.fail("not yet")
      }).pipe(Effect.retry(Schedule.spaced("100 millis")), Effect.timeout("30 seconds"))
      offline.kill("SIGTERM")
      yield* exited
      assert.isFalse(alive(program), "the program offline.ts ran still runs after offline.ts exited")
    }).pipe(Effect.scoped))
})
