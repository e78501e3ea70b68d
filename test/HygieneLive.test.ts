/**
 * Process hygiene and write safety (issue 9): the CLI runs in its own process group, closing a
 * session ends what the CLI started (fake-claude's grandchild, a background process started by the
 * real CLI's Bash tool), a host under `NodeRuntime.runMain` that gets SIGINT/SIGTERM closes its
 * sessions and leaves no child, and nothing is written to a closed or dead CLI's stdin.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { Transport } from "../src/Transport.ts"
import { live, processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const HOST = Path.resolve(import.meta.dirname, "fixtures/host-runmain.ts")

const fake = (mode: string, extra: Partial<Claude.SessionOptions> = {}): Claude.SessionOptions => ({
  executable: FAKE,
  ...extra,
  env: { FAKE_CLAUDE_MODE: mode, ...extra.env }
})

/** `/proc/<pid>/stat` fields after the command name: state, ppid, pgrp, session, … */
const statOf = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** True while a process with this pid exists and is not a zombie. */
const isRunning = (pid: number): boolean => {
  const stat = statOf(pid)
  return stat !== undefined && stat[0] !== "Z"
}

const awaitGone = (pid: number, millis = 3000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + millis
    while (isRunning(pid) && Date.now() < deadline) yield* Effect.sleep("20 millis")
    return !isRunning(pid)
  })

/** Kills a leftover of a failed test, so that no process outlives the run whatever happens. */
const reap = (pid: number) =>
  Effect.sync(() => {
    try {
      if (isRunning(pid)) process.kill(pid, "SIGKILL")
    } catch {
      // gone already
    }
  })

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

/**
 * Records every `unhandledRejection`, `uncaughtException` and process warning while the scope is
 * open (ERR_STREAM_WRITE_AFTER_END surfaces as one of these).
 */
const watchProcessErrors = Effect.acquireRelease(
  Effect.sync(() => {
    const seen: Array<string> = []
    const onRejection = (reason: unknown) => seen.push(`unhandledRejection: ${String(reason)}`)
    const onException = (error: unknown) => seen.push(`uncaughtException: ${String(error)}`)
    process.on("unhandledRejection", onRejection)
    process.on("uncaughtException", onException)
    return { seen, onRejection, onException }
  }),
  ({ onException, onRejection }) =>
    Effect.sync(() => {
      process.off("unhandledRejection", onRejection)
      process.off("uncaughtException", onException)
    })
).pipe(Effect.map(({ seen }) => seen))

/** Lets pending I/O callbacks (a late EPIPE, an 'error' event) run before checking. */
const settle = Effect.sleep("150 millis")

