/**
 * The processes of the cluster demo, tests and benchmark: runner processes of `runner.ts` on
 * 127.0.0.1, each killed with the scope if still running.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Readline from "node:readline"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"

export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

export { isAlive } from "../../test/support/live.ts"

/** Removes a runner's HOME once; false when it could not (a CLI still writing there as it exits). */
const removeHome = (home: string): boolean => {
  try {
    Fs.rmSync(home, { recursive: true, force: true })
    return true
  } catch {
    return false
  }
}

/**
 * Removes a runner's HOME, again every 100 ms for up to 5 s while its CLIs, exiting, still write
 * there; a warning names it if it is still there then.
 */
const removeHomeAtLast = (home: string): Effect.Effect<void> =>
  Effect.suspend(() => removeHome(home) ? Effect.void : Effect.fail("not yet")).pipe(
    Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 }),
    Effect.catch(() => Effect.logWarning(`runner HOME ${home} could not be removed: its CLIs still write there`))
  )

/** A runner process of scripts/cluster/runner.ts, killed with the scope if still running. */
export const spawnRunner = (
  options: {
    readonly port: number
    readonly url: string
    readonly maxLiveSessions: number
    readonly turnDelayMs: number
    /** The real CLI against this fake model, in this cwd (default: the store-backed fake CLI). */
    readonly real?: { readonly modelUrl: string; readonly cwd: string } | undefined
  },
  onLine: (line: string) => void
) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      // A runner on the real CLI has a HOME of its own (its CLI config directory), removed here
      // once it exited, however it ended.
      const home = options.real === undefined ? undefined : Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-runner-home-"))
      // Its temporary files in its HOME too (the CLIs' temporary roots): a runner killed with
      // SIGKILL cannot remove them, and they go with its HOME.
      const tmp = home === undefined ? undefined : Path.join(home, "tmp")
      if (tmp !== undefined) Fs.mkdirSync(tmp)
      const ready = yield* Deferred.make<void>()
      const exited = yield* Deferred.make<void>()
      const child = ChildProcess.spawn(
        process.execPath,
        ["--experimental-transform-types", "--no-warnings", Path.join(import.meta.dirname, "runner.ts"), String(options.port), options.url, String(options.maxLiveSessions), String(options.turnDelayMs), ...(options.real === undefined ? [] : ["real", options.real.modelUrl, options.real.cwd, home!])],
        {
          stdio: ["ignore", "pipe", "pipe"],
          cwd: Path.resolve(import.meta.dirname, "..", ".."),
          ...(tmp === undefined ? {} : { env: { ...process.env, TMPDIR: tmp } })
        }
      )
      Readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        if (line.startsWith("{\"ready\"")) Deferred.doneUnsafe(ready, Exit.void)
        else if (line.startsWith("{")) onLine(line)
      })
      let stderr = ""
      child.stderr!.on("data", (chunk) => {
        stderr = (stderr + String(chunk)).slice(-4000)
      })
      // A spawn that fails emits "error" and no "exit": the runner is over all the same.
      child.on("error", (error) => {
        Deferred.doneUnsafe(exited, Exit.void)
        if (home !== undefined) removeHome(home)
        Deferred.doneUnsafe(ready, Exit.die(error))
      })
      child.on("exit", (code, signal) => {
        // Exited first: a removal that fails must not leave `exited` undone (the release and the
        // tests wait for it). The CLIs of a runner may still write to its HOME as they exit
        // (ENOTEMPTY): what is left is removed at the release.
        Deferred.doneUnsafe(exited, Exit.void)
        if (home !== undefined) removeHome(home)
        if (!Deferred.isDoneUnsafe(ready)) {
          Deferred.doneUnsafe(ready, Exit.die(new Error(`runner ${options.port} exited (${code ?? signal}): ${stderr}`)))
        }
      })
      return { port: options.port, child, ready, exited, home }
    }),
    (runner) =>
      Effect.suspend(() => {
        if (runner.child.exitCode === null && runner.child.signalCode === null) runner.child.kill("SIGKILL")
        // Again at the end: the CLIs of a killed runner may write to its HOME while they exit.
        return Effect.andThen(
          Deferred.await(runner.exited),
          runner.home === undefined ? Effect.void : removeHomeAtLast(runner.home)
        )
      })
  )

/** What `stopRunners` needs of a runner (one of `spawnRunner`). */
export interface StoppableRunner {
  readonly port: number
  readonly child: ChildProcess.ChildProcess
  readonly exited: Deferred.Deferred<void>
}

/**
 * Stops runners with SIGTERM, all at once, and waits for each to exit for up to `within`: if any
 * has not exited by then, the caller fails naming every such runner (their scopes' release then
 * kills them).
 */
export const stopRunners = Effect.fnUntraced(
  function*(runners: ReadonlyArray<StoppableRunner>, within: Duration.Input = "30 seconds"): Effect.fn.Return<void, Error> {
    for (const runner of runners) runner.child.kill("SIGTERM")
    const exited = yield* Effect.forEach(
      runners,
      (runner) => Effect.timeoutOption(Deferred.await(runner.exited), within),
      { concurrency: "unbounded" }
    )
    const late = runners.filter((_, i) => Option.isNone(exited[i]!))
    if (late.length === 0) return
    const named = late.map((runner) => `runner ${runner.port} (pid ${runner.child.pid})`).join(", ")
    return yield* Effect.fail(
      new Error(`${named} did not exit within ${Duration.format(Duration.fromInputUnsafe(within))} of SIGTERM`)
    )
  }
)

/** The processes whose HOME is a runner's (`ecc-runner-home-*`, made by `spawnRunner`): the runners' CLIs. */
export const cliProcesses = (): Array<number> =>
  Fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      return Fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes("ecc-runner-home-") ? [Number(pid)] : []
    } catch {
      return []
    }
  })
