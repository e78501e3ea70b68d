/**
 * The timeline page of a 10,000-line transcript (`npm run bench`, case `timeline`; alone:
 * `BENCH_ONLY=timeline node bench/run.ts`, or `node bench/timeline.ts`).
 *
 * The transcript is made from the recorded Bash turn of testdata/transcripts/bash-tool.ndjson,
 * repeated with fresh ids and times until it has 10,000 lines, every fifth tool result 200 lines
 * long (folded on the page). Measured, each a median of several runs:
 * - build: reading the file, the timeline and the page's HTML in Node (what `view` does for `/`);
 * - open: headless Chromium (Debian's `chromium`, or `CHROMIUM`) from `goto` of the written page
 *   (file://) until it is laid out and painted (two animation frames after `load`).
 * Both as wall time and as CPU time (Node's `process.cpuUsage`; the renderer's main thread from
 * the DevTools protocol's `Performance` metrics in `threadTicks`): on a loaded machine the wall
 * time is mostly waiting for a core. The target: the page opens in Chromium in under a second
 * (main-thread time, and wall time when the machine is not loaded).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { type CDPSession, chromium } from "playwright-core"
import * as Timeline from "../src/Timeline.ts"
import * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"

const root = Path.resolve(import.meta.dirname, "..")
const LINES = 10_000
const RUNS = 5

const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** A transcript of `LINES` lines: the recorded session's start, then its turn again and again. */
export const makeTranscript = (): string => {
  const recorded = Fs.readFileSync(Path.join(root, "testdata/transcripts/bash-tool.ndjson"), "utf8").trim().split("\n")
  const firstUser = recorded.findIndex((l) => l.includes(`"dir":"send","msg":{"type":"user"`))
  // The start: everything up to system/init but the prompt; a turn: the prompt and what follows init.
  const init = recorded.findIndex((l) => l.includes(`"subtype":"init"`))
  const head = recorded.slice(0, init + 1).filter((_, i) => i !== firstUser)
  const turn = [recorded[firstUser]!, ...recorded.slice(init + 1)]
  const out: Array<string> = []
  let ts = Date.UTC(2026, 11, 1)
  for (const line of head) out.push(JSON.stringify({ ...JSON.parse(line), ts: (ts += 3) }))
  for (let n = 0; out.length < LINES; n++) {
    for (const line of turn) {
      if (out.length >= LINES) break
      const parsed = JSON.parse(line.replaceAll("toolu_fake", `toolu_${n}_`)) as Transcript.Line
      if (n % 5 === 0) {
        const msg = parsed.msg as { type?: string; message?: { content?: Array<{ type?: string; content?: unknown }> } }
        for (const block of msg.type === "user" ? msg.message?.content ?? [] : []) {
          if (block.type === "tool_result") block.content = Array.from({ length: 200 }, (_, i) => `output line ${i} of turn ${n}`).join("\n")
        }
      }
      const text = JSON.stringify({ ...parsed, ts: (ts += 40) })
      out.push(parsed.dir === "send" ? text.replace(`"content":"Run echo hi"`, `"content":"Run echo hi (${n})"`) : text)
    }
  }
  return out.join("\n") + "\n"
}

/** The renderer's main-thread time so far (CPU time: `threadTicks`), in ms. */
const mainThreadMs = async (cdp: CDPSession): Promise<number> => {
  const { metrics } = await cdp.send("Performance.getMetrics")
  return 1000 * (metrics.find((m) => m.name === "TaskDuration")?.value ?? 0)
}

/** The figures of the case: medians in ms, the page's size, the turns. */
export const measure = async (): Promise<{
  readonly lines: number
  readonly turns: number
  readonly htmlKb: number
  readonly buildMs: number
  readonly buildCpuMs: number
  readonly openMs: number
  readonly loadEventMs: number
  readonly openCpuMs: number
}> => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-bench-timeline-"))
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium" })
  try {
    const transcript = Path.join(dir, "big.ndjson")
    Fs.writeFileSync(transcript, makeTranscript())
    const builds: Array<number> = []
    const buildCpus: Array<number> = []
    let html = ""
    let turns = 0
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now()
      const cpu = process.cpuUsage()
      const lines = await Effect.runPromise(Transcript.read(transcript))
      const timeline = Timeline.fromLines(lines)
      html = Page.renderPage(timeline, { title: "big.ndjson" })
      builds.push(performance.now() - started)
      const used = process.cpuUsage(cpu)
      buildCpus.push((used.user + used.system) / 1000)
      turns = timeline.turns.length
    }
    const page = Path.join(dir, "big.html")
    Fs.writeFileSync(page, html)
    const opens: Array<number> = []
    const loads: Array<number> = []
    const cpus: Array<number> = []
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
      const tab = await context.newPage()
      const cdp = await context.newCDPSession(tab)
      await cdp.send("Performance.enable", { timeDomain: "threadTicks" })
      const before = await mainThreadMs(cdp)
      const started = performance.now()
      await tab.goto(`file://${page}`, { waitUntil: "load" })
      // In the page (the DOM's own globals): two animation frames after load, the page is painted.
      await tab.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
      opens.push(performance.now() - started)
      cpus.push((await mainThreadMs(cdp)) - before)
      const shown = await tab.locator("section.turn").count()
      if (shown !== turns) throw new Error(`the page shows ${shown} turns of ${turns}`)
      loads.push(Number(await tab.evaluate(`performance.getEntriesByType("navigation")[0].loadEventEnd`)))
      await context.close()
    }
    return {
      lines: LINES,
      turns,
      htmlKb: Math.round(Buffer.byteLength(html) / 1024),
      buildMs: median(builds),
      buildCpuMs: median(buildCpus),
      openMs: median(opens),
      loadEventMs: median(loads),
      openCpuMs: median(cpus)
    }
  } finally {
    await browser.close()
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  measure().then((figures) => console.log(JSON.stringify(figures)), (error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
