/**
 * `npm run bench`: the library against plain Node and the official TypeScript SDK.
 *
 *   node bench/run.ts            # the full run (writes BENCHMARKS.md)
 *   BENCH_QUICK=1 node bench/run.ts   # small N, 2 pairs, no BENCHMARKS.md (development)
 *   BENCH_ONLY=interrupt,slow node bench/run.ts   # a subset (throughput, turns, fullfinal, idle,
 *                                                 # bundle, startup, interrupt, slow, many,
 *                                                 # cluster, profile, profile-turns, timeline); no BENCHMARKS.md
 *   BENCH_QUICK=1 BENCH_MD=out.md …   # a quick or partial run's page written to out.md (checking the page)
 *   BENCH_PAIRS=7 …   # more rounds
 *
 * The full run makes every part above and writes them all into BENCHMARKS.md: the targets table
 * (issue 21's targets and those of issues 7 and 18 that still apply, each met or missed by its
 * median ratio with min and max), what holds and what limits the missed ones (from the figures),
 * the summary lines and a section per part; it prints how long each part took at the end.
 *
 * Every measurement runs in a fresh child Node process (`bench/child.ts`), so its peak RSS is its
 * own. Every figure is a ratio between runs made side by side in this invocation: the runs
 * alternate (A B A B …, at least 5 pairs), and a figure is the median of the per-pair ratios,
 * with their min and max. The library is measured built as it ships (`scripts/build.ts` into
 * `.tmp/bench-dist`), as users run it.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { packageAsBuilt } from "../test/support/packageAsBuilt.ts"
import * as TimelineBench from "./timeline.ts"

const root = Path.resolve(import.meta.dirname, "..")
const quick = process.env.BENCH_QUICK === "1"
const PAIRS = Number(process.env.BENCH_PAIRS ?? (quick ? 2 : 5))
const BIG = quick ? 100_000 : 1_000_000
const SMALL = quick ? 10_000 : 100_000
// The 1M-event slow consumer runs until the Stop hook is answered and every line is read (the
// consumer would need ~17 minutes to reach the end; the memory and the hook are settled by then).
const SLOW = { events: quick ? 100_000 : 1_000_000, delayMs: 1 }
const SLOW_PAIR = { events: quick ? 1_000 : 3_000, delayMs: 1 }
const MANY = { sessions: 50, events: quick ? 2_000 : 10_000 }
// Short turns: 13 deltas + 9 lines around them = 22 lines a turn, as a short agent turn.
const TURNS = { deltas: 13, few: quick ? 200 : 2_000, many: quick ? 2_000 : 20_000 }
const IDLE = { sessions: quick ? 10 : 50 }
const dist = Path.join(root, ".tmp/bench-dist")
const modulesDist = Path.join(root, ".tmp/bench-dist-modules")
const fakeCli = Path.join(root, "bench/fake-cli-load.mjs")
const began = Date.now()

type Figures = Record<string, unknown> & { readonly ok: boolean; readonly peakRssMb: number }

const lines: Array<string> = []
const sections: Array<string> = []
const out = (line: string) => {
  lines.push(line)
  process.stdout.write(line + "\n")
}

// ---- children --------------------------------------------------------------------------------

interface RunOptions {
  readonly timeoutMs?: number
  readonly nodeArgs?: ReadonlyArray<string>
  readonly cwd?: string
  readonly env?: Record<string, string>
}

/** A scenario of `bench/child.ts` in a fresh process: its figures (the last line it prints). */
const runChild = (scenario: string, params: Record<string, unknown>, options: RunOptions = {}): Promise<Figures> =>
  runScript(scenario, [Path.join(root, "bench/child.ts"), scenario, JSON.stringify(params)], options)

/** `node <args>` in a fresh process group (all of it killed at the end): the figures it prints last. */
const runScript = (label: string, args: ReadonlyArray<string>, options: RunOptions = {}): Promise<Figures> =>
  new Promise((resolve, reject) => {
    const child = ChildProcess.spawn(
      process.execPath,
      [...(options.nodeArgs ?? []), ...args],
      { cwd: options.cwd ?? root, env: { ...process.env, BENCH_DIST: dist, ...options.env }, stdio: ["ignore", "pipe", "pipe"], detached: true }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s))
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr = (stderr + s).slice(-4000)))
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // gone
      }
    }, options.timeoutMs ?? 120_000)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      // The whole process group: whatever the child started (the CLI, a tool) goes with it.
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // already gone, as it should be
      }
      const last = stdout.trim().split("\n").at(-1) ?? ""
      try {
        const figures = JSON.parse(last) as Figures
        if (figures.ok) return resolve(figures)
        reject(new Error(`${label}: ${String(figures.error)}`))
      } catch {
        reject(new Error(`${label}: exit ${code ?? signal}, stdout ${stdout.slice(-500)}, stderr ${stderr}`))
      }
    })
  })

/** Fresh fake model + HOME + cwd for one real-CLI child; everything removed afterwards. */
const withModel = async <A>(
  script: FakeModel.Script,
  body: (params: { modelEnv: Record<string, string | null>; cwd: string }) => Promise<A>
): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-bench-home-"))
  const cwd = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-bench-cwd-"))
  try {
    const model = await Effect.runPromise(Scope.provide(scope)(FakeModel.make(script)))
    const modelEnv: Record<string, string | null> = {}
    for (const [k, v] of Object.entries(model.cliEnvironment(home))) modelEnv[k] = v ?? null
    return await body({ modelEnv, cwd })
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    Fs.rmSync(home, { recursive: true, force: true })
    Fs.rmSync(cwd, { recursive: true, force: true })
  }
}

const textScript = (): FakeModel.Script => [FakeModel.text("Hello from the fake model.", { chunks: 4 })]
const slowToolScript = (): FakeModel.Script => [
  FakeModel.toolUse("Bash", { command: "node -e \"setTimeout(()=>{},30000)\"", description: "slow" }),
  FakeModel.text("after")
]

// ---- statistics ----------------------------------------------------------------------------------

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const fmt = (x: number, digits = 2): string => x.toFixed(digits)
const summary = (xs: ReadonlyArray<number>, digits = 2): string =>
  `${fmt(median(xs), digits)} (min ${fmt(Math.min(...xs), digits)}, max ${fmt(Math.max(...xs), digits)})`
const num = (f: Figures, key: string): number => Number(f[key])
const ratios = (as: ReadonlyArray<Figures>, bs: ReadonlyArray<Figures>, key: string) =>
  as.map((a, i) => num(a, key) / num(bs[i]!, key))
const diffs = (as: ReadonlyArray<Figures>, bs: ReadonlyArray<Figures>, key: string) =>
  as.map((a, i) => num(a, key) - num(bs[i]!, key))
const col = (fs: ReadonlyArray<Figures>, key: string) => fs.map((f) => num(f, key))

/** Rounds of side-by-side runs: in each round every scenario once, in a rotated order. */
const rounds = async (
  scenarios: ReadonlyArray<{ readonly name: string; readonly run: () => Promise<Figures> }>,
  n: number
): Promise<Record<string, Array<Figures>>> => {
  const results: Record<string, Array<Figures>> = {}
  for (const s of scenarios) results[s.name] = []
  for (let r = 0; r < n; r++) {
    for (let k = 0; k < scenarios.length; k++) {
      const s = scenarios[(k + r) % scenarios.length]!
      results[s.name]!.push(await s.run())
    }
    process.stderr.write(`  round ${r + 1}/${n} of ${scenarios.map((s) => s.name).join(", ")} done\n`)
  }
  return results
}

const target = (ok: boolean) => (ok ? "target met" : "TARGET MISSED")
/**
 * The targets table: one row per target, in the order of `TARGETS` (not the order the scenarios
 * run in). The issue that set it is its second column.
 */
const TARGETS = [
  "turns-ms-few", "turns-ms-many", "turns-cpu-few", "turns-cpu-many", "turns-rss", "turns-rss-bundled",
  "throughput-raw", "throughput-sdk-small", "throughput-sdk-big", "fullfinal-rss", "fullfinal-rss-bundled",
  "startup-own", "startup-bundled-sdk-bundled", "startup-bundled-sdk-unbundled",
  "interrupt", "slow", "timeline"
] as const
const targets: Array<{ readonly key: (typeof TARGETS)[number]; readonly row: string; readonly ok: boolean }> = []
/** Why a target is missed, and what holds, from the measurements (filled as the figures are made). */
const limits: Array<string> = []
let smallLibRss: number | undefined
const addTarget = (key: (typeof TARGETS)[number], issue: number, name: string, ok: boolean, detail: string) =>
  targets.push({ key, ok, row: `| ${name} | ${issue} | ${ok ? "met" : "**missed**"} | ${detail} |` })
/** How far short of a ratio target a median is, for a missed row. */
const short = (x: number, goal: number, atLeast: boolean): string =>
  atLeast
    ? (x >= goal ? "" : `: ${fmt(100 * (1 - x / goal), 0)}% short of ${goal}`)
    : (x <= goal ? "" : `: ${fmt(100 * (x / goal - 1), 0)}% over ${goal}`)

/** The start-up figures, kept for the targets and the prose written once all are measured. */
const startup: {
  /** The throughput runs' programs (unbundled) at the small N on the fake CLI. */
  fake?: {
    readonly lib: number
    readonly sdk: number
    readonly ratio: ReadonlyArray<number>
    readonly diff: ReadonlyArray<number>
    readonly floor: number
    readonly floorVsSdk: ReadonlyArray<number>
    readonly libMinusFloor: ReadonlyArray<number>
    readonly libCache: number
    readonly sdkCache: number
    readonly cacheRatio: ReadonlyArray<number>
  }
  /** The imports breakdown (ms per round). */
  imports?: {
    readonly core: ReadonlyArray<number>
    readonly floor: ReadonlyArray<number>
    readonly library: ReadonlyArray<number>
    readonly sdk: ReadonlyArray<number>
    /** The library's program − a bare Effect program's, first event of a 100-event turn (ms per round). */
    readonly endToEnd: ReadonlyArray<number>
    /** The same share part by part, imported one after the other in another process. */
    readonly parts: {
      readonly nodeRuntime: ReadonlyArray<number>
      readonly code: ReadonlyArray<number>
    }
  }
  bundled?: {
    readonly ms: number
    readonly cacheMs: number
    readonly sdkBundledMs: number
    readonly sdkUnbundledMs: number
    readonly vsSdkBundled: ReadonlyArray<number>
    readonly vsSdkUnbundled: ReadonlyArray<number>
    readonly partlyMs: number
    readonly partlyVsSdkUnbundled: ReadonlyArray<number>
    readonly kb: number
    readonly sdkKb: number
  }
  real?: { readonly ratio: ReadonlyArray<number>; readonly diff: ReadonlyArray<number> }
} = {}

const sortedTargets = () => [...targets].sort((a, b) => TARGETS.indexOf(a.key) - TARGETS.indexOf(b.key))

