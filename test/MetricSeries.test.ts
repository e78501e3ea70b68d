import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Metric from "effect/Metric"
import { type Kind, MAX_SERIES, MetricSeries } from "../src/internal/metricSeries.ts"

const counter = () => Metric.counter("test.calls", { incremental: true })
const calls: Kind = { make: counter, names: ["tool", "outcome"] }
const turns: Kind = { make: counter, names: ["model", "kind", "subtype"] }
const one: Kind = { make: () => Metric.counter("test.one", { incremental: true }), names: ["model"] }

const setup = () => {
  const registry: Metric.MetricRegistry = new Map()
  const context = Context.make(Metric.MetricRegistry, registry).pipe(
    Context.add(Metric.CurrentMetricAttributes, { service: "program", tool: "the program's" })
  )
  const series = new MetricSeries(context)
  const snapshot = () =>
    Metric.snapshotUnsafe(context).map((s) => ({
      id: s.id,
      attributes: s.attributes ?? {},
      count: (s.state as { readonly count: number }).count
    }))
  return { series, snapshot }
}

const find = (
  snapshots: ReadonlyArray<{ readonly id: string; readonly attributes: Record<string, unknown>; readonly count: number }>,
  attributes: Record<string, string>
) => snapshots.filter((s) => Object.entries(attributes).every(([k, v]) => s.attributes[k] === v))

describe("MetricSeries", () => {
  it("updates one series per set of values, with the program's attributes, its own over them", () => {
    const { series, snapshot } = setup()
    series.update(calls, 1, "Bash", "ok")
    series.update(calls, 1, "Bash", "ok")
    series.update(calls, 1, "Bash", "error")
    series.update(calls, 1, "Read", "ok")
    const all = snapshot()
    assert.strictEqual(all.length, 3)
    assert.deepStrictEqual(find(all, { tool: "Bash", outcome: "ok" }).map((s) => s.attributes), [
      { service: "program", tool: "Bash", outcome: "ok" }
    ])
    assert.deepStrictEqual(find(all, { tool: "Bash", outcome: "ok" }).map((s) => s.count), [2])
    assert.deepStrictEqual(find(all, { tool: "Bash", outcome: "error" }).map((s) => s.count), [1])
    assert.deepStrictEqual(find(all, { tool: "Read", outcome: "ok" }).map((s) => s.count), [1])
  })

  it("tells values apart at every depth, and a value from a joined key (no separator collisions)", () => {
    const { series, snapshot } = setup()
    series.update(turns, 1, "m", "user", "success")
    series.update(turns, 1, "m", "automatic", "success")
    series.update(turns, 1, "m", "user", "error_max_turns")
    series.update(turns, 1, "m\u0000user", "success", "x")
    series.update(one, 5, "m")
    series.update(one, 5, "m")
    const all = snapshot()
    assert.strictEqual(find(all, { model: "m" }).filter((s) => s.id === "test.calls").length, 3)
    assert.deepStrictEqual(find(all, { model: "m", kind: "user", subtype: "success" }).map((s) => s.count), [1])
    assert.deepStrictEqual(find(all, { model: "m\u0000user" }).map((s) => s.attributes.kind), ["success"])
    assert.deepStrictEqual(all.filter((s) => s.id === "test.one").map((s) => s.count), [10])
  })

  it("starts a metric's table again past its bound, and keeps counting into the same series", () => {
    const { series, snapshot } = setup()
    for (let i = 0; i <= MAX_SERIES; i++) series.update(one, 1, `model-${i}`)
    // The table started again at the last one; an earlier series, made anew, counts on in the registry.
    series.update(one, 1, "model-0")
    const all = snapshot()
    assert.strictEqual(all.length, MAX_SERIES + 1)
    assert.deepStrictEqual(find(all, { model: "model-0" }).map((s) => s.count), [2])
    assert.deepStrictEqual(find(all, { model: `model-${MAX_SERIES}` }).map((s) => s.count), [1])
  })

  it("bounds a metric's series whatever its kinds (a failed turn's duration is another kind of the same metric)", () => {
    const { series } = setup()
    const ok: Kind = { make: counter, names: ["model"] }
    const failed: Kind = { make: counter, names: ["model", "error"] }
    for (let i = 0; i < MAX_SERIES; i++) series.update(i % 2 === 0 ? ok : failed, 1, `model-${i}`, "ApiError")
    assert.strictEqual(series.held(counter), MAX_SERIES)
    series.update(failed, 1, "one more", "ApiError")
    assert.strictEqual(series.held(counter), 1)
  })
})