describe("process hygiene", { timeout: 60_000 }, () => {
  it.live("the CLI runs in its own process group (pgrp == pid); closing the scope ends its grandchild", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Claude.open(fake("grandchild")).pipe(Scope.provide(scope))
      const pid = session.pid!
      const stat = statOf(pid)
      assert.isDefined(stat)
      assert.strictEqual(Number(stat![2]), pid, "the CLI is not the leader of its own process group")
      assert.notStrictEqual(Number(stat![2]), Number(statOf(process.pid)![2]))
      const events = yield* session.turn("start a grandchild").pipe(Stream.runCollect)
      const init = events.find((e) => e.type === "system" && e.subtype === "init") as { grandchild_pid?: number }
      const grandchild = init.grandchild_pid!
      assert.isNumber(grandchild)
      yield* Effect.addFinalizer(() => reap(grandchild))
      assert.isTrue(isRunning(grandchild))
      assert.strictEqual(Number(statOf(grandchild)![2]), pid, "the grandchild is not in the CLI's group")
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isRunning(pid))
      assert.isTrue(yield* awaitGone(grandchild, 2000), `the grandchild ${grandchild} survived the scope`)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  const backgrounds = [
    {
      name: "`cmd &` in a Bash command",
      input: (pidFile: string) => ({
        command: `node -e "setInterval(()=>{},1000)" > /dev/null 2>&1 & echo $! > ${pidFile}`,
        description: "start a background node"
      })
    },
    {
      name: "`cmd &` that ignores SIGTERM",
      input: (pidFile: string) => ({
        command: `node -e "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)" > /dev/null 2>&1 & echo $! > ${pidFile}`,
        description: "start a stubborn background node"
      })
    },
    {
      name: "a Bash command with run_in_background: true",
      input: (pidFile: string) => ({
        command: `echo $$ > ${pidFile}; exec node -e "setInterval(()=>{},1000)"`,
        description: "a background node",
        run_in_background: true
      })
    }
  ]
  for (const background of backgrounds) {
    it.live(`the real CLI: a process started by ${background.name} is gone after the scope closes`, () =>
      Effect.gen(function*() {
        const setup = yield* live([])
        const pidFile = Path.join(setup.cwd, "bg.pid")
        yield* setup.model.setScript([FakeModel.toolUse("Bash", background.input(pidFile)), FakeModel.text("started")])
        const scope = yield* Scope.make()
        const session = yield* Claude.open({ ...setup.options, closeGrace: "1 second" }).pipe(Scope.provide(scope))
        const cli = session.pid!
        const result = yield* session.run("start it")
        assert.strictEqual(result.subtype, "success")
        // A background task may write its pid a moment after the turn ends.
        let pid = 0
        for (let i = 0; i < 100 && !(pid > 0 && isRunning(pid)); i++) {
          if (Fs.existsSync(pidFile)) pid = Number(Fs.readFileSync(pidFile, "utf8").trim())
          if (!(pid > 0 && isRunning(pid))) yield* Effect.sleep("50 millis")
        }
        assert.isAbove(pid, 0, "no pid file")
        yield* Effect.addFinalizer(() => reap(pid))
        assert.isTrue(isRunning(pid), "the background process did not start")
        // It is not in the CLI's process group: a group kill alone would miss it.
        const group = Number(statOf(pid)![2])
        assert.notStrictEqual(group, cli)
        yield* Scope.close(scope, Exit.void)
        assert.isFalse(isRunning(cli))
        assert.isTrue(yield* awaitGone(pid, 3000), `the background process ${pid} (group ${group}) survived`)
      }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it.live(`a host under NodeRuntime.runMain that gets ${signal} closes its session: no CLI or grandchild remains`, () =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        const ready = yield* Deferred.make<void>()
        const exited = yield* Deferred.make<{ code: number | null; signal: string | null }>()
        const host = yield* Effect.acquireRelease(
          Effect.sync(() => {
            const child = NodeChildProcess.spawn(
              process.execPath,
              ["--experimental-transform-types", "--no-warnings", HOST],
              { stdio: ["ignore", "pipe", "pipe"] }
            )
            let buffer = ""
            child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
              buffer += chunk
              let i
              while ((i = buffer.indexOf("\n")) >= 0) {
                const line = buffer.slice(0, i)
                buffer = buffer.slice(i + 1)
                lines.push(line)
                if (line === "ready") Deferred.doneUnsafe(ready, Exit.void)
              }
            })
            child.stderr.resume()
            child.on("exit", (code, sig) => Deferred.doneUnsafe(exited, Exit.succeed({ code, signal: sig })))
            return child
          }),
          (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
        )
        const numberAfter = (prefix: string) => Number(lines.find((l) => l.startsWith(prefix))?.slice(prefix.length))
        const isReady = yield* Deferred.await(ready).pipe(Effect.timeoutOption("30 seconds"))
        assert.isTrue(Option.isSome(isReady), `the host was not ready: ${lines.join(" | ")}`)
        const cli = numberAfter("pid ")
        const grandchild = numberAfter("grandchild ")
        yield* Effect.addFinalizer(() => Effect.andThen(reap(cli), reap(grandchild)))
        assert.isTrue(isRunning(cli))
        assert.isTrue(isRunning(grandchild))
        const start = Date.now()
        host.kill(signal)
        const status = yield* Deferred.await(exited).pipe(Effect.timeoutOption("15 seconds"))
        const took = Date.now() - start
        assert.isTrue(Option.isSome(status), "the host did not exit within 15 s")
        assert.include(lines, "closed", "the host's finalizers did not run")
        assert.isFalse(isRunning(cli), `the CLI ${cli} survived the host`)
        assert.isTrue(yield* awaitGone(grandchild, 2000), `the grandchild ${grandchild} survived the host`)
        yield* Effect.logDebug(`${signal}: host exited ${JSON.stringify(Option.getOrThrow(status))} after ${took} ms`)
      }).pipe(Effect.scoped))
  }
})

