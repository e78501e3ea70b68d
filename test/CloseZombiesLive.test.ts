/**
 * Closing a session whose CLI had a tool process running stays within `closeGrace`. The CLI and
 * its tool both die at the SIGTERM of the close, but the tool is re-parented to PID 1, which may
 * never reap it: a zombie still answers `kill(-pgid, 0)`, and counting it as alive made the close
 * wait out the grace, SIGKILL, and wait again (closeGrace 1 s took ~1.8 s).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/tempDir.ts"

/**
 * A CLI mid-turn: it starts a tool in its own process group, records both pids, and ignores stdin
 * EOF. Both die on SIGTERM (the default action).
 */
const FAKE_CLI = `
const { spawn } = require("node:child_process")
const fs = require("node:fs")
const tool = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
tool.unref()
fs.writeFileSync(process.argv[2] + ".tmp", JSON.stringify({ cli: process.pid, tool: tool.pid }))
fs.renameSync(process.argv[2] + ".tmp", process.argv[2])
process.stdin.resume()
process.stdin.on("end", () => {})
setInterval(() => {}, 1000)
`

/** The state letter of /proc/<pid>/stat ("Z" for a zombie); undefined once the pid is gone. */
const stateOf = (pid: number): string | undefined => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]
  } catch {
    return undefined
  }
}

/** Dead, or a zombie (nothing runs any more). */
const isOver = (pid: number): boolean => {
  const state = stateOf(pid)
  return state === undefined || state === "Z"
}

describe("closing with a tool process of the CLI's group", { timeout: 60_000 }, () => {
  it.live("a CLI and its tool dying at SIGTERM (the tool a zombie under PID 1) close within closeGrace 1 s", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-zombies-")
      const script = Path.join(dir, "fake-cli.cjs")
      const pidFile = Path.join(dir, "pids.json")
      Fs.writeFileSync(script, FAKE_CLI)
      const pids: Array<number> = []
      // Whatever the outcome, nothing the test started outlives it (only real pids, never a group).
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const pid of pids) {
            if (!Number.isSafeInteger(pid) || pid <= 1) continue
            try {
              process.kill(pid, "SIGKILL")
            } catch {
              // gone already
            }
          }
        })
      )

      const scope = yield* Scope.make()
      yield* Claude.open({
        executable: { command: process.execPath, args: [script, pidFile] },
        closeGrace: "1 second"
      }).pipe(Scope.provide(scope), Effect.onError(() => Scope.close(scope, Exit.void)))

      const recorded = yield* Effect.gen(function*() {
        for (let waited = 0; waited < 10_000; waited += 20) {
          if (Fs.existsSync(pidFile)) return JSON.parse(Fs.readFileSync(pidFile, "utf8")) as { cli: number; tool: number }
          yield* Effect.sleep("20 millis")
        }
        return assert.fail("the fake CLI never wrote its pids")
      })
      pids.push(recorded.cli, recorded.tool)
      assert.isFalse(isOver(recorded.cli), "the CLI is not running")
      assert.isFalse(isOver(recorded.tool), "the tool is not running")

      const start = Date.now()
      yield* Scope.close(scope, Exit.void)
      const took = Date.now() - start

      assert.isBelow(took, 1250, `closing took ${took} ms, over the 1 s closeGrace`)
      assert.isTrue(isOver(recorded.cli), `the CLI survived the close (state ${stateOf(recorded.cli)})`)
      assert.isTrue(isOver(recorded.tool), `the tool survived the close (state ${stateOf(recorded.tool)})`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
