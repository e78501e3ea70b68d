/**
 * One description of a failure for the texts the library writes from one (an error answer to
 * the CLI, a tool's error result for the model, `TranscriptFailed`, the viewer's messages): see
 * `src/internal/describeCause.ts` for the rules these show.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { describeCause, describeError } from "../src/internal/describeCause.ts"

class Boom extends Data.TaggedError("Boom")<{ readonly detail: string }> {}
class DbFailed extends Schema.TaggedError<DbFailed>()("DbFailed", { query: Schema.String, cause: Schema.Unknown }) {}
class Huge extends Data.TaggedError("Huge")<{ readonly payload: string }> {}
class Counted extends Data.TaggedError("Counted")<{ readonly n: bigint }> {}
class Named extends Error {
  override name = "Named"
}

describe("describeError", () => {
  it.effect("an error's message, as it is", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError(new Error("disk full")), "disk full")
      assert.strictEqual(describeCause(Cause.fail(new Error("disk full"))), "disk full")
    }))

  it.effect("a bare error without a message gives its cause's text (the reason a wrapper kept)", () =>
    Effect.sync(() => {
      const wrapped = new Error("", { cause: new Error("disk full") })
      assert.strictEqual(describeError(wrapped), "disk full")
      assert.strictEqual(describeCause(Cause.die(wrapped)), "disk full")
      assert.strictEqual(describeError(new Error("", { cause: "a plain reason" })), "a plain reason")
      assert.strictEqual(describeError({ message: "", cause: new Error("disk full") }), "disk full")
      let deep: Error = new Error("the reason, seven wrappers down")
      for (let i = 0; i < 7; i++) deep = new Error("", { cause: deep })
      assert.strictEqual(describeError(deep), "the reason, seven wrappers down")
    }))

  it.effect("a tagged error with a cause keeps its tag and fields before the cause's text", () =>
    Effect.sync(() => {
      const failed = new DbFailed({ query: "select 1", cause: new Error("connection refused") })
      assert.strictEqual(describeError(failed), "DbFailed {\"query\":\"select 1\"}: connection refused")
    }))

  it.effect("an UnknownError (Effect.tryPromise without catch) says its cause's text too", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.tryPromise(() => Promise.reject(new Error("ECONNRESET upstream"))))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        assert.strictEqual(describeCause(exit.cause), "An error occurred in Effect.tryPromise: ECONNRESET upstream")
      }
    }))

  it.effect("causes that loop end in a line, whatever the loop's length", () =>
    Effect.sync(() => {
      const self = new Error("")
      ;(self as { cause?: unknown }).cause = self
      assert.strictEqual(describeError(self), "Error")
      const a = new Error("")
      const b = new Error("", { cause: a })
      ;(a as { cause?: unknown }).cause = b
      assert.strictEqual(describeError(a), "Error")
    }))

  it.effect("a tagged error without a message: its tag and fields; fields JSON cannot write leave the tag; long fields are cut", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError(new Boom({ detail: "x" })), "Boom {\"detail\":\"x\"}")
      assert.strictEqual(describeCause(Cause.fail(new Boom({ detail: "x" }))), "Boom {\"detail\":\"x\"}")
      assert.strictEqual(describeError(new Counted({ n: 1n })), "Counted")
      const long = describeError(new Huge({ payload: "y".repeat(5000) }))
      assert.isTrue(long.startsWith("Huge {\"payload\":\"yyy"))
      assert.isTrue(long.endsWith("…"))
      assert.isBelow(long.length, 1100)
      assert.strictEqual(describeError(new Named("")), "Named")
    }))

  it.effect("a Node error's code, when its text does not name it, also after following a cause", () =>
    Effect.sync(() => {
      const named = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT" })
      assert.strictEqual(describeError(named), "ENOENT: no such file or directory, open 'x'")
      const unnamed = Object.assign(new Error("cannot listen"), { code: "EADDRINUSE" })
      assert.strictEqual(describeError(unnamed), "cannot listen (EADDRINUSE)")
      assert.strictEqual(describeError(new Error("", { cause: unnamed })), "cannot listen (EADDRINUSE)")
    }))

  it.effect("interruption alone and an empty cause still say what they are", () =>
    Effect.sync(() => {
      assert.include(describeCause(Cause.interrupt()), "interrupted")
      assert.isAbove(describeCause(Cause.empty).length, 0)
    }))

  it.effect("what is not an error: a string as it is, a message or a tag as an error's, anything else as JSON or its keys", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError("no"), "no")
      assert.strictEqual(describeError({ message: "nope", retry: false }), "nope")
      assert.strictEqual(describeError({ _tag: "Refused" }), "Refused")
      assert.strictEqual(describeError({ _tag: "Refused", by: "policy" }), "Refused {\"by\":\"policy\"}")
      assert.strictEqual(describeError({ code: 7 }), "{\"code\":7}")
      assert.strictEqual(describeError([1, 2]), "[1,2]")
      assert.strictEqual(describeError(42), "42")
      assert.strictEqual(describeError(undefined), "undefined")
      const cyclic: Record<string, unknown> = { reason: "a cycle" }
      cyclic.self = cyclic
      assert.strictEqual(describeError(cyclic), "an object with keys reason, self")
    }))

  it.effect("a value that cannot be read at all still gives a line, not a throw", () =>
    Effect.sync(() => {
      const hostile = {
        get message(): string {
          throw new Error("no")
        }
      }
      assert.strictEqual(describeError(hostile), "a failure that cannot be described")
    }))
})
