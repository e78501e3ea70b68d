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

interface Reading {
  readonly at: number
  readonly cpu: NodeJS.CpuUsage
  readonly thread: NodeJS.CpuUsage
}

/** The clock, the process's CPU and its main thread's, now. */
const read = (): Reading => ({ at: performance.now(), cpu: process.cpuUsage(), thread: process.threadCpuUsage() })

/**
 * A timed run of turns: where it started, and where its second half did (once {@link turnEnded}
 * passed it). The second half carries less of V8's one-time compiling: its optimizing compiler
 * works on helper threads through the first thousands of turns, CPU that a long-lived program
 * pays once.
 */
export interface TurnsClock {
  readonly start: Reading
  half: Reading | undefined
}

/** Where a timed run of turns starts. */
export const turnsStart = (): TurnsClock => ({ start: read(), half: undefined })

/** Called as each timed turn ends, `done` of `turns`: the second half starts after half of them. */
export const turnEnded = (clock: TurnsClock, done: number, turns: number): void => {
  if (done === Math.floor(turns / 2)) clock.half = read()
}

/** A run's figures per turn, from `clock`'s start and, for the second half, from its half. */
export const turnFigures = (turns: number, lines: number, clock: TurnsClock) => {
  const end = read()
  const perTurn = (from: Reading, n: number) => ({
    ms: (end.at - from.at) / n,
    cpuUs: (end.cpu.user - from.cpu.user + end.cpu.system - from.cpu.system) / n,
    // The JavaScript thread's share; the rest is V8's helper threads (optimizing compiler, GC).
    threadUs: (end.thread.user - from.thread.user + end.thread.system - from.thread.system) / n
  })
  const all = perTurn(clock.start, turns)
  const second = clock.half === undefined ? undefined : perTurn(clock.half, turns - Math.floor(turns / 2))
  const seconds = (end.at - clock.start.at) / 1000
  return {
    turns,
    linesPerTurn: lines / turns,
    seconds,
    msPerTurn: all.ms,
    cpuUsPerTurn: all.cpuUs,
    mainThreadCpuUsPerTurn: all.threadUs,
    ...(second === undefined ? {} : {
      secondHalfMsPerTurn: second.ms,
      secondHalfCpuUsPerTurn: second.cpuUs,
      secondHalfMainThreadCpuUsPerTurn: second.threadUs
    }),
    ...memoryFigures()
  }
}

/**
 * V8's young generation as it ends (both semispaces: it grows with what survives its scavenges,
 * start-up included, and does not shrink while a program allocates) and the heap in use.
 */
const memoryFigures = () => ({ youngGenMb: youngGenMb(), heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20 })

/** One long turn's figures (not timed): the lines it read, and the memory it leaves. */
export const longTurnFigures = (lines: number) => ({ lines, ...memoryFigures() })