/** Start-up's target rows and its "what holds, what limits" paragraph, from whatever was measured. */
const startupTargets = () => {
  const { fake, imports, bundled, real } = startup
  if (imports !== undefined) {
    const own = median(imports.library)
    addTarget("startup-own", 21, "the library's own share of unbundled start-up ≤ 15 ms", own <= 15, `the import of the library as it ships, as a program imports it (\`effect-claude-code/Claude\` and \`effect-claude-code/node\`, with what they load) in a fresh process after the floor (Effect, Stream, Layer, Schema): ${summary(imports.library, 1)} ms${own <= 15 ? "" : `: ${fmt(own - 15, 0)} ms over`}; of which, imported one after the other in another process, \`@effect/platform-node/NodeRuntime\` (for \`ClaudeNode.runMain\`) ${summary(imports.parts.nodeRuntime, 1)} ms and the library's own files ${summary(imports.parts.code, 1)} ms. For information, end to end: the library's program − a bare Effect program that spawns through \`effect/process\` with NodeServices (modules the library's program does not load, so not the library's share) to the first event of a 100-event turn, per round ${summary(imports.endToEnd, 0)} ms (\`throughput\`, ${OWN_ROUNDS} rounds)`)
  }
  if (bundled !== undefined) {
    const b = median(bundled.vsSdkBundled)
    const u = median(bundled.vsSdkUnbundled)
    addTarget("startup-bundled-sdk-bundled", 21, "start-up to first event of a bundled library program ≤ a bundled SDK program's", b <= 1, `library/SDK ${summary(bundled.vsSdkBundled)}; ${fmt(bundled.ms, 0)} vs ${fmt(bundled.sdkBundledMs, 0)} ms (\`bundle\`)${short(b, 1, false)}`)
    addTarget("startup-bundled-sdk-unbundled", 21, "start-up to first event of a bundled library program ≤ an unbundled SDK program's", u <= 1, `library/SDK ${summary(bundled.vsSdkUnbundled)}; ${fmt(bundled.ms, 0)} vs ${fmt(bundled.sdkUnbundledMs, 0)} ms (\`bundle\`)${short(u, 1, false)}`)
  }
  const parts: Array<string> = []
  if (bundled !== undefined) {
    const b = median(bundled.vsSdkBundled)
    const u = median(bundled.vsSdkUnbundled)
    const figures = `a library program bundled with esbuild (\`effect\` inside, ${fmt(bundled.kb, 0)} KB) reaches its first event in ${fmt(bundled.ms, 0)} ms, ${summary(bundled.vsSdkBundled)} of a bundled SDK program's (${fmt(bundled.sdkKb, 0)} KB, ${fmt(bundled.sdkBundledMs, 0)} ms) and ${summary(bundled.vsSdkUnbundled)} of an unbundled one's (${fmt(bundled.sdkUnbundledMs, 0)} ms)`
    parts.push(b <= 1 && u <= 1
      ? `Bundled, start-up no slower than the SDK's holds: ${figures}. Effect's many modules are a cost of loading them one by one, not of the stack: one file removes it (docs/bundling.md).`
      : b > 1 && u > 1
      ? `Bundled, start-up no slower than the SDK's does not hold in this run: ${figures}.`
      : `Bundled, start-up no slower than the SDK's holds against the ${b <= 1 ? "bundled" : "unbundled"} SDK program but not against the ${b <= 1 ? "unbundled" : "bundled"} one in this run: ${figures}.`)
  }
  if (fake !== undefined) {
    const r = median(fake.ratio)
    const i = imports
    parts.push(r <= 1
      ? `Unbundled, it holds in this run as well: library/SDK ${summary(fake.ratio)}.`
      : `Unbundled, it does not hold: a program that loads the library and \`effect\` from node_modules reaches its first event at ${summary(fake.ratio)} of the SDK's time (library − SDK ${summary(fake.diff, 0)} ms)${real === undefined ? "" : `, and on the real CLI at ${summary(real.ratio)} (library − SDK ${summary(real.diff, 0)} ms)`}. ${i === undefined ? "" : `The Effect modules any such program loads to stream and decode (Effect, Stream, Layer, Schema) take ${fmt(median(i.floor), 0)} ms to import, against ${fmt(median(i.sdk), 0)} ms for the SDK's whole bundle; the library's own modules (\`effect-claude-code/Claude\` and \`/node\`, with what they load beyond those) add ${fmt(median(i.library), 0)} ms. `}A bare Effect program that spawns the CLI through \`effect/process\` (with NodeServices) and \`JSON.parse\`s its stdout, no library, reaches its first event at ${fmt(fake.floor, 0)} ms (/SDK ${summary(fake.floorVsSdk)}); the library adds ${summary(fake.libMinusFloor, 0)} ms to that floor. Node's compile cache (\`NODE_COMPILE_CACHE\`) cuts both (library ${fmt(fake.libCache, 0)} ms, SDK ${fmt(fake.sdkCache, 0)} ms; library/SDK ${summary(fake.cacheRatio)}). Unbundled start-up no slower than the SDK's is not a target; what the library controls there is its own share (the target row \"the library's own share of unbundled start-up\").`)
  }
  if (parts.length > 0) limits.push(`- **Start-up** (see "Start-up of a shipped program" and "Where start-up goes"): ${parts.join(" ")}`)
}

// ---- figures ---------------------------------------------------------------------------------------

const SEMI = "--max-semi-space-size=4"
/** Issue 21's throughput targets: library/raw Node at the big N, library/SDK at both Ns. */
const RAW_GOAL = 0.85
const SDK_GOAL = 1.5
/** The library's own share of start-up is a small difference of two large times: twice the rounds. */
const OWN_ROUNDS = 2 * PAIRS
/** Peak RSS at the big N with V8's young generation capped, both processes (for the limits). */
let semiFigures: { readonly lib: number; readonly sdk: number; readonly ratio: ReadonlyArray<number>; readonly speed: ReadonlyArray<number> } | undefined
const compileCache = Path.join(root, ".tmp/bench-compile-cache")

const throughput = async (events: number) => {
  // The big N (1M; 100k with BENCH_QUICK) carries the big-N targets and the young-generation runs.
  const big = events === BIG
  const r = await rounds([
    { name: "lib", run: () => runChild("lib", { events }) },
    { name: "raw", run: () => runChild("raw", { events }) },
    { name: "sdk", run: () => runChild("sdk", { events }) },
    // What limits the library's peak RSS: V8's young generation, which grows with the allocation rate.
    ...(big ? [
      // The same turn read in chunks (`Stream.runForEachArray`), the fastest way to consume it.
      { name: "libArray", run: () => runChild("lib", { events, consumer: "array" }) },
      { name: "libSemi", run: () => runChild("lib", { events }, { nodeArgs: [SEMI] }) },
      { name: "sdkSemi", run: () => runChild("sdk", { events }, { nodeArgs: [SEMI] }) }
    ] : [
      // The floor: a bare Effect program spawning the CLI through effect/process, no library.
      { name: "floor", run: () => runChild("effect-floor", { events }) },
      // Node's on-disk compile cache (NODE_COMPILE_CACHE, Node ≥ 22.1), warm after the first round, for both.
      { name: "libCache", run: () => runChild("lib", { events }, { env: { NODE_COMPILE_CACHE: compileCache } }) },
      { name: "sdkCache", run: () => runChild("sdk", { events }, { env: { NODE_COMPILE_CACHE: compileCache } }) }
    ])
  ], PAIRS)
  const vsRaw = ratios(r.lib!, r.raw!, "eventsPerSec")
  const vsSdk = ratios(r.lib!, r.sdk!, "eventsPerSec")
  // What raw Node's loop (split and JSON.parse, nothing else) reaches against the SDK on this machine.
  const rawVsSdk = ratios(r.raw!, r.sdk!, "eventsPerSec")
  const ceiling = `raw/SDK ${summary(rawVsSdk)} (raw Node: split and JSON.parse only)`
  const rss = ratios(r.lib!, r.sdk!, "peakRssMb")
  const label = countLabel(events)
  out(`throughput ${label}: library/raw ${summary(vsRaw)}${big ? ` [≥${RAW_GOAL}: ${target(median(vsRaw) >= RAW_GOAL)}]` : ""}; library/SDK ${summary(vsSdk)} [≥${SDK_GOAL}: ${target(median(vsSdk) >= SDK_GOAL)}]; ${ceiling}; events/s median library ${fmt(median(col(r.lib!, "eventsPerSec")), 0)}, raw ${fmt(median(col(r.raw!, "eventsPerSec")), 0)}, SDK ${fmt(median(col(r.sdk!, "eventsPerSec")), 0)}`)
  if (big) out(`throughput ${label}, the turn read with Stream.runForEachArray: ${summary(ratios(r.libArray!, r.lib!, "eventsPerSec"))} of Stream.runForEach's events/s; /SDK ${summary(ratios(r.libArray!, r.sdk!, "eventsPerSec"))}`)
  const usPerEvent = (k: string) => fmt(median(r[k]!.map((f) => (1000 * num(f, "cpuMs")) / num(f, "count"))), 2)
  out(`CPU time ${label}: library/raw ${summary(ratios(r.lib!, r.raw!, "cpuMs"))}, library/SDK ${summary(ratios(r.lib!, r.sdk!, "cpuMs"))} (ms: library ${fmt(median(col(r.lib!, "cpuMs")), 0)}, raw ${fmt(median(col(r.raw!, "cpuMs")), 0)}, SDK ${fmt(median(col(r.sdk!, "cpuMs")), 0)}; µs per event, start-up included: library ${usPerEvent("lib")}, raw ${usPerEvent("raw")}, SDK ${usPerEvent("sdk")})`)
  out(`peak RSS ${label}: library ${fmt(median(col(r.lib!, "peakRssMb")), 0)} MB, raw ${fmt(median(col(r.raw!, "peakRssMb")), 0)} MB, SDK ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB; library/SDK ${summary(rss)} (load fake, final lines without the text: no target, see the final lines' run)`)
  const eps = (k: string) => fmt(median(col(r[k]!, "eventsPerSec")), 0)
  addTarget(big ? "throughput-sdk-big" : "throughput-sdk-small", 21, `throughput ≥ ${SDK_GOAL}× the SDK at ${label}, every line validated`, median(vsSdk) >= SDK_GOAL, `library/SDK ${summary(vsSdk)}; ${eps("lib")} vs ${eps("sdk")} events/s${short(median(vsSdk), SDK_GOAL, true)}; ${ceiling}`)
  if (median(vsSdk) < SDK_GOAL && !big) {
    smallLimit = limits.length
    limits.push(`- **Throughput at ${label}** (library/SDK ${summary(vsSdk)}; events/s from the first event to the result): ${ceiling}${median(rawVsSdk) < SDK_GOAL ? `; raw Node's loop does not reach ${SDK_GOAL} either` : ""}. The library's CPU time for the run is ${summary(ratios(r.lib!, r.sdk!, "cpuMs"))} of the SDK's and ${summary(ratios(r.lib!, r.raw!, "cpuMs"))} of raw Node's (start-up included), ${usPerEvent("lib")} µs per event against ${usPerEvent("sdk")} and ${usPerEvent("raw")}; where it goes: the CPU profile at ${BIG} events.`)
  }
  if (big) {
    addTarget("throughput-raw", 21, `throughput ≥ ${RAW_GOAL}× raw Node at ${label}, every line validated`, median(vsRaw) >= RAW_GOAL, `library/raw ${summary(vsRaw)}; ${eps("lib")} vs ${eps("raw")} events/s${short(median(vsRaw), RAW_GOAL, true)}`)
    const cpuVsSdk = ratios(r.lib!, r.sdk!, "cpuMs")
    const cpuVsRaw = ratios(r.lib!, r.raw!, "cpuMs")
    if (median(vsSdk) < SDK_GOAL || median(vsRaw) < RAW_GOAL) {
      limits.push(`- **Throughput at ${label}** (library/SDK ${fmt(median(vsSdk))}, library/raw ${fmt(median(vsRaw))}; ${ceiling}): wall-clock events/s are bounded by two processes (the load CLI writing ~300 MB, the consumer parsing it) sharing ${Os.cpus().length} cores, so the ratio of rates understates the gap in work. The library's CPU time per ${label}-event run is ${summary(cpuVsSdk)} of the SDK's and ${summary(cpuVsRaw)} of raw Node's (start-up included). Where the library's CPU goes: see the profile (JSON.parse of every line is the floor, shared with raw Node and the SDK: the library parses the whole lines of each read in one call, \`parseRun\`; then the line splitter and UTF-8 decoding; the Effect runtime and the schema checks are a few % each).`)
    }
    semiFigures = {
      lib: median(col(r.libSemi!, "peakRssMb")),
      sdk: median(col(r.sdkSemi!, "peakRssMb")),
      ratio: ratios(r.libSemi!, r.sdkSemi!, "peakRssMb"),
      speed: ratios(r.libSemi!, r.lib!, "eventsPerSec")
    }
  }
  sections.push([
    `### Throughput, ${label} events in one turn`,
    "",
    "| run | events/s (median) | min | max | peak RSS MB (median) | seconds (median) |",
    "|---|---|---|---|---|---|",
    ...(big ? ["lib", "libArray", "raw", "sdk", "libSemi", "sdkSemi"] as const : ["lib", "raw", "sdk"] as const).map((k) => {
      const eps = col(r[k]!, "eventsPerSec")
      const name = { lib: "library", libArray: "library, read with `Stream.runForEachArray`", raw: "raw Node", sdk: "official SDK", libSemi: `library, \`node ${SEMI}\``, sdkSemi: `official SDK, \`node ${SEMI}\`` }[k]
      return `| ${name} | ${fmt(median(eps), 0)} | ${fmt(Math.min(...eps), 0)} | ${fmt(Math.max(...eps), 0)} | ${fmt(median(col(r[k]!, "peakRssMb")), 0)} | ${fmt(median(col(r[k]!, "seconds")), 2)} |`
    }),
    "",
    `- library/raw, per-round ratios: ${summary(vsRaw)}`,
    `- library/SDK, per-round ratios: ${summary(vsSdk)}`,
    `- raw/SDK, per-round ratios (raw Node's loop: split and JSON.parse only): ${summary(rawVsSdk)}`,
    ...(big ? [`- the same turn read in chunks (\`Stream.runForEachArray\`) against one event at a time (\`Stream.runForEach\`), events/s: ${summary(ratios(r.libArray!, r.lib!, "eventsPerSec"))}; /SDK ${summary(ratios(r.libArray!, r.sdk!, "eventsPerSec"))}`] : []),
    `- peak RSS library/SDK: ${summary(rss)}`,
    `- CPU time of the consuming process (user + system, start-up included; less sensitive to a busy machine than wall time): library ${fmt(median(col(r.lib!, "cpuMs")), 0)} ms, raw ${fmt(median(col(r.raw!, "cpuMs")), 0)} ms, SDK ${fmt(median(col(r.sdk!, "cpuMs")), 0)} ms; library/raw ${summary(ratios(r.lib!, r.raw!, "cpuMs"))}, library/SDK ${summary(ratios(r.lib!, r.sdk!, "cpuMs"))}; CPU µs per event (start-up included): library ${usPerEvent("lib")}, raw ${usPerEvent("raw")}, SDK ${usPerEvent("sdk")}`,
    ...(big
      ? [`- peak RSS with \`${SEMI}\` (V8's young generation capped at 4 MB a semi-space) for both: library ${fmt(median(col(r.libSemi!, "peakRssMb")), 0)} MB, SDK ${fmt(median(col(r.sdkSemi!, "peakRssMb")), 0)} MB, library/SDK ${summary(ratios(r.libSemi!, r.sdkSemi!, "peakRssMb"))}; events/s vs the default flags: library ${summary(ratios(r.libSemi!, r.lib!, "eventsPerSec"))}, SDK ${summary(ratios(r.sdkSemi!, r.sdk!, "eventsPerSec"))}`]
      : []),
    `- events per turn counted (library, raw, SDK): ${num(r.lib![0]!, "count")}, ${num(r.raw![0]!, "count")}, ${num(r.sdk![0]!, "count")}`,
    ""
  ].join("\n"))
  return r
}

