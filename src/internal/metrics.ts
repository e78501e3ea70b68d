/**
 * The session's metrics, as constructors: `Tracing.ts` exports one instance of each, and the
 * session's tracing makes one more per series (per set of attributes, see `tracing.ts`), which
 * updates the same series in the registry: a metric caches the key of the last attribute set it
 * was updated with, so one instance per series finds it cached on every update.
 */
import * as Metric from "effect/Metric"

export const turnDuration = (): Metric.Histogram<number> =>
  Metric.histogram("claude.turn.duration", {
    description: "The duration of a turn in milliseconds, as the CLI reports it",
    boundaries: Metric.exponentialBoundaries({ start: 100, factor: 2, count: 14 })
  })

export const tokenUsage = (): Metric.Histogram<number> =>
  Metric.histogram("gen_ai.client.token.usage", {
    description: "The tokens of a turn, per model and token type",
    boundaries: Metric.exponentialBoundaries({ start: 1, factor: 4, count: 14 })
  })

export const turnCost = (): Metric.Counter<number> =>
  Metric.counter("claude.turn.cost", {
    description: "The cost of turns in US dollars",
    incremental: true
  })

export const turnToolCalls = (): Metric.Histogram<number> =>
  Metric.histogram("claude.turn.tool_calls", {
    description: "The tool uses of a turn",
    boundaries: [0, 1, 2, 5, 10, 20, 50, 100]
  })

export const toolCalls = (): Metric.Counter<number> =>
  Metric.counter("claude.tool.calls", {
    description: "Tool uses, by tool and outcome",
    incremental: true
  })
