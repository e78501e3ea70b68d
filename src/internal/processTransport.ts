/**
 * The real CLI as a child process, on `node:child_process` directly.
 *
 * Why not `effect/process` (`ChildProcessSpawner`): its stdout is a `PassThrough` read through
 * an `AsyncResource` per suspension, and its stdin a `Sink` fed by a writer fiber; on short turns
 * (a few dozen lines each) that machinery was most of the library's cost per turn beyond the
 * SDK's (measured with `BENCH_ONLY=turns,profile-turns npm run bench`). Here stdout `data` events
 * go straight into the library's `Mailbox` (one wake of the session's reader per chunk, nothing
 * scheduled), and a line is written with `stdin.write` in the caller's `send`, waiting for
 * `drain` only when the pipe's buffer is full.
 *
 * What the spawner did and this module now does itself: spawn errors as typed reasons (the
 * executable is looked up first, `findExecutable`: `CliNotFound`, `NotExecutable`; an error from
 * the spawn itself is `SpawnFailed`), the CLI in its own process group (`detached`), SIGTERM to
 * the group and the sweep (below) when the CLI exits with an error or dies of a signal, and on
 * close the ladder: stdin EOF, then SIGTERM, then SIGKILL to the whole group within `closeGrace`,
 * then the sweep of what the CLI left outside its group (see `sweep`); a group found empty after
 * the CLI exited is never signalled again (its id may lead another group by then). An open that
 * fails leaves nothing in the caller's scope (see `open`). stdout ends at the latest shortly
 * after the CLI exited, whoever else holds the pipe. stderr is drained into a bounded tail and a line feed. Each
 * CLI gets a temporary root of its own, removed last, which holds the `--settings` and
 * `--mcp-config` JSON as files (`cliTmpRoot.ts`).
 */
import * as NodeChildProcess from "node:child_process"
import type { Stats } from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as ClaudeError from "../ClaudeError.ts"
import { findExecutable } from "../Launch.ts"
import { type Connection, eofShare, type ExitStatus, type LaunchSpec, Transport } from "../Transport.ts"
import * as CliTmpRoot from "./cliTmpRoot.ts"
import { Mailbox } from "./mailbox.ts"
import { Fs } from "./nodeFs.ts"
import { makeStderrFeed, TAIL_CHARS, TAIL_MARGIN } from "./stderrLines.ts"

/**
 * The stderr kept for the exit status: the tail reported, and a margin before it, so that a secret
 * the reported tail starts in is whole when the session redacts it (it cuts the tail after).
 */
const STDERR_TAIL_BYTES = TAIL_CHARS + TAIL_MARGIN

/** Keeps the last `limit` bytes of what was written to it, as text. */
class Tail {
  private chunks: Array<Uint8Array> = []
  private size = 0
  private readonly limit: number
  constructor(limit: number) {
    this.limit = limit
  }
  push(chunk: Uint8Array): void {
    this.chunks.push(chunk)
    this.size += chunk.length
    while (this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length
  }
  toString(): string {
    const all = Buffer.concat(this.chunks)
    return all.subarray(Math.max(0, all.length - this.limit)).toString("utf8")
  }
}

/**
 * Every CLI gets this variable with a fresh random value. Tool processes inherit the environment
 * even when the CLI starts them in their own session and their parent exits (a Bash `cmd &` is
 * reparented to init, out of the CLI's process group and tree), so on close the transport finds
 * what the CLI left behind by this marker in `/proc/<pid>/environ`.
 */
const TOKEN_VARIABLE = "EFFECT_CLAUDE_CODE_TOKEN"
const SWEEP_POLL_MILLIS = 50

/** Live processes (not zombies, whose environ is empty) carrying `marker`; none without /proc. */
const markedProcesses = (marker: Buffer): Array<number> => {
  let entries: Array<string>
  try {
    entries = Fs.readdirSync("/proc")
  } catch {
    return []
  }
  const found: Array<number> = []
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) continue
    try {
      if (Fs.readFileSync(`/proc/${entry}/environ`).includes(marker)) found.push(pid)
    } catch {
      // gone, or another user's process
    }
  }
  return found
}