/** Where the small-N throughput target's limit is in `limits` (when missed), for {@link warmUp}. */
let smallLimit: number | undefined

/** `n` events as the figures name them: 100k, 1M. */
const countLabel = (n: number) => n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`

/**
 * The small N against the big one, per program, from the medians of their seconds (first event
 * to result): what each further small-N batch of the big run takes on average, `(big − small)`
 * over its batches, and how much more the first batch took: why the ratio at the small N is not
 * the one at the big N.
 */
const warmUp = (small: Record<string, Array<Figures>>, big: Record<string, Array<Figures>>) => {
  const batches = BIG / SMALL
  const figures = (k: string) => {
    const first = median(col(small[k]!, "seconds")) * 1000
    const further = (median(col(big[k]!, "seconds")) * 1000 - first) / (batches - 1)
    return { further, more: first - further }
  }
  const lib = figures("lib"), raw = figures("raw"), sdk = figures("sdk")
  // A noisy quick run can leave nothing to compare.
  if (!(lib.further > 0 && raw.further > 0 && sdk.further > 0)) return
  const label = countLabel(SMALL)
  const text = `on average each further ${label} events of the ${countLabel(BIG)} run take the library ${fmt(lib.further, 0)} ms, raw Node ${fmt(raw.further, 0)} ms and the SDK ${fmt(sdk.further, 0)} ms (library/SDK ${fmt(sdk.further / lib.further)} at those rates, library/raw ${fmt(raw.further / lib.further)}), and the first ${label} took more: the library ${fmt(lib.more, 0)} ms, raw Node ${fmt(raw.more, 0)} ms, the SDK ${fmt(sdk.more, 0)} ms (warming up: code V8 has not yet optimized, among other things; from the medians of the ${label} and ${countLabel(BIG)} runs' seconds)`
  out(`throughput warm-up: ${text}`)
  if (smallLimit !== undefined) limits[smallLimit] += ` Compared with the ${countLabel(BIG)} run: ${text}.`
}

const startupFake = (r: Record<string, Array<Figures>>) => {
  smallLibRss = median(col(r.lib!, "peakRssMb"))
  const ratio = ratios(r.lib!, r.sdk!, "firstEventMs")
  const d = diffs(r.lib!, r.sdk!, "firstEventMs")
  startup.fake = {
    lib: median(col(r.lib!, "firstEventMs")),
    sdk: median(col(r.sdk!, "firstEventMs")),
    ratio,
    diff: d,
    floor: median(col(r.floor!, "firstEventMs")),
    floorVsSdk: ratios(r.floor!, r.sdk!, "firstEventMs"),
    libMinusFloor: diffs(r.lib!, r.floor!, "firstEventMs"),
    libCache: median(col(r.libCache!, "firstEventMs")),
    sdkCache: median(col(r.sdkCache!, "firstEventMs")),
    cacheRatio: ratios(r.libCache!, r.sdkCache!, "firstEventMs")
  }
  out(`start-up to first event, fake CLI, unbundled: library/SDK ${summary(ratio)} (no target: see the bundled program); library ${fmt(median(col(r.lib!, "firstEventMs")), 0)} ms, SDK ${fmt(median(col(r.sdk!, "firstEventMs")), 0)} ms, raw ${fmt(median(col(r.raw!, "firstEventMs")), 0)} ms; library−SDK ${summary(d, 0)} ms`)
  out(`start-up to first event, fake CLI, a bare Effect program (effect/process and NodeServices, spawn, JSON.parse, no library): ${fmt(median(col(r.floor!, "firstEventMs")), 0)} ms (/SDK ${summary(ratios(r.floor!, r.sdk!, "firstEventMs"))}); library − floor ${summary(diffs(r.lib!, r.floor!, "firstEventMs"), 0)} ms`)
  out(`start-up to first event, fake CLI, both with NODE_COMPILE_CACHE: library/SDK ${summary(ratios(r.libCache!, r.sdkCache!, "firstEventMs"))}; library ${fmt(median(col(r.libCache!, "firstEventMs")), 0)} ms, SDK ${fmt(median(col(r.sdkCache!, "firstEventMs")), 0)} ms`)
  sections.push([
    "### Start-up to the first event, fake CLI",
    "",
    "From the child process's time origin (Node's boot, every import included) to the first event of the turn; the same runs as the throughput at the smaller N.",
    "",
    `- library: ${summary(col(r.lib!, "firstEventMs"), 0)} ms; SDK: ${summary(col(r.sdk!, "firstEventMs"), 0)} ms; raw Node: ${summary(col(r.raw!, "firstEventMs"), 0)} ms`,
    `- library/SDK per pair: ${summary(ratio)}; library − SDK: ${summary(d, 0)} ms`,
    `- with Node's compile cache (\`NODE_COMPILE_CACHE\`, warm after the first round) for both: library ${summary(col(r.libCache!, "firstEventMs"), 0)} ms, SDK ${summary(col(r.sdkCache!, "firstEventMs"), 0)} ms; library/SDK per pair ${summary(ratios(r.libCache!, r.sdkCache!, "firstEventMs"))}`,
    `- the floor, a bare Effect program (Effect, Stream, Layer, Schema, \`effect/process\`, NodeServices) that spawns the CLI through \`effect/process\`, writes the two lines and \`JSON.parse\`s stdout up to the first event, with no validation and no control channel: ${summary(col(r.floor!, "firstEventMs"), 0)} ms; /SDK per pair ${summary(ratios(r.floor!, r.sdk!, "firstEventMs"))}; the library − the floor: ${summary(diffs(r.lib!, r.floor!, "firstEventMs"), 0)} ms`,
    ""
  ].join("\n"))
}

/**
 * Where the library's start-up goes: each import in a fresh process, against the SDK's one
 * import. The first three rows are the floor: what any Effect program that decodes with Schema
 * loads (Effect, Stream, Layer, Schema), with or without this library; then the library's module.
 */
const importsBreakdown = async () => {
  const r = await rounds([
    { name: "lib", run: () => runChild("imports", { which: "lib" }) },
    { name: "libModules", run: () => runChild("imports", { which: "lib" }, { env: { BENCH_DIST: modulesDist } }) },
    { name: "libParts", run: () => runChild("imports", { which: "lib-parts" }) },
    { name: "sdk", run: () => runChild("imports", { which: "sdk" }) },
    { name: "floor", run: () => runChild("imports", { which: "floor" }) },
    { name: "barrel", run: () => runChild("imports", { which: "barrel" }) },
    // The library's whole share end to end: its program against a bare Effect program with the same
    // imports (spawn, JSON.parse, no library), to the first event of a 100-event turn.
    { name: "libStart", run: () => runChild("lib", { events: 100 }) },
    { name: "floorStart", run: () => runChild("effect-floor", { events: 100 }) }
  ], OWN_ROUNDS)
  const sdk = col(r.sdk!, "sdkMs")
  const core = r.lib!.map((f) => num(f, "effectMs") + num(f, "streamLayerSchemaMs"))
  const floor = core
  const libTotal = r.lib!.map((f, i) => floor[i]! + num(f, "libraryMs"))
  const own = col(r.lib!, "libraryMs")
  const ownModules = col(r.libModules!, "libraryMs")
  const endToEnd = diffs(r.libStart!, r.floorStart!, "firstEventMs")
  const parts = {
    nodeRuntime: col(r.libParts!, "nodeRuntimeMs"),
    code: col(r.libParts!, "libraryCodeMs")
  }
  startup.imports = { core, floor, library: own, sdk, endToEnd, parts }
  out(`imports: library + effect ${summary(libTotal, 0)} ms vs SDK ${summary(sdk, 0)} ms (ratio ${summary(libTotal.map((t, i) => t / sdk[i]!))}); the floor without the library ${summary(floor, 0)} ms (/SDK ${summary(floor.map((t, i) => t / sdk[i]!))}); the library's own modules ${summary(own, 1)} ms (one file a module: ${summary(ownModules, 1)} ms; part by part: NodeRuntime ${summary(parts.nodeRuntime, 1)} ms, the library's files ${summary(parts.code, 1)} ms); library − bare Effect program to the first event ${summary(endToEnd, 0)} ms [own modules ≤15 ms: ${target(median(own) <= 15)}]`)
  sections.push([
    "### Where start-up goes: imports (median ms, fresh process each)",
    "",
    "| import | ms |",
    "|---|---|",
    `| \`effect/Effect\` (and the core it pulls) | ${summary(col(r.lib!, "effectMs"), 1)} |`,
    `| \`effect/Stream\`, \`effect/Layer\`, \`effect/Schema\` | ${summary(col(r.lib!, "streamLayerSchemaMs"), 1)} |`,
    `| **the floor: the two rows above, without this library** | ${summary(floor, 1)} |`,
    `| the library (\`effect-claude-code/Claude\` and \`effect-claude-code/node\` as they ship: \`Claude.js\`, \`node.js\`, \`ClaudeNode.js\`, \`chunks/ClaudeNode.js\` and \`chunks/core.js\`, the core in one file; the protocol's schemas load as a session opens, once its CLI is spawned, and hooks, permissions, MCP servers and the store when a session uses them) | ${summary(own, 1)} |`,
    `| of which, imported one after the other in another process: \`@effect/platform-node/NodeRuntime\` (for \`ClaudeNode.runMain\`), then the library's own files (\`node:child_process\` is loaded by the harness before any import here, the SDK's included) | ${summary(parts.nodeRuntime, 1)} and ${summary(parts.code, 1)} |`,
    `| for comparison, the same built by tsc, one file a module (the package before \`scripts/build.ts\`) | ${summary(ownModules, 1)}; shipped − per module, per round: ${summary(r.lib!.map((f, i) => num(f, "libraryMs") - num(r.libModules![i]!, "libraryMs")), 1)} |`,
    `| **library total** | ${summary(libTotal, 1)} |`,
    `| the official SDK (\`@anthropic-ai/claude-agent-sdk\`, one bundled file) | ${summary(sdk, 1)} |`,
    "",
    `The library's whole share end to end, in the same rounds (${OWN_ROUNDS}): its program (\`bench/child.ts lib\`) to the first event of a 100-event turn, less a bare Effect program's that spawns the CLI through \`effect/process\` and \`JSON.parse\`s its stdout (\`effect-floor\`), per round: ${summary(endToEnd, 0)} ms (library ${summary(col(r.libStart!, "firstEventMs"), 0)} ms, bare ${summary(col(r.floorStart!, "firstEventMs"), 0)} ms).`,
    "",
    `Effect, Stream, Layer and Schema alone take ${summary(core, 0)} ms to import, the SDK's whole bundle ${summary(sdk, 0)} ms: Effect is a few hundred ES modules that Node resolves, reads and compiles one by one, the SDK one file. That floor is under any program that loads the library and \`effect\` from node_modules; a program bundled with esbuild (\`effect\` inside, \`docs/bundling.md\`) loads one file instead: see "Start-up of a shipped program" for how it compares with the SDK's. What the library controls in an unbundled program is its own share, the row "the library" (target ≤ 15 ms).`,
    "",
    `V8's young generation once these imports are done: ${summary(col(r.lib!, "youngGenMb"), 0)} MB for the library's (${summary(col(r.lib!, "floorYoungGenMb"), 0)} MB after the floor, before the library), ${summary(col(r.floor!, "youngGenMb"), 0)} MB for Effect's floor alone (a process that imports only Effect, Stream, Layer and Schema), ${summary(col(r.sdk!, "youngGenMb"), 0)} MB for the SDK's; after one scavenge more of short-lived garbage (nothing more kept), ${summary(col(r.lib!, "youngGenAfterScavengeMb"), 0)}, ${summary(col(r.floor!, "youngGenAfterScavengeMb"), 0)} and ${summary(col(r.sdk!, "youngGenAfterScavengeMb"), 0)} MB. V8 doubles it (up to 32 MB, two semispaces of 16) when the bytes that survived its scavenges since it last grew exceed a semispace, and shrinks it only when the program allocates little: what the modules leave alive as they load (module records, schemas, source text) counts toward that when it is copied and promoted, and the growth stays for the life of the process (see the short turns' peak RSS). Loaded module by module, Effect's floor alone leaves it at ${fmt(median(col(r.floor!, "youngGenMb")) / median(col(r.sdk!, "youngGenMb")))}× the SDK's after the imports and ${fmt(median(col(r.floor!, "youngGenAfterScavengeMb")) / median(col(r.sdk!, "youngGenAfterScavengeMb")))}× one scavenge later.`,
    "",
    `Importing \`@effect/platform-node\` through its barrel (\`import { NodeServices } from "@effect/platform-node"\`, after \`effect/Effect\`) takes ${summary(col(r.barrel!, "barrelMs"), 1)} ms, against the deep \`@effect/platform-node/NodeServices\`: the barrel loads every module of the package (HTTP, sockets, workers, …). The library imports no barrel (\`test/Imports.test.ts\`), and a program of the library needs no platform layer (\`ClaudeNode.layer\` is \`Claude.layerProcess\`); the node entry loads \`@effect/platform-node/NodeRuntime\` alone, for \`ClaudeNode.runMain\`.`,
    ""
  ].join("\n"))
}

