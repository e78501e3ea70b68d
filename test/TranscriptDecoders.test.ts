/**
 * `Transcript.parse` (and `Transcript.read`) load Effect's schema JIT compiler before they return,
 * so that `Timeline.fromLines`, which decodes every line in one synchronous run, uses compiled
 * guards, as a session does (without it they are interpreted, a few times slower). In a module
 * graph of its own (the project `unit-fresh` of vitest.config.ts): no other test loaded it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SchemaJit from "../src/internal/schemaJit.ts"
import * as Timeline from "../src/Timeline.ts"
import * as Transcript from "../src/Transcript.ts"

describe("Transcript.parse", () => {
  it.effect("loads the schema JIT compiler before it returns the lines", () =>
    Effect.gen(function*() {
      // Importing Transcript and Timeline did not load it.
      assert.isUndefined(SchemaJit.loaded())
      const line = { dir: "recv", ts: 0, msg: { type: "keep_alive" } }
      const lines = yield* Transcript.parse(JSON.stringify(line) + "\n")
      assert.strictEqual(lines.length, 1)
      assert.isDefined(SchemaJit.loaded())
      assert.strictEqual(Timeline.fromLines(lines).turns.length, 0)
    }))
})