const signalAll = (pids: ReadonlyArray<number>, signal: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // gone already
    }
  }
}

/** SIGTERM to every process carrying the marker, then SIGKILL to those left after `graceMillis`. */
const sweep = (marker: Buffer, graceMillis: number) =>
  Effect.gen(function*() {
    let left = markedProcesses(marker)
    if (left.length === 0) return
    signalAll(left, "SIGTERM")
    for (let waited = 0; left.length > 0 && waited < graceMillis; waited += SWEEP_POLL_MILLIS) {
      yield* Effect.sleep(Duration.millis(SWEEP_POLL_MILLIS))
      left = markedProcesses(marker)
    }
    signalAll(left, "SIGKILL")
  })

/** Why `cwd` cannot be the working directory of the CLI; undefined when it can. */
const workingDirectoryProblem = (cwd: string): ClaudeError.BadWorkingDirectory["problem"] | undefined => {
  let stat: Stats
  try {
    stat = Fs.statSync(cwd)
  } catch {
    return "missing"
  }
  if (!stat.isDirectory()) return "not a directory"
  try {
    Fs.accessSync(cwd, Fs.constants.X_OK)
    return undefined
  } catch {
    return "not accessible"
  }
}

const GROUP_POLL_MILLIS = 10
/** How often the group of a CLI that exited is looked at until it is empty. */
const GROUP_WATCH_MILLIS = 250
/** How long the stdout of a CLI that exited may stay quiet before it counts as ended. */
const STDOUT_AFTER_EXIT_MILLIS = 200
/** How long the close waits for the group to go after SIGKILL. */
const AFTER_KILL_MILLIS = 1_000

/**
 * Node's spawn error, named as `PlatformError` names its errno (`NotFound: spawn … ENOENT`). An
 * ENOENT for an `executable` that exists (it was looked up, and the cwd checked, before) is its
 * interpreter's: the `#!` line's, or a binary's ELF loader (a glibc build on a musl system).
 */
const describeSpawnError = (error: NodeJS.ErrnoException, executable: string): string => {
  const kind = error.code === "ENOENT"
    ? "NotFound"
    : error.code === "EACCES" || error.code === "EPERM"
    ? "PermissionDenied"
    : error.code ?? "Unknown"
  const interpreter = error.code === "ENOENT" && Fs.existsSync(executable)
    ? ` (the file exists: the interpreter it names, its #! line or a binary's loader, was not found)`
    : ""
  return `${kind}: ${error.message}${interpreter}`
}

/** A NUL in the command, an argument or a variable (Node's own check would print the value). */
const nulProblem = (command: string, args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  if (command.includes("\0")) return "The command contains a NUL character"
  const index = args.findIndex((arg) => arg.includes("\0"))
  if (index !== -1) return `Argument ${index + 1} contains a NUL character`
  for (const [name, value] of Object.entries(env)) {
    if (value?.includes("\0")) return `The environment variable ${name} contains a NUL character`
  }
  return undefined
}

const hasExited = (child: NodeChildProcess.ChildProcess): boolean =>
  child.exitCode !== null || child.signalCode !== null

/** Signals the CLI's process group; the CLI alone when the group cannot be signalled. */
const signalGroup = (child: NodeChildProcess.ChildProcess, signal: NodeJS.Signals): void => {
  try {
    if (process.platform !== "win32") {
      process.kill(-child.pid!, signal)
      return
    }
  } catch {
    // no group left (ESRCH), or only zombies in it (EPERM on macOS)
  }
  if (!hasExited(child)) child.kill(signal)
}

/** State and process group of a pid from `/proc/<pid>/stat`; undefined once it is gone. */
const procStat = (pid: number | string): readonly [state: string, pgrp: number] | undefined => {
  let stat: string
  try {
    stat = Fs.readFileSync(`/proc/${pid}/stat`, "latin1")
  } catch {
    return undefined
  }
  // After the command name, which may hold spaces and parentheses: "S ppid pgrp ...".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3)
  return [fields[0]!, Number(fields[2])]
}

