/**
 * One benchmark measurement, in a fresh Node process (so its peak RSS is its own):
 *
 *   node bench/child.ts <scenario> '<json params>'
 *
 * Prints one JSON line `{"ok":true,...figures}` on stdout (the last line), then exits. Run by
 * `bench/run.ts`; not a test. Scenarios:
 *
 * - `lib` / `raw` / `sdk`: one turn of `events` deltas on `bench/fake-cli-load.mjs`, every event
 *   counted (the library decodes every line; raw = spawn + split + `JSON.parse`; sdk = the
 *   official `query()` with `includePartialMessages`). `firstEventMs` is from the top of this
 *   file (imports included) to the turn's first event.
 * - `lib-real-start` / `sdk-real-start`: the same start-up figure on the real CLI and the fake model.
 * - `lib-interrupt` / `sdk-interrupt` / `raw-interrupt`: the real CLI runs a 30 s Bash tool;
 *   the time from the interrupt to the aborted `result`.
 * - `lib-slow`: a consumer that takes `delayMs` per stream event (`consumer`: `sleep`, waiting, or
 *   `busy`, spinning), with a Stop hook registered.
 * - `imports`: the time of each import (`which`: `lib`, `lib-parts`, `sdk`, `barrel`, or `floor`, Effect's alone), then what one scavenge makes of V8's young generation.
 * - `lib-many`: `sessions` concurrent sessions in one process, one turn of `events` each.
 * - `lib-turns` / `sdk-turns` / `raw-turns` / `effect-turns` / `validated-turns`: `turns` short
 *   turns of `events` deltas back to back on one session (see "short turns" below).
 */
// Node's `performance.now()` counts from the process's time origin (its start), so this
// includes Node's own boot and every import.
const sinceStart = (): number => performance.now()

import type * as Cause from "effect/Cause"
import type * as Pull from "effect/Pull"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NodePerf from "node:perf_hooks"
import { longTurnFigures, peakRssMb, report, turnEnded, turnFigures, turnsStart, youngGenMb } from "./figures.ts"

const root = Path.resolve(import.meta.dirname, "..")
const fakeCli = Path.join(root, "bench/fake-cli-load.mjs")
const realCli = Path.join(root, "node_modules/.bin/claude")
const SLOW_COMMAND = "node -e \"setTimeout(()=>{},30000)\""

// The library as users get it: its built JavaScript (`bench/run.ts` builds `src` into this folder
// with `scripts/build.ts` first). Running `src/*.ts` through Node's type stripping costs ~150 ms
// more at start-up.
const dist = process.env.BENCH_DIST ?? Path.join(root, ".tmp/bench-dist")
const loadClaude = () => import(Path.join(dist, "Claude.js")) as Promise<typeof import("../src/Claude.ts")>
/** The node entry (`effect-claude-code/node`): `ClaudeNode.layer`, as the README's programs use it. */
const loadNodeEntry = () => import(Path.join(dist, "node.js")) as Promise<typeof import("../src/node.ts")>
/** The protocol's public module (`effect-claude-code/Protocol`): its decoder, for `validated-turns`. */
const loadProtocol = () => import(Path.join(dist, "Protocol.js")) as Promise<typeof import("../src/Protocol.ts")>
const loadHooks = () => import(Path.join(dist, "Hooks.js")) as Promise<typeof import("../src/Hooks.ts")>
// The deep import (`NodeServices.layer` alone): the package's barrel loads HTTP, sockets, etc. too (~300 ms).
const loadNodeServices = () => import("@effect/platform-node/NodeServices")

const scenario = process.argv[2] ?? ""
const params = JSON.parse(process.argv[3] ?? "{}") as {
  readonly events?: number
  readonly delayMs?: number
  /** `array` (throughput only): the library's consumer reads chunks with `Stream.runForEachArray`. */
  readonly consumer?: "sleep" | "busy" | "array"
  readonly which?: "lib" | "lib-parts" | "sdk" | "barrel" | "floor"
  readonly maxOps?: number
  readonly sessions?: number
  readonly turns?: number
  /** The final `assistant` and `result` lines carry the whole text, as the real CLI writes them. */
  readonly fullFinal?: boolean
  readonly untilAnswered?: boolean
  readonly modelEnv?: Record<string, string | null>
  readonly cwd?: string
}
const events = params.events ?? 1000

const fakeEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  FAKE_CLI_EVENTS: String(events),
  ...(params.fullFinal === true ? { FAKE_CLI_FULL_ASSISTANT: "1" } : {}),
  ...extra
})

/** The user line and the `initialize` request the programs without the library write themselves. */
const userLine = JSON.stringify({ type: "user", message: { role: "user", content: "go" }, parent_tool_use_id: null, session_id: "" }) + "\n"
const initializeLine = JSON.stringify({ type: "control_request", request_id: "init-1", request: { subtype: "initialize" } }) + "\n"

// -----------------------------------------------------------------------------------------------
// raw: the practical limit of plain Node
// -----------------------------------------------------------------------------------------------

/**
 * Raw Node's framing (the raw programs' and `validated-turns`'): calls `line` with each line of
 * `stdout` (its text, without the newline), then `read` once each chunk's lines are done. A line
 * split across chunks is joined from its pieces once its newline comes (never a string grown chunk
 * by chunk, which V8 flattens on every search).
 */
const readLines = (stdout: NodeJS.ReadableStream, line: (text: string) => void, read: () => void = () => {}): void => {
  let pending: Array<Buffer> = []
  stdout.on("data", (chunk: Buffer) => {
    let from = 0
    let nl = chunk.indexOf(10)
    if (nl !== -1 && pending.length > 0) {
      pending.push(chunk.subarray(0, nl))
      line(Buffer.concat(pending).toString("utf8"))
      pending = []
      from = nl + 1
      nl = chunk.indexOf(10, from)
    }
    while (nl !== -1) {
      line(chunk.toString("utf8", from, nl))
      from = nl + 1
      nl = chunk.indexOf(10, from)
    }
    if (from < chunk.length) pending.push(chunk.subarray(from))
    read()
  })
}

