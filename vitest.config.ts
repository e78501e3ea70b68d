import { defineConfig } from "vitest/config"

/**
 * Two tiers, told apart by the file name (test/Tiers.test.ts enforces it):
 * - `unit`: everything in memory (FakeCli, Replay, pure functions, the in-process FakeModel server);
 *   seconds in all, short timeouts. `npm run test:unit` is the edit loop.
 * - `live`: `test/**\/*Live.test.ts`, which start processes: the real CLI against the fake model,
 *   the fake CLIs of test/fixtures/*.mjs, chaos, soak, `npm pack`, other CLI versions.
 *   `npm run test:live`.
 * `npm test` runs both.
 */
export const LIVE = "test/**/*Live.test.ts"

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [LIVE],
          testTimeout: 5_000,
          hookTimeout: 5_000
        }
      },
      {
        extends: true,
        test: {
          name: "live",
          include: [LIVE],
          testTimeout: 60_000,
          hookTimeout: 60_000
        }
      }
    ]
  }
})
