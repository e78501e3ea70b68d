/**
 * Test helpers for running the real `claude` CLI (the pinned devDependency) against the fake
 * Messages API. Not part of the library.
 */
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as FakeModel from "../../src/testing/FakeModel.ts"
import { makeTempDir } from "./tempDir.ts"

/** The real CLI (`@anthropic-ai/claude-code`, a native binary behind `node_modules/.bin`). */
export const cliPath: string = Path.resolve(import.meta.dirname, "../../node_modules/.bin/claude")

/** The launch arguments used for every real-CLI run (stream-json both ways, bypassPermissions). */
export const cliArgs: ReadonlyArray<string> = [
  "--output-format",
  "stream-json",
  "--input-format",
  "stream-json",
  "--verbose",
  "--include-partial-messages",
  "--permission-mode",
  "bypassPermissions",
  "--allow-dangerously-skip-permissions"
]

/** A fresh temporary directory, removed (recursively) when the scope closes. */
export { makeTempDir }

/** A fresh `HOME` for one CLI run, removed when the scope closes. */
export const makeHome: Effect.Effect<string, never, Scope.Scope> = makeTempDir("ecc-home-")

/**
 * The whole environment of a CLI run: `process.env` with the fake-model variables over it.
 * `undefined` values (CLAUDECODE, …) are dropped by `child_process`.
 */
export const cliEnv = (url: string, home: string, options?: FakeModel.CliEnvironmentOptions): NodeJS.ProcessEnv => ({
  ...process.env,
  ...FakeModel.cliEnvironment(url, home, options)
})

/** A JSON line the CLI wrote on stdout (only `type` is looked at here). */
export type CliLine = { readonly type?: unknown; readonly subtype?: unknown; readonly [key: string]: unknown }

/** How the process ended. */
export interface CliExit {
  readonly code: number | null
  readonly signal: string | null
}

/** A raw CLI process: lines in, lines out, nothing of the library in between. */
export interface RawCli {
  readonly pid: number
  /** Writes one JSON line on stdin. */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** Writes a user message with `text` as content. */
  readonly sendUser: (text: string) => Effect.Effect<void>
  readonly closeStdin: Effect.Effect<void>
  /** Every JSON line written on stdout so far. */
  readonly lines: Effect.Effect<ReadonlyArray<CliLine>>
  /** Lines that were not JSON. */
  readonly nonJson: Effect.Effect<ReadonlyArray<string>>
  readonly stderr: Effect.Effect<string>
  /** Waits for a line passing `predicate` (dies with the lines so far after `timeout`). */
  readonly awaitLine: (predicate: (line: CliLine) => boolean, timeout?: Duration.Input) => Effect.Effect<CliLine>
  /** Waits for the process to exit (dies after `timeout`). */
  readonly awaitExit: (timeout?: Duration.Input) => Effect.Effect<CliExit>
}

const decodeLine = Schema.decodeUnknownOption(
  Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))
)

const formatDuration = (input: Duration.Input): string => Duration.format(Duration.fromInputUnsafe(input))

const summary = (lines: ReadonlyArray<CliLine>): string =>
  lines.map((l) => `${String(l.type)}${l.subtype === undefined ? "" : `/${String(l.subtype)}`}`).join(", ")

/**
 * Spawns the real CLI (in its own process group) with the fake model's environment and a cwd.
 * When the scope closes, a process still running gets SIGTERM on its group, then SIGKILL after
 * 3 s, and is waited for: no process outlives the test.
 */
export const spawnRawCli = (options: {
  readonly url: string
  readonly home: string
  readonly cwd: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: FakeModel.CliEnvironmentOptions | undefined
}): Effect.Effect<RawCli, never, Scope.Scope> =>
  Effect.gen(function*() {
    const linesRef = yield* SubscriptionRef.make<ReadonlyArray<CliLine>>([])
    const nonJsonLines: Array<string> = []
    let stderrText = ""
    const exited = yield* Deferred.make<CliExit>()
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()

    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        ChildProcess.spawn(cliPath, [...cliArgs, ...(options.args ?? [])], {
          cwd: options.cwd,
          env: cliEnv(options.url, options.home, options.env),
          stdio: ["pipe", "pipe", "pipe"],
          detached: true
        })
      ),
      (child) =>
        Effect.gen(function*() {
          if (Deferred.isDoneUnsafe(exited)) return
          const killGroup = (signal: NodeJS.Signals) => {
            try {
              if (child.pid !== undefined) process.kill(-child.pid, signal)
            } catch {
              child.kill(signal)
            }
          }
          killGroup("SIGTERM")
          const done = yield* Deferred.await(exited).pipe(Effect.timeoutOption(Duration.seconds(3)))
          if (Option.isNone(done)) {
            killGroup("SIGKILL")
            yield* Deferred.await(exited).pipe(Effect.timeoutOption(Duration.seconds(3)))
          }
        })
    )

    child.on("exit", (code, signal) => Deferred.doneUnsafe(exited, Effect.succeed({ code, signal })))
    child.on("error", (error) => {
      stderrText += `spawn error: ${error.message}\n`
      Deferred.doneUnsafe(exited, Effect.succeed({ code: null, signal: null }))
    })
    child.stdin.on("error", () => {}) // EPIPE after exit: the exit is what the test looks at
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      stderrText += chunk
    })

    let buffer = ""
    const onLine = (text: string) => {
      if (text.trim() === "") return
      Option.match(decodeLine(text), {
        onNone: () => {
          nonJsonLines.push(text)
        },
        onSome: (line) => {
          runFork(SubscriptionRef.update(linesRef, (all) => [...all, line]))
        }
      })
    }
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffer += chunk
      let newline = buffer.indexOf("\n")
      while (newline !== -1) {
        onLine(buffer.slice(0, newline))
        buffer = buffer.slice(newline + 1)
        newline = buffer.indexOf("\n")
      }
    })
    child.stdout.on("end", () => {
      if (buffer !== "") onLine(buffer)
      buffer = ""
    })

    const send = (message: unknown) =>
      Effect.callback<void>((resume) => {
        child.stdin.write(JSON.stringify(message) + "\n", () => resume(Effect.void))
      })

    const lines = SubscriptionRef.get(linesRef)

    const awaitLine = (predicate: (line: CliLine) => boolean, timeout: Duration.Input = Duration.seconds(30)) =>
      SubscriptionRef.changes(linesRef).pipe(
        Stream.flatMap((all) => Stream.fromIterable(Option.toArray(Option.fromUndefinedOr(all.find(predicate))))),
        Stream.runHead,
        Effect.timeoutOption(timeout),
        Effect.map(Option.flatten),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            Effect.flatMap(lines, (all) =>
              Effect.die(
                new Error(
                  `No matching CLI line within ${formatDuration(timeout)}; got: ${summary(all)}; ` +
                    `stderr: ${stderrText.slice(-2000)}`
                )
              ))
        }))
      )

    const awaitExit = (timeout: Duration.Input = Duration.seconds(30)) =>
      Deferred.await(exited).pipe(
        Effect.timeoutOption(timeout),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => Effect.die(new Error(`The CLI did not exit within ${formatDuration(timeout)}`))
        }))
      )

    return {
      pid: child.pid ?? -1,
      send,
      sendUser: (text: string) =>
        send({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" }),
      closeStdin: Effect.sync(() => {
        child.stdin.end()
      }),
      lines,
      nonJson: Effect.sync(() => [...nonJsonLines]),
      stderr: Effect.sync(() => stderrText),
      awaitLine,
      awaitExit
    } satisfies RawCli
  })