const runRaw = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(process.execPath, [fakeCli], {
      env: { ...process.env, ...fakeEnv() },
      stdio: ["pipe", "pipe", "inherit"]
    })
    let count = 0
    let firstEventMs = -1
    let start = 0
    let result: { fake_deltas_written?: number } | undefined
    // The clock stops at the result, as the library's and the SDK's (not at the CLI's exit).
    let end = 0
    readLines(child.stdout, (text) => {
      const msg = JSON.parse(text) as { type: string }
      if (msg.type === "control_response") return
      if (count === 0) {
        firstEventMs = sinceStart()
        start = performance.now()
      }
      count++
      if (msg.type === "result") {
        end = performance.now()
        result = msg as never
        child.stdin.end()
      }
    })
    child.on("exit", () => {
      const seconds = (end - start) / 1000
      if (result === undefined) return reject(new Error("raw: no result"))
      report({ count, deltas: result.fake_deltas_written, seconds, eventsPerSec: count / seconds, firstEventMs })
      resolve()
    })
    child.stdin.write(initializeLine)
    child.stdin.write(userLine)
  })

// -----------------------------------------------------------------------------------------------
// the official SDK
// -----------------------------------------------------------------------------------------------

const sdkThroughput = async (): Promise<void> => {
  const { query } = await import("@anthropic-ai/claude-agent-sdk")
  let count = 0
  let firstEventMs = -1
  let start = 0
  let end = 0
  let deltas = 0
  const q = query({
    prompt: "go",
    options: {
      pathToClaudeCodeExecutable: fakeCli,
      executable: "node",
      includePartialMessages: true,
      env: { ...process.env, ...fakeEnv() },
      stderr: (data) => process.stderr.write(data)
    }
  })
  for await (const message of q) {
    if (count === 0) {
      firstEventMs = sinceStart()
      start = performance.now()
    }
    count++
    if (message.type === "result") {
      // The clock stops here: leaving the loop waits for the CLI to exit (the SDK's cleanup).
      end = performance.now()
      deltas = (message as unknown as { fake_deltas_written: number }).fake_deltas_written
      break
    }
  }
  if (end === 0) throw new Error("sdk: no result")
  const seconds = (end - start) / 1000
  report({ count, deltas, seconds, eventsPerSec: count / seconds, firstEventMs })
}

// -----------------------------------------------------------------------------------------------
// the library
// -----------------------------------------------------------------------------------------------

const libThroughput = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const Stream = await import("effect/Stream")
  const Claude = await loadClaude()
  // `ClaudeNode.layer`: the process transport, which needs no platform service.
  const layer = (await loadNodeEntry()).ClaudeNode.layer
  const program = Effect.gen(function*() {
    const session = yield* Claude.open({ executable: fakeCli, env: fakeEnv() })
    let count = 0
    let firstEventMs = -1
    let start = 0
    let end = 0
    let deltas = 0
    const see = (event: { readonly type: string }) => {
      if (count === 0) {
        firstEventMs = sinceStart()
        start = performance.now()
      }
      count++
      if (event.type === "result") {
        // The clock stops at the result, as raw Node's and the SDK's.
        end = performance.now()
        deltas = (event as unknown as { fake_deltas_written: number }).fake_deltas_written
      }
    }
    const turn = session.turn("go")
    yield* params.consumer === "array"
      ? Stream.runForEachArray(turn, (events) => Effect.sync(() => events.forEach(see)))
      : Stream.runForEach(turn, (event) => Effect.sync(() => see(event)))
    if (end === 0) return yield* Effect.die(new Error("lib: no result"))
    const seconds = (end - start) / 1000
    return { count, deltas, seconds, eventsPerSec: count / seconds, firstEventMs }
  }).pipe(Effect.scoped, Effect.provide(layer))
  report(await Effect.runPromise(program))
}

/**
 * The start-up floor of any Effect program doing this job, without the library: the same imports
 * (Effect, Stream, Layer, Schema, `effect/process`, NodeServices), the CLI spawned through
 * `effect/process`, `initialize` and the user turn written, stdout split and `JSON.parse`d up to
 * the first event. Nothing is validated; no hooks, no control channel.
 */
const effectFloor = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Stream = await import("effect/Stream")
  await import("effect/Layer")
  await import("effect/Schema")
  const ChildProcessModule = await import("effect/process/ChildProcess")
  const { ChildProcessSpawner } = await import("effect/process/ChildProcessSpawner")
  const NodeServices = await loadNodeServices()
  const program = Effect.gen(function*() {
    const spawner = yield* ChildProcessSpawner
    const handle = yield* spawner.spawn(ChildProcessModule.make(fakeCli, [], { env: fakeEnv(), extendEnv: true, stdin: "pipe" }))
    yield* Stream.fromIterable([initializeLine, userLine]).pipe(Stream.encodeText, Stream.run(handle.stdin), Effect.forkScoped)
    const first = yield* handle.stdout.pipe(
      Stream.decodeText,
      Stream.splitLines,
      Stream.map((line) => JSON.parse(line) as { type: string }),
      Stream.filter((message) => message.type !== "control_response"),
      Stream.runHead
    )
    return { firstEventMs: sinceStart(), firstType: first._tag === "Some" ? first.value.type : null }
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  report(await Effect.runPromise(program))
}

// -----------------------------------------------------------------------------------------------
// the real CLI with the fake model (start-up, interrupt)
// -----------------------------------------------------------------------------------------------

/**
 * The parent (`bench/run.ts`) runs the fake model (so its Effect imports do not count in this
 * process's start-up) and passes its environment (null = remove the variable) and a fresh cwd.
 */
const withFakeModel = async <A>(
  body: (env: Record<string, string | undefined>, cwd: string) => Promise<A>
): Promise<A> => {
  const env: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(params.modelEnv ?? {})) env[k] = v === null ? undefined : v
  if (params.cwd === undefined) throw new Error("no cwd given")
  return body(env, params.cwd)
}

