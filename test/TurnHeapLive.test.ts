/**
 * What a session keeps alive as turns go by, from a heap snapshot of a fresh process
 * (`fixtures/turn-heap.ts`): no structure of V8's grows with the number of turns. A generator
 * function made anew per turn (`Effect.gen(function*() { … })` inside a per-turn function) did:
 * each turn added a prototype to a weak list of V8's (33 KB after 4,000 turns), copied through
 * every scavenge. Not timed: sizes in bytes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import * as Effect from "effect/Effect"

const FIXTURE = Path.resolve(import.meta.dirname, "fixtures/turn-heap.ts")

const prototypeUsersAfter = (turns: number, variant: "plain" | "stall") =>
  Effect.sync(() => {
    const run = ChildProcess.spawnSync(process.execPath, [FIXTURE, String(turns), variant], { encoding: "utf8", timeout: 60_000 })
    assert.strictEqual(run.status, 0, run.stderr)
    const figures = JSON.parse(run.stdout.trim()) as { results: number; prototypeUsersBytes: number }
    assert.strictEqual(figures.results, turns)
    return figures.prototypeUsersBytes
  })

describe("a session's heap over many turns", { timeout: 120_000 }, () => {
  for (const variant of ["plain", "stall"] as const) {
    it.effect(`no prototype list of V8's grows with the number of turns (one generator function per session, not per turn), ${variant === "stall" ? "with a stall timeout (a watchdog per turn)" : "a plain session"}`, () =>
      Effect.gen(function*() {
        const few = yield* prototypeUsersAfter(500, variant)
        const many = yield* prototypeUsersAfter(4_000, variant)
        // A per-turn generator function adds 8 bytes or more a turn: 28 KB over these 3,500 turns.
        assert.isBelow(many - few, 1_024, `V8's prototype-users lists: ${few} bytes after 500 turns, ${many} after 4,000`)
      }))
  }
})
