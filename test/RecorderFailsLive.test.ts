/**
 * A transcript recorder that throws mid-session (its doc says it must not): recording stops, with
 * one warning, and the session goes on. Before, a throw on a received line ended the read loop
 * untyped, and the session waited `closeGrace` then blamed the CLI (`StdoutClosed`); a throw on a
 * sent line killed the turn untyped and left it registered, unwritten: later sends waited for ever.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

const reasonOf = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return `untyped: ${Cause.pretty(exit.cause).split("\n")[0]}`
  return ClaudeError.isClaudeError(error.value) ? error.value.reason._tag : String(error.value)
}

/**
 * A session on the fake CLI whose recorder throws "disk full" on lines of `direction` once armed:
 * every time (`once: false`), or the first time only. `calls` counts the recorder's calls.
 */
const withFailingRecorder = (direction: "send" | "recv", closeGrace: Duration.Input, once: boolean) =>
  Effect.gen(function*() {
    const state = { armed: false, calls: 0 }
    const session = yield* Claude.open({
      executable: FAKE,
      closeGrace,
      transcript: {
        record: (line) => {
          state.calls++
          if (state.armed && line === direction) {
            if (once) state.armed = false
            throw new Error("disk full")
          }
        }
      }
    })
    return { session, state }
  })

/** The warnings logged, as text. */
const captureWarnings = () => {
  const warnings: Array<string> = []
  const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
    if (logLevel === "Warn") warnings.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
  })
  return { warnings, layer: Logger.layer([logger]) }
}

describe("a transcript recorder that fails mid-session", { timeout: 60_000 }, () => {
  it.live("recv: the turn does not wait closeGrace and blame the CLI (StdoutClosed) for a recorder that threw", () =>
    Effect.gen(function*() {
      const { session, state } = yield* withFailingRecorder("recv", "3 seconds", true)
      yield* session.run("one")
      state.armed = true
      const start = Date.now()
      const exit = yield* Effect.exit(session.run("two"))
      const took = Date.now() - start
      assert.notStrictEqual(reasonOf(exit), "StdoutClosed", `after ${took} ms`)
      assert.isBelow(took, 1000)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("send: a recorder that threw once does not leave the session's later sends waiting for ever", () =>
    Effect.gen(function*() {
      const { session, state } = yield* withFailingRecorder("send", "1 second", true)
      yield* session.run("one")
      assert.isTrue(Option.isSome(yield* session.send("before").pipe(Effect.timeoutOption("5 seconds"))))
      yield* Effect.sleep("300 millis")
      state.armed = true
      const two = yield* Effect.exit(session.run("two").pipe(Effect.timeoutOption("5 seconds")))
      const three = yield* Effect.exit(session.run("three").pipe(Effect.timeoutOption("5 seconds")))
      const four = yield* session.send("four").pipe(Effect.exit, Effect.timeoutOption("5 seconds"))
      assert.isTrue(Option.isSome(four), "send waited for ever")
      assert.notInclude(reasonOf(two), "untyped", "run two died untyped")
      assert.notInclude(reasonOf(three), "untyped", "run three died untyped")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  for (const failing of ["send", "recv"] as const) {
    it.live(`${failing}: the turns still succeed, the recorder stops, and one warning names it and the error`, () => {
      const { layer, warnings } = captureWarnings()
      return Effect.gen(function*() {
        const { session, state } = yield* withFailingRecorder(failing, "1 second", false)
        yield* session.run("one")
        state.armed = true
        const two = yield* Effect.exit(session.run("two").pipe(Effect.timeout("5 seconds")))
        const after = state.calls
        const three = yield* Effect.exit(session.run("three").pipe(Effect.timeout("5 seconds")))
        assert.strictEqual(reasonOf(two), "success")
        assert.strictEqual(reasonOf(three), "success")
        assert.strictEqual(state.calls, after, "the recorder was called after it threw")
        const named = warnings.filter((text) => text.includes("disk full"))
        assert.strictEqual(named.length, 1, warnings.join("\n"))
        assert.include(named[0]!, "transcript")
      }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(layer))
    })
  }
})