const libRealStart = () =>
  withFakeModel(async (env, cwd) => {
    const Effect = await import("effect/Effect")
    const Layer = await import("effect/Layer")
    const Stream = await import("effect/Stream")
    const Claude = await loadClaude()
    const layer = (await loadNodeEntry()).ClaudeNode.layer
    let firstEventMs = -1
    await Effect.runPromise(
      Effect.gen(function*() {
        const session = yield* Claude.open({ executable: realCli, cwd, env, permissionMode: "bypassPermissions" })
        yield* session.turn("Say hello").pipe(
          Stream.runForEach(() =>
            Effect.sync(() => {
              if (firstEventMs < 0) firstEventMs = sinceStart()
            })
          )
        )
      }).pipe(Effect.scoped, Effect.provide(layer))
    )
    report({ firstEventMs })
  })

const sdkRealStart = () =>
  withFakeModel(async (env, cwd) => {
    const { query } = await import("@anthropic-ai/claude-agent-sdk")
    let firstEventMs = -1
    const q = query({
      prompt: "Say hello",
      options: {
        pathToClaudeCodeExecutable: realCli,
        cwd,
        includePartialMessages: true,
        permissionMode: "bypassPermissions",
        allowDangerouslySkipPermissions: true,
        env: { ...process.env, ...env }
      }
    })
    for await (const message of q) {
      if (firstEventMs < 0) firstEventMs = sinceStart()
      if (message.type === "result") break
    }
    report({ firstEventMs })
  })

/** The library: interrupt the consuming fiber once the Bash tool runs; time to the aborted result. */
const libInterrupt = () =>
  withFakeModel(async (env, cwd) => {
    const Effect = await import("effect/Effect")
    const Fiber = await import("effect/Fiber")
    const Layer = await import("effect/Layer")
    const Stream = await import("effect/Stream")
    const Claude = await loadClaude()
    const { Transport } = await import(Path.join(dist, "Transport.js")) as typeof import("../src/Transport.ts")
    // When the session's reader takes each chunk of stdout from the process transport (before it
    // frames, decodes and routes the chunk's lines): the result line's chunk marks where the CLI's
    // time ends and the library's read of the result begins.
    let chunkTakenAt = 0
    const timed = Layer.effect(
      Transport,
      Effect.map(Effect.service(Transport), (transport) =>
        Transport.of({
          open: (spec) =>
            Effect.map(transport.open(spec), (connection) => ({
              ...connection,
              incoming: Stream.map(connection.incoming, (chunk) => {
                chunkTakenAt = performance.now()
                return chunk
              })
            }))
        }))
    ).pipe(Layer.provide((await loadNodeEntry()).ClaudeNode.layer))
    const figures = await Effect.runPromise(
      Effect.gen(function*() {
        // The recorder sees each line as the library writes or reads it: where the time goes.
        const marks: Record<string, number> = {}
        const transcript = {
          record: (direction: "send" | "recv", message: unknown) => {
            const m = message as { type?: string; request?: { subtype?: string }; response?: { request_id?: string } }
            if (direction === "send" && m.type === "control_request" && m.request?.subtype === "interrupt") {
              marks.interruptQueuedAt ??= performance.now()
            }
            if (direction === "recv" && m.type === "control_response" && marks.interruptQueuedAt !== undefined) {
              marks.responseReadAt ??= performance.now()
            }
            if (direction === "recv" && m.type === "result") {
              marks.resultReadAt ??= performance.now()
              marks.resultChunkAt ??= chunkTakenAt
            }
          }
        }
        const session = yield* Claude.open({ executable: realCli, cwd, env, permissionMode: "bypassPermissions", transcript })
        let sawTool = false
        let resultAt = 0
        let terminal: unknown
        const results = yield* session.events.pipe(
          Stream.filter((e) => e.type === "result"),
          Stream.runHead,
          Effect.tap((r) =>
            Effect.sync(() => {
              resultAt = performance.now()
              terminal = r._tag === "Some" ? (r.value as { terminal_reason?: unknown }).terminal_reason : undefined
            })
          ),
          Effect.forkChild
        )
        const fiber = yield* session.turn("run the slow command").pipe(
          Stream.runForEach((e) => Effect.sync(() => e.type === "assistant" && (sawTool = true))),
          Effect.forkChild
        )
        while (!sawTool) yield* Effect.sleep("10 millis")
        yield* Effect.sleep("500 millis") // the tool process is running
        const before = performance.now()
        yield* Fiber.interrupt(fiber)
        const returnedMs = performance.now() - before
        yield* Fiber.join(results)
        return {
          interruptToResultMs: resultAt - before,
          interruptReturnedMs: returnedMs,
          interruptQueuedMs: (marks.interruptQueuedAt ?? NaN) - before,
          responseReadMs: (marks.responseReadAt ?? NaN) - before,
          resultReadMs: (marks.resultReadAt ?? NaN) - before,
          resultChunkMs: (marks.resultChunkAt ?? NaN) - before,
          terminal
        }
      }).pipe(Effect.scoped, Effect.provide(timed))
    )
    report(figures)
  })

const sdkInterrupt = () =>
  withFakeModel(async (env, cwd) => {
    const { query } = await import("@anthropic-ai/claude-agent-sdk")
    const input: Array<unknown> = []
    let wake: (() => void) | undefined
    let done = false
    // Streaming input mode (interrupt() needs it): one user message, then open until the end.
    async function* prompt() {
      yield { type: "user" as const, message: { role: "user" as const, content: "run the slow command" }, parent_tool_use_id: null, session_id: "" }
      while (!done) await new Promise<void>((r) => (wake = r))
      void input
    }
    const q = query({
      prompt: prompt(),
      options: {
        pathToClaudeCodeExecutable: realCli,
        cwd,
        includePartialMessages: true,
        permissionMode: "bypassPermissions",
        allowDangerouslySkipPermissions: true,
        env: { ...process.env, ...env }
      }
    })
    let before = 0
    let figures: Record<string, unknown> = {}
    for await (const message of q) {
      if (message.type === "assistant" && before === 0) {
        before = -1
        setTimeout(() => {
          before = performance.now()
          void q.interrupt().then(() => (figures.interruptReturnedMs = performance.now() - before))
        }, 500)
      }
      if (message.type === "result") {
        figures = { ...figures, interruptToResultMs: performance.now() - before, terminal: (message as { terminal_reason?: unknown }).terminal_reason }
        break
      }
    }
    done = true
    wake?.()
    q.close()
    report(figures)
  })

