/**
 * Traces of a session in the observability stack you already have. The library writes its spans
 * (session, turns, model requests, tool uses, hooks, permission decisions, control requests) and
 * per-turn metrics to Effect's `Tracer` and `Metric`: provide a tracer layer and they go there.
 *
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` set (`http://localhost:4318`, a Jaeger, Tempo or Grafana
 *   Alloy collector): spans and metrics are exported over OTLP/HTTP with Effect's own exporter
 *   (`effect/observability/Otlp`, no other package).
 * - Otherwise: the OpenTelemetry SDK through `@effect/opentelemetry` (`OtelTracer.layer` over a
 *   `BasicTracerProvider`), with an in-memory exporter, and the tree is printed. To send these
 *   to a collector, put `new BatchSpanProcessor(new OTLPTraceExporter())` (from
 *   `@opentelemetry/exporter-trace-otlp-http`) in the provider, or use `NodeSdk.layer`.
 *
 * Prompts, results and tool inputs and outputs stay out of the spans unless the program asks
 * (`Tracing.TraceContent`, here with `TRACE_CONTENT=1`); secrets never get in.
 *
 * Runs offline: the fake model asks for a Bash command, then answers.
 */
import * as Resource from "@effect/opentelemetry/Resource"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Otlp from "effect/observability/Otlp"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Tracing from "../src/Tracing.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** A span as the in-memory exporter got it: its id, name, parent (id and name) and attributes. */
export interface ExportedSpan {
  readonly id: string
  readonly name: string
  readonly parentId: string | undefined
  readonly parent: string | undefined
  readonly attributes: Readonly<Record<string, unknown>>
}

const script: FakeModel.Script = (request) =>
  FakeModel.toolResults(request).length === 0
    ? FakeModel.toolUse("Bash", { command: "echo traced", description: "print a word" })
    : FakeModel.text("The command printed: traced")

/** One turn with a tool use, on the fake model. */
export const session: Effect.Effect<Claude.TurnResult, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const { options } = yield* fakeModel(script, { permissionMode: "bypassPermissions", env: { IS_SANDBOX: "1" } })
  const opened = yield* Claude.open(options)
  return yield* opened.run("Run echo traced and tell me what it printed")
}).pipe(Effect.scoped, Effect.provide(processLayer))

/** OTLP/HTTP to a collector at `baseUrl`, with Effect's own exporter. */
export const otlpLayer = (baseUrl: string): Layer.Layer<never> =>
  Otlp.layerJson({ baseUrl, resource: { serviceName: "claude-agent" } }).pipe(Layer.provide(FetchHttpClient.layer))

/** The OpenTelemetry SDK through `@effect/opentelemetry`, its spans kept by `exporter`. */
export const otelLayer = (exporter: InMemorySpanExporter) =>
  OtelTracer.layer.pipe(
    Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))),
    Layer.provide(Resource.layer({ serviceName: "claude-agent" }))
  )

/** Runs the session under the OpenTelemetry SDK and returns what the exporter got. */
export const inMemory = (content: boolean): Effect.Effect<ReadonlyArray<ExportedSpan>, ClaudeError.ClaudeError> =>
  Effect.gen(function*() {
    const exporter = new InMemorySpanExporter()
    yield* session.pipe(
      Effect.provideService(Tracing.TraceContent, content),
      Effect.provide(otelLayer(exporter))
    )
    // In the order they started (the exporter has them in the order they ended).
    const spans = [...exporter.getFinishedSpans()].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
    const names = new Map(spans.map((span: ReadableSpan) => [span.spanContext().spanId, span.name]))
    return spans.map((span): ExportedSpan => ({
      id: span.spanContext().spanId,
      name: span.name,
      parentId: span.parentSpanContext?.spanId,
      parent: span.parentSpanContext === undefined ? undefined : names.get(span.parentSpanContext.spanId),
      attributes: span.attributes
    }))
  })

/** The tree of `spans`, indented by depth, with a few attributes. */
export const render = (spans: ReadonlyArray<ExportedSpan>): string => {
  const shown = ["gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.tool.name", "claude.cost_usd"]
  const lines: Array<string> = []
  const walk = (parentId: string | undefined, depth: number) => {
    for (const span of spans) {
      if (span.parentId !== parentId) continue
      const attributes = shown.filter((key) => span.attributes[key] !== undefined)
        .map((key) => `${key}=${String(span.attributes[key])}`)
      lines.push(`${"  ".repeat(depth)}${span.name}${attributes.length === 0 ? "" : `  (${attributes.join(", ")})`}`)
      walk(span.id, depth + 1)
    }
  }
  // The roots: spans whose parent was not exported (a span of the program's, or none).
  const ids = new Set(spans.map((span) => span.id))
  const roots = new Set(spans.filter((span) => span.parentId === undefined || !ids.has(span.parentId)).map((span) => span.parentId))
  for (const root of roots) walk(root, 0)
  return lines.join("\n")
}

export const main: Effect.Effect<void, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  const content = process.env.TRACE_CONTENT === "1"
  if (endpoint !== undefined && endpoint !== "") {
    const result = yield* session.pipe(Effect.provideService(Tracing.TraceContent, content), Effect.provide(otlpLayer(endpoint)))
    // The OTLP layer has closed: its exporter sent the spans, or tried to. A failed export never
    // fails the program; it is only logged, at debug level.
    yield* Console.log(`${result.result} (spans sent to ${endpoint}, unless it could not be reached: a failed export is only logged, at debug level)`)
    return
  }
  yield* Console.log(render(yield* inMemory(content)))
})

if (isMain(import.meta)) NodeRuntime.runMain(main)
