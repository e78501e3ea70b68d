/**
 * Soak: one session, many turns, on the load fake CLI (bench/fake-cli-load.mjs) with a Stop hook
 * (`Hooks.layer`) and an in-process MCP server `byre`/`echo` (`McpServers.layer`) answering on
 * every turn. Measures the heap used (after `gc()`) after the warm-up turns and after all of them:
 * a leak of fibers, Deferreds, subscribers or listeners per turn shows as growth.
 *
 *   node bench/soak.ts [--turns 2000] [--warmup 100] [--events 50] [--json]
 *
 * Re-runs itself under `node --expose-gc` when `gc` is not exposed. With `--json` the last line of
 * stdout is one JSON object: { turns, warmup, events, heapAtWarmup, heapAtEnd, ratio, durationMs,
 * hookAnswers, mcpAnswers, eventsSeen }.
 */
import { NodeServices } from "@effect/platform-node"
import { spawnSync } from "node:child_process"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"

const gc = (globalThis as { gc?: () => void }).gc

if (gc === undefined) {
  // Re-run under --expose-gc, passing the output through.
  const child = spawnSync(process.execPath, ["--expose-gc", ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)], {
    stdio: "inherit"
  })
  process.exit(child.status ?? 1)
}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const value = i === -1 ? undefined : Number(process.argv[i + 1])
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback
}
const TURNS = arg("turns", 2000)
const WARMUP = Math.min(arg("warmup", 100), TURNS)
const EVENTS = arg("events", 50)
const JSON_OUTPUT = process.argv.includes("--json")

const LOAD_CLI = Path.join(import.meta.dirname, "fake-cli-load.mjs")

const heapUsed = (): number => {
  // Twice: the first collection can leave finalizable objects for the second.
  gc!()
  gc!()
  return process.memoryUsage().heapUsed
}

const byre = McpServers.server("byre", {
  tools: [
    McpServers.tool({
      name: "echo",
      description: "Echo the given text back.",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(`echo: ${text}`)
    })
  ]
})

const soak = Effect.gen(function*() {
  let hookCalls = 0
  const session = yield* Claude.open({
    executable: LOAD_CLI,
    env: { FAKE_CLI_EVENTS: String(EVENTS), FAKE_CLI_STOP_HOOK: "1", FAKE_CLI_MCP: "1" },
    closeGrace: "5 seconds"
  }).pipe(
    Effect.provide(Layer.mergeAll(
      Hooks.layer(Hooks.on("Stop", () =>
        Effect.sync(() => {
          hookCalls++
          return Hooks.allow()
        }))),
      McpServers.layer(byre)
    ))
  )
  yield* session.initializeResult
  let hookAnswers = 0
  let mcpAnswers = 0
  let eventsSeen = 0
  let heapAtWarmup = 0
  const started = performance.now()
  for (let i = 1; i <= TURNS; i++) {
    let result: Claude.TurnResult | undefined
    yield* session.turn(`turn ${i}`).pipe(
      Stream.runForEach((event) =>
        Effect.sync(() => {
          eventsSeen++
          if (event.type === "result") result = event
        })
      )
    )
    if (result === undefined || result.subtype !== "success") {
      return yield* Effect.die(new Error(`turn ${i} ended without a successful result`))
    }
    const extra = result as unknown as { stop_hook_answer?: unknown; mcp_answer?: unknown }
    if (extra.stop_hook_answer === "success") hookAnswers++
    if (extra.mcp_answer === "success") mcpAnswers++
    if (i === WARMUP) heapAtWarmup = heapUsed()
  }
  const heapAtEnd = heapUsed()
  const durationMs = Math.round(performance.now() - started)
  return {
    turns: TURNS,
    warmup: WARMUP,
    events: EVENTS,
    heapAtWarmup,
    heapAtEnd,
    ratio: Math.round((heapAtEnd / heapAtWarmup) * 1000) / 1000,
    durationMs,
    hookAnswers,
    hookCalls,
    mcpAnswers,
    eventsSeen
  }
})

const report = await Effect.runPromise(
  Effect.scoped(soak).pipe(
    Effect.provide(Claude.layerProcess.pipe(Layer.provide(NodeServices.layer))),
    Effect.provideService(References.MinimumLogLevel, "Warn")
  )
)

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`
console.log(
  `soak: ${report.turns} turns (${report.events} deltas each, Stop hook + MCP echo per turn) in ${report.durationMs} ms ` +
    `(${(report.durationMs / report.turns).toFixed(2)} ms/turn)\n` +
    `  heap used after ${report.warmup} turns: ${mib(report.heapAtWarmup)}\n` +
    `  heap used after ${report.turns} turns: ${mib(report.heapAtEnd)}\n` +
    `  ratio: ${report.ratio} (hook answers ${report.hookAnswers}, MCP answers ${report.mcpAnswers}, events ${report.eventsSeen})`
)
if (JSON_OUTPUT) console.log(JSON.stringify(report))