/** The CLI's own: write `interrupt` on its stdin, time to the `result` line on its stdout. */
const rawInterrupt = () =>
  withFakeModel(async (modelEnv, cwd) => {
    // The very argv and environment the library launches the CLI with (Launch.buildCommand).
    const Effect = await import("effect/Effect")
    const Redacted = await import("effect/Redacted")
    const Launch = await import(Path.join(dist, "Launch.js")) as typeof import("../src/Launch.ts")
    const options = Effect.runSync(Launch.validate({ executable: realCli, cwd, env: modelEnv, permissionMode: "bypassPermissions" }))
    const command = Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false })
    const env: Record<string, string | undefined> = { ...process.env }
    for (const [k, v] of Object.entries(command.env)) {
      env[k] = v === undefined ? undefined : Redacted.isRedacted(v) ? String(Redacted.value(v)) : String(v)
    }
    return rawInterruptWith(command.args, env, cwd)
  })

const rawInterruptWith = (args: ReadonlyArray<string>, env: Record<string, string | undefined>, cwd: string) =>
    new Promise<void>((resolve, reject) => {
      const child = ChildProcess.spawn(realCli, [...args], { cwd, env, stdio: ["pipe", "pipe", "ignore"], detached: true })
      let buffer = ""
      let before = 0
      let responseMs = -1
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // gone
        }
        reject(new Error("raw interrupt: no result within 20 s"))
      }, 20_000)
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        buffer += chunk
        let nl: number
        while ((nl = buffer.indexOf("\n")) !== -1) {
          const text = buffer.slice(0, nl)
          buffer = buffer.slice(nl + 1)
          if (text.trim() === "") continue
          const msg = JSON.parse(text) as { type: string; response?: { request_id?: string }; terminal_reason?: string }
          if (msg.type === "assistant" && before === 0) {
            before = -1
            setTimeout(() => {
              before = performance.now()
              child.stdin.write(JSON.stringify({ type: "control_request", request_id: "int-1", request: { subtype: "interrupt" } }) + "\n")
            }, 500)
          }
          if (msg.type === "control_response" && msg.response?.request_id === "int-1") responseMs = performance.now() - before
          if (msg.type === "result") {
            const ms = performance.now() - before
            clearTimeout(timer)
            child.on("exit", () => {
              report({ interruptToResultMs: ms, interruptResponseMs: responseMs, terminal: msg.terminal_reason })
              resolve()
            })
            child.stdin.end()
            setTimeout(() => {
              try {
                process.kill(-child.pid!, "SIGTERM")
              } catch {
                // gone
              }
            }, 3000).unref()
          }
        }
      })
      child.stdin.write(initializeLine)
      child.stdin.write(JSON.stringify({ type: "user", message: { role: "user", content: "run the slow command" }, parent_tool_use_id: null, session_id: "" }) + "\n")
    })

// -----------------------------------------------------------------------------------------------
// slow consumer, many sessions
// -----------------------------------------------------------------------------------------------

const busyWait = (ms: number): void => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // spin: the consumer's own work
  }
}

/**
 * For `untilAnswered`: the fake CLI writes its result's extra fields (the Stop hook's wait) to a
 * file once the result line is written, so the host can stop before its consumer gets there.
 * Resolves with them, then one more second (every line read by then), or after `timeoutMs`.
 */
const reportFile = Path.join(Os.tmpdir(), `bench-slow-${process.pid}.json`)
const cliReport = async (timeoutMs: number): Promise<Record<string, unknown> | undefined> => {
  Fs.rmSync(reportFile, { force: true })
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (Fs.existsSync(reportFile)) {
      const extra = JSON.parse(Fs.readFileSync(reportFile, "utf8")) as Record<string, unknown>
      Fs.rmSync(reportFile, { force: true })
      await new Promise((r) => setTimeout(r, 1000))
      return extra
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  return undefined
}
const UNTIL_ANSWERED_TIMEOUT_MS = 120_000

/** The figures of an `untilAnswered` run, taken when the CLI's report came (memory at its peak). */
const answeredFigures = (
  extra: Record<string, unknown> | undefined,
  consumed: number,
  hookAnsweredAt: number,
  start: number
) => ({
  consumedWhenAnswered: consumed,
  hookAnsweredAfterMs: hookAnsweredAt === 0 ? null : hookAnsweredAt - start,
  stopHookWaitMs: extra?.stop_hook_wait_ms ?? null,
  stopHookAnswer: extra?.stop_hook_answer ?? null,
  peakRssAtAnswerMb: peakRssMb()
})

const libSlow = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const Stream = await import("effect/Stream")
  const Claude = await loadClaude()
  const Hooks = await loadHooks()
  const Fiber = await import("effect/Fiber")
  const References = await import("effect/References")
  const delayMs = params.delayMs ?? 1
  let hookAnsweredAt = 0
  const hooks = Hooks.layer(Hooks.on("Stop", () =>
    Effect.sync(() => {
      hookAnsweredAt = performance.now()
      return Hooks.allow()
    })))
  const layer = Layer.mergeAll((await loadNodeEntry()).ClaudeNode.layer, hooks)
  const figures = await Effect.runPromise(
    Effect.gen(function*() {
      const session = yield* Claude.open({
        executable: fakeCli,
        env: fakeEnv({ FAKE_CLI_STOP_HOOK: "1", ...(params.untilAnswered === true ? { FAKE_CLI_REPORT_FILE: reportFile } : {}) })
      })
      let count = 0
      let lastDeltaSeenAt = 0
      let result: Record<string, unknown> | undefined
      const start = performance.now()
      // "sleep": the consumer waits (I/O-like work, the event loop stays free); "busy": it spins
      // (CPU-bound work on the one JS thread, which holds back everything else in the process).
      const work = params.consumer === "busy"
        ? Effect.sync(() => busyWait(delayMs))
        : Effect.sleep(`${delayMs} millis`)
      const consume = session.turn("go").pipe(
        Stream.runForEach((event) => {
          count++
          if (event.type === "result") result = event as unknown as Record<string, unknown>
          if (event.type !== "stream_event") return Effect.void
          return Effect.andThen(work, Effect.sync(() => {
            lastDeltaSeenAt = performance.now()
          }))
        })
      )
      if (params.untilAnswered === true) {
        // The consumer runs until the CLI has written its result (every line read a second
        // later); then it stops, far behind, and the scope closes the session.
        const fiber = yield* Effect.forkChild(consume)
        const extra = yield* Effect.promise(() => cliReport(UNTIL_ANSWERED_TIMEOUT_MS))
        const figures = answeredFigures(extra, count, hookAnsweredAt, start)
        yield* Fiber.interrupt(fiber)
        return figures
      }
      yield* consume
      return {
        count,
        seconds: (performance.now() - start) / 1000,
        stopHookWaitMs: result?.stop_hook_wait_ms,
        stopHookAnswer: result?.stop_hook_answer,
        // > 0: the hook was answered before the consumer had read the last delta (never stalled behind it)
        hookAnsweredBeforeConsumerMs: hookAnsweredAt === 0 ? null : lastDeltaSeenAt - hookAnsweredAt
      }
    }).pipe(
      Effect.scoped,
      Effect.provide(layer),
      // maxOps: how many operations a fiber runs before it yields to the event loop (Effect's default 2048).
      params.maxOps === undefined ? (e) => e : Effect.provideService(References.MaxOpsBeforeYield, params.maxOps)
    )
  )
  report(figures)
}

