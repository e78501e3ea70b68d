/**
 * One description of a failure for every text the library writes from one (an error answer to
 * the CLI, a tool's error result for the model, the viewer's messages): the error's message; for
 * one without a message, its cause's (a few levels deep), else its name or tag with its fields; a
 * Node error's `code` when its text does not name it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { describeCause, describeError } from "../src/internal/describeCause.ts"

class Boom extends Data.TaggedError("Boom")<{ readonly detail: string }> {}

describe("describeError", () => {
  it.effect("an error's message, as it is", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError(new Error("disk full")), "disk full")
      assert.strictEqual(describeCause(Cause.fail(new Error("disk full"))), "disk full")
    }))

  it.effect("an error without a message says its cause's (the reason a wrapper kept)", () =>
    Effect.sync(() => {
      const wrapped = new Error("", { cause: new Error("disk full") })
      assert.strictEqual(describeError(wrapped), "disk full")
      assert.strictEqual(describeCause(Cause.die(wrapped)), "disk full")
      assert.strictEqual(describeError(new Error("", { cause: "a plain reason" })), "a plain reason")
    }))

  it.effect("a cause chain that loops, or runs deep, still ends in a line", () =>
    Effect.sync(() => {
      const loop = new Error("")
      ;(loop as { cause?: unknown }).cause = loop
      assert.strictEqual(describeError(loop), "Error")
      let deep: Error = new Error("the reason, too deep to reach")
      for (let i = 0; i < 6; i++) deep = new Error("", { cause: deep })
      assert.strictEqual(describeError(deep), "Error")
    }))

  it.effect("a tagged error without a message: its tag and fields", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError(new Boom({ detail: "x" })), "Boom {\"detail\":\"x\"}")
      assert.strictEqual(describeCause(Cause.fail(new Boom({ detail: "x" }))), "Boom {\"detail\":\"x\"}")
    }))

  it.effect("a Node error's code, when its text does not name it", () =>
    Effect.sync(() => {
      const named = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT" })
      assert.strictEqual(describeError(named), "ENOENT: no such file or directory, open 'x'")
      const unnamed = Object.assign(new Error("cannot listen"), { code: "EADDRINUSE" })
      assert.strictEqual(describeError(unnamed), "cannot listen (EADDRINUSE)")
    }))

  it.effect("what is not an error: a string as it is, a message or a tag as an error's, anything else as JSON, never a throw", () =>
    Effect.sync(() => {
      assert.strictEqual(describeError("no"), "no")
      assert.strictEqual(describeError({ message: "nope", retry: false }), "nope")
      assert.strictEqual(describeError({ _tag: "Refused" }), "Refused")
      assert.strictEqual(describeError({ _tag: "Refused", by: "policy" }), "Refused {\"by\":\"policy\"}")
      assert.strictEqual(describeError({ code: 7 }), "{\"code\":7}")
      assert.strictEqual(describeError([1, 2]), "[1,2]")
      assert.strictEqual(describeError(42), "42")
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      assert.strictEqual(describeError(cyclic), "[object Object]")
      assert.strictEqual(describeError(undefined), "undefined")
    }))
})
