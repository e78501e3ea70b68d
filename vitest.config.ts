import { defineConfig } from "vitest/config"

/**
 * Two tiers, told apart by the file name (test/Tiers.test.ts enforces it):
 * - unit: everything in memory (FakeCli, Replay, pure functions, the in-process FakeModel server);
 *   seconds in all, 5 s a test. `npm run test:unit` is the edit loop. Its files share one module
 *   graph (`isolate: false`: importing Effect once, not once a file, is most of the time saved);
 *   the few that need a graph of their own (FRESH) run as the project `unit-fresh`.
 * - live: `test/**\/*Live.test.ts`, which start processes: the real CLI against the fake model,
 *   the fake CLIs of test/fixtures/*.mjs, chaos, soak, `npm pack`, other CLI versions; 60 s a test.
 *   `npm run test:live`.
 * `npm test` runs all three projects.
 */
export const LIVE = "test/**/*Live.test.ts"

/** The newcomer's test program of examples/first-hour (the SDK's own, under sdk/, is only counted). */
export const EXAMPLE_TESTS = "examples/first-hour/*.test.ts"

/** Unit files that count what happens at a module's first use, so no other file may have warmed it. */
export const FRESH = ["test/PrepareDecoders.test.ts", "test/TranscriptDecoders.test.ts"]

const unit = { testTimeout: 5_000, hookTimeout: 5_000 }

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts", EXAMPLE_TESTS], exclude: [LIVE, ...FRESH], isolate: false, ...unit }
      },
      {
        extends: true,
        test: { name: "unit-fresh", include: FRESH, ...unit }
      },
      {
        extends: true,
        test: { name: "live", include: [LIVE], testTimeout: 60_000, hookTimeout: 60_000 }
      }
    ]
  }
})