describe("write safety", { timeout: 60_000 }, () => {
  it.live("send after endInput is SessionClosed, on the session and on the bare transport", () =>
    Effect.gen(function*() {
      const errors = yield* watchProcessErrors
      const session = yield* Claude.open(fake(""))
      yield* session.run("hi")
      yield* session.endInput
      const reason = reasonOf(yield* Effect.exit(session.send("after EOF")))
      assert.strictEqual(reason._tag, "SessionClosed")

      const transport = yield* Transport
      const connection = yield* transport.open({ executable: FAKE, args: [], env: {}, closeGrace: Duration.seconds(2) })
      yield* connection.send(JSON.stringify({ type: "user", message: { role: "user", content: "hi" } }))
      yield* connection.endInput
      const raw = reasonOf(yield* Effect.exit(connection.send("{}")))
      assert.strictEqual(raw._tag, "SessionClosed")
      const status = yield* connection.exit.pipe(Effect.timeoutOption("5 seconds"))
      assert.deepStrictEqual(Option.map(status, (s) => s.code), Option.some(0))
      yield* settle
      assert.deepStrictEqual(errors, [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("send after the CLI exited is a typed error; a control request after it died is ProcessExited", () =>
    Effect.gen(function*() {
      const errors = yield* watchProcessErrors
      const session = yield* Claude.open(fake("exit-mid-turn"))
      const crashed = reasonOf(yield* Effect.exit(session.run("crash")))
      assert.strictEqual(crashed._tag, "ProcessExited")
      const status = yield* session.exit.pipe(Effect.timeoutOption("5 seconds"))
      assert.deepStrictEqual(Option.map(status, (s) => s.code), Option.some(3))
      const send = reasonOf(yield* Effect.exit(session.send("anyone there?")))
      assert.include(["SessionClosed", "ProcessExited"], send._tag)
      const setModel = reasonOf(yield* Effect.exit(session.setModel("haiku")))
      assert.strictEqual(setModel._tag, "ProcessExited")
      assert.strictEqual((setModel as ClaudeError.ProcessExited).exitCode, 3)
      assert.include((setModel as ClaudeError.ProcessExited).stderrTail, "simulated crash")
      yield* settle
      assert.deepStrictEqual(errors, [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("many sends and control requests racing with a CLI that exits: each is a success or a typed error", () =>
    Effect.gen(function*() {
      const errors = yield* watchProcessErrors
      const session = yield* Claude.open(fake("exit-mid-turn", { env: { FAKE_CLAUDE_TEXT: "x".repeat(4096) } }))
      yield* session.send("crash")
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 300 }, (_, i) => i),
        (i) =>
          Effect.exit(
            i % 10 === 9
              ? Effect.asVoid(session.setModel("sonnet"))
              : Effect.asVoid(session.send(`message ${i} ${"y".repeat(8192)}`))
          ).pipe(Effect.tap(() => (i % 25 === 0 ? Effect.sleep("2 millis") : Effect.void))),
        { concurrency: 8 }
      )
      const status = yield* session.exit.pipe(Effect.timeoutOption("10 seconds"))
      assert.deepStrictEqual(Option.map(status, (s) => s.code), Option.some(3))
      const late = yield* Effect.exit(Effect.asVoid(session.send("after the exit")))
      let successes = 0
      const tags = new Set<string>()
      for (const exit of [...outcomes, late]) {
        if (Exit.isSuccess(exit)) successes++
        else tags.add(reasonOf(exit)._tag)
      }
      // One reason per death, whatever the timing: every failed send names the exit.
      assert.strictEqual(reasonOf(late)._tag, "ProcessExited")
      for (const tag of tags) assert.strictEqual(tag, "ProcessExited")
      yield* Effect.logDebug(`racing sends: ${successes} succeeded, failures: ${[...tags].join(", ")}`)
      yield* settle
      assert.deepStrictEqual(errors, [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
