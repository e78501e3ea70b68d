/**
 * The one-shots (`Claude.query`, `Claude.queryStream`) leave no CLI behind however they end:
 * interrupted, timed out, or done; and `queryStream` ended early interrupts its turn on the CLI
 * before the session closes (the session closed with the stream's scope, and the interrupt was
 * never sent: found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const hangingCli = () => {
  const counts = { started: 0, ended: 0, users: 0 }
  const layer = FakeCli.layer((cli) => {
    counts.started++
    return FakeCli.conversation({
      onUser: () => Effect.sync(() => counts.users++),
      onControl: (request, cli) => cli.emit(FakeCli.success(request))
    })(cli).pipe(Effect.onExit(() => Effect.sync(() => counts.ended++)))
  })
  return { counts, layer }
}

describe("query", () => {
  it.live("query interrupted mid-turn ends its CLI", () =>
    Effect.gen(function*() {
      const { counts, layer } = hangingCli()
      const fiber = yield* Claude.query("hi", { interruptTimeout: "100 millis" }).pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([])),
        Effect.forkChild
      )
      yield* Effect.sleep("100 millis")
      assert.strictEqual(counts.users, 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual({ started: counts.started, ended: counts.ended }, { started: 1, ended: 1 })
    }))

  it.live("query failed by turnTimeout ends its CLI, typed", () =>
    Effect.gen(function*() {
      const { counts, layer } = hangingCli()
      const exit = yield* Claude.query("hi", { turnTimeout: "100 millis", interruptTimeout: "100 millis" }).pipe(
        Effect.provide(layer),
        Effect.provide(Logger.layer([])),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual({ started: counts.started, ended: counts.ended }, { started: 1, ended: 1 })
    }))

  it.live("queryStream interrupted mid-turn ends its CLI", () =>
    Effect.gen(function*() {
      const { counts, layer } = hangingCli()
      const fiber = yield* Claude.queryStream("hi", { interruptTimeout: "100 millis" }).pipe(
        Stream.runDrain,
        Effect.provide(layer),
        Effect.provide(Logger.layer([])),
        Effect.forkChild
      )
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual({ started: counts.started, ended: counts.ended }, { started: 1, ended: 1 })
    }))

  it.live("queryStream returns the result and succeeds", () =>
    Effect.gen(function*() {
      const events = yield* Claude.queryStream("hi").pipe(
        Stream.runCollect,
        Effect.provide(FakeCli.replying(() => "ok")),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(events.at(-1)?.type, "result")
    }))

  it.live("queryStream ended early (Stream.take) mid-turn interrupts the turn on the CLI before closing the session", () =>
    Effect.gen(function*() {
      const counts = { started: 0, ended: 0, interrupts: 0 }
      const layer = FakeCli.layer((cli) => {
        counts.started++
        return FakeCli.conversation({
          // The turn's lines but its result: it is still running when the stream ends.
          onUser: (text, _i, cli, message) =>
            Effect.forEach(
              FakeCli.textTurn({ sessionId: "00000000-0000-4000-8000-000000000000", text, userMessageUuid: String(message.uuid) })
                .slice(0, -1),
              (line) => cli.emit(line),
              { discard: true }
            ),
          onControl: (request, cli) =>
            Effect.andThen(
              Effect.sync(() => {
                if ((request.request as { subtype?: string } | undefined)?.subtype === "interrupt") counts.interrupts++
              }),
              cli.emit(FakeCli.success(request))
            )
        })(cli).pipe(Effect.onExit(() => Effect.sync(() => counts.ended++)))
      })
      const events = yield* Claude.queryStream("hi", { interruptTimeout: "200 millis", closeGrace: "1 second" }).pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.provide(layer),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(events.length, 2)
      assert.deepStrictEqual(counts, { started: 1, ended: 1, interrupts: 1 })
    }))
})
