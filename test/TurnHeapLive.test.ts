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

type Variant =
  | "promotion"
  | "promotion-traced"
  | "promotion-events"
  | "promotion-structured"
  | "promotion-tools"
  | "promotion-store"

/**
 * The bytes a turn adds to the old generation over `turns` turns (the fixture's figure): what V8's
 * scavenges promote and what it allocates there directly, dead or alive. The young generation held
 * at 1 MB, so that scavenges come every few dozen turns whatever the machine; the old one started
 * large, so that no full GC runs between the markers (checked on the `--trace-gc-nvp` lines), which
 * would free the dead and hide them.
 */
const oldBytesPerTurn = (turns: number, variant: Variant) =>
  Effect.sync(() => {
    const run = ChildProcess.spawnSync(
      process.execPath,
      [
        "--expose-gc",
        "--trace-gc-nvp",
        "--min-semi-space-size=1",
        "--max-semi-space-size=1",
        "--initial-old-space-size=512",
        FIXTURE,
        String(turns),
        variant
      ],
      { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }
    )
    assert.strictEqual(run.status, 0, run.stderr)
    const lines = run.stdout.split("\n")
    const from = lines.indexOf("PROMOTION-START")
    const to = lines.indexOf("PROMOTION-END")
    assert.isTrue(from !== -1 && to > from, "the fixture's markers")
    const last = lines.find((line) => line.startsWith("{\"results\""))
    assert.isDefined(last, "the fixture's figures")
    const figures = JSON.parse(last!) as { results: number; warmTurns: number; oldBytesPerTurn: number }
    assert.strictEqual(figures.results, figures.warmTurns + turns)
    const between = lines.slice(from + 1, to)
    // Scavenges did run (a figure of no scavenge would show nothing), and no full GC did.
    assert.isAbove(between.filter((line) => line.includes(" gc=s ")).length, turns / 100)
    assert.deepStrictEqual(between.filter((line) => line.includes(" gc=mc ")), [])
    return figures.oldBytesPerTurn
  })

describe("a session's heap over many turns", { timeout: 120_000 }, () => {
  // What a turn leaves must die young: anything an old-generation object still points to survives
  // every scavenge and is promoted, and the young generation grows with it (RSS); and what V8
  // allocates in the old generation directly stays there, dead, until a full GC. Three ways a turn
  // did that, all in docs/CONTRIBUTING.md ("Per-turn collections", "Per-turn closures"):
  // - a collection emptied with `clear()`, or a `Map` that gains and loses an entry a turn (the
  //   turns' `touched` set and open-turn map, tracing's per-thread maps and open tool uses, an
  //   Effect `Queue`'s set of waiting takers under `session.events`): V8 links each old table to
  //   the next, and replaces a shrinking table with one allocated in the old generation;
  // - a closure written straight into a property (the mailbox's waiter; Effect's
  //   `Channel.fromTransform`, two channels a turn): V8 allocates it in the old generation.
  // Promoted a turn: 2.5 KB with all of them; 1.2 KB without the first; 0.7 KB with the waiter
  // alone. Into the old generation a turn, now: about 210 bytes (the turn's one channel), 550
  // under a tracer with tracing's maps, 360 with an events reader on a `Queue`, 1.2 KB with
  // structured output decoded by a stream stage (`Stream.mapEffect`: two more channels a turn),
  // 390 with a tool use a turn in tracing's map of open tool uses.
  const variants = {
    promotion: "a plain session",
    "promotion-traced": "under a program's tracer (spans, tracing's per-thread state)",
    "promotion-events": "with a program reading session.events",
    "promotion-structured": "with structured output (every result decoded by the session's outputFormat)",
    "promotion-tools": "with a tool use and its result every turn",
    "promotion-store": "with the transcript mirrored to a session store (a frame a turn, a flush a result)"
  } as const
  for (const [variant, what] of Object.entries(variants) as Array<[Variant, string]>) {
    it.effect(`what a session's turns leave dies young: no chain of V8's hash tables, no closure V8 allocates old, ${what}`, () =>
      Effect.gen(function*() {
        const perTurn = yield* oldBytesPerTurn(3_000, variant)
        assert.isBelow(perTurn, 300, `bytes into the old generation a turn: ${perTurn.toFixed(0)}`)
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
