/**
 * A transcript recorder that throws mid-session (its doc says it must not): recording stops, with
 * one warning, and the session goes on. Before, a throw on a received line ended the read loop
 * untyped, and the session waited `closeGrace` then blamed the CLI (`StdoutClosed`); a throw on a
 * sent line killed the turn untyped and left it registered, unwritten: later sends waited for ever.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")

const reasonOf = <A>(exit: Exit.Exit<A, any>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = Cause.findErrorOption(exit.cause)
  return Option.isNone(error) ? `untyped: ${Cause.pretty(exit.cause).split("\n")[0]}` : error.value.reason._tag
}

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
      let armed = false
      const session = yield* Claude.open({
        executable: FAKE,
        closeGrace: "3 seconds",
        transcript: {
          record: (direction) => {
            if (armed && direction === "recv") {
              armed = false
              throw new Error("disk full")
            }
          }
        }
      })
      yield* session.run("one")
      armed = true
      const start = Date.now()
      const exit = yield* Effect.exit(session.run("two"))
      const took = Date.now() - start
      assert.notStrictEqual(reasonOf(exit), "StdoutClosed", `after ${took} ms`)
      assert.isBelow(took, 1000)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("send: a recorder that threw once does not leave the session's later sends waiting for ever", () =>
    Effect.gen(function*() {
      let armed = false
      const session = yield* Claude.open({
        executable: FAKE,
        closeGrace: "1 second",
        transcript: {
          record: (direction) => {
            if (armed && direction === "send") {
              armed = false
              throw new Error("disk full")
            }
          }
        }
      })
      yield* session.run("one")
      assert.isTrue(Option.isSome(yield* session.send("before").pipe(Effect.timeoutOption("5 seconds"))))
      yield* Effect.sleep("300 millis")
      armed = true
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
        let calls = 0
        let armed = false
        const session = yield* Claude.open({
          executable: FAKE,
          closeGrace: "1 second",
          transcript: {
            record: (direction) => {
              calls++
              if (armed && direction === failing) throw new Error("disk full")
            }
          }
        })
        yield* session.run("one")
        armed = true
        const two = yield* Effect.exit(session.run("two").pipe(Effect.timeout("5 seconds")))
        const after = calls
        const three = yield* Effect.exit(session.run("three").pipe(Effect.timeout("5 seconds")))
        assert.strictEqual(reasonOf(two), "success")
        assert.strictEqual(reasonOf(three), "success")
        assert.strictEqual(calls, after, "the recorder was called after it threw")
        const named = warnings.filter((text) => text.includes("disk full"))
        assert.strictEqual(named.length, 1, warnings.join("\n"))
        assert.include(named[0]!, "transcript")
      }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(layer))
    })
  }
})
