/**
 * The end of a turn whose stream ended before its result (the consumer stopped early, or its fiber
 * was interrupted): the library interrupts it on the CLI and awaits its result before the turn's
 * span ends and the next turn is written. Each failed before its fix:
 * - The result that came during that interrupt was missing from the turn's span (its usage, cost,
 *   subtype, terminal reason): the result's waiter ran at once, before the turn's outcome was
 *   kept, and the span ended without it.
 * - The interrupt's `claude.control_request interrupt` span lost the consumer's span as its
 *   parent (a turn stream under `Stream.withSpan`): it ran in the context of the fiber that closed
 *   the stream, not in the turn's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { abortedResult, answerInterrupt } from "./support/interrupts.ts"
import { collectSpans, named, parentName } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/**
 * A CLI whose first turn runs until it is interrupted, then writes `late` (the aborted result by
 * default); later turns are plain text turns. `streaming` is done once the first turn streams.
 */
const cli = (streaming: Deferred.Deferred<void>, late: "aborted" | "success" = "aborted") =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli, message) =>
      Effect.gen(function*() {
        const uuid = String(message.uuid)
        const lines = FakeCli.textTurn({ sessionId: SESSION, text: `answer: ${text}`, userMessageUuid: uuid })
        if (index > 0) return yield* Effect.forEach(lines, cli.emit, { discard: true })
        yield* cli.emit(lines[0])
        yield* cli.emit(lines[1])
        yield* Deferred.succeed(streaming, undefined)
        yield* answerInterrupt(cli)
        yield* cli.emit(late === "aborted" ? abortedResult(SESSION, uuid) : lines[lines.length - 1])
      })
  }))

const attributesOf = (span: Tracer.NativeSpan) => Object.fromEntries(span.attributes)

/** The result's attributes on a turn's span (Tracing.ts), as the aborted result gives them. */
const assertAbortedResultOn = (span: Tracer.NativeSpan) =>
  assert.deepInclude(attributesOf(span), {
    "claude.result.subtype": "error_during_execution",
    "claude.terminal_reason": "aborted_streaming",
    "claude.cost_usd": 0.001,
    "gen_ai.usage.input_tokens": 10,
    "gen_ai.usage.output_tokens": 5
  })

describe("the end of a turn whose stream ended before its result", () => {
  it.effect("the consumer stopped early (Stream.take): the result that came during the interrupt is on the turn's span", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const streaming = Deferred.makeUnsafe<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const taken = yield* Stream.runCollect(Stream.take(session.turn("one"), 1))
        assert.strictEqual(taken.length, 1)
        yield* session.run("two")
      }).pipe(Effect.scoped, Effect.provide(cli(streaming)), collected.provide)
      const [first, second] = named(collected.spans, "claude.turn")
      assertAbortedResultOn(first!)
      // The turn's own exit is as before: the stream ended as the consumer asked, no failure.
      assert.strictEqual(first!.status._tag === "Ended" && first!.status.exit._tag, "Success")
      assert.strictEqual(attributesOf(second!)["claude.result.subtype"], "success")
      // The program has no span of its own: the interrupt's is under the turn's (before: a root,
      // in a trace of its own).
      const interrupts = named(collected.spans, "claude.control_request interrupt")
      assert.deepStrictEqual(interrupts.map(parentName), ["claude.turn"])
    }))

  it.effect("a late successful result (the turn ended before the interrupt reached it) is on the turn's span", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const streaming = Deferred.makeUnsafe<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* Stream.runDrain(Stream.take(session.turn("one"), 1))
      }).pipe(Effect.scoped, Effect.provide(cli(streaming, "success")), collected.provide)
      const [first] = named(collected.spans, "claude.turn")
      assert.deepInclude(attributesOf(first!), {
        "claude.result.subtype": "success",
        "claude.terminal_reason": "completed",
        "gen_ai.response.finish_reasons": ["end_turn"]
      })
    }))

  it.effect("its fiber interrupted: the aborted result is on the turn's span, which ends interrupted", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const streaming = Deferred.makeUnsafe<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const fiber = yield* Effect.forkChild(Stream.runDrain(session.turn("one")))
        yield* Deferred.await(streaming)
        yield* Fiber.interrupt(fiber)
        yield* session.run("two")
      }).pipe(Effect.scoped, Effect.provide(cli(streaming)), collected.provide)
      const [first] = named(collected.spans, "claude.turn")
      assertAbortedResultOn(first!)
      assert.strictEqual(first!.status._tag === "Ended" && first!.status.exit._tag, "Failure")
    }))

  it.effect("a turn stream under Stream.withSpan stopped early: the interrupt's control request span is under the consumer's span", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const streaming = Deferred.makeUnsafe<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* Stream.runDrain(Stream.take(Stream.withSpan(session.turn("one"), "consumer"), 1))
      }).pipe(Effect.scoped, Effect.provide(cli(streaming)), collected.provide)
      const turn = named(collected.spans, "claude.turn")[0]!
      assert.strictEqual(parentName(turn), "consumer")
      const interrupts = named(collected.spans, "claude.control_request interrupt")
      assert.strictEqual(interrupts.length, 1)
      assert.strictEqual(parentName(interrupts[0]!), "consumer")
    }))
})
