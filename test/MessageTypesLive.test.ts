/**
 * The message types the real CLI 2.1.332 writes offline, from a fresh run: the same kinds and
 * keys as the committed recording (test/fixtures/messages/cli-2.1.332.ndjson), each decoded by
 * its own schema, and no line of the run left as `{ type: "unknown" }`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Protocol from "../src/Protocol.ts"
import { processLayer } from "./support/live.ts"
import { kindOf, recordedKinds } from "./support/messageKinds.ts"
import { recordMessages } from "./support/messageRecording.ts"

const recording = Fs.readFileSync(Path.join(import.meta.dirname, "fixtures", "messages", "cli-2.1.332.ndjson"), "utf8")
  .split("\n")
  .filter((line) => line.length > 0)
  .map((line) => JSON.parse(line) as Record<string, unknown>)

describe("message types, real CLI", () => {
  it.live("hook_started/progress/response, session_state_changed and conversation_reset: as recorded, each typed", () =>
    Effect.scoped(Effect.gen(function*() {
      const { all, samples } = yield* recordMessages
      assert.deepStrictEqual(samples.map(kindOf), recordedKinds)
      for (const [i, line] of samples.entries()) {
        assert.deepStrictEqual(Object.keys(line as object).sort(), Object.keys(recording[i]!).sort(), kindOf(line))
      }
      const unknown = all.filter((line) => {
        const decoded = Protocol.decodeMessage(line)
        return Result.isFailure(decoded) || decoded.success.type === "unknown"
      })
      assert.deepStrictEqual(unknown.map(kindOf), [])
    })).pipe(Effect.provide(processLayer)), 90_000)
})
