/**
 * The series of a session's metrics, found by their attribute values (see `tracing.ts`).
 *
 * Invariants:
 * - Each series has a metric instance of its own and a context made once: `Metric.withAttributes`
 *   copies the context on every update, and a metric computes its series key anew (entries
 *   sorted, then JSON) whenever its attributes differ from its last update's.
 * - A series is found by its values one by one (a map a value), never by a key joined from them:
 *   a joined key is a new string, hashed anew, on every update (five times a turn).
 * - Bounded: past {@link MAX_SERIES} series of one metric, whatever its kinds, its table starts
 *   again (the values are models, tool names, outcomes and kinds: few, unless the CLI's names run
 *   wild).
 */
import * as Context from "effect/Context"
import * as Metric from "effect/Metric"

/** A metric of the session: how to make an instance, and its attributes. */
export interface Kind {
  readonly make: () => Metric.Metric<number, unknown>
  /**
   * The names of its attributes, whose values `update` takes in this order (one to four); a
   * series has them in this order, after the program's.
   */
  readonly names:
    | readonly [string]
    | readonly [string, string]
    | readonly [string, string, string]
    | readonly [string, string, string, string]
}

interface Series {
  readonly metric: Metric.Metric<number, unknown>
  readonly context: Context.Context<never>
}

/** A map a value: under the last value, the series; under any other, the next value's map. */
type Level = Map<string, Level | Series>

/** A metric's series: a root a kind (one metric may have kinds of different names), one count. */
interface Table {
  readonly roots: Map<Kind, Level>
  size: number
}

/** The map under `part` in `level`, made when it has none. */
const below = (level: Level, part: string): Level => {
  let next = level.get(part) as Level | undefined
  if (next === undefined) {
    next = new Map()
    level.set(part, next)
  }
  return next
}

export const MAX_SERIES = 256

export class MetricSeries {
  /** By metric (`Kind.make`). */
  private readonly tables = new Map<Kind["make"], Table>()
  private readonly context: Context.Context<never>

  /** `context` holds the registry the series are updated in, and the program's attributes. */
  constructor(context: Context.Context<never>) {
    this.context = context
  }

  /** Updates `kind`'s series of the attribute values `a`, `b`, `c`, `d` (as many as its names). */
  update(kind: Kind, value: number, a: string, b = "", c = "", d = ""): void {
    let table = this.tables.get(kind.make)
    if (table === undefined) {
      table = { roots: new Map(), size: 0 }
      this.tables.set(kind.make, table)
    }
    let level = table.roots.get(kind)
    if (level === undefined) {
      level = new Map()
      table.roots.set(kind, level)
    }
    const parts = kind.names.length
    if (parts > 1) level = below(level, a)
    if (parts > 2) level = below(level, b)
    if (parts > 3) level = below(level, c)
    const last = parts === 1 ? a : parts === 2 ? b : parts === 3 ? c : d
    let series = level.get(last) as Series | undefined
    if (series === undefined) {
      if (table.size >= MAX_SERIES) {
        this.tables.delete(kind.make)
        return this.update(kind, value, a, b, c, d)
      }
      series = this.make(kind, [a, b, c, d])
      level.set(last, series)
      table.size++
    }
    series.metric.updateUnsafe(value, series.context)
  }

  /** How many series of the metric `make` makes are held (at most {@link MAX_SERIES}). */
  held(make: Kind["make"]): number {
    return this.tables.get(make)?.size ?? 0
  }

  private make(kind: Kind, values: ReadonlyArray<string>): Series {
    const attributes: Record<string, string> = { ...Context.get(this.context, Metric.CurrentMetricAttributes) }
    kind.names.forEach((name, i) => attributes[name] = values[i]!)
    return { metric: kind.make(), context: Context.add(this.context, Metric.CurrentMetricAttributes, attributes) }
  }
}
