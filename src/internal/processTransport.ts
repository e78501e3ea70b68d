/**
 * The real CLI as a child process. The only module that imports `effect/process`, which Effect
 * marks unstable: a minor release of Effect that changes it is a one-file fix.
 *
 * Modelled on `effect/ai` `McpClient.stdio`: one stdin mailbox drained by one writer fiber, stderr
 * drained into a bounded tail, and a finalizer that closes stdin, waits, then escalates (SIGTERM,
 * SIGKILL to the CLI's process group), then ends what the CLI left outside its group (see `sweep`).
 */
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import { findExecutable } from "../Launch.ts"
import { type Connection, eofShare, type ExitStatus, type LaunchSpec, Transport } from "../Transport.ts"
import { Mailbox } from "./mailbox.ts"
import { makeStderrFeed } from "./stderrLines.ts"

const STDERR_TAIL_BYTES = 8 * 1024

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

/**
 * The signal that ended the process, from the spawner's failure of `exitCode`: its text is only
 * in the wrapped cause (`Process interrupted due to receipt of signal: 'SIGKILL'`), not in the
 * `PlatformError`'s own message.
 */
const signalOf = (error: PlatformError.PlatformError): string | null => {
  const match = /signal: '(\w+)'/.exec(`${String(error)}\n${String(error.cause)}`)
  return match === null ? null : match[1]!
}

/** Why `cwd` cannot be the working directory of the CLI; undefined when it can. */
const workingDirectoryProblem = (cwd: string): ClaudeError.BadWorkingDirectory["problem"] | undefined => {
  let stat: Fs.Stats
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

const open = Effect.fnUntraced(function*(spec: LaunchSpec) {
  const spawner = yield* ChildProcessSpawner
  // Checked first: the spawner would report a missing cwd as a failed `FileSystem.access`.
  if (spec.cwd !== undefined) {
    const path = Path.resolve(spec.cwd)
    const problem = yield* Effect.sync(() => workingDirectoryProblem(path))
    if (problem !== undefined) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.BadWorkingDirectory({ path, problem })))
    }
  }
  const interpreter = typeof spec.executable === "object" ? spec.executable : undefined
  const named = typeof spec.executable === "string" ? spec.executable : interpreter?.command
  const executable = yield* findExecutable(named, spec.cwd)
  const graceMillis = Duration.toMillis(spec.closeGrace)
  // Lines as bytes, encoded by `send`: the writer fiber only writes them.
  const input = new Mailbox<Uint8Array, never>()
  const token = randomUUID()
  const marker = Buffer.from(`${TOKEN_VARIABLE}=${token}\0`)
  const command = ChildProcess.make(executable, [...(interpreter?.args ?? []), ...spec.args], {
    cwd: spec.cwd,
    env: { ...spec.env, [TOKEN_VARIABLE]: token },
    extendEnv: true,
    stdin: "pipe",
    // Its own process group, so that closing also ends what the CLI started (tool processes).
    detached: true,
    killSignal: "SIGTERM",
    forceKillAfter: spec.closeGrace
  })
  const handle = yield* spawner.spawn(command).pipe(
    Effect.mapError((error) =>
      ClaudeError.make(new ClaudeError.SpawnFailed({ executable, description: error.message }))
    )
  )

  const stderr = new Tail(STDERR_TAIL_BYTES)
  const stderrDone = yield* Deferred.make<void>()
  const stderrLines = yield* makeStderrFeed
  yield* handle.stderr.pipe(
    Stream.runForEachArray((chunks) =>
      Effect.forEach(chunks, (chunk) => {
        stderr.push(chunk)
        return stderrLines.push(chunk)
      }, { discard: true })
    ),
    Effect.ignore,
    Effect.ensuring(Effect.andThen(stderrLines.end, Deferred.succeed(stderrDone, undefined))),
    Effect.forkScoped
  )

  const exited = yield* Deferred.make<ExitStatus>()
  yield* handle.exitCode.pipe(
    Effect.map((code) => ({ code: code as number, signal: null })),
    Effect.catch((error) => Effect.succeed({ code: null, signal: signalOf(error) })),
    // The stderr tail is only whole once the pipe is drained; a grandchild may hold it open.
    Effect.tap(() => Deferred.await(stderrDone).pipe(Effect.timeoutOption(Duration.millis(200)))),
    Effect.flatMap((status) => Deferred.succeed(exited, { ...status, stderrTail: stderr.toString() })),
    Effect.forkScoped
  )

  let inputEnded = false
  yield* input.stream.pipe(
    Stream.run(handle.stdin),
    // A dead CLI closes its stdin under us (EPIPE): the exit watcher reports why.
    Effect.ignore,
    Effect.forkScoped
  )

  // When stdin was first closed: the close grace runs from there, so that a session which
  // already waited after its own EOF does not wait a second grace here.
  let inputEndedAt: number | undefined
  const endInput = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => {
    inputEndedAt ??= now
    inputEnded = true
    input.end()
    input.wake()
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
        yield* handle.kill({ killSignal: "SIGTERM", forceKillAfter: Math.max(1, left) }).pipe(Effect.ignore)
      }
      // What the CLI started outside its process group (tools in their own session) ends too.
      const left = graceMillis - ((yield* Clock.currentTimeMillis) - (inputEndedAt ?? 0))
      yield* sweep(marker, Math.max(0, left))
    })
  )

  const connection: Connection = {
    pid: handle.pid,
    incoming: handle.stdout.pipe(
      Stream.mapError((error) =>
        ClaudeError.make(new ClaudeError.SpawnFailed({ executable, description: error.message }))
      )
    ),
    stderr: stderrLines.stream,
    send: (line) =>
      Effect.suspend(() => {
        if (inputEnded || Deferred.isDoneUnsafe(exited)) {
          return Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "send" })))
        }
        // Handed to the writer fiber at once (idle, it writes the line within this call): the
        // line is not held back an event-loop turn, and nothing is scheduled.
        input.offer(Buffer.from(line + "\n", "utf8"))
        input.wake()
        return Effect.void
      }),
    endInput,
    exit: Deferred.await(exited)
  }
  return connection
})

/**
 * Real processes, through the `ChildProcessSpawner` the program provides.
 */
export const layer: Layer.Layer<Transport, never, ChildProcessSpawner> = Layer.effect(
  Transport,
  Effect.map(Effect.service(ChildProcessSpawner), (spawner) =>
    Transport.of({
      open: (spec) => open(spec).pipe(Effect.provideService(ChildProcessSpawner, spawner))
    }))
)
