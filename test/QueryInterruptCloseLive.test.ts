/**
 * `Claude.query` interrupted on a CLI that does not answer its `interrupt` (mode `stall`): the
 * throw-away session's wait for the aborted result is bounded by the EOF share of `closeGrace`,
 * not `interruptTimeout` (10 s by default) before the close. Before, the interruption took
 * `interruptTimeout` + `closeGrace`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import { isAlive, processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

/** Options whose recorder tells the CLI's pid (the fake's `initialize` answer names it). */
const watched = () => {
  const seen: { pid?: number } = {}
  const options: Claude.SessionOptions = {
    executable: FAKE,
    closeGrace: "1 second",
    env: { FAKE_CLAUDE_MODE: "stall" },
    transcript: {
      record: (direction, message) => {
        const pid = (message as { response?: { response?: { pid?: unknown } } }).response?.response?.pid
        if (direction === "recv" && typeof pid === "number") seen.pid = pid
      }
    }
  }
  return { seen, options }
}

describe("a one-shot interrupted on a CLI that does not answer its interrupt", { timeout: 60_000 }, () => {
  const cases = [
    ["query", (options: Claude.SessionOptions) => Claude.query("hello", options)],
    ["queryStream", (options: Claude.SessionOptions) => Stream.runDrain(Claude.queryStream("hello", options))]
  ] as const
  for (const [name, run] of cases) {
    it.live(`${name}: the interruption returns within closeGrace's bounds, and the CLI is gone`, () =>
      Effect.gen(function*() {
        const { options, seen } = watched()
        const fiber = yield* Effect.forkChild(run(options))
        while (seen.pid === undefined) yield* Effect.sleep("20 millis")
        const pid = seen.pid
        yield* Effect.addFinalizer(() => Effect.sync(() => isAlive(pid) && process.kill(pid, "SIGKILL")))
        // The turn is written and stalled.
        yield* Effect.sleep("500 millis")
        const start = Date.now()
        yield* Fiber.interrupt(fiber)
        const took = Date.now() - start
        assert.isBelow(took, 2500, `the interruption took ${took} ms (closeGrace 1 s)`)
        assert.isFalse(isAlive(pid), "the CLI outlived the query")
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
  }
})
