/**
 * The conformance suite: every scenario of test/scenarios.ts runs LIVE against the pinned real CLI
 * (and the fake model) and is ALSO replayed from its recording in testdata/transcripts/ through
 * the same library code; the two observable summaries must be equal. Re-record with
 * `npm run record` when the pinned CLI changes. (That the recordings exist and match the pinned
 * CLI is checked in memory by test/Conformance.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { liveHarness, replayHarness, scenarios } from "./scenarios.ts"

describe.concurrent("conformance: live CLI and replay agree", { timeout: 90_000 }, () => {
  for (const scenario of scenarios) {
    it.live(scenario.name, () =>
      Effect.gen(function*() {
        const live = yield* Effect.scoped(Effect.flatMap(liveHarness(scenario), scenario.run)).pipe(Effect.timeout("45 seconds"))
        const replayed = yield* Effect.scoped(scenario.run(replayHarness(scenario))).pipe(Effect.timeout("20 seconds"))
        assert.isTrue(live.some((line) => line.startsWith("result ")), live.join("\n"))
        assert.deepStrictEqual(replayed, live)
      }))
  }
})
