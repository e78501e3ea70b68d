/**
 * `Transcript.read` loads Effect's schema JIT compiler before it returns the lines, so that
 * `Timeline.fromLines`, which decodes every line in one synchronous run, uses compiled guards, as a
 * session does (interpreted, they are a few times slower); `Transcript.parse` stays synchronous
 * (it starts the loading, and does not wait). In a module graph of its own (the project
 * `unit-fresh` of vitest.config.ts): no other test loaded the compiler.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as SchemaJit from "../src/internal/schemaJit.ts"
import * as Timeline from "../src/Timeline.ts"
import * as Transcript from "../src/Transcript.ts"

const text = JSON.stringify({ dir: "recv", ts: 0, msg: { type: "keep_alive" } }) + "\n"

describe("Transcript and the schema JIT compiler", () => {
  it.effect("parse runs synchronously; read returns once the compiler is loaded", () =>
    Effect.gen(function*() {
      // Importing Transcript and Timeline did not load it.
      assert.isUndefined(SchemaJit.loaded())
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-transcript-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const file = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(file, text)
      const lines = yield* Transcript.read(file)
      assert.isDefined(SchemaJit.loaded())
      assert.strictEqual(Timeline.fromLines(lines).turns.length, 0)
      // parse needs nothing asynchronous.
      assert.strictEqual(Effect.runSync(Transcript.parse(text)).length, 1)
    }).pipe(Effect.scoped))
})