/** The SDK with the same slow consumer and a Stop hook. */
const sdkSlow = async (): Promise<void> => {
  const { query } = await import("@anthropic-ai/claude-agent-sdk")
  const delayMs = params.delayMs ?? 1
  let hookAnsweredAt = 0
  let count = 0
  let lastDeltaSeenAt = 0
  let result: Record<string, unknown> | undefined
  const start = performance.now()
  const q = query({
    prompt: "go",
    options: {
      pathToClaudeCodeExecutable: fakeCli,
      executable: "node",
      includePartialMessages: true,
      env: { ...process.env, ...fakeEnv({ FAKE_CLI_STOP_HOOK: "1", ...(params.untilAnswered === true ? { FAKE_CLI_REPORT_FILE: reportFile } : {}) }) },
      hooks: {
        Stop: [{
          hooks: [async () => {
            hookAnsweredAt = performance.now()
            return {}
          }]
        }]
      }
    }
  })
  let stop = false
  const consume = async () => {
    for await (const message of q) {
      count++
      if (stop) break
      if (message.type === "stream_event") {
        if (params.consumer === "busy") busyWait(delayMs)
        else await new Promise((r) => setTimeout(r, delayMs))
        lastDeltaSeenAt = performance.now()
      }
      if (message.type === "result") {
        result = message as unknown as Record<string, unknown>
        break
      }
    }
  }
  if (params.untilAnswered === true) {
    const consumer = consume()
    const extra = await cliReport(UNTIL_ANSWERED_TIMEOUT_MS)
    const figures = answeredFigures(extra, count, hookAnsweredAt, start)
    // Leaving the loop returns the query, which ends its CLI.
    stop = true
    await consumer
    report(figures)
    return
  }
  await consume()
  report({
    count,
    seconds: (performance.now() - start) / 1000,
    stopHookWaitMs: result?.stop_hook_wait_ms,
    stopHookAnswer: result?.stop_hook_answer,
    hookAnsweredBeforeConsumerMs: hookAnsweredAt === 0 ? null : lastDeltaSeenAt - hookAnsweredAt
  })
}

const libMany = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const Stream = await import("effect/Stream")
  const Claude = await loadClaude()
  const layer = (await loadNodeEntry()).ClaudeNode.layer
  const sessions = params.sessions ?? 50
  const pids: Array<number> = []
  const start = performance.now()
  const counts = await Effect.runPromise(
    Effect.forEach(
      Array.from({ length: sessions }, (_, i) => i),
      () =>
        Effect.gen(function*() {
          const session = yield* Claude.open({ executable: fakeCli, env: fakeEnv() })
          if (session.pid !== undefined) pids.push(session.pid)
          let count = 0
          let completed = false
          yield* session.turn("go").pipe(
            Stream.runForEach((event) =>
              Effect.sync(() => {
                count++
                if (event.type === "result" && event.subtype === "success") completed = true
              })
            )
          )
          return { count, completed }
        }).pipe(Effect.scoped),
      { concurrency: "unbounded" }
    ).pipe(Effect.provide(layer))
  )
  const seconds = (performance.now() - start) / 1000
  const total = counts.reduce((n, c) => n + c.count, 0)
  const alive = pids.filter((pid) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  })
  report({
    sessions,
    completed: counts.filter((c) => c.completed).length,
    total,
    seconds,
    eventsPerSec: total / seconds,
    childrenAliveAfter: alive.length
  })
}

// -----------------------------------------------------------------------------------------------
// short turns: what an agent does (many turns of a few dozen lines on one session)
// -----------------------------------------------------------------------------------------------

/**
 * `turns` turns back to back on one session, each `events` deltas (+ 9 lines: init, status,
 * message_start, content_block_start, assistant, content_block_stop, message_delta, message_stop,
 * result), the next sent once the previous one's result is in. The first turn (start-up, the
 * session's handshake) is not counted: `msPerTurn` and `cpuUsPerTurn` are over the others.
 */