const startupReal = async () => {
  const r = await rounds([
    { name: "lib", run: () => withModel(textScript(), (p) => runChild("lib-real-start", p)) },
    { name: "sdk", run: () => withModel(textScript(), (p) => runChild("sdk-real-start", p)) }
  ], PAIRS)
  const ratio = ratios(r.lib!, r.sdk!, "firstEventMs")
  const d = diffs(r.lib!, r.sdk!, "firstEventMs")
  startup.real = { ratio, diff: d }
  out(`start-up to first event, real CLI, unbundled: library/SDK ${summary(ratio)} (no target: see the bundled program); library ${fmt(median(col(r.lib!, "firstEventMs")), 0)} ms, SDK ${fmt(median(col(r.sdk!, "firstEventMs")), 0)} ms`)
  sections.push([
    `### Start-up to the first event, real CLI ${version("@anthropic-ai/claude-code")} and the fake model (unbundled programs)`,
    "",
    `- library: ${summary(col(r.lib!, "firstEventMs"), 0)} ms; SDK: ${summary(col(r.sdk!, "firstEventMs"), 0)} ms`,
    `- library/SDK per pair: ${summary(ratio)}; library − SDK: ${summary(d, 0)} ms`,
    ""
  ].join("\n"))
}

/**
 * Rounds of the interrupt latency: twice the others. Its target (within 10 ms of the CLI's own) is
 * judged by the library's own share, measured in the library's run itself: from `Fiber.interrupt`
 * to the interrupt line handed to the writer (written to the pipe there and then), plus from the
 * session's reader taking the stdout chunk that ends the result line to the result seen by the
 * consumer (framing, decoding and routing the chunk's lines, waking the consumer). What lies
 * between is the CLI's time in that run, with the chunk's wait in the library's process until its
 * reader takes it (the reader's wake-up, or an event loop busy then), which no mark separates.
 * The difference from the CLI's own time measured in another process (`raw-interrupt`) is shown
 * too, but it does not judge: the CLI's time to stop a tool moves by tens of ms from run to run,
 * and that difference with it (medians of +9.5, +30.8, -0.4, +3.9, +7.7, +10.9 and +6.0 ms over
 * the last runs, of 5 and 10 rounds, while the library's own share stayed at 2.5-4 ms).
 */
const INTERRUPT_ROUNDS = 2 * PAIRS

const interrupt = async () => {
  const r = await rounds([
    { name: "lib", run: () => withModel(slowToolScript(), (p) => runChild("lib-interrupt", p)) },
    { name: "raw", run: () => withModel(slowToolScript(), (p) => runChild("raw-interrupt", p)) },
    { name: "sdk", run: () => withModel(slowToolScript(), (p) => runChild("sdk-interrupt", p)) }
  ], INTERRUPT_ROUNDS)
  const d = diffs(r.lib!, r.raw!, "interruptToResultMs")
  // The library's own share: before the interrupt line reaches the writer, and after the reader
  // takes the chunk that ends the result line.
  const own = r.lib!.map((f) => num(f, "interruptQueuedMs") + num(f, "interruptToResultMs") - num(f, "resultChunkMs"))
  const dSdk = diffs(r.lib!, r.sdk!, "interruptToResultMs")
  const terminals = [...new Set([...r.lib!, ...r.raw!, ...r.sdk!].map((f) => String(f.terminal)))].join(", ")
  const met = median(own) <= 10
  if (!met) {
    limits.push(`- **Interrupt latency** (the library's own share ${summary(own, 1)} ms): its marks (the interrupt line reaches the writer, the reader takes the chunk that ends the result line) put that much of the time on the library's side of the pipe; library − CLI's own in another process ${summary(d, 1)} ms (CLI's own: ${summary(col(r.raw!, "interruptToResultMs"), 1)} ms).`)
  }
  addTarget("interrupt", 7, "interrupt latency within 10 ms of the CLI's own", met, `the library's own share ${summary(own, 1)} ms (in the library's run: \`Fiber.interrupt\` → the interrupt line handed to the writer, plus the session's reader taking the stdout chunk that ends the result line → the result seen by the consumer; the rest is the CLI's time in that run, with the chunk's wait for the reader, which no mark separates); for information, library − CLI's own measured in another process ${summary(d, 1)} ms (that moves with the CLI's own time, which varies by tens of ms from run to run)`)
  out(`interrupt → aborted result, real CLI + 30 s Bash tool: the library's own share ${summary(own, 1)} ms [≤10 ms: ${target(met)}]; library − CLI's own (another process) ${summary(d, 1)} ms; library ${fmt(median(col(r.lib!, "interruptToResultMs")), 1)} ms, CLI's own ${fmt(median(col(r.raw!, "interruptToResultMs")), 1)} ms, SDK ${fmt(median(col(r.sdk!, "interruptToResultMs")), 1)} ms; library/SDK ${summary(ratios(r.lib!, r.sdk!, "interruptToResultMs"))}`)
  sections.push([
    "### Interrupt latency, real CLI, a Bash tool running `node -e \"setTimeout(()=>{},30000)\"`",
    "",
    "Library: from `Fiber.interrupt` of the fiber consuming `session.turn(...)` to the aborted `result` on `session.events`. SDK: from `query.interrupt()` to the `result` message. CLI's own (raw): the CLI launched with the library's exact argv and environment (`Launch.buildCommand`), from writing the `interrupt` control_request on its stdin to reading the `result` line on its stdout. Each 500 ms after the `assistant` line with the tool_use. " +
      `${INTERRUPT_ROUNDS} rounds: the CLI's own time moves by tens of ms from round to round.`,
    "",
    `- library: ${summary(col(r.lib!, "interruptToResultMs"), 1)} ms (Fiber.interrupt returned after ${summary(col(r.lib!, "interruptReturnedMs"), 1)} ms). Its steps, from its transcript recorder and a mark on the transport's stdout chunks: the interrupt request handed to the writer after ${summary(col(r.lib!, "interruptQueuedMs"), 1)} ms, the CLI's control_response read after ${summary(col(r.lib!, "responseReadMs"), 1)} ms, the chunk that ends the result line taken by the reader after ${summary(col(r.lib!, "resultChunkMs"), 1)} ms, the result line read (parsed) after ${summary(col(r.lib!, "resultReadMs"), 1)} ms`,
    `- the library's own share (interrupt → line handed to the writer, plus the result's chunk taken by the reader → the result seen by the consumer): ${summary(own, 1)} ms; the rest is the CLI's, with the chunk's wait for the reader`,
    `- CLI's own: ${summary(col(r.raw!, "interruptToResultMs"), 1)} ms (its control_response after ${summary(col(r.raw!, "interruptResponseMs"), 1)} ms)`,
    `- SDK: ${summary(col(r.sdk!, "interruptToResultMs"), 1)} ms`,
    `- library − CLI's own, per round: ${summary(d, 1)} ms; library − SDK: ${summary(dSdk, 1)} ms`,
    `- terminal_reason seen: ${terminals}`,
    ""
  ].join("\n"))
}

const slowConsumer = async () => {
  // Side by side at 1M events, each run stopped once the CLI has its Stop hook answer.
  const long = await rounds([
    { name: "lib", run: () => runChild("lib-slow", { ...SLOW, consumer: "sleep", untilAnswered: true }, { timeoutMs: 300_000 }) },
    { name: "sdk", run: () => runChild("sdk-slow", { ...SLOW, consumer: "sleep", untilAnswered: true }, { timeoutMs: 300_000 }) }
  ], PAIRS)
  const wait = median(col(long.lib!, "stopHookWaitMs"))
  const answered = long.lib!.every((f) => f.stopHookAnswer === "success")
  const consumed = median(col(long.lib!, "consumedWhenAnswered"))
  const rssLib = median(col(long.lib!, "peakRssAtAnswerMb"))
  const rssSdk = median(col(long.sdk!, "peakRssAtAnswerMb"))
  out(`slow consumer (${SLOW.delayMs} ms/event × ${SLOW.events} events): Stop hook answered in ${summary(col(long.lib!, "stopHookWaitMs"), 1)} ms (SDK ${summary(col(long.sdk!, "stopHookWaitMs"), 1)} ms), ${fmt(median(col(long.lib!, "hookAnsweredAfterMs")) / 1000, 1)} s into the turn, when the consumer had read ${fmt(consumed, 0)} events; peak RSS with the rest unread: library ${fmt(rssLib, 0)} MB, SDK ${fmt(rssSdk, 0)} MB (library/SDK ${summary(ratios(long.lib!, long.sdk!, "peakRssAtAnswerMb"))})`)
  // Side by side with the SDK, shorter: a waiting consumer and a spinning one.
  const pairs: Record<string, Record<string, Array<Figures>>> = {}
  for (const consumer of ["sleep", "busy"] as const) {
    const params = { ...SLOW_PAIR, consumer }
    pairs[consumer] = await rounds([
      { name: "lib", run: () => runChild("lib-slow", params) },
      { name: "sdk", run: () => runChild("sdk-slow", params) },
      // The Effect runtime's yield budget lowered from 2048 to 64 operations.
      ...(consumer === "busy" ? [{ name: "libOps", run: () => runChild("lib-slow", { ...params, maxOps: 64 }) }] : [])
    ], PAIRS)
  }
  const pairLine = (consumer: "sleep" | "busy") => {
    const r = pairs[consumer]!
    return `Stop hook wait library ${summary(col(r.lib!, "stopHookWaitMs"), 1)} ms vs SDK ${summary(col(r.sdk!, "stopHookWaitMs"), 1)} ms; peak RSS library/SDK ${summary(ratios(r.lib!, r.sdk!, "peakRssMb"))}`
  }
  addTarget("slow", 7, "a slow consumer does not stall control traffic (Stop hook answered within 1 s)", answered && wait < 1000, `Stop hook answered in ${fmt(wait, 1)} ms at ${SLOW.delayMs} ms × ${SLOW.events} events (a waiting consumer, ${fmt(consumed, 0)} events read by then); peak RSS ${fmt(rssLib, 0)} MB with the rest unread (SDK ${fmt(rssSdk, 0)} MB). A consumer that spins on the JS thread delays it to ${summary(col(pairs.busy!.lib!, "stopHookWaitMs"), 0)} ms (SDK ${summary(col(pairs.busy!.sdk!, "stopHookWaitMs"), 0)} ms; library with \`MaxOpsBeforeYield\` 64: ${summary(col(pairs.busy!.libOps!, "stopHookWaitMs"), 0)} ms)`)
  out(`slow consumer side by side (${SLOW_PAIR.delayMs} ms/event × ${SLOW_PAIR.events}), waiting consumer: ${pairLine("sleep")}`)
  out(`slow consumer side by side (${SLOW_PAIR.delayMs} ms/event × ${SLOW_PAIR.events}), spinning consumer: ${pairLine("busy")}; library with MaxOpsBeforeYield 64: ${summary(col(pairs.busy!.libOps!, "stopHookWaitMs"), 1)} ms`)
  sections.push([
    `### Slow consumer, Stop hook registered (FAKE_CLI_STOP_HOOK=1)`,
    "",
    `${SLOW.delayMs} ms per stream event over a ${SLOW.events}-event turn, library and SDK side by side (${PAIRS} pairs). The consumer waits ${SLOW.delayMs} ms (\`Effect.sleep\` / \`setTimeout\`) per stream event, like a consumer doing I/O; the fake CLI writes every delta as fast as the pipe takes it, then calls the Stop hook and records how long the answer took. Reading to the end would take the consumer ~${fmt(SLOW.events * SLOW.delayMs / 60_000, 0)} minutes, so each run stops one second after the CLI has written its result (every line has been read by then): the memory is at its peak, and the hook's fate is known.`,
    "",
    `| | library | SDK |`,
    `|---|---|---|`,
    `| the CLI's wait for the Stop hook's answer, ms | ${summary(col(long.lib!, "stopHookWaitMs"), 1)} | ${summary(col(long.sdk!, "stopHookWaitMs"), 1)} |`,
    `| when the hook was answered, s into the turn | ${summary(col(long.lib!, "hookAnsweredAfterMs").map((x) => x / 1000), 1)} | ${summary(col(long.sdk!, "hookAnsweredAfterMs").map((x) => x / 1000), 1)} |`,
    `| events the consumer had read by then | ${summary(col(long.lib!, "consumedWhenAnswered"), 0)} | ${summary(col(long.sdk!, "consumedWhenAnswered"), 0)} |`,
    `| peak RSS, the rest of the ${SLOW.events} events unread, MB | ${summary(col(long.lib!, "peakRssAtAnswerMb"), 0)} | ${summary(col(long.sdk!, "peakRssAtAnswerMb"), 0)} |`,
    "",
    `Control traffic does not wait for the consumer: the hook is answered within milliseconds while the consumer is ~${fmt(SLOW.events - consumed, 0)} events behind. Memory is not bounded by backpressure: the session's queues are unbounded by design (a bounded one would block the reader, and with it the hook and MCP requests queued behind the consumer's events), so the events not yet read are the cost${smallLibRss === undefined ? "" : `, about ${fmt((rssLib - smallLibRss) * 1024 / SLOW.events, 2)} KB each above a fast consumer's peak (${fmt(smallLibRss, 0)} MB at 100k events)`}; the SDK buffers the same way.`,
    "",
    `Read to the end, a shorter turn: ${SLOW_PAIR.delayMs} ms × ${SLOW_PAIR.events} events, side by side with the SDK (its \`hooks.Stop\` callback), ${PAIRS} pairs:`,
    "",
    "| consumer | Stop hook wait, library ms | Stop hook wait, SDK ms | peak RSS library MB | peak RSS SDK MB |",
    "|---|---|---|---|---|",
    ...(["sleep", "busy"] as const).map((c) => {
      const r = pairs[c]!
      return `| ${c === "sleep" ? "waits (Effect.sleep / setTimeout)" : "spins (busy-wait on the JS thread)"} | ${summary(col(r.lib!, "stopHookWaitMs"), 1)} | ${summary(col(r.sdk!, "stopHookWaitMs"), 1)} | ${fmt(median(col(r.lib!, "peakRssMb")), 0)} | ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} |`
    }),
    "",
    `A spinning consumer holds Node's one JS thread: nothing else in the process runs until it yields. The Effect runtime lets a fiber run 2048 operations before it yields to the event loop (\`References.MaxOpsBeforeYield\`), so the hook's answer waits for such slices of the consumer. With \`Effect.provideService(References.MaxOpsBeforeYield, 64)\` on the program the library's Stop hook wait is ${summary(col(pairs.busy!.libOps!, "stopHookWaitMs"), 1)} ms (library/SDK ${summary(ratios(pairs.busy!.libOps!, pairs.busy!.sdk!, "stopHookWaitMs"))}), consumer time ${summary(ratios(pairs.busy!.libOps!, pairs.busy!.lib!, "seconds"))} of the default's.`,
    ""
  ].join("\n"))
}

