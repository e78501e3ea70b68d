/**
 * The structured-output gate on a CLI process whose version cannot be told (its `initialize`
 * names none, as 2.1.200 and older do, and its `claude --version` prints none). The gate took
 * such a CLI for one that ends a turn whose model answers in text; but 2.1.332 names its version
 * in `initialize`, so a process that names none is older, and may be 2.1.0, which asks the model
 * again without end (a paid request each time) (found by a review). A turn of a session with
 * structured output is refused there now (`InvalidInput`, nothing sent); a session without it
 * runs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import { processLayer } from "./support/live.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const env = { FAKE_CLAUDE_MODE: "", FAKE_CLAUDE_VERSION: "unknown", FAKE_CLAUDE_INIT_VERSION: "0" }
const jsonSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] }

describe("structured output on a CLI process of unknown version", { timeout: 60_000 }, () => {
  it.live("a turn of a session with jsonSchema is InvalidInput; one without runs", () =>
    Effect.gen(function*() {
      const structured = yield* Claude.open({ executable: FAKE, env, jsonSchema })
      const error = yield* Effect.flip(structured.run("Give n"))
      assert.strictEqual(error.reason._tag, "InvalidInput", String(error))
      const plain = yield* Claude.open({ executable: FAKE, env })
      const result = yield* plain.run("hello")
      assert.isFalse(result.is_error)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
