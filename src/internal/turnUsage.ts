/**
 * Per-turn cost and usage. The CLI reports `total_cost_usd` and `modelUsage` as running totals
 * (continued from the resumed session after `resume`, reset by `/clear`), and, since 2.1,
 * `model_usage_since_last_result`: the turn's own figures, which are taken as they are. Without
 * that field a turn's share is the difference from the previous result's totals, never negative.
 */
import type * as Protocol from "../Protocol.ts"

type ModelUsages = Readonly<Record<string, Protocol.ModelUsage>>

/** The fields of `ModelUsage` that count up over a process; the others are kept as written. */
const counters = [
  "inputTokens",
  "outputTokens",
  "cacheReadInputTokens",
  "cacheCreationInputTokens",
  "webSearchRequests",
  "costUSD",
  "thinkingTokens",
  "cacheCreationEphemeral5mInputTokens",
  "cacheCreationEphemeral1hInputTokens"
] as const

const difference = (now: Protocol.ModelUsage, before: Protocol.ModelUsage | undefined): Protocol.ModelUsage => {
  if (before === undefined) return now
  const delta: Record<string, unknown> = { ...now }
  for (const key of counters) {
    const value = now[key]
    if (value !== undefined) delta[key] = Math.max(0, value - (before[key] ?? 0))
  }
  return delta as Protocol.ModelUsage
}

const sumCost = (usage: ModelUsages): number => {
  let cost = 0
  for (const model in usage) cost += usage[model]!.costUSD
  return cost
}

/** Turns each result into its own share; one per session. */
export class TurnUsageTracker {
  private lastCost = 0
  private lastModelUsage: ModelUsages = {}

  /** This result's own share; then remembers its totals for the next one. */
  next(result: Protocol.ResultMessage): { readonly costUsd: number; readonly modelUsage: ModelUsages } {
    const totals = result.modelUsage
    const own = result.model_usage_since_last_result
    let share: { readonly costUsd: number; readonly modelUsage: ModelUsages }
    if (own !== undefined) {
      share = { costUsd: sumCost(own), modelUsage: own }
    } else {
      const modelUsage: Record<string, Protocol.ModelUsage> = {}
      for (const model in totals) modelUsage[model] = difference(totals[model]!, this.lastModelUsage[model])
      share = { costUsd: Math.max(0, result.total_cost_usd - this.lastCost), modelUsage }
    }
    this.lastCost = result.total_cost_usd
    this.lastModelUsage = totals
    return share
  }
}
