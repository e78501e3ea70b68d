/**
 * The one-shots: `Claude.query` (one turn, its result) and `Claude.queryStream` (one turn, its
 * events), each owning its session: open, one turn, closed before they return or end.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/**
 * A fake CLI that counts the sessions it started and the ones that ended (its script returns once
 * the library ended its stdin, or is stopped), and plays `onUser` for each turn (an echo by default).
 */
type OnUser = (text: string, index: number, cli: FakeCli.FakeCliHandle, message: Record<string, unknown>) => Effect.Effect<void>

const countingCli = (onUser?: OnUser) => {
  const counts = { started: 0, ended: 0, turns: 0 }
  const launched: Array<ReadonlyArray<string>> = []
  const layer = FakeCli.layer((cli) => {
    counts.started++
    launched.push(cli.spec.args)
    return FakeCli.conversation({
      sessionId: SESSION,
      ...(onUser === undefined ? {} : { onUser }),
      onControl: (request, cli) => cli.emit(FakeCli.success(request))
    })(cli).pipe(
      Effect.tap(() => Effect.sync(() => counts.turns += cli.received.filter((m) => m.type === "user").length)),
      Effect.onExit(() => Effect.sync(() => counts.ended++))
    )
  })
  return { counts, launched, layer }
}

/** A turn that ends at the turn limit: a failed turn (`LimitReached`). */
const hitsTheLimit: OnUser = (_text, _index, cli, message) => {
  const uuid = String(message.uuid)
  return cli.emit({
    ...FakeCli.result({ sessionId: SESSION, subtype: "error_max_turns", terminalReason: "max_turns" }),
    user_message_uuid: uuid,
    user_message_uuids: [uuid]
  })
}

describe("Claude.query", () => {
  it.effect("returns the turn's result and has closed the session (the CLI ended) when it returns", () =>
    Effect.gen(function*() {
      const { counts, layer } = countingCli()
      // No Scope in its requirements: the session's scope is query's own.
      const program: Effect.Effect<Claude.TurnResult, ClaudeError.ClaudeError, Transport> = Claude.query("hello")
      const result = yield* program.pipe(Effect.provide(layer))
      assert.strictEqual(result.result, "echo: hello")
      assert.strictEqual(result.turn.kind, "user")
      assert.deepStrictEqual(counts, { started: 1, ended: 1, turns: 1 })
    }))

  it.effect("passes its options to the session; each query is a session of its own", () =>
    Effect.gen(function*() {
      const { counts, launched, layer } = countingCli()
      yield* Claude.query("one", { model: "haiku" }).pipe(Effect.provide(layer))
      yield* Claude.query("two").pipe(Effect.provide(layer))
      assert.deepStrictEqual(counts, { started: 2, ended: 2, turns: 2 })
      const model = launched[0]!.indexOf("--model")
      assert.deepStrictEqual(launched[0]!.slice(model, model + 2), ["--model", "haiku"])
      assert.isFalse(launched[1]!.includes("--model"))
    }))

  it.effect("a failed turn fails with its reason, and the session is closed all the same", () =>
    Effect.gen(function*() {
      const { counts, layer } = countingCli(hitsTheLimit)
      const exit = yield* Claude.query("loop forever").pipe(Effect.provide(layer), Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(Claude.query("loop forever").pipe(Effect.provide(layer)))
      assert.strictEqual(error.reason._tag, "LimitReached")
      assert.deepStrictEqual(counts, { started: 2, ended: 2, turns: 2 })
    }))
})

describe("Claude.queryStream", () => {
  it.effect("streams the turn's events, ending with its result, and closes the session when the stream ends", () =>
    Effect.gen(function*() {
      const { counts, layer } = countingCli()
      const stream: Stream.Stream<Claude.Event, ClaudeError.ClaudeError, Transport> = Claude.queryStream("hello")
      assert.strictEqual(counts.started, 0, "nothing starts before the stream runs")
      const events = yield* stream.pipe(Stream.runCollect, Effect.provide(layer))
      const types = events.map((event) => event.type)
      assert.strictEqual(types[0], "system")
      assert.include(types, "assistant")
      assert.strictEqual(types.at(-1), "result")
      assert.strictEqual((events.at(-1) as Claude.TurnResult).result, "echo: hello")
      assert.deepStrictEqual(counts, { started: 1, ended: 1, turns: 1 })
    }))

  it.effect("a stream ended early closes the session too", () =>
    Effect.gen(function*() {
      const { counts, layer } = countingCli()
      const first = yield* Claude.queryStream("hello").pipe(Stream.take(1), Stream.runCollect, Effect.provide(layer))
      assert.strictEqual(first.length, 1)
      assert.deepStrictEqual({ started: counts.started, ended: counts.ended }, { started: 1, ended: 1 })
    }))

  it.effect("a failed turn fails the stream with its reason, after its result", () =>
    Effect.gen(function*() {
      const { counts, layer } = countingCli(hitsTheLimit)
      const seen: Array<string> = []
      const error = yield* Claude.queryStream("loop forever").pipe(
        Stream.runForEach((event) => Effect.sync(() => seen.push(event.type))),
        Effect.provide(layer),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "LimitReached")
      assert.deepStrictEqual(seen, ["result"])
      assert.deepStrictEqual(counts, { started: 1, ended: 1, turns: 1 })
    }))
})

describe("FakeCli.replying", () => {
  it.effect("answers each turn with its reply, streamed, with its own cost", () =>
    Effect.gen(function*() {
      const replies = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        const first = yield* session.turn("hi").pipe(Stream.runCollect)
        const second = yield* session.run("again")
        return { first, second }
      })).pipe(Effect.provide(FakeCli.replying((prompt, index) => `${index}: you said ${prompt}`)))
      const deltas = replies.first.flatMap((event) =>
        event.type === "stream_event" && event.event.type === "content_block_delta" && event.event.delta.type === "text_delta"
          ? [event.event.delta.text]
          : []
      )
      assert.strictEqual(deltas.join(""), "0: you said hi")
      assert.strictEqual((replies.first.at(-1) as Claude.TurnResult).result, "0: you said hi")
      assert.strictEqual(replies.second.result, "1: you said again")
      assert.closeTo(replies.second.turn.costUsd, 0.001, 1e-9)
    }))
})