/**
 * The running members of process group `pgid`, zombies left out; undefined when /proc lists no
 * member at all (no /proc, another pid namespace, `hidepid`), so that it cannot tell.
 *
 * A tool process the CLI started is re-parented to PID 1 when the CLI dies, and a PID 1 that does
 * not reap leaves it a zombie for good. `kill(-pgid, 0)` still finds zombies, so the close would
 * wait out the grace, SIGKILL and wait again for a group in which nothing runs. Cost: the members
 * found running last time are checked first (one read while the group lives); /proc is only
 * scanned whole when none of them runs any more.
 */
const runningMembers = (pgid: number, known: ReadonlyArray<number>): ReadonlyArray<number> | undefined => {
  for (const pid of known) {
    const stat = procStat(pid)
    if (stat !== undefined && stat[1] === pgid && stat[0] !== "Z") return [pid]
  }
  let entries: Array<string>
  try {
    entries = Fs.readdirSync("/proc")
  } catch {
    return undefined
  }
  const running: Array<number> = []
  let listed = false
  for (const entry of entries) {
    const pid = Number(entry)
    if (!Number.isSafeInteger(pid) || pid <= 0) continue
    const stat = procStat(entry)
    if (stat === undefined || stat[1] !== pgid) continue
    listed = true
    if (stat[0] !== "Z") running.push(pid)
  }
  return listed ? running : undefined
}

/** The members of each CLI's group found running at the last look (see `runningMembers`). */
const lastRunning = new WeakMap<NodeChildProcess.ChildProcess, ReadonlyArray<number>>()

/**
 * CLIs that exited and whose process group was then found empty: it is gone for good (nothing
 * joins a group with no running member), and its id, the CLI's pid, may since lead an unrelated
 * group (pids wrap around), which must never be signalled.
 */
const groupGone = new WeakSet<NodeChildProcess.ChildProcess>()

/** The CLI has not exited, or a member of its process group still runs (zombies do not count). */
const groupAlive = (child: NodeChildProcess.ChildProcess): boolean => {
  if (!hasExited(child)) return true
  if (groupGone.has(child)) return false
  const alive = membersLeft(child)
  if (!alive) groupGone.add(child)
  return alive
}

/** After the CLI exited: whether a member of its group still runs (see `groupAlive`). */
const membersLeft = (child: NodeChildProcess.ChildProcess): boolean => {
  if (process.platform === "win32") return false
  try {
    process.kill(-child.pid!, 0)
  } catch (error) {
    // ESRCH: no member left. EPERM: a member this process may not signal, or (macOS) only zombies.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  if (process.platform !== "linux") return true
  const running = runningMembers(child.pid!, lastRunning.get(child) ?? [])
  if (running === undefined) return true
  lastRunning.set(child, running)
  return running.length > 0
}

/** Waits until the group is gone or `millis` passed. */
const awaitGroup = (child: NodeChildProcess.ChildProcess, millis: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const deadline = Date.now() + millis
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = () => {
      clearTimeout(timer)
      child.removeListener("exit", poll)
    }
    const poll = () => {
      clearTimeout(timer)
      if (Date.now() >= deadline || !groupAlive(child)) {
        stop()
        resume(Effect.void)
        return
      }
      timer = setTimeout(poll, GROUP_POLL_MILLIS)
    }
    child.on("exit", poll)
    poll()
    return Effect.sync(stop)
  })

/** SIGTERM to the group, SIGKILL to what is left after `graceMillis`. */
const terminateGroup = (child: NodeChildProcess.ChildProcess, graceMillis: number) =>
  Effect.suspend(() => {
    if (!groupAlive(child)) return Effect.void
    signalGroup(child, "SIGTERM")
    return Effect.andThen(
      awaitGroup(child, graceMillis),
      Effect.suspend(() => {
        if (!groupAlive(child)) return Effect.void
        signalGroup(child, "SIGKILL")
        return awaitGroup(child, AFTER_KILL_MILLIS)
      })
    )
  })