const libTurns = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const Stream = await import("effect/Stream")
  const Claude = await loadClaude()
  const layer = (await loadNodeEntry()).ClaudeNode.layer
  const n = params.turns ?? 100
  const figures = await Effect.runPromise(
    Effect.gen(function*() {
      const session = yield* Claude.open({ executable: fakeCli, env: fakeEnv() })
      let lines = 0
      const count = Stream.runForEach((event: { readonly type: string }) =>
        Effect.sync(() => {
          lines++
          if (event.type === "result" && (event as { subtype?: string }).subtype !== "success") throw new Error("turn failed")
        })
      )
      yield* count(session.turn("go"))
      lines = 0
      const start = turnsStart()
      for (let i = 0; i < n; i++) {
        yield* count(session.turn("go"))
        turnEnded(start, i + 1, n)
      }
      return turnFigures(n, lines, start)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
  report(figures)
}

/**
 * The SDK as its users drive a multi-turn session: streaming input (one `query` with an async
 * iterable of user messages), each message sent once the previous turn's result is in.
 */
const sdkTurns = async (): Promise<void> => {
  const { query } = await import("@anthropic-ai/claude-agent-sdk")
  const n = params.turns ?? 100
  let release: (() => void) | undefined
  let sent = 0
  let closed = false
  const next = () => new Promise<void>((resolve) => (release = resolve))
  async function* prompt() {
    while (sent <= n) {
      sent++
      yield { type: "user" as const, message: { role: "user" as const, content: "go" }, parent_tool_use_id: null, session_id: "" }
      await next()
      if (closed) return
    }
  }
  const q = query({
    prompt: prompt(),
    options: {
      pathToClaudeCodeExecutable: fakeCli,
      executable: "node",
      includePartialMessages: true,
      env: { ...process.env, ...fakeEnv() },
      stderr: (data) => process.stderr.write(data)
    }
  })
  let lines = 0
  let results = 0
  let start = turnsStart()
  let figures: ReturnType<typeof turnFigures> | undefined
  for await (const message of q) {
    lines++
    if (message.type !== "result") continue
    if (message.subtype !== "success") throw new Error("turn failed")
    results++
    if (results === 1) {
      // the first turn (start-up) is not counted
      lines = 0
      start = turnsStart()
    } else turnEnded(start, results - 1, n)
    if (results === n + 1) {
      // Taken before leaving the loop, which waits for the CLI to exit (the SDK's cleanup).
      figures = turnFigures(n, lines, start)
      break
    }
    release?.()
  }
  if (figures === undefined) throw new Error("sdk turns: no last result")
  closed = true
  release?.()
  q.close()
  report(figures)
}

/**
 * A bare Effect program's short turns, without the library: a reference point on Effect, written
 * as an Effect program would be with Effect's own process, streams and queues (`effect/process`
 * and NodeServices; the library spawns with `node:child_process` and frames stdout itself).
 * stdout decoded, split and `JSON.parse`d into a queue, stdin fed from a queue; a turn offers its
 * user line and takes messages until the result. Nothing is validated (no `Schema` imported), no
 * routing, no metrics.
 */
const effectTurns = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Fiber = await import("effect/Fiber")
  const Queue = await import("effect/Queue")
  const Stream = await import("effect/Stream")
  const ChildProcessModule = await import("effect/process/ChildProcess")
  const { ChildProcessSpawner } = await import("effect/process/ChildProcessSpawner")
  const NodeServices = await loadNodeServices()
  const n = params.turns ?? 100
  const figures = await Effect.runPromise(
    Effect.gen(function*() {
      const spawner = yield* ChildProcessSpawner
      const handle = yield* spawner.spawn(
        ChildProcessModule.make(fakeCli, [], { env: fakeEnv(), extendEnv: true, stdin: "pipe", stderr: "inherit" })
      )
      const input = yield* Queue.unbounded<string, Cause.Done>()
      const writer = yield* Stream.fromQueue(input).pipe(Stream.encodeText, Stream.run(handle.stdin), Effect.forkScoped)
      const messages = yield* Queue.unbounded<{ readonly type: string; readonly subtype?: string }, Cause.Done>()
      yield* handle.stdout.pipe(
        Stream.decodeText,
        Stream.splitLines,
        Stream.map((line) => JSON.parse(line) as { readonly type: string; readonly subtype?: string }),
        Stream.orDie,
        Stream.runIntoQueue(messages),
        Effect.forkScoped
      )
      let lines = 0
      const turn = Effect.gen(function*() {
        yield* Queue.offer(input, userLine)
        while (true) {
          const message = yield* Effect.orDie(Queue.take(messages))
          if (message.type === "control_response") continue
          lines++
          if (message.type !== "result") continue
          if (message.subtype !== "success") return yield* Effect.die(new Error("turn failed"))
          return
        }
      })
      yield* Queue.offer(input, initializeLine)
      yield* turn
      lines = 0
      const start = turnsStart()
      for (let i = 0; i < n; i++) {
        yield* turn
        turnEnded(start, i + 1, n)
      }
      const figures = turnFigures(n, lines, start)
      // stdin ends once the writer has written what is queued: the CLI exits on its own.
      yield* Queue.end(input)
      yield* Fiber.join(writer)
      return figures
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
  report(figures)
}

/** Plain Node: spawn, split at `\n`, `JSON.parse` every line, the next user line on each result. */
const rawTurns = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const n = params.turns ?? 100
    const child = ChildProcess.spawn(process.execPath, [fakeCli], {
      env: { ...process.env, ...fakeEnv() },
      stdio: ["pipe", "pipe", "inherit"]
    })
    let lines = 0
    let results = 0
    let start = turnsStart()
    let figures: ReturnType<typeof turnFigures> | undefined
    readLines(child.stdout, (text) => {
      const msg = JSON.parse(text) as { type: string; subtype?: string }
      if (msg.type === "control_response") return
      lines++
      if (msg.type !== "result") return
      if (msg.subtype !== "success") return reject(new Error("turn failed"))
      results++
      if (results === 1) {
        lines = 0
        start = turnsStart()
      } else turnEnded(start, results - 1, n)
      if (results === n + 1) {
        figures = turnFigures(n, lines, start)
        child.stdin.end()
      } else child.stdin.write(userLine)
    })
    child.on("exit", () => {
      if (figures === undefined) return reject(new Error("raw turns: no last result"))
      report(figures)
      resolve()
    })
    child.stdin.write(initializeLine)
    child.stdin.write(userLine)
  })

/**
 * A minimal validated Effect stream, no session engine: what a program on this stack that checks
 * every line and hands each turn as an Effect `Stream` spends, written as plainly as it can be.
 * The CLI spawned with `node:child_process` (as the library does), raw Node's framing (one
 * `JSON.parse` a line; the library parses each read's whole lines in one), each line checked by the
 * library's public decoder (`Protocol.decodeMessage`), the checked messages of each read handed at
 * once to the one waiting reader, a turn one `Stream.fromPull` that writes the user line and ends
 * after the result, read with `Stream.runForEach`. What the library does beyond it is its session
 * engine and transport: turns matched to their user messages, the control channel, the ordering and
 * interruption rules, spans and metrics, the user line encoded, stderr drained. The reader is
 * written here, not the library's mailbox, which its build keeps inside. A broken run (a line that
 * fails, the CLI gone mid-turn) dies with the reason, never reports figures. With 0 turns, the
 * first turn only (not timed): its process's memory, for one long turn (as `bench/turns-program.ts`).
 */
const validatedTurns = async (): Promise<void> => {
  const { Done } = await import("effect/Cause")
  const Effect = await import("effect/Effect")
  const Stream = await import("effect/Stream")
  const Protocol = await loadProtocol()
  type Message = import("../src/Protocol.ts").Message
  type Batch = [Message, ...Array<Message>]
  const n = params.turns ?? 100
  const child = ChildProcess.spawn(process.execPath, [fakeCli], {
    env: { ...process.env, ...fakeEnv() },
    stdio: ["pipe", "pipe", "inherit"]
  })
  // The turn's messages read and not yet taken; whether its result is among what was read.
  let queued: Array<Message> = []
  let resultRead = false
  let waiting: (() => void) | undefined
  let failure: unknown
  const wake = () => {
    if (waiting === undefined || (queued.length === 0 && failure === undefined)) return
    const resume = waiting
    waiting = undefined
    resume()
  }
  const fail = (error: unknown) => {
    failure ??= error
    wake()
  }
  readLines(child.stdout, (text) => {
    if (failure !== undefined) return
    try {
      const decoded = Protocol.decodeMessage(JSON.parse(text))
      if (decoded._tag === "Failure") throw new Error(`a line failed its schema: ${decoded.failure}`)
      const message = decoded.success
      if (message.type === "control_response") return
      // The load fake writes nothing between a result and the next user line: a line there would
      // belong to no turn.
      if (resultRead) throw new Error(`a ${message.type} line after the turn's result`)
      queued.push(message)
      if (message.type === "result") resultRead = true
    } catch (error) {
      fail(error)
    }
  }, wake)
  child.on("error", fail)
  const exited = new Promise<void>((resolve) =>
    child.on("exit", () => {
      fail(new Error("the CLI exited"))
      resolve()
    })
  )
  const done = Effect.fail(Done())
  const pull: Pull.Pull<Batch> = Effect.suspend(() => {
    if (failure !== undefined) return Effect.die(failure)
    if (queued.length > 0) {
      const batch = queued as Batch
      queued = []
      return Effect.succeed(batch)
    }
    if (resultRead) return done
    return Effect.callback<Batch, Cause.Done>((resume) => {
      waiting = () => resume(pull)
    })
  })
  const turn = Stream.fromPull(Effect.sync(() => {
    resultRead = false
    child.stdin.write(userLine)
    return pull
  }))
  let lines = 0
  const count = Stream.runForEach((message: Message) =>
    Effect.sync(() => {
      lines++
      if (message.type === "result" && message.subtype !== "success") throw new Error("turn failed")
    })
  )
  child.stdin.write(initializeLine)
  const figures = await Effect.runPromise(Effect.gen(function*() {
    yield* count(turn)
    if (n === 0) return longTurnFigures(lines)
    lines = 0
    const start = turnsStart()
    for (let i = 0; i < n; i++) {
      yield* count(turn)
      turnEnded(start, i + 1, n)
    }
    return turnFigures(n, lines, start)
  }))
  child.stdin.end()
  await exited
  report(figures)
}

// -----------------------------------------------------------------------------------------------
// idle sessions: memory per open session
// -----------------------------------------------------------------------------------------------

const gc = (): void => (globalThis as { gc?: () => void }).gc?.()
const memoryNow = () => {
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 }
}
/**
 * `sessions` sessions opened one after another, each after one short turn (so it is fully up:
 * initialized, its first turn read), then left idle; the memory (after a GC, `--expose-gc`) with
 * them open, less the memory before the first, per session.
 */
const idleFigures = (sessions: number, before: { rss: number; heap: number }) => {
  const after = memoryNow()
  return {
    sessions,
    rssPerSessionKb: ((after.rss - before.rss) * 1024) / sessions,
    heapPerSessionKb: ((after.heap - before.heap) * 1024) / sessions,
    rssBeforeMb: before.rss,
    rssAfterMb: after.rss
  }
}

const libIdle = async (): Promise<void> => {
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const Stream = await import("effect/Stream")
  const Claude = await loadClaude()
  const layer = (await loadNodeEntry()).ClaudeNode.layer
  const n = params.sessions ?? 20
  const figures = await Effect.runPromise(
    Effect.gen(function*() {
      // One session opened and closed first: the modules and the decoders are warm.
      yield* Effect.scoped(Effect.flatMap(Claude.open({ executable: fakeCli, env: fakeEnv() }), (s) => Stream.runDrain(s.turn("go"))))
      const before = memoryNow()
      for (let i = 0; i < n; i++) {
        const session = yield* Claude.open({ executable: fakeCli, env: fakeEnv() })
        yield* Stream.runDrain(session.turn("go"))
      }
      return idleFigures(n, before)
    }).pipe(Effect.scoped, Effect.provide(layer))
  )
  report(figures)
}

const sdkIdle = async (): Promise<void> => {
  const { query } = await import("@anthropic-ai/claude-agent-sdk")
  const n = params.sessions ?? 20
  const releases: Array<() => void> = []
  const open = async () => {
    let release: (() => void) | undefined
    const closed = new Promise<void>((resolve) => (release = resolve))
    releases.push(() => release?.())
    async function* prompt() {
      yield { type: "user" as const, message: { role: "user" as const, content: "go" }, parent_tool_use_id: null, session_id: "" }
      await closed
    }
    const q = query({
      prompt: prompt(),
      options: { pathToClaudeCodeExecutable: fakeCli, executable: "node", includePartialMessages: true, env: { ...process.env, ...fakeEnv() } }
    })
    // Read up to the first result, then leave the query open and idle (not returned: that ends it).
    const iterator = q[Symbol.asyncIterator]()
    while (true) {
      const next = await iterator.next()
      if (next.done === true || next.value.type === "result") break
    }
    return q
  }
  const warm = await open()
  releases.pop()?.()
  warm.close()
  const before = memoryNow()
  const queries = []
  for (let i = 0; i < n; i++) queries.push(await open())
  const figures = idleFigures(n, before)
  for (const release of releases) release()
  for (const q of queries) q.close()
  report(figures)
}

/** Where start-up goes: each import's time, in this order, in a fresh process. */
const imports = async (): Promise<void> => {
  const lap = (() => {
    let last = performance.now()
    return () => {
      const now = performance.now()
      const d = now - last
      last = now
      return d
    }
  })()
  const figures: Record<string, number> = { bootMs: performance.now() }
  lap()
  if (params.which === "barrel") {
    await import("effect/Effect")
    lap()
    await import("@effect/platform-node")
    figures.barrelMs = lap()
  } else if (params.which === "lib-parts") {
    // The library's share, part by part: after the floor, what it loads from
    // @effect/platform-node (NodeRuntime, for `ClaudeNode.runMain`), imported first on its own,
    // then the library's own files. (`node:child_process` is loaded by this harness before any
    // scenario, so it is in none of the imports' figures, the SDK's included.)
    await import("effect/Effect")
    await import("effect/Stream")
    await import("effect/Layer")
    await import("effect/Schema")
    lap()
    await import("@effect/platform-node/NodeRuntime")
    figures.nodeRuntimeMs = lap()
    await loadClaude()
    await loadNodeEntry()
    figures.libraryCodeMs = lap()
  } else if (params.which === "sdk") {
    await import("@anthropic-ai/claude-agent-sdk")
    figures.sdkMs = lap()
  } else if (params.which === "floor") {
    // The floor alone, for what its modules leave V8's young generation at (no time taken here).
    await import("effect/Effect")
    await import("effect/Stream")
    await import("effect/Layer")
    await import("effect/Schema")
  } else {
    // First the floor, what any Effect program that streams and decodes with Schema loads
    // without this library; then the library's modules as a program imports them
    // (`effect-claude-code/Claude` and `effect-claude-code/node`).
    await import("effect/Effect")
    figures.effectMs = lap()
    await import("effect/Stream")
    await import("effect/Layer")
    await import("effect/Schema")
    figures.streamLayerSchemaMs = lap()
    figures.floorYoungGenMb = youngGenMb()
    lap()
    await loadClaude()
    await loadNodeEntry()
    figures.libraryMs = lap()
  }
  // What the imports left V8's young generation at (see the short turns' figures), and what one
  // scavenge makes of it when nothing more is kept: the bytes that survive a scavenge count
  // toward its growth, and what the modules keep alive is promoted at the next one.
  figures.youngGenMb = youngGenMb()
  await oneScavenge()
  figures.youngGenAfterScavengeMb = youngGenMb()
  report(figures)
}

/** Allocates short-lived garbage, a little each turn of the event loop, until V8 has run one scavenge. */
const oneScavenge = async (): Promise<void> => {
  let scavenges = 0
  const observer = new NodePerf.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (((entry as { readonly detail?: unknown }).detail as { readonly kind?: number } | undefined)?.kind === NodePerf.constants.NODE_PERFORMANCE_GC_MINOR) scavenges++
    }
  })
  observer.observe({ entryTypes: ["gc"] })
  while (scavenges === 0) {
    // Kept in a module-level slot, each until the next: the optimizing compiler cannot drop them.
    for (let i = 0; i < 1000; i++) garbage = [i, `x${i}`]
    await new Promise((resolve) => setImmediate(resolve))
  }
  observer.disconnect()
  garbage = undefined
}
let garbage: unknown

const scenarios: Record<string, () => Promise<void>> = {
  lib: libThroughput,
  raw: runRaw,
  sdk: sdkThroughput,
  "lib-real-start": libRealStart,
  "sdk-real-start": sdkRealStart,
  "lib-interrupt": libInterrupt,
  "sdk-interrupt": sdkInterrupt,
  "raw-interrupt": rawInterrupt,
  "lib-slow": libSlow,
  "sdk-slow": sdkSlow,
  "lib-many": libMany,
  "lib-turns": libTurns,
  "sdk-turns": sdkTurns,
  "raw-turns": rawTurns,
  "validated-turns": validatedTurns,
  "effect-turns": effectTurns,
  "lib-idle": libIdle,
  "sdk-idle": sdkIdle,
  imports,
  "effect-floor": effectFloor
}

const main = scenarios[scenario]
if (main === undefined) {
  process.stderr.write(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(", ")}\n`)
  process.exit(2)
}
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error instanceof Error ? error.stack : error) }) + "\n")
    process.exit(1)
  }
)