const pgrepFake = (): Array<string> => {
  const r = ChildProcess.spawnSync("pgrep", ["-f", "bench/fake-cli-load.mjs"], { encoding: "utf8" })
  return r.stdout.trim() === "" ? [] : r.stdout.trim().split("\n")
}

const manySessions = async () => {
  const before = pgrepFake()
  const f = await runChild("lib-many", MANY, { timeoutMs: 300_000 })
  const after = pgrepFake().filter((pid) => !before.includes(pid))
  out(`${MANY.sessions} concurrent sessions × ${MANY.events} events: ${f.completed}/${f.sessions} completed, ${fmt(num(f, "eventsPerSec"), 0)} events/s total, peak RSS ${fmt(f.peakRssMb, 0)} MB, fake CLIs left: ${after.length} (pgrep), ${f.childrenAliveAfter} alive at the child's end`)
  sections.push([
    `### ${MANY.sessions} concurrent sessions in one process, ${MANY.events} events each`,
    "",
    `- completed: ${f.completed}/${f.sessions}; events: ${f.total} in ${fmt(num(f, "seconds"), 2)} s = ${fmt(num(f, "eventsPerSec"), 0)} events/s`,
    `- peak RSS: ${fmt(f.peakRssMb, 0)} MB`,
    `- fake CLI processes left afterwards (pgrep -f bench/fake-cli-load.mjs): ${after.length}; CLI pids still alive when the sessions' scopes had closed: ${f.childrenAliveAfter}`,
    ""
  ].join("\n"))
}

/**
 * What an agent does: many short turns back to back on one session (`TURNS.lines` lines each), the
 * library against the SDK driven as its users drive a multi-turn session (streaming input) and
 * against plain Node. Figures over all turns but the first (start-up).
 */
const shortTurns = async (n: number) => {
  const timeoutMs = Math.max(120_000, n * 20)
  const params = { turns: n, events: TURNS.deltas }
  const big = n >= TURNS.many
  // Over the many turns, the same turns from a program shipped as one file too (`effect` inside):
  // what V8's young generation grows to depends on how the program's modules are loaded.
  const bundled = big ? await turnsProgram() : ""
  const bundledEnv = { CLAUDE_PATH: fakeCli, FAKE_CLI_EVENTS: String(TURNS.deltas) }
  const r = await rounds([
    { name: "lib", run: () => runChild("lib-turns", params, { timeoutMs }) },
    { name: "sdk", run: () => runChild("sdk-turns", params, { timeoutMs }) },
    { name: "raw", run: () => runChild("raw-turns", params, { timeoutMs }) },
    // A reference on Effect: a bare Effect program's turn loop (Effect's process, streams and queues), no library.
    { name: "bare", run: () => runChild("effect-turns", params, { timeoutMs }) },
    // A minimal validated Effect stream: every line checked, a Stream a turn, no session engine.
    { name: "validated", run: () => runChild("validated-turns", params, { timeoutMs }) },
    // A diagnosis, not a setting: the library with V8's optimizing compiler on the JavaScript
    // thread, so that what the other threads did without it is seen to be that compiler's work.
    { name: "jitInline", run: () => runChild("lib-turns", params, { timeoutMs, nodeArgs: ["--no-concurrent-recompilation"] }) },
    ...(big ? [{ name: "bundled", run: () => runScript("turns-program, bundled", [bundled, String(n)], { timeoutMs, env: bundledEnv }) }] : [])
  ], PAIRS)
  const ms = ratios(r.lib!, r.sdk!, "msPerTurn")
  const cpu = ratios(r.lib!, r.sdk!, "cpuUsPerTurn")
  const rss = ratios(r.lib!, r.sdk!, "peakRssMb")
  const label = `${n} short turns (${num(r.lib![0]!, "linesPerTurn")} lines each)`
  out(`${label}: ms/turn library/SDK ${summary(ms)} [≤1: ${target(median(ms) <= 1)}], library/raw ${summary(ratios(r.lib!, r.raw!, "msPerTurn"))}; ms/turn median library ${fmt(median(col(r.lib!, "msPerTurn")), 3)}, SDK ${fmt(median(col(r.sdk!, "msPerTurn")), 3)}, raw ${fmt(median(col(r.raw!, "msPerTurn")), 3)}`)
  out(`${label}: CPU/turn library/SDK ${summary(cpu)} [≤1: ${target(median(cpu) <= 1)}], library/raw ${summary(ratios(r.lib!, r.raw!, "cpuUsPerTurn"))}; µs median library ${fmt(median(col(r.lib!, "cpuUsPerTurn")), 0)}, SDK ${fmt(median(col(r.sdk!, "cpuUsPerTurn")), 0)}, raw ${fmt(median(col(r.raw!, "cpuUsPerTurn")), 0)}`)
  // The second half of the turns: V8's optimizing compiler does its one-time work on helper
  // threads through the first thousands of turns, and weighs less there.
  const half = `turns ${Math.floor(n / 2) + 1}-${n}`
  const ms2 = ratios(r.lib!, r.sdk!, "secondHalfMsPerTurn")
  const cpu2 = ratios(r.lib!, r.sdk!, "secondHalfCpuUsPerTurn")
  const thread2 = ratios(r.lib!, r.sdk!, "secondHalfMainThreadCpuUsPerTurn")
  const steady = `ms/turn library/SDK ${summary(ms2)}, CPU/turn ${summary(cpu2)}, the JavaScript thread's CPU/turn ${summary(thread2)}`
  out(`${label}, the second half (${half}, less of V8's one-time compiling): ${steady}; CPU µs median library ${fmt(median(col(r.lib!, "secondHalfCpuUsPerTurn")), 0)}, SDK ${fmt(median(col(r.sdk!, "secondHalfCpuUsPerTurn")), 0)}, raw ${fmt(median(col(r.raw!, "secondHalfCpuUsPerTurn")), 0)}`)
  // A reference on Effect: the bare program's CPU and RSS against the SDK's, and what the library takes over it.
  const bareCpu = ratios(r.bare!, r.sdk!, "cpuUsPerTurn")
  const bareRss = ratios(r.bare!, r.sdk!, "peakRssMb")
  const ownCpu = diffs(r.lib!, r.bare!, "cpuUsPerTurn")
  const bundledRss = r.bundled === undefined ? undefined : ratios(r.bundled, r.sdk!, "peakRssMb")
  // Every program must have read the same turns, or the per-turn figures compare different work.
  const lineCounts = new Set(Object.values(r).flatMap((runs) => runs.map((f) => num(f, "linesPerTurn"))))
  if (lineCounts.size !== 1) throw new Error(`short turns: the programs read different lines per turn (${[...lineCounts].join(", ")})`)
  // The library run with V8's recompilation on the JavaScript thread: its other threads' CPU is then
  // GC's alone, the compiler's work moves to the JavaScript thread.
  const jitText = `with \`node --no-concurrent-recompilation\`, a diagnosis run, the library's other threads take ${fmt(median(helperCpu(r.jitInline!)), 0)} µs a turn and its JavaScript thread ${fmt(median(col(r.jitInline!, "mainThreadCpuUsPerTurn")), 0)}`
  out(`${label}: ${jitText}`)
  // What the other threads did, as the diagnosis run tells it: the CPU that leaves them with the
  // compiler moved to the JavaScript thread is the compiler's.
  const compiler = median(helperCpu(r.jitInline!)) <= 0.3 * median(helperCpu(r.lib!))
  const otherThreads = compiler
    ? "V8's optimizing compiler, compiling each hot function once, more of them for the library's program than for the SDK's one bundled file"
    : "not V8's optimizing compiler alone: most of it stays there with the compiler on the JavaScript thread"
  const otherThreadsShort = compiler ? "V8's optimizing compiler" : "V8's optimizing compiler and more"
  const validatedCpu = ratios(r.validated!, r.sdk!, "cpuUsPerTurn")
  const validatedMs = ratios(r.validated!, r.sdk!, "msPerTurn")
  const engineCpu = diffs(r.lib!, r.validated!, "cpuUsPerTurn")
  const validatedText = `a minimal validated Effect stream, no session engine (\`validated-turns\`: the CLI spawned with \`node:child_process\`, one \`JSON.parse\` a line, every line checked by the library's \`Protocol.decodeMessage\`, one Effect \`Stream\` a turn; no turns matched to their user messages, no control channel, no ordering or interruption rules, no spans or metrics) takes ${summary(validatedCpu)} of the SDK's CPU a turn (${fmt(median(col(r.validated!, "cpuUsPerTurn")), 0)} µs) and ${summary(validatedMs)} of its ms a turn; the library takes ${summary(engineCpu, 0)} µs of CPU a turn more (its session engine and transport)`
  out(`${label}: ${validatedText}`)
  const bareText = `a bare Effect program's turn loop on \`effect/process\` (Effect's own process, streams and queues; nothing validated, no routing, no metrics; the library spawns with \`node:child_process\` and frames stdout itself) takes ${summary(bareCpu)} of the SDK's CPU a turn (${fmt(median(col(r.bare!, "cpuUsPerTurn")), 0)} µs) and peaks at ${summary(bareRss)} of its RSS (${fmt(median(col(r.bare!, "peakRssMb")), 0)} MB); the library takes ${summary(ownCpu, 0)} µs of CPU a turn more`
  out(`${label}: ${bareText}`)
  out(`${label}: peak RSS library ${fmt(median(col(r.lib!, "peakRssMb")), 0)} MB, SDK ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB, raw ${fmt(median(col(r.raw!, "peakRssMb")), 0)} MB; library/SDK ${summary(rss)}${big ? ` [≤1: ${target(median(rss) <= 1)}]` : ""}`)
  addTarget(big ? "turns-ms-many" : "turns-ms-few", 21, `ms per short turn ≤ 1.0× the SDK's (${n} turns)`, median(ms) <= 1, `library/SDK ${summary(ms)}; ${fmt(median(col(r.lib!, "msPerTurn")), 3)} vs ${fmt(median(col(r.sdk!, "msPerTurn")), 3)} ms${short(median(ms), 1, false)}`)
  addTarget(big ? "turns-cpu-many" : "turns-cpu-few", 21, `CPU per short turn ≤ 1.0× the SDK's (${n} turns)`, median(cpu) <= 1, `library/SDK ${summary(cpu)}; ${fmt(median(col(r.lib!, "cpuUsPerTurn")), 0)} vs ${fmt(median(col(r.sdk!, "cpuUsPerTurn")), 0)} µs${short(median(cpu), 1, false)}; a bare Effect program (no library)/SDK ${summary(bareCpu)}; a minimal validated Effect stream, no session engine/SDK ${summary(validatedCpu)}`)
  if (big) {
    addTarget("turns-rss", 21, `peak RSS over ${n} short turns ≤ 1.0× the SDK's, no V8 flags`, median(rss) <= 1, `library/SDK ${summary(rss)}; ${fmt(median(col(r.lib!, "peakRssMb")), 0)} vs ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB${short(median(rss), 1, false)}; a bare Effect program (no library)/SDK ${summary(bareRss)}; a minimal validated Effect stream, no session engine/SDK ${summary(ratios(r.validated!, r.sdk!, "peakRssMb"))}`)
    const b = r.bundled!
    const bRss = ratios(b, r.sdk!, "peakRssMb")
    const bMs = ratios(b, r.sdk!, "msPerTurn")
    const bCpu = ratios(b, r.sdk!, "cpuUsPerTurn")
    out(`${label}, the library's program bundled with esbuild: peak RSS/SDK ${summary(bRss)} [≤1: ${target(median(bRss) <= 1)}], ms/turn/SDK ${summary(bMs)}, CPU/turn/SDK ${summary(bCpu)}; ${fmt(median(col(b, "peakRssMb")), 0)} MB, ${fmt(median(col(b, "msPerTurn")), 3)} ms, ${fmt(median(col(b, "cpuUsPerTurn")), 0)} µs a turn; young generation ${fmt(median(col(b, "youngGenMb")), 0)} MB`)
    addTarget("turns-rss-bundled", 21, `peak RSS over ${n} short turns ≤ 1.0× the SDK's, no V8 flags: a program bundled with esbuild (\`docs/bundling.md\`)`, median(bRss) <= 1, `library/SDK ${summary(bRss)}; ${fmt(median(col(b, "peakRssMb")), 0)} vs ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB${short(median(bRss), 1, false)} (ms/turn ${summary(bMs)}, CPU/turn ${summary(bCpu)} of the SDK's)`)
  }
  if (median(ms) > 1 || median(cpu) > 1 || (big && median(rss) > 1)) {
    limits.push(`- **Short turns, ${n}** (ms/turn library/SDK ${summary(ms)}, CPU/turn ${summary(cpu)}${big ? `, peak RSS ${summary(rss)}` : ""}): the library's per-turn work is ${fmt(median(col(r.lib!, "cpuUsPerTurn")), 0)} µs of CPU against the SDK's ${fmt(median(col(r.sdk!, "cpuUsPerTurn")), 0)} and raw Node's ${fmt(median(col(r.raw!, "cpuUsPerTurn")), 0)}; ${validatedText}; ${bareText}${bundledRss === undefined || median(bareRss) <= 1 ? "" : `. Loaded module by module, the bare Effect program peaks over the SDK's RSS as well (and the minimal validated stream at ${fmt(median(ratios(r.validated!, r.sdk!, "peakRssMb")))} of it); the library's program bundled with esbuild peaks at ${fmt(median(bundledRss))} of the SDK's`}. On the JavaScript thread ${fmt(median(col(r.lib!, "mainThreadCpuUsPerTurn")), 0)} against ${fmt(median(col(r.sdk!, "mainThreadCpuUsPerTurn")), 0)} and ${fmt(median(col(r.raw!, "mainThreadCpuUsPerTurn")), 0)}, the rest on the process's other threads (${fmt(median(helperCpu(r.lib!)), 0)} against ${fmt(median(helperCpu(r.sdk!)), 0)} and ${fmt(median(helperCpu(r.raw!)), 0)} µs): ${otherThreads} (${jitText}). Over the second half of the turns (${half}), where V8's one-time compiling on helper threads weighs less: ${steady} (CPU ${fmt(median(col(r.lib!, "secondHalfCpuUsPerTurn")), 0)} µs a turn against the SDK's ${fmt(median(col(r.sdk!, "secondHalfCpuUsPerTurn")), 0)}, of which the JavaScript thread ${fmt(median(col(r.lib!, "secondHalfMainThreadCpuUsPerTurn")), 0)} against ${fmt(median(col(r.sdk!, "secondHalfMainThreadCpuUsPerTurn")), 0)}); where the JavaScript thread's time goes: the CPU profile of the short turns (\`profile-turns\`). V8's young generation ends at ${fmt(median(col(r.lib!, "youngGenMb")), 0)} MB for the library, ${fmt(median(col(r.sdk!, "youngGenMb")), 0)} MB for the SDK${r.bundled === undefined ? "" : ` and ${fmt(median(col(r.bundled, "youngGenMb")), 0)} MB for the library's program bundled with esbuild (peak RSS ${fmt(median(col(r.bundled, "peakRssMb")), 0)} MB)`}: V8 sizes it by what survives its scavenges, and loading Effect module by module (each module's record and source, the loader's own objects) leaves it larger than the SDK's before any turn, and larger still one scavenge later, with or without the library (see "Where start-up goes", which measures Effect's floor alone too), a bundled program at the SDK's; heap used at the end library ${fmt(median(col(r.lib!, "heapUsedMb")), 1)} MB, SDK ${fmt(median(col(r.sdk!, "heapUsedMb")), 1)} MB.`)
  }
  sections.push([
    `### ${label}, back to back on one session`,
    "",
    `Each turn is ${TURNS.deltas} text deltas plus the lines around them (\`system/init\`, status, message start/stop, \`assistant\`, \`result\`); the next user message is written once the previous turn's result is read. Library: \`session.turn(text)\` read with \`Stream.runForEach\`. SDK: one \`query()\` in streaming input mode (an async iterable of user messages), the next message yielded on each \`result\`. Raw Node: spawn, split, \`JSON.parse\`, the next user line on each result. A minimal validated Effect stream, no session engine (\`validated-turns\`): the CLI spawned with \`node:child_process\`, stdout split and parsed as raw Node's loop does (one \`JSON.parse\` a line; the library parses each read's whole lines in one), each line checked by \`Protocol.decodeMessage\`, the checked messages of each read handed at once to one waiting reader, a turn one \`Stream.fromPull\` that writes the user line and ends after the result, read with \`Stream.runForEach\`: a program on this stack that checks every line and hands each turn as a stream, written as plainly as it can be; what the library does beyond it is its session engine and transport (turns matched to their user messages, the control channel, the ordering and interruption rules, spans and metrics, the user line encoded, stderr drained). A bare Effect program, no library (\`effect-turns\`): the CLI spawned through \`effect/process\` (NodeServices), stdout decoded, split and parsed into a \`Queue\` by Effect's streams, stdin fed from one; a turn offers its line and takes messages until the result: a reference point on Effect (the library itself spawns with \`node:child_process\` and frames stdout on its own). The first turn (start-up) is not counted. CPU is the consuming process's alone (user + system).`,
    "",
    "| run | ms/turn (median) | min | max | CPU µs/turn (median) | of which the JavaScript thread | peak RSS MB (median) | V8's young generation at the end MB | heap used at the end MB |",
    "|---|---|---|---|---|---|---|---|---|",
    ...(["lib", "bundled", "sdk", "raw", "validated", "bare"] as const).filter((k) => r[k] !== undefined).map((k) => {
      const m = col(r[k]!, "msPerTurn")
      const name = { lib: "library", bundled: "library, its program bundled with esbuild (`bench/turns-program.ts`)", sdk: "official SDK", raw: "raw Node", validated: "a minimal validated Effect stream, no session engine (`validated-turns`)", bare: "a bare Effect program, no library (`effect-turns`)" }[k]
      return `| ${name} | ${fmt(median(m), 3)} | ${fmt(Math.min(...m), 3)} | ${fmt(Math.max(...m), 3)} | ${fmt(median(col(r[k]!, "cpuUsPerTurn")), 0)} | ${fmt(median(col(r[k]!, "mainThreadCpuUsPerTurn")), 0)} | ${fmt(median(col(r[k]!, "peakRssMb")), 0)} | ${fmt(median(col(r[k]!, "youngGenMb")), 0)} | ${fmt(median(col(r[k]!, "heapUsedMb")), 1)} |`
    }),
    "",
    `- ms/turn library/SDK, per-round ratios: ${summary(ms)}; library/raw: ${summary(ratios(r.lib!, r.raw!, "msPerTurn"))}`,
    `- CPU/turn library/SDK: ${summary(cpu)}; library/raw: ${summary(ratios(r.lib!, r.raw!, "cpuUsPerTurn"))}`,
    `- without the session engine: ${validatedText}`,
    `- a reference on Effect: ${bareText}`,
    `- peak RSS library/SDK: ${summary(rss)}`,
    `- CPU per turn beyond the JavaScript thread (the process's other threads: ${otherThreadsShort}; ${jitText}), µs: library ${fmt(median(helperCpu(r.lib!)), 0)}, SDK ${fmt(median(helperCpu(r.sdk!)), 0)}, raw ${fmt(median(helperCpu(r.raw!)), 0)}`,
    `- the second half of the turns (${half}, less of V8's one-time compiling): ${steady}; CPU µs/turn library ${fmt(median(col(r.lib!, "secondHalfCpuUsPerTurn")), 0)}, SDK ${fmt(median(col(r.sdk!, "secondHalfCpuUsPerTurn")), 0)}, raw ${fmt(median(col(r.raw!, "secondHalfCpuUsPerTurn")), 0)}`,
    ""
  ].join("\n"))
}