const openIn = Effect.fnUntraced(function*(spec: LaunchSpec) {
  // Checked first: a missing cwd would be reported by the spawn as a missing executable.
  const cwd = spec.cwd === undefined ? undefined : Path.resolve(spec.cwd)
  if (cwd !== undefined) {
    const problem = yield* Effect.sync(() => workingDirectoryProblem(cwd))
    if (problem !== undefined) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.BadWorkingDirectory({ path: cwd, problem })))
    }
  }
  const interpreter = typeof spec.executable === "object" ? spec.executable : undefined
  const named = typeof spec.executable === "string" ? spec.executable : interpreter?.command
  const env: Record<string, string | undefined> = { ...process.env }
  for (const [key, value] of Object.entries(spec.env)) {
    if (value === undefined) delete env[key]
    else env[key] = Redacted.isRedacted(value) ? Redacted.value(value) : value
  }
  // Looked up on the PATH the CLI runs with (the session's `env.PATH` when it sets one), as
  // `child_process.spawn` looks a command up on its `env`'s.
  const executable = yield* findExecutable(
    named,
    spec.cwd,
    Object.hasOwn(spec.env, "PATH") ? { path: env.PATH ?? spawnDefaultPath } : undefined
  )
  const graceMillis = Duration.toMillis(spec.closeGrace)
  // The global Web Crypto, as a turn's uuid: importing `node:crypto` too cost start-up ~2 ms more.
  const token = crypto.randomUUID()
  const marker = Buffer.from(`${TOKEN_VARIABLE}=${token}\0`)
  env[TOKEN_VARIABLE] = token
  const spawnFailed = (description: string) =>
    ClaudeError.make(new ClaudeError.SpawnFailed({ executable, description }))
  const nul = nulProblem(executable, [...(interpreter?.args ?? []), ...spec.args], env)
  if (nul !== undefined) return yield* Effect.fail(spawnFailed(nul))
  // Before the child: its removal is then the close's very last step, once nothing runs.
  const root = yield* CliTmpRoot.provide(env, spec.env)
  // The `--settings` JSON as a file in the root, which goes with it (CLI 2.1.0 would write one
  // in its TMPDIR and leave it there), and the `--mcp-config` JSON (its servers' credentials) off
  // the command line, which any user of the machine may read.
  const cliArgs = root === undefined ? spec.args : yield* CliTmpRoot.jsonInRoot(spec.args, root)
  const args = [...(interpreter?.args ?? []), ...cliArgs]

  const stdout = new Mailbox<Uint8Array, ClaudeError.ClaudeError>()
  const stderr = new Tail(STDERR_TAIL_BYTES)
  const stderrDone = yield* Deferred.make<void>()
  const stderrLines = yield* makeStderrFeed
  const exited = yield* Deferred.make<ExitStatus>()

  const child = yield* Effect.acquireRelease(
    Effect.callback<NodeChildProcess.ChildProcess, ClaudeError.ClaudeError>((resume) => {
      let child: NodeChildProcess.ChildProcess
      try {
        child = NodeChildProcess.spawn(executable, args, {
          cwd,
          env,
          stdio: ["pipe", "pipe", "pipe"],
          // Its own process group, so that closing also ends what the CLI started (tool processes).
          detached: true
        })
      } catch (error) {
        resume(Effect.fail(spawnFailed(describeSpawnError(error as NodeJS.ErrnoException, executable))))
        return
      }
      const onError = (error: NodeJS.ErrnoException) => {
        child.removeListener("spawn", onSpawn)
        resume(Effect.fail(spawnFailed(describeSpawnError(error, executable))))
      }
      const onSpawn = () => {
        child.removeListener("error", onError)
        // Later errors (a failed kill) are not the session's: the exit status tells what happened.
        child.on("error", () => {})
        resume(Effect.succeed(child))
      }
      child.once("error", onError)
      child.once("spawn", onSpawn)
      return Effect.sync(() => {
        child.removeListener("spawn", onSpawn)
        child.on("error", () => {})
        signalGroup(child, "SIGTERM")
      })
    }),
    // The last step of the close, whatever happened before: nothing of the group stays.
    (child) => terminateGroup(child, graceMillis)
  )

  // stdout: each chunk goes to the session's reader as it comes, with nothing scheduled.
  let lastStdoutAt = 0
  child.stdout!.on("data", (chunk: Buffer) => {
    lastStdoutAt = Date.now()
    stdout.offer(chunk)
    stdout.wake()
  })
  child.stdout!.on("end", () => {
    stdout.end()
    stdout.wake()
  })
  child.stdout!.on("error", (error) => {
    stdout.failCause(Cause.fail(spawnFailed(error.message)))
    stdout.wake()
  })
  child.stdout!.on("close", () => {
    stdout.end()
    stdout.wake()
  })

  let stderrEnded = false
  const endStderr = () => {
    if (stderrEnded) return
    stderrEnded = true
    stderrLines.endUnsafe()
    Deferred.doneUnsafe(stderrDone, Exit.void)
  }
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr.push(chunk)
    stderrLines.pushUnsafe(chunk)
  })
  child.stderr!.on("end", endStderr)
  child.stderr!.on("close", endStderr)
  child.stderr!.on("error", endStderr)

  // A dead CLI closes its stdin under us (EPIPE): the exit status reports why.
  child.stdin!.on("error", () => {})

  const exit = Effect.callback<readonly [number | null, string | null]>((resume) => {
    if (hasExited(child)) {
      resume(Effect.succeed([child.exitCode, child.signalCode] as const))
      return
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => resume(Effect.succeed([code, signal] as const))
    child.once("exit", onExit)
    return Effect.sync(() => child.removeListener("exit", onExit))
  })
  // A CLI that failed (an error code, or a signal: the OOM killer's SIGKILL) leaves nothing of its
  // group behind, as the spawner of `effect/process` did. From its exit on, the group is watched
  // until it is empty (`groupGone`), so that a close long after signals no group that has taken
  // its id since.
  let watch: ReturnType<typeof setTimeout> | undefined
  let watching = true
  const watchGroup = () => {
    watch = watching && groupAlive(child) ? setTimeout(watchGroup, GROUP_WATCH_MILLIS).unref() : undefined
  }
  // Once the CLI exited, its stdout ends when it has been quiet for STDOUT_AFTER_EXIT_MILLIS,
  // even if a process it started holds the pipe open: the session then learns of the exit at
  // once, not when that process goes. The check runs once more after a turn of the event loop
  // (timers run before I/O after a busy stretch), so what the pipe still holds is read first.
  let quietTimer: ReturnType<typeof setTimeout> | undefined
  const endStdoutWhenQuiet = (recheck: boolean) => {
    quietTimer = undefined
    if (!watching || child.stdout!.readableEnded || child.stdout!.destroyed) return
    const quiet = Date.now() - lastStdoutAt
    if (quiet < STDOUT_AFTER_EXIT_MILLIS) {
      quietTimer = setTimeout(() => endStdoutWhenQuiet(true), STDOUT_AFTER_EXIT_MILLIS - quiet).unref()
    } else if (recheck) {
      setImmediate(() => endStdoutWhenQuiet(false))
    } else {
      child.stdout!.destroy()
      stdout.end()
      stdout.wake()
    }
  }
  const afterExit = () => {
    if (child.exitCode !== 0) {
      try {
        if (process.platform !== "win32") process.kill(-child.pid!, "SIGTERM")
      } catch {
        // nothing left
      }
    }
    watchGroup()
    lastStdoutAt = Math.max(lastStdoutAt, Date.now())
    endStdoutWhenQuiet(true)
  }
  // It may have exited already, between its spawn and here.
  if (hasExited(child)) afterExit()
  else child.once("exit", afterExit)
  // The close looks at the group itself from here on.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      watching = false
      clearTimeout(watch)
      clearTimeout(quietTimer)
    })
  )
  const statusOf = (code: number | null, signal: string | null): ExitStatus => ({
    code,
    signal: code === null ? signal : null,
    stderrTail: stderr.toString()
  })
  yield* exit.pipe(
    // The stderr tail is only whole once the pipe is drained; a grandchild may hold it open.
    Effect.tap(() => Deferred.await(stderrDone).pipe(Effect.timeoutOption(Duration.millis(200)))),
    Effect.flatMap(([code, signal]) => Deferred.succeed(exited, statusOf(code, signal))),
    Effect.forkScoped
  )
  // A CLI that failed leaves nothing outside its group behind either, at once: CLI 2.1.332 runs
  // each Bash command in a session of its own, which a crash would leave running until the close.
  yield* exit.pipe(
    Effect.flatMap(([code]) => code === 0 ? Effect.void : sweep(marker, graceMillis)),
    Effect.forkScoped
  )

  let inputEnded = false
  // When stdin was first closed: the close grace runs from there, so that a session which
  // already waited after its own EOF does not wait a second grace here.
  let inputEndedAt: number | undefined
  const endInput = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.sync(() => {
      inputEndedAt ??= now
      if (inputEnded) return
      inputEnded = true
      child.stdin!.end()
    }))

  // The whole close takes `closeGrace` from the first EOF: the CLI gets its EOF share to exit,
  // then SIGTERM, then SIGKILL at the end of the budget; strays outside the group share what is left.
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* endInput
      const since = (yield* Clock.currentTimeMillis) - (inputEndedAt ?? 0)
      const status = yield* Deferred.await(exited).pipe(
        Effect.timeoutOption(Duration.millis(Math.max(0, eofShare(spec.closeGrace) - since)))
      )
      if (Option.isNone(status) && !Deferred.isDoneUnsafe(exited)) {
        const left = graceMillis - ((yield* Clock.currentTimeMillis) - (inputEndedAt ?? 0))
        yield* terminateGroup(child, Math.max(1, left))
      }
      // What the CLI started outside its process group (tools in their own session) ends too.
      const left = graceMillis - ((yield* Clock.currentTimeMillis) - (inputEndedAt ?? 0))
      yield* sweep(marker, Math.max(0, left))
      // The fiber that reports the exit is interrupted next, maybe still waiting for a stderr that
      // a stray holds open: `exit` resolves all the same for a CLI that has exited.
      if (hasExited(child)) yield* Deferred.succeed(exited, statusOf(child.exitCode, child.signalCode))
    })
  )

  const stdin = child.stdin!
  const connection: Connection = {
    pid: child.pid,
    incoming: stdout.stream,
    stderr: stderrLines.stream,
    send: (line) =>
      Effect.suspend(() => {
        if (inputEnded || Deferred.isDoneUnsafe(exited)) {
          return Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "send" })))
        }
        // Written now, in order; only a full pipe buffer (a large message, a CLI that does not
        // read) makes the caller wait, until it drains or the pipe closes. That wait may be
        // interrupted (the session runs `send` uninterruptibly): the line is handed over already.
        if (stdin.write(line + "\n") || stdin.destroyed) return Effect.void
        return Effect.interruptible(Effect.callback<void>((resume) => {
          const done = () => {
            stdin.removeListener("drain", done)
            stdin.removeListener("close", done)
            resume(Effect.void)
          }
          stdin.once("drain", done)
          stdin.once("close", done)
          return Effect.sync(() => {
            stdin.removeListener("drain", done)
            stdin.removeListener("close", done)
          })
        }))
      }),
    endInput,
    exit: Deferred.await(exited)
  }
  return connection
})

/**
 * `openIn` in a scope of its own under the caller's: an open that fails (a spawn error, an
 * interruption) leaves nothing there, its temporary root removed at once, not when the caller's
 * scope closes (a program retrying in a long-lived scope gathered one a try).
 */
const open = (spec: LaunchSpec): Effect.Effect<Connection, ClaudeError.ClaudeError, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (parent) =>
    Effect.flatMap(Scope.fork(parent), (scope) =>
      openIn(spec).pipe(
        Scope.provide(scope),
        Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void)
      )))

/** Where `child_process.spawn` looks a command up when its `env` has no `PATH` (libuv's). */
const spawnDefaultPath = process.platform === "win32" ? "" : ["/usr/bin", "/bin"].join(Path.delimiter)

/**
 * Real processes, spawned with `node:child_process`.
 */
export const layer: Layer.Layer<Transport> = Layer.succeed(Transport, Transport.of({ open }))
