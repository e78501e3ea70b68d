/**
 * The mirror drains once per signal: every eager frame signals, and so does every threshold and
 * turn end. With a store that fails (or does not answer), each queued signal found the kept batch
 * and tried it again, with its full retry (1 s of backoff; 60 s for a store that does not answer),
 * and published one more `mirror_error`: `flushStore` queued behind N frames answered after N
 * retries (N minutes with a stalled store), and the session's close timed out behind them.
 * Signals queued while a drain runs are one drain now: everything pending is taken at its start.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import * as Path from "node:path"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as Events from "../src/Events.ts"
import * as Mirror from "../src/internal/mirror.ts"
import { appendOnlyStore } from "./support/stores.ts"

const projectsDir = Path.join(Path.sep, "config", "projects")
const mainFile = Path.join(projectsDir, "-repo-app", "5e551011-0000-4000-8000-0000000000e2.jsonl")
const entry = (n: number) => ({ type: "user", uuid: `u${n}` })

describe("the mirror: flushes queued behind a failing store", () => {
  it.effect("eager frames queued during a drain are one drain: flushStore answers after one retry, not one per frame", () =>
    Effect.gen(function*() {
      let attempts = 0
      const store = appendOnlyStore("down", () =>
        Effect.suspend(() => {
          attempts++
          return Effect.fail(ClaudeError.make(
            new ClaudeError.StoreFailed({ store: "down", operation: "append", description: "down" })
          ))
        }))
      const reports: Array<Events.MirrorFailed> = []
      const mirror = yield* Mirror.make({
        ...Mirror.defaults,
        store,
        projectsDir,
        flush: "eager",
        report: (event) => reports.push(event)
      })
      for (let n = 1; n <= 20; n++) mirror.frame(mainFile, [entry(n)])
      const flushed = yield* Effect.forkChild(mirror.flush)
      // At most two drains (the frames' signals, then flushStore's), each 3 attempts 200 ms and
      // 800 ms apart: not one per frame (20 drains, 20 s).
      yield* TestClock.adjust(Duration.seconds(2))
      const done = flushed.pollUnsafe()
      assert.isDefined(done, `flushStore still waiting after 2 s (${attempts} attempts, ${reports.length} mirror_error)`)
      assert.strictEqual(done?._tag, "Failure")
      assert.isAtMost(attempts, 6)
      assert.isAtMost(reports.length, 2)
      yield* Fiber.interrupt(flushed)
    }).pipe(Effect.scoped))
})