/** Per run: the CPU per turn of the process's other threads (its total less its JavaScript thread's). */
const helperCpu = (runs: ReadonlyArray<Figures>): Array<number> =>
  runs.map((f) => num(f, "cpuUsPerTurn") - num(f, "mainThreadCpuUsPerTurn"))

/** `bench/turns-program.ts` bundled as the recipe ships a program (`effect` inside), once a run. */
let turnsProgramBuilt: Promise<string> | undefined
const turnsProgram = (): Promise<string> => {
  const outfile = Path.join(root, ".tmp/bench-turns/program.mjs")
  return turnsProgramBuilt ??= bundleProgram(Path.join(root, "bench/turns-program.ts"), outfile).then(() => outfile)
}

/**
 * The 1M-event turn with its final `assistant` and `result` lines carrying the whole text: from
 * the library's program loaded module by module, and bundled with esbuild (its one turn).
 */
const fullFinal = async (events: number) => {
  const params = { events, fullFinal: true }
  const bundled = await turnsProgram()
  const bundledEnv = { CLAUDE_PATH: fakeCli, FAKE_CLI_EVENTS: String(events), FAKE_CLI_FULL_ASSISTANT: "1" }
  const r = await rounds([
    { name: "lib", run: () => runChild("lib", params) },
    { name: "raw", run: () => runChild("raw", params) },
    { name: "sdk", run: () => runChild("sdk", params) },
    { name: "bundled", run: () => runScript("turns-program, bundled, one long turn", [bundled, "0"], { env: bundledEnv }) },
    // A minimal validated Effect stream, loaded module by module as the library is: its one turn.
    { name: "validated", run: () => runChild("validated-turns", { ...params, turns: 0 }) }
  ], PAIRS)
  // The one-turn programs' turn must be the same turn (a wrong environment would compare another).
  for (const f of [...r.bundled!, ...r.validated!]) {
    if (!(num(f, "lines") >= events)) throw new Error(`a one-turn program read ${num(f, "lines")} lines, not the ${events} events asked for`)
  }
  const label = countLabel(events)
  const rss = ratios(r.lib!, r.sdk!, "peakRssMb")
  const eps = ratios(r.lib!, r.sdk!, "eventsPerSec")
  out(`${label} events, final lines with the whole text: peak RSS library ${fmt(median(col(r.lib!, "peakRssMb")), 0)} MB, SDK ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB, raw ${fmt(median(col(r.raw!, "peakRssMb")), 0)} MB; library/SDK ${summary(rss)} [≤1: ${target(median(rss) <= 1)}]; events/s library/SDK ${summary(eps)}, library/raw ${summary(ratios(r.lib!, r.raw!, "eventsPerSec"))}`)
  const vRss = ratios(r.validated!, r.sdk!, "peakRssMb")
  addTarget("fullfinal-rss", 21, `peak RSS at ${label} events with the real CLI's final lines (whole text) ≤ the SDK's`, median(rss) <= 1, `library/SDK ${summary(rss)}; ${fmt(median(col(r.lib!, "peakRssMb")), 0)} vs ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB (\`fullfinal\`)${short(median(rss), 1, false)}; a minimal validated Effect stream, no session engine/SDK ${summary(vRss)}`)
  const bRss = ratios(r.bundled!, r.sdk!, "peakRssMb")
  out(`${label} events, final lines with the whole text, the library's program bundled with esbuild: peak RSS ${fmt(median(col(r.bundled!, "peakRssMb")), 0)} MB, library/SDK ${summary(bRss)} [≤1: ${target(median(bRss) <= 1)}]`)
  const validatedText = `a minimal validated Effect stream, no session engine, loaded module by module as the library's program is (\`validated-turns\`, one turn; see the short turns) peaks at ${fmt(median(col(r.validated!, "peakRssMb")), 0)} MB, ${summary(vRss)} of the SDK's`
  out(`${label} events, final lines with the whole text: ${validatedText}`)
  addTarget("fullfinal-rss-bundled", 21, `peak RSS at ${label} events with the real CLI's final lines (whole text) ≤ the SDK's: a program bundled with esbuild (\`docs/bundling.md\`)`, median(bRss) <= 1, `library/SDK ${summary(bRss)}; ${fmt(median(col(r.bundled!, "peakRssMb")), 0)} vs ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB (\`fullfinal\`)${short(median(bRss), 1, false)}`)
  if (median(rss) > 1) {
    const semi = semiFigures
    limits.push(`- **Peak RSS at ${label} with the real CLI's final lines** (library ${fmt(median(col(r.lib!, "peakRssMb")), 0)} MB vs SDK ${fmt(median(col(r.sdk!, "peakRssMb")), 0)} MB, library/SDK ${summary(rss)}): the same turn from the library's program bundled with esbuild peaks at ${fmt(median(col(r.bundled!, "peakRssMb")), 0)} MB (${summary(bRss)} of the SDK's)${median(bRss) <= 1 ? ", so what is over comes with loading Effect and the library module by module (see the short turns)" : ""}; ${validatedText}. ${semi === undefined ? "The young-generation run was not made (throughput)." : `On the load fake without the final text, with V8's young generation capped (\`node ${SEMI}\`, both processes) the library peaks at ${fmt(semi.lib, 0)} MB and the SDK at ${fmt(semi.sdk, 0)} MB (library/SDK ${summary(semi.ratio)}; the library at ${summary(semi.speed)} of its default events/s): what is over at default flags is V8's young generation, which grows with the allocation rate and the survivors of each scavenge, more than data the library keeps.`}`)
  }
  sections.push([
    `### ${label} events in one turn, the final \`assistant\` and \`result\` lines with the whole text (FAKE_CLI_FULL_ASSISTANT=1)`,
    "",
    "As the real CLI writes them: the `assistant` line's text block and the `result`'s `result` field hold every delta's text.",
    "",
    "| run | events/s (median) | peak RSS MB (median) | min | max |",
    "|---|---|---|---|---|",
    ...(["lib", "bundled", "validated", "raw", "sdk"] as const).map((k) => {
      const m = col(r[k]!, "peakRssMb")
      const name = {
        lib: "library",
        bundled: "library, its program bundled with esbuild (`bench/turns-program.ts`, one turn)",
        validated: "a minimal validated Effect stream, no session engine (`validated-turns`, one turn)",
        sdk: "official SDK",
        raw: "raw Node"
      }[k]
      const eventsPerSec = k === "bundled" || k === "validated" ? "(not timed)" : fmt(median(col(r[k]!, "eventsPerSec")), 0)
      return `| ${name} | ${eventsPerSec} | ${fmt(median(m), 0)} | ${fmt(Math.min(...m), 0)} | ${fmt(Math.max(...m), 0)} |`
    }),
    "",
    `- peak RSS library/SDK: ${summary(rss)}; bundled/SDK: ${summary(bRss)}; a minimal validated Effect stream, no session engine/SDK: ${summary(vRss)}; events/s library/SDK ${summary(eps)}, library/raw ${summary(ratios(r.lib!, r.raw!, "eventsPerSec"))}`,
    ""
  ].join("\n"))
}

