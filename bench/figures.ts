/**
 * The figures a benchmark process reports of itself, shared by `bench/child.ts` and the programs
 * `bench/run.ts` bundles (`bench/turns-program.ts`), so that both are measured alike.
 */
import * as Fs from "node:fs"
import * as V8 from "node:v8"

/** This process's peak RSS (VmHWM), in MB. */
export const peakRssMb = (): number => {
  try {
    const status = Fs.readFileSync("/proc/self/status", "utf8")
    const m = /VmHWM:\s+(\d+) kB/.exec(status)
    if (m !== null) return Number(m[1]) / 1024
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024
}

/** V8's young generation (both semispaces), in MB: it grows with what survives its scavenges. */
export const youngGenMb = (): number =>
  (V8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0) / 2 ** 20

/**
 * Prints the run's figures as the one JSON line `bench/run.ts` reads, with this process's peak RSS
 * and its CPU time (user + system, start-up included: less sensitive to a busy machine than wall
 * time).
 */
export const report = (figures: Record<string, unknown>): void => {
  const cpu = process.cpuUsage()
  process.stdout.write(JSON.stringify({ ok: true, ...figures, peakRssMb: peakRssMb(), cpuMs: (cpu.user + cpu.system) / 1000 }) + "\n")
}

/** Where a timed run of turns starts: the clock, the process's CPU and its main thread's. */
export const turnsStart = () => ({ at: performance.now(), cpu: process.cpuUsage(), thread: process.threadCpuUsage() })
export const turnFigures = (turns: number, lines: number, start: ReturnType<typeof turnsStart>) => {
  const seconds = (performance.now() - start.at) / 1000
  const cpu = process.cpuUsage(start.cpu)
  const thread = process.threadCpuUsage(start.thread)
  return {
    turns,
    linesPerTurn: lines / turns,
    seconds,
    msPerTurn: (seconds * 1000) / turns,
    cpuUsPerTurn: (cpu.user + cpu.system) / turns,
    // The JavaScript thread's share; the rest is V8's helper threads (optimizing compiler, GC).
    mainThreadCpuUsPerTurn: (thread.user + thread.system) / turns,
    // V8's young generation as it ended (both semispaces): it grows with what survives its
    // scavenges, start-up included, and does not shrink while a program allocates.
    youngGenMb: youngGenMb(),
    heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20
  }
}
