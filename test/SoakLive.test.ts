/**
 * A short soak in CI: `bench/soak.ts` (the same script as `npm run soak`) with 300 turns on the
 * load fake CLI, a Stop hook and an MCP tool answered on every turn; the heap used after all the
 * turns stays within 10% of the heap after the first 50 (a per-turn leak of fibers, Deferreds,
 * subscribers or listeners would grow it).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import * as Effect from "effect/Effect"

const SOAK = Path.join(import.meta.dirname, "..", "bench", "soak.ts")
const TURNS = 300
const WARMUP = 50
const EVENTS = 50

interface SoakReport {
  readonly turns: number
  readonly warmup: number
  readonly heapAtWarmup: number
  readonly heapAtEnd: number
  readonly ratio: number
  readonly durationMs: number
  readonly hookAnswers: number
  readonly hookCalls: number
  readonly mcpAnswers: number
  readonly eventsSeen: number
}

const runSoak = Effect.callback<{ readonly stdout: string; readonly stderr: string }, Error>((resume) => {
  const child = execFile(
    process.execPath,
    ["--expose-gc", SOAK, "--turns", String(TURNS), "--warmup", String(WARMUP), "--events", String(EVENTS), "--json"],
    { timeout: 60_000, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 },
    (error, stdout, stderr) => {
      if (error !== null) resume(Effect.fail(new Error(`soak failed: ${error.message}\n${stderr}`)))
      else resume(Effect.succeed({ stdout, stderr }))
    }
  )
  return Effect.sync(() => child.kill("SIGKILL"))
})

describe("soak", () => {
  it.live(`${TURNS} turns with a Stop hook and an MCP call each: heap within 10% of the heap after ${WARMUP}`, () =>
    Effect.gen(function*() {
      const { stdout } = yield* runSoak
      const lines = stdout.trim().split("\n")
      const report = JSON.parse(lines.at(-1)!) as SoakReport
      assert.strictEqual(report.turns, TURNS)
      assert.strictEqual(report.warmup, WARMUP)
      // Every turn ran its hook and its MCP call, and streamed all its events.
      assert.strictEqual(report.hookCalls, TURNS)
      assert.strictEqual(report.hookAnswers, TURNS)
      assert.strictEqual(report.mcpAnswers, TURNS)
      // init, status, message_start, content_block_start, the deltas, assistant, content_block_stop,
      // message_delta, message_stop, result.
      assert.strictEqual(report.eventsSeen, TURNS * (EVENTS + 9))
      assert.isAbove(report.heapAtWarmup, 0)
      assert.isAtMost(report.heapAtEnd, report.heapAtWarmup * 1.1, `heap grew: ${JSON.stringify(report)}`)
      assert.isAtMost(report.ratio, 1.1)
    }), { timeout: 70_000 })
})