/** Many idle sessions in one process: memory per open session, library and SDK. */
const idleSessions = async () => {
  const params = { sessions: IDLE.sessions, events: TURNS.deltas }
  const nodeArgs = ["--expose-gc"]
  const r = await rounds([
    { name: "lib", run: () => runChild("lib-idle", params, { nodeArgs, timeoutMs: 300_000 }) },
    { name: "sdk", run: () => runChild("sdk-idle", params, { nodeArgs, timeoutMs: 300_000 }) }
  ], PAIRS)
  const rss = ratios(r.lib!, r.sdk!, "rssPerSessionKb")
  out(`${IDLE.sessions} idle sessions (each after one short turn): RSS per session library ${fmt(median(col(r.lib!, "rssPerSessionKb")), 0)} KB, SDK ${fmt(median(col(r.sdk!, "rssPerSessionKb")), 0)} KB (library/SDK ${summary(rss)}); heap per session library ${fmt(median(col(r.lib!, "heapPerSessionKb")), 0)} KB, SDK ${fmt(median(col(r.sdk!, "heapPerSessionKb")), 0)} KB`)
  sections.push([
    `### ${IDLE.sessions} idle sessions in one process`,
    "",
    "Sessions opened one after another, each after one short turn (initialized, its first turn read), then left open and idle; the memory with them open (after a GC), less the memory before the first, per session. The CLI processes are not counted (they are the same for both).",
    "",
    "| | RSS per session KB (median) | min | max | heap per session KB (median) |",
    "|---|---|---|---|---|",
    ...(["lib", "sdk"] as const).map((k) => {
      const m = col(r[k]!, "rssPerSessionKb")
      return `| ${k === "lib" ? "library" : "official SDK"} | ${fmt(median(m), 0)} | ${fmt(Math.min(...m), 0)} | ${fmt(Math.max(...m), 0)} | ${fmt(median(col(r[k]!, "heapPerSessionKb")), 0)} |`
    }),
    "",
    `- library/SDK, RSS per session: ${summary(rss)}; heap per session: ${summary(ratios(r.lib!, r.sdk!, "heapPerSessionKb"))}`,
    ""
  ].join("\n"))
}

/**
 * A program of this repository bundled with the recipe's settings (`examples/bundle/build.ts`), its
 * imports of the library (`src/*.ts`) resolved to the package as it ships (`dist`), as in a program
 * that installed it. Only errors are printed: esbuild warns that it drops the chunks' bare imports
 * (the package has no side effects), which it says only of a package outside node_modules.
 */
const bundleProgram = async (entry: string, outfile: string, external: ReadonlyArray<string> = []) => {
  const { settings } = await import("../examples/bundle/build.ts")
  const { build } = await import("esbuild")
  await build({
    ...settings,
    entryPoints: [entry],
    outfile,
    external: [...external],
    logLevel: "error",
    plugins: [packageAsBuilt(dist)]
  })
}

/**
 * Start-up of a shipped program: the library's `examples/bundle/program.ts` (one turn on the load
 * fake) bundled with esbuild (`effect` inside) and with `effect` and `@effect/platform-node` left to
 * Node (the library's modules bundled, the rest loaded as installed); the SDK's
 * `bench/sdk-program.ts` bundled the same way (the SDK inside) and with the SDK left to Node; each
 * also with Node's compile cache. Every library variant against the SDK bundled and unbundled, with
 * the same cache setting.
 */
const bundledStartup = async () => {
  const dir = Path.join(root, ".tmp/bench-bundle")
  Fs.rmSync(dir, { recursive: true, force: true })
  await bundleProgram(Path.join(root, "examples/bundle/program.ts"), Path.join(dir, "bundled.mjs"))
  await bundleProgram(Path.join(root, "examples/bundle/program.ts"), Path.join(dir, "unbundled.mjs"), ["effect", "@effect/platform-node"])
  const { settings } = await import("../examples/bundle/build.ts")
  const { build: esbuild } = await import("esbuild")
  // The SDK's program with the recipe's settings, its own entry point.
  const bundleSdk = (outfile: string, external: ReadonlyArray<string>) =>
    esbuild({ ...settings, entryPoints: [Path.join(root, "bench/sdk-program.ts")], outfile, external: [...external] })
  await bundleSdk(Path.join(dir, "sdk-bundled.mjs"), [])
  await bundleSdk(Path.join(dir, "sdk-unbundled.mjs"), ["@anthropic-ai/claude-agent-sdk"])
  const cache = Path.join(dir, "compile-cache")
  const runProgram = (file: string, env: Record<string, string> = {}): Promise<Figures> =>
    new Promise((resolve, reject) => {
      const child = ChildProcess.spawn(process.execPath, [Path.join(dir, file), "go"], {
        cwd: root,
        env: { ...process.env, CLAUDE_PATH: fakeCli, FAKE_CLI_EVENTS: "100", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s))
      child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s))
      child.on("exit", (code) => {
        try {
          const figures = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as { firstEventMs: number }
          if (typeof figures.firstEventMs !== "number") throw new Error("no first event")
          resolve({ ok: true, peakRssMb: 0, firstEventMs: figures.firstEventMs })
        } catch {
          reject(new Error(`${file}: exit ${code}, ${stdout.slice(-300)} ${stderr.slice(-500)}`))
        }
      })
    })
  const withCache = { NODE_COMPILE_CACHE: cache }
  const r = await rounds([
    { name: "bundled", run: () => runProgram("bundled.mjs") },
    { name: "bundledCache", run: () => runProgram("bundled.mjs", withCache) },
    { name: "unbundled", run: () => runProgram("unbundled.mjs") },
    { name: "unbundledCache", run: () => runProgram("unbundled.mjs", withCache) },
    { name: "sdkBundled", run: () => runProgram("sdk-bundled.mjs") },
    { name: "sdkBundledCache", run: () => runProgram("sdk-bundled.mjs", withCache) },
    { name: "sdkUnbundled", run: () => runProgram("sdk-unbundled.mjs") },
    { name: "sdkUnbundledCache", run: () => runProgram("sdk-unbundled.mjs", withCache) }
  ], PAIRS)
  const size = (file: string) => Fs.statSync(Path.join(dir, file)).size / 1024
  const ms = (k: string) => median(col(r[k]!, "firstEventMs"))
  const vs = (k: string, sdk: string) => ratios(r[k]!, r[sdk]!, "firstEventMs")
  startup.bundled = {
    ms: ms("bundled"),
    cacheMs: ms("bundledCache"),
    sdkBundledMs: ms("sdkBundled"),
    sdkUnbundledMs: ms("sdkUnbundled"),
    vsSdkBundled: vs("bundled", "sdkBundled"),
    vsSdkUnbundled: vs("bundled", "sdkUnbundled"),
    partlyMs: ms("unbundled"),
    partlyVsSdkUnbundled: vs("unbundled", "sdkUnbundled"),
    kb: size("bundled.mjs"),
    sdkKb: size("sdk-bundled.mjs")
  }
  out(`start-up of a shipped program, fake CLI, first event: library bundled ${fmt(ms("bundled"), 0)} ms (/SDK bundled ${summary(vs("bundled", "sdkBundled"))}, /SDK unbundled ${summary(vs("bundled", "sdkUnbundled"))}); bundled + compile cache ${fmt(ms("bundledCache"), 0)} ms (/SDK bundled + cache ${summary(vs("bundledCache", "sdkBundledCache"))}); effect unbundled ${fmt(ms("unbundled"), 0)} ms (/SDK unbundled ${summary(vs("unbundled", "sdkUnbundled"))}); SDK bundled ${fmt(ms("sdkBundled"), 0)} ms, unbundled ${fmt(ms("sdkUnbundled"), 0)} ms; bundles ${fmt(size("bundled.mjs"), 0)} KB (library) and ${fmt(size("sdk-bundled.mjs"), 0)} KB (SDK)`)
  const row = (k: string, name: string, cached: boolean) =>
    `| ${name} | ${summary(col(r[k]!, "firstEventMs"), 0)} | ${summary(vs(k, cached ? "sdkBundledCache" : "sdkBundled"))} | ${summary(vs(k, cached ? "sdkUnbundledCache" : "sdkUnbundled"))} |`
  sections.push([
    "### Start-up of a shipped program (`examples/bundle/`), fake CLI",
    "",
    `From the process's start to the turn's first event, one turn of 100 events on the load fake. The library's program (\`examples/bundle/program.ts\`) bundled by \`examples/bundle/build.ts\` (esbuild, \`effect\` inside, minified: ${fmt(size("bundled.mjs"), 0)} KB), or with \`effect\` and \`@effect/platform-node\` left external (${fmt(size("unbundled.mjs"), 0)} KB plus what Node loads from node_modules). The SDK's program (\`bench/sdk-program.ts\`: \`query()\` with \`includePartialMessages\`, one turn) bundled with the same settings (the SDK inside: ${fmt(size("sdk-bundled.mjs"), 0)} KB), or with the SDK left external (${fmt(size("sdk-unbundled.mjs"), 1)} KB plus the SDK's \`sdk.mjs\`, itself one bundled file). Node's compile cache (\`NODE_COMPILE_CACHE\`, warm after the first round); a cached program is compared with the cached SDK program. Ratios are per round.`,
    "",
    "| program | first event ms | /SDK bundled | /SDK unbundled |",
    "|---|---|---|---|",
    row("bundled", "library, bundled", false),
    row("bundledCache", "library, bundled, compile cache", true),
    row("unbundled", "library, effect unbundled", false),
    row("unbundledCache", "library, effect unbundled, compile cache", true),
    row("sdkBundled", "SDK, bundled", false),
    row("sdkBundledCache", "SDK, bundled, compile cache", true),
    row("sdkUnbundled", "SDK, unbundled", false),
    row("sdkUnbundledCache", "SDK, unbundled, compile cache", true),
    "",
    "A program that is not bundled at all (the library from its compiled modules, `effect` from node_modules) is the throughput runs' program: see \"Start-up to the first event, fake CLI\".",
    ""
  ].join("\n"))
}

