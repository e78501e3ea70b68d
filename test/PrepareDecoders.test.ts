/**
 * `Protocol.prepareDecoders`, which a session calls while the CLI starts: the guards of the lines
 * that begin every turn are generated then, not when the first of them arrives. Effect's schema
 * JIT generates a guard's code with `Function` at its first call; this file counts those calls,
 * in a module graph of its own (the project `unit-fresh` of vitest.config.ts isolates it), so no
 * other test has warmed them (nor loaded the JIT compiler, which a session loads as it opens).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Protocol from "../src/Protocol.ts"
import * as SchemaJit from "../src/internal/schemaJit.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

describe("prepareDecoders", () => {
  it.effect("a session generates the guards of a turn's first lines while the CLI starts; decoding them then generates none", () =>
    Effect.gen(function*() {
      let calls = 0
      const original = globalThis.Function
      globalThis.Function = new Proxy(original, {
        apply: (target, self, args) => {
          calls++
          return Reflect.apply(target, self, args)
        }
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => {
        globalThis.Function = original
      }))

      // Importing the library did not load the JIT compiler.
      assert.isUndefined(SchemaJit.loaded())
      // A CLI that has not answered anything yet: the session is waiting on it, and loads the
      // compiler meanwhile (waited for here: loading it again joins the same import).
      yield* Claude.open()
      yield* SchemaJit.load
      assert.isDefined(SchemaJit.loaded())
      for (let i = 0; i < 3; i++) yield* Effect.yieldNow
      const whileStarting = calls
      assert.isAbove(whileStarting, 0)

      const turn = [
        FakeCli.success({ request_id: "req_1", subtype: "initialize" }, { commands: [], models: [] }),
        ...FakeCli.textTurn({ sessionId: "11111111-2222-4333-8444-555555555555", text: "hello", chunks: 2 })
      ]
      const decoded = turn.map((line) => Protocol.decodeMessage(line))
      assert.deepStrictEqual(decoded.map((r) => r._tag), turn.map(() => "Success"))
      assert.strictEqual(calls, whileStarting)
    }).pipe(Effect.provide(FakeCli.layer(() => Effect.never))))
})
