/**
 * What a session keeps alive as turns go by, from a heap snapshot of a fresh process
 * (`fixtures/turn-heap.ts`): no structure of V8's grows with the number of turns. A generator
 * function made anew per turn (`Effect.gen(function*() { … })` inside a per-turn function) did:
 * each turn added a prototype to a weak list of V8's (33 KB after 4,000 turns), copied through
 * every scavenge. And what the scavenges promote: what the turns leave must die young. Not timed:
 * sizes in bytes.
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

/**
 * The bytes V8's scavenges promote to the old generation over `turns` turns, read from its
 * `--trace-gc-nvp` lines between the fixture's markers; the young generation held at 1 MB, so
 * that scavenges come every few dozen turns whatever the machine.
 */
const promotedPerTurn = (turns: number, variant: "promotion" | "promotion-traced") =>
  Effect.sync(() => {
    const run = ChildProcess.spawnSync(
      process.execPath,
      ["--expose-gc", "--trace-gc-nvp", "--min-semi-space-size=1", "--max-semi-space-size=1", FIXTURE, String(turns), variant],
      { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }
    )
    assert.strictEqual(run.status, 0, run.stderr)
    const lines = run.stdout.split("\n")
    const from = lines.indexOf("PROMOTION-START")
    const to = lines.indexOf("PROMOTION-END")
    assert.isTrue(from !== -1 && to > from, "the fixture's markers")
    const last = lines.find((line) => line.startsWith("{\"results\""))
    assert.isDefined(last, "the fixture's figures")
    const figures = JSON.parse(last!) as { results: number }
    assert.strictEqual(figures.results, turns + 200)
    let promoted = 0
    let scavenges = 0
    for (const line of lines.slice(from + 1, to)) {
      if (!line.includes(" gc=s ")) continue
      scavenges++
      promoted += Number(/ promoted=(\d+)/.exec(line)![1])
    }
    // Scavenges did run: a figure of no scavenge would show nothing.
    assert.isAbove(scavenges, turns / 100)
    return promoted / turns
  })

describe("a session's heap over many turns", { timeout: 120_000 }, () => {
  // What a turn leaves must die young: anything an old-generation object still points to survives
  // every scavenge and is promoted, and the young generation grows with it (RSS). Two ways a turn
  // did that, both in docs/CONTRIBUTING.md ("Per-turn collections", "Per-turn closures"):
  // - a collection emptied with `clear()`, or a `Map` that gains and loses an entry a turn (the
  //   turns' `touched` set and open-turn map): V8 links each old table to the next;
  // - a closure written straight into a property (the mailbox's waiter; Effect's
  //   `Channel.fromTransform`, two channels a turn): V8 allocates it in the old generation.
  // Promoted a turn: 2.5 KB with both; 1.2 KB without the first; 0.7 KB with the waiter alone;
  // about 190 bytes now (the turn's one channel).
  for (const variant of ["promotion", "promotion-traced"] as const) {
    it.effect(`what a session's turns leave dies young: no chain of V8's hash tables, no closure V8 allocates old, ${variant === "promotion" ? "a plain session" : "under a program's tracer (spans, their maps)"}`, () =>
      Effect.gen(function*() {
        const perTurn = yield* promotedPerTurn(3_000, variant)
        assert.isBelow(perTurn, 450, `bytes promoted a turn: ${perTurn.toFixed(0)}`)
      }))
  }

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
