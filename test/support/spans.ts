/**
 * A test tracer: every span made through it, kept in order of creation, with helpers to read the
 * tree (unit and live tiers share it).
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as Claude from "../../src/Claude.ts"
import * as FakeCli from "../../src/testing/FakeCli.ts"
import type { Transport } from "../../src/Transport.ts"
import type { ClaudeError } from "../../src/ClaudeError.ts"

export interface Collected {
  /** Every span, in the order it was started. */
  readonly spans: Array<Tracer.NativeSpan>
  /** Runs `effect` with this tracer and a fresh metric registry. */
  readonly provide: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const collectSpans = (): Collected => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const registry: Metric.MetricRegistry = new Map()
  return {
    spans,
    provide: (effect) =>
      effect.pipe(Effect.withTracer(tracer), Effect.provideService(Metric.MetricRegistry, registry))
  }
}

/** The spans whose name is `name` or starts with `name `. */
export const named = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string): Array<Tracer.NativeSpan> =>
  spans.filter((span) => span.name === name || span.name.startsWith(`${name} `))

/** The one span named exactly `name`. */
export const only = (spans: ReadonlyArray<Tracer.NativeSpan>, name: string): Tracer.NativeSpan => {
  const found = spans.filter((span) => span.name === name)
  if (found.length !== 1) {
    throw new Error(`expected one span ${name}, got ${found.length}: ${spans.map((s) => s.name).join(", ")}`)
  }
  return found[0]!
}

/** The name of a span's parent ("" for a root). */
export const parentName = (span: Tracer.AnySpan): string => {
  if (span._tag !== "Span") return ""
  const parent = Option.getOrUndefined(span.parent)
  return parent === undefined ? "" : parent._tag === "Span" ? parent.name : "external"
}

/** The names from a span up to its root: `["claude.hook PreToolUse", "execute_tool Bash", …]`. */
export const chain = (span: Tracer.AnySpan): Array<string> => {
  const names: Array<string> = []
  let current: Tracer.AnySpan | undefined = span
  while (current !== undefined) {
    names.push(current._tag === "Span" ? current.name : "external")
    current = current._tag === "Span" ? Option.getOrUndefined(current.parent) : undefined
  }
  return names
}

/** Every attribute value of every span, as text. */
export const attributeTexts = (spans: ReadonlyArray<Tracer.NativeSpan>): Array<string> =>
  spans.flatMap((span) =>
    [...span.attributes.entries()].map(([key, value]) =>
      `${span.name} ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`
    )
  )

/** One metric's snapshots, from the registry `collectSpans` provides. */
export const metricSnapshots = (id: string) =>
  Effect.map(Metric.snapshot, (snapshots) => snapshots.filter((snapshot) => snapshot.id === id))

/**
 * Runs `program` on a session of a FakeCli that plays each user turn with `onUser`
 * (`FakeCli.conversation`'s, lines of `sessionId`), under {@link collectSpans}, its logs silenced:
 * what `program` returned, and every span. `open` opens the session (default `Claude.open()`).
 */
export const tracedSession = <A, E>(
  sessionId: string,
  onUser: (text: string, index: number, cli: FakeCli.FakeCliHandle, message: Record<string, unknown>) => Effect.Effect<void, unknown>,
  program: (session: Claude.Session) => Effect.Effect<A, E, Scope.Scope>,
  open: Effect.Effect<Claude.Session, ClaudeError, Scope.Scope | Transport> = Claude.open()
) => {
  const collected = collectSpans()
  return Effect.flatMap(open, program).pipe(
    Effect.scoped,
    Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId, onUser }))),
    collected.provide,
    Effect.provide(Logger.layer([])),
    Effect.map((value) => ({ value, spans: collected.spans as ReadonlyArray<Tracer.NativeSpan> }))
  )
}
