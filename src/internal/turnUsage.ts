/**
 * Per-turn cost and usage. The CLI reports `total_cost_usd` and `modelUsage` as running totals
 * for its process; a turn's own share is the difference from the previous result.
 */
import type { TurnUsage } from "../Claude.ts"
import type * as Protocol from "../Protocol.ts"

/** Numbers per model, e.g. `{ "claude-opus-5-5": { inputTokens: 100, costUSD: 0.001 } }`. */
export type ModelUsage = Record<string, Record<string, number>>

const numbers = (usage: unknown): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(usage as Record<string, unknown>)) {
    if (typeof value === "number") out[key] = value
  }
  return out
}

/** Turns a process's running totals into each result's own share; one per session. */
export class TurnUsageTracker {
  private lastCost = 0
  private lastModelUsage: ModelUsage = {}

  /** This result's own share; then remembers its totals for the next one. */
  next(result: Protocol.ResultMessage): TurnUsage {
    const totals: ModelUsage = {}
    const modelUsage: ModelUsage = {}
    for (const [model, usage] of Object.entries(result.modelUsage ?? {})) {
      const now = numbers(usage)
      const before = this.lastModelUsage[model] ?? {}
      const delta: Record<string, number> = {}
      for (const [key, value] of Object.entries(now)) delta[key] = value - (before[key] ?? 0)
      totals[model] = now
      modelUsage[model] = delta
    }
    const costUsd = typeof result.total_cost_usd === "number" ? result.total_cost_usd - this.lastCost : 0
    if (typeof result.total_cost_usd === "number") this.lastCost = result.total_cost_usd
    if (result.modelUsage !== undefined) this.lastModelUsage = totals
    return { costUsd, modelUsage }
  }
}