/** One library run under --cpu-prof (the big N, or the short turns): the top self-time functions. */
const profile = async (what: "events" | "turns" = "events") => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-bench-prof-"))
  const title = what === "events" ? `${BIG} events` : `${TURNS.many} short turns`
  try {
    const nodeArgs = ["--cpu-prof", "--cpu-prof-dir", dir]
    // The same code built one file a module, so that frames name the modules and functions.
    const env = { BENCH_DIST: modulesDist }
    if (what === "events") await runChild("lib", { events: BIG }, { nodeArgs, env })
    else await runChild("lib-turns", { turns: TURNS.many, events: TURNS.deltas }, { nodeArgs, env, timeoutMs: 600_000 })
    const file = Fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
    if (file === undefined) return
    const prof = JSON.parse(Fs.readFileSync(Path.join(dir, file), "utf8")) as {
      nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>
      samples: Array<number>
      timeDeltas: Array<number>
    }
    const self = new Map<number, number>()
    for (let i = 0; i < prof.samples.length; i++) {
      self.set(prof.samples[i]!, (self.get(prof.samples[i]!) ?? 0) + (prof.timeDeltas[i] ?? 0))
    }
    const byName = new Map<string, number>()
    let total = 0
    for (const node of prof.nodes) {
      const t = self.get(node.id) ?? 0
      total += t
      const url = node.callFrame.url.replace(/^file:\/\//, "").replace(root + "/", "").replace(/.*node_modules\//, "")
      const name = `${node.callFrame.functionName || "(anonymous)"} ${url === "" ? "" : `${url}:${node.callFrame.lineNumber + 1}`}`.trim()
      byName.set(name, (byName.get(name) ?? 0) + t)
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 15)
    out(`profile (library, ${title}): top self time ${top.slice(0, 3).map(([n, t]) => `${n} ${fmt((100 * t) / total, 1)}%`).join("; ")}`)
    sections.push([
      `### CPU profile of the library, ${title} (\`node --cpu-prof\`, the library built one file a module so that frames name their modules), top self time`,
      "",
      "| self % | function |",
      "|---|---|",
      ...top.map(([n, t]) => `| ${fmt((100 * t) / total, 1)} | \`${n}\` |`),
      ""
    ].join("\n"))
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The timeline page of a 10,000-line transcript in Chromium (bench/timeline.ts). */
const timelinePage = async () => {
  const f = await TimelineBench.measure()
  const load = Os.loadavg()[0]!
  const ok = f.openCpuMs < 1000
  out(`timeline page, ${f.lines} lines (${f.turns} turns, ${f.htmlKb} KB): open in Chromium ${fmt(f.openMs, 0)} ms wall, ${fmt(f.openCpuMs, 0)} ms main-thread CPU; read + timeline + HTML in Node ${fmt(f.buildMs, 0)} ms wall, ${fmt(f.buildCpuMs, 0)} ms CPU (load average ${fmt(load, 1)})`)
  addTarget("timeline", 18, "a 10,000-line transcript's timeline page opens in under 1 s", ok, `Chromium main thread ${fmt(f.openCpuMs, 0)} ms CPU, ${fmt(f.openMs, 0)} ms wall at load ${fmt(load, 1)}; Node ${fmt(f.buildCpuMs, 0)} ms CPU`)
  sections.push([
    "### The timeline page of a 10,000-line transcript (`bench/timeline.ts`)",
    "",
    "The recorded Bash turn repeated to 10,000 lines, every fifth tool result 200 lines long; medians of 5 runs. `open`: from `goto` (file://) to two animation frames after `load` in headless Chromium; CPU: the renderer's main thread (`Performance` metrics, `threadTicks`). `build`: `Transcript.read`, `Timeline.fromLines` and the page's HTML in Node.",
    "",
    "| lines | turns | page KB | open ms wall | open ms CPU | build ms wall | build ms CPU | load average |",
    "|---|---|---|---|---|---|---|---|",
    `| ${f.lines} | ${f.turns} | ${f.htmlKb} | ${fmt(f.openMs, 0)} | ${fmt(f.openCpuMs, 0)} | ${fmt(f.buildMs, 0)} | ${fmt(f.buildCpuMs, 0)} | ${fmt(load, 1)} |`,
    ""
  ].join("\n"))
}

// ---- main --------------------------------------------------------------------------------------

/**
 * Sessions on Effect Cluster (`bench/cluster.ts`, which starts its own PostgreSQL and runner
 * processes): sessions started and turns per second with one runner and with three, and a turn
 * through the cluster against a direct session, side by side in one run.
 */
const clusterBench = async () => {
  const r = ChildProcess.spawnSync(process.execPath, [Path.join(root, "bench/cluster.ts")], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, BENCH_PAIRS: String(Math.min(PAIRS, 3)) },
    timeout: 1_200_000,
    maxBuffer: 64 * 1024 * 1024
  })
  const last = r.stdout.trim().split("\n").at(-1) ?? ""
  const f = JSON.parse(last) as {
    readonly sessions: number
    readonly turns: number
    readonly serial: number
    readonly rounds: number
    readonly rows: ReadonlyArray<{ readonly scenario: string; readonly sessionsPerSec: number; readonly turnsPerSec: number; readonly msPerTurn: number }>
  }
  const direct = f.rows[0]!
  for (const row of f.rows) {
    out(`cluster: ${row.scenario}: ${fmt(row.sessionsPerSec, 1)} sessions started/s, ${fmt(row.turnsPerSec, 1)} turns/s, ${fmt(row.msPerTurn, 1)} ms per turn back to back (${fmt(row.msPerTurn / direct.msPerTurn, 2)}× the direct session's)`)
  }
  sections.push([
    `### Sessions on Effect Cluster: one runner and three, against a direct session`,
    "",
    `The store-backed fake CLI (\`scripts/cluster/storeFake.ts\`: \`FakeCli\` whose transcript is appended to the SessionStore in PostgreSQL, no delay), a local PostgreSQL for message storage, runner storage and the store; runners are processes of \`scripts/cluster/runner.ts\` on 127.0.0.1, the client is the benchmark process. ${f.sessions} sessions started (each its first turn, 10 at once), then ${f.turns} more turns on each (all sessions at once), then one session's ${f.serial} turns back to back. The direct session is \`Claude.open\` in the benchmark process with the same fake and store. Medians of ${f.rounds} rounds; all processes share this machine's cores.`,
    "",
    "| deployment | sessions started/s | turns/s | ms per turn, back to back | × direct |",
    "|---|---|---|---|---|",
    ...f.rows.map((row) => `| ${row.scenario} | ${fmt(row.sessionsPerSec, 1)} | ${fmt(row.turnsPerSec, 1)} | ${fmt(row.msPerTurn, 1)} | ${fmt(row.msPerTurn / direct.msPerTurn, 2)} |`),
    ""
  ].join("\n"))
}

/**
 * The library as it ships (`scripts/build.ts`: esbuild, the core in one file, each entry a file) into
 * `dist`, and as tsc emits it, one file a module, into `modulesDist`: the start-up figures compare
 * the two imports, so the build's choice is measured.
 */
const build = () => {
  Fs.rmSync(dist, { recursive: true, force: true })
  Fs.rmSync(modulesDist, { recursive: true, force: true })
  Fs.rmSync(compileCache, { recursive: true, force: true })
  const shipped = ChildProcess.spawnSync(process.execPath, [Path.join(root, "scripts/build.ts"), "--outdir", dist, "--js-only"], { cwd: root, encoding: "utf8" })
  if (!Fs.existsSync(Path.join(dist, "Claude.js"))) throw new Error(`scripts/build.ts built nothing: ${shipped.stdout}${shipped.stderr}`)
  const tsc = Path.join(root, "node_modules/.bin/tsc")
  const modules = ChildProcess.spawnSync(tsc, ["-p", "tsconfig.build.json", "--outDir", modulesDist, "--declaration", "false", "--sourceMap", "false"], {
    cwd: root,
    encoding: "utf8"
  })
  if (!Fs.existsSync(Path.join(modulesDist, "Claude.js"))) throw new Error(`tsc built nothing: ${modules.stdout}${modules.stderr}`)
}

const version = (pkg: string): string => {
  const file = Path.join(root, "node_modules", pkg, "package.json")
  return (JSON.parse(Fs.readFileSync(file, "utf8")) as { version: string }).version
}

const main = async () => {
  build()
  process.stderr.write(`bench: ${PAIRS} rounds${quick ? " (quick)" : ""}\n`)
  // BENCH_ONLY=throughput,turns,fullfinal,idle,bundle,startup,interrupt,slow,many,profile,profile-turns,timeline runs a subset (development; no BENCHMARKS.md).
  const only = process.env.BENCH_ONLY?.split(",")
  const on = (name: string) => only === undefined || only.includes(name)
  // How long each part took, printed at the end (and written into BENCHMARKS.md).
  const took: Array<readonly [string, number]> = []
  const part = async (name: string, body: () => Promise<unknown>) => {
    if (!on(name)) return
    const t = Date.now()
    await body()
    took.push([name, (Date.now() - t) / 1000])
  }
  await part("throughput", async () => {
    const small = await throughput(SMALL)
    await importsBreakdown()
    startupFake(small)
    warmUp(small, await throughput(BIG))
  })
  await part("turns", async () => {
    await shortTurns(TURNS.few)
    await shortTurns(TURNS.many)
  })
  await part("fullfinal", () => fullFinal(BIG))
  await part("idle", idleSessions)
  await part("bundle", bundledStartup)
  await part("startup", startupReal)
  await part("interrupt", interrupt)
  await part("slow", slowConsumer)
  await part("many", manySessions)
  await part("cluster", clusterBench)
  await part("profile", () => profile())
  await part("profile-turns", () => profile("turns"))
  await part("timeline", timelinePage)
  startupTargets()
  const seconds = (Date.now() - began) / 1000
  const timing = `${took.map(([name, t]) => `${name} ${fmt(t, 0)} s`).join(", ")}; build ${fmt(seconds - took.reduce((n, [, t]) => n + t, 0), 0)} s`
  out(`total: ${fmt(seconds, 0)} s (${timing})`)
  if (targets.length > 0) {
    process.stderr.write(["", "targets:", ...sortedTargets().map((t) => `  ${t.ok ? "met   " : "MISSED"} ${t.row}`), ""].join("\n"))
  }
  const leftovers = pgrepFake()
  if (leftovers.length > 0) out(`WARNING: fake CLI processes still running: ${leftovers.join(" ")}`)
  // A quick or partial run writes no BENCHMARKS.md; BENCH_MD=file writes its page there instead (to check the page).
  const mdFile = quick || only !== undefined ? process.env.BENCH_MD : Path.join(root, "BENCHMARKS.md")
  if (mdFile === undefined) {
    process.stderr.write(["", "what holds, what limits:", ...limits, "", ...sections].join("\n"))
    return
  }
  const pkgVersion = (JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as { version: string }).version
  const cpus = Os.cpus()
  const md = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (`node bench/run.ts`); do not edit by hand.",
    "",
    `- date: ${new Date().toISOString()}`,
    `- command: \`${quick ? "BENCH_QUICK=1 " : ""}${only === undefined ? "" : `BENCH_ONLY=${only.join(",")} `}npm run bench\` (${PAIRS} rounds, ${fmt(seconds, 0)} s in all: ${timing})`,
    `- machine: ${Os.type()} ${Os.release()} ${Os.arch()}, ${cpus.length} × ${cpus[0]?.model ?? "?"}, ${fmt(Os.totalmem() / 2 ** 30, 1)} GiB, load average at the end ${Os.loadavg().map((x) => fmt(x, 2)).join(" ")}`,
    `- Node ${process.version}; effect-claude-code ${pkgVersion}; effect ${version("effect")}; @effect/platform-node ${version("@effect/platform-node")}; @anthropic-ai/claude-agent-sdk ${version("@anthropic-ai/claude-agent-sdk")}; @anthropic-ai/claude-code ${version("@anthropic-ai/claude-code")}`,
    "",
    "Method: each measurement is a fresh child Node process (`bench/child.ts`), so peak RSS (VmHWM) is that run's own. Runs alternate in rounds (the order rotates each round); every figure is the median of the per-round ratios (or differences), with min and max. The library is `src` built as the package ships it (`scripts/build.ts`: esbuild, what `Claude.js` loads in one file, `chunks/core.js`, each entry a file re-exporting its module), imported as a program imports it (`effect-claude-code/Claude` and `effect-claude-code/node`: `Claude.js`, `node.js`), with `ClaudeNode.layer` (the process transport; no platform module); raw Node is `child_process.spawn` + split at `\\n` + `JSON.parse` of every line; the SDK is `query()` with `pathToClaudeCodeExecutable` and `includePartialMessages: true` (it runs a `.mjs` path with `node`). The load CLI is `bench/fake-cli-load.mjs` (deltas of ~290 bytes, 64 KiB writes, backpressure).",
    "",
    "## Targets",
    "",
    "Issue 21's targets (short turns, throughput, memory with the real CLI's final lines, start-up of a shipped program), with those of issues 7 and 18 that still apply. Each row: met or missed by the median of the per-round ratios (min and max in brackets), and which scenario measured it.",
    "",
    "| target | issue | | measured |",
    "|---|---|---|---|",
    ...sortedTargets().map((t) => t.row),
    "",
    ...(limits.length === 0 ? [] : ["### What holds, and what limits the missed targets (measured)", "", ...limits, ""]),
    "## Summary",
    "",
    "```",
    ...lines,
    "```",
    "",
    "## Details",
    "",
    ...sections
  ].join("\n")
  Fs.writeFileSync(mdFile, md + "\n")
  process.stderr.write(`bench: wrote ${Path.relative(root, mdFile)}\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  }
)
