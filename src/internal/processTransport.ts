/**
 * The real CLI as a child process. The only module that imports `effect/process`, which Effect
 * marks unstable: a minor release of Effect that changes it is a one-file fix.
 *
 * Modelled on `effect/ai` `McpClient.stdio`: one stdin queue drained by one writer fiber, stderr
 * drained into a bounded tail, and a finalizer that closes stdin, waits, then escalates.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ChildProcess from "effect/process/ChildProcess"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../ClaudeError.ts"
import { findExecutable } from "../Launch.ts"
import { type Connection, type ExitStatus, type LaunchSpec, Transport } from "../Transport.ts"

const STDERR_TAIL_BYTES = 8 * 1024

/** Keeps the last `limit` bytes of what was written to it, as text. */
class Tail {
  private chunks: Array<Uint8Array> = []
  private size = 0
  constructor(private readonly limit: number) {}
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

const signalOf = (cause: unknown): string | null => {
  const match = /signal: '(\w+)'/.exec(String(cause))
  return match === null ? null : match[1]!
}

const open = Effect.fnUntraced(function*(spec: LaunchSpec) {
  const spawner = yield* ChildProcessSpawner
  const executable = yield* findExecutable(spec.executable, spec.cwd)
  const graceMillis = Duration.toMillis(spec.closeGrace)
  const input = yield* Queue.unbounded<string, Cause.Done>()
  const command = ChildProcess.make(executable, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
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
  yield* handle.stderr.pipe(
    Stream.runForEachArray((chunks) => Effect.sync(() => chunks.forEach((chunk) => stderr.push(chunk)))),
    Effect.ignore,
    Effect.ensuring(Deferred.succeed(stderrDone, undefined)),
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
  yield* Stream.fromQueue(input).pipe(
    Stream.encodeText,
    Stream.run(handle.stdin),
    // A dead CLI closes its stdin under us (EPIPE): the exit watcher reports why.
    Effect.ignore,
    Effect.forkScoped
  )

  const endInput = Effect.sync(() => {
    inputEnded = true
    Queue.endUnsafe(input)
  })

  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* endInput
      const status = yield* Deferred.await(exited).pipe(Effect.timeoutOption(spec.closeGrace))
      if (Option.isNone(status)) {
        yield* handle.kill({ killSignal: "SIGTERM", forceKillAfter: graceMillis }).pipe(Effect.ignore)
      }
    })
  )

  const connection: Connection = {
    pid: handle.pid,
    incoming: handle.stdout.pipe(
      Stream.mapError((error) =>
        ClaudeError.make(new ClaudeError.SpawnFailed({ executable, description: error.message }))
      )
    ),
    send: (line) =>
      Effect.suspend(() =>
        inputEnded || Deferred.isDoneUnsafe(exited)
          ? Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "send" })))
          : Effect.asVoid(Queue.offer(input, line + "\n"))
      ),
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
