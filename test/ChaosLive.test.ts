/**
 * Chaos: the library against test/fixtures/chaos-claude.mjs, a seeded CLI that mixes garbage,
 * split and CRLF lines, unknown types, duplicate/late/out-of-order/unknown control responses,
 * unknown control requests, stalls and bad endings into a valid session, and logs exactly the
 * valid messages it wrote. For every seed the session's events must be exactly those messages,
 * every operation must end (a value or a typed `ClaudeError`, never a hang or a defect), and the
 * process must be gone afterwards.
 *
 * `CHAOS_SEEDS` sets how many seeds run (default 200: seeds 1..200); `CHAOS_SEED_LIST="4,7"` runs
 * exactly those.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { isAlive, processLayer } from "./support/live.ts"

const CHAOS_CLAUDE = Path.join(import.meta.dirname, "fixtures", "chaos-claude.mjs")
const SEED_COUNT = Number.parseInt(process.env.CHAOS_SEEDS ?? "200", 10) || 200
const SEEDS: ReadonlyArray<number> = process.env.CHAOS_SEED_LIST
  ? process.env.CHAOS_SEED_LIST.split(",").map((s) => Number.parseInt(s.trim(), 10))
  : Array.from({ length: SEED_COUNT }, (_, i) => i + 1)
const CONCURRENCY = 8
const SEED_DEADLINE = "15 seconds"

type Json = Record<string, unknown>

/** What an observed event must equal: the decoded message as the CLI wrote it. */
const comparable = (event: Claude.Event): unknown => {
  if (event.type === "unknown") return event.raw
  if (event.type === "result") {
    const { turn: _turn, ...rest } = event
    return rest
  }
  return event
}

/** Why an operation's exit is not acceptable: a defect, an interruption, or a non-ClaudeError failure. */
const badExit = <A>(name: string, exit: Exit.Exit<A, ClaudeError.ClaudeError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  for (const reason of exit.cause.reasons) {
    if (Cause.isFailReason(reason)) {
      if (!ClaudeError.isClaudeError(reason.error)) return `${name} failed with a non-ClaudeError: ${String(reason.error)}`
    } else if (Cause.isDieReason(reason)) {
      return `${name} died: ${String(reason.defect)}`
    } else {
      return `${name} was interrupted`
    }
  }
  return undefined
}

const reasonTag = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const fail = exit.cause.reasons.find(Cause.isFailReason)
  return fail === undefined ? "no failure" : fail.error.reason._tag
}

const readNdjson = (path: string): Array<Json> =>
  Fs.existsSync(path)
    ? Fs.readFileSync(path, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Json)
    : []

/** Runs one seed; returns the problems found (none when the seed passes) and the faults it injected. */
const runSeed = (seed: number, dir: string) =>
  Effect.gen(function*() {
    const problems: Array<string> = []
    const log = Path.join(dir, `seed-${seed}.ndjson`)
    const observed: Array<Claude.Event> = []
    let pid: number | undefined

    const outcomes = yield* Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({
        executable: CHAOS_CLAUDE,
        env: { CHAOS_SEED: String(seed), CHAOS_LOG: log },
        closeGrace: "2 seconds",
        controlTimeout: "5 seconds",
        initializeTimeout: "5 seconds",
        interruptTimeout: "3 seconds"
      })
      pid = session.pid
      // Subscribed before anything is sent: the events from the very first line on.
      const events = yield* session.events.pipe(
        Stream.runForEach((event) => Effect.sync(() => observed.push(event))),
        Effect.exit,
        // A child of the seed's fiber, not of the session's scope: it outlives the session, to the
        // end of the event stream.
        Effect.forkChild({ startImmediately: true })
      )
      const initialize = yield* Effect.exit(session.initializeResult)
      const [turn1, setModel, mcpStatus] = yield* Effect.all([
        Effect.exit(session.run("first turn")),
        Effect.exit(session.setModel("haiku")),
        Effect.exit(session.mcpStatus())
      ], { concurrency: "unbounded" })
      const [turn2, probe] = yield* Effect.all([
        Effect.exit(session.run("second turn")),
        Effect.exit(session.request({ subtype: "chaos_probe" }, Schema.Unknown))
      ], { concurrency: "unbounded" })
      return { initialize, turn1, setModel, mcpStatus, turn2, probe, events }
    }))
    // The scope is closed: the reader has seen the end of stdout (or the session failed it).
    const eventsExit = yield* Fiber.join(outcomes.events)
    const { events: _events, ...operations } = outcomes
    for (const [name, exit] of Object.entries(operations)) {
      const bad = badExit(name, exit)
      if (bad !== undefined) problems.push(bad)
    }
    // The CLI's own account: the config and how it ended.
    const faults = readNdjson(`${log}.faults`)
    const ending = faults.find((f) => typeof f.end === "string")?.end

    // The event stream ends cleanly when the CLI ended cleanly, or after the session ended its
    // input; it fails with the reason when the CLI died by itself before. A chaos CLI's bad
    // ending races with the session's close, so either is right for it; never another failure.
    // (That a death before EOF fails the stream is held by SessionEngine.test.ts, defect 6.)
    const eventsTag = Exit.isSuccess(eventsExit) ? "clean" : reasonTag(eventsExit)
    const allowed = ending === "exit-mid-line" || ending === "exit-pending"
      ? ["clean", "ProcessExited"]
      : ending === "close-stdout"
      ? ["clean", "StdoutClosed", "ProcessExited"]
      : ["clean"]
    if (!allowed.includes(eventsTag)) problems.push(`the event stream ended with ${eventsTag}, not ${allowed.join(" or ")}`)
    if (ending === "clean" || ending === undefined && faults[0]?.config !== undefined &&
        (faults[0].config as Json).ending === "clean") {
      // Nothing went wrong at the end: every operation must have succeeded, the probe rejected.
      for (const name of ["initialize", "turn1", "setModel", "mcpStatus", "turn2"] as const) {
        const exit: Exit.Exit<unknown, ClaudeError.ClaudeError> = operations[name]
        if (Exit.isFailure(exit)) problems.push(`${name} failed in a clean run: ${reasonTag(exit)}`)
      }
      if (reasonTag(operations.probe) !== "ControlRejected") {
        problems.push(`the unknown control request ended with ${reasonTag(operations.probe)}, not ControlRejected`)
      }
      if (Exit.isSuccess(operations.setModel) && operations.setModel.value !== "claude-haiku-5-5") {
        problems.push(`setModel resolved to ${operations.setModel.value}`)
      }
    }

    // Exactly the valid messages, in order; protocol problems (garbage) are reported, not events.
    const expected = readNdjson(log)
    const actual = observed.filter((e) => e.type !== "protocol_problem").map(comparable)
    if (actual.length !== expected.length) {
      problems.push(`${actual.length} events observed, the CLI wrote ${expected.length} valid messages`)
    }
    for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
      const a = JSON.stringify(actual[i])
      const e = JSON.stringify(expected[i])
      // Compared as parsed values (key order is the CLI's, the decoder keeps objects as written).
      if (a !== e) {
        problems.push(`event ${i} differs:\n  observed: ${a?.slice(0, 300)}\n  written:  ${e?.slice(0, 300)}`)
        break
      }
      // A type or system subtype the library does not model comes through as `unknown`, raw.
      const written = expected[i]!
      if ((written.type === "brand_new_type" || written.subtype === "chaos_unknown_subtype") &&
          observed.filter((ev) => ev.type !== "protocol_problem")[i]?.type !== "unknown") {
        problems.push(`event ${i} (${String(written.type)}/${String(written.subtype)}) is not { type: "unknown", raw }`)
        break
      }
    }
    // Problems must come only from garbage lines, never from a valid line.
    const validProblems = observed.filter((e) =>
      e.type === "protocol_problem" && expected.some((m) => JSON.stringify(m) === e.error.line)
    )
    if (validProblems.length > 0) problems.push(`a valid line was reported as a protocol problem`)

    if (pid === undefined) problems.push("no pid")
    else if (isAlive(pid)) problems.push(`process ${pid} is still alive after the session closed`)
    return {
      problems: problems.map((p) => `seed ${seed} (${ending ?? "no end logged"}): ${p}`),
      faults: faults.flatMap((f) => typeof f.fault === "string" ? [f.fault] : typeof f.end === "string" ? [`end:${f.end}`] : [])
    }
  }).pipe(
    Effect.timeoutOrElse({
      duration: SEED_DEADLINE,
      orElse: () =>
        Effect.succeed({
          problems: [`seed ${seed}: the session did not finish within ${SEED_DEADLINE}`],
          faults: [] as Array<string>
        })
    })
  )

/** Every fault chaos-claude can inject, and every way it ends (see test/fixtures/README.md). */
const ALL_FAULTS = [
  "garbage", "split", "crlf", "unknown_type", "unknown_system_subtype", "response_unknown_id",
  "response_stale_duplicate", "response_duplicate", "response_late", "response_held", "response_released",
  "request_unknown_subtype", "stall", "close_stdout", "exit_mid_line", "exit_pending",
  "end:clean", "end:close-stdout", "end:exit-mid-line", "end:exit-pending"
]

describe("chaos-claude.mjs through the library", () => {
  it.live(`${SEEDS.length} seeds: events are exactly the valid messages, every operation ends, no process is left`, () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "chaos-session-"))),
        (d) => Effect.sync(() => Fs.rmSync(d, { recursive: true, force: true }))
      )
      const results = yield* Effect.forEach(SEEDS, (seed) => runSeed(seed, dir), { concurrency: CONCURRENCY })
      const problems = results.flatMap((r) => r.problems)
      assert.deepStrictEqual(problems, [], problems.join("\n"))
      if (SEEDS.length >= 200) {
        // The seeds exercised every fault and every ending at least once.
        const seen = new Set(results.flatMap((r) => r.faults))
        assert.deepStrictEqual(ALL_FAULTS.filter((f) => !seen.has(f)), [])
      }
    }).pipe(
      Effect.provide(processLayer),
      // Unknown control requests are logged as warnings by design; keep the output readable.
      Effect.provideService(References.MinimumLogLevel, "None")
    ), { timeout: Math.max(180_000, SEEDS.length * 1_000) })

  it.live("a seed whose CLI exits with requests pending fails them with ProcessExited, not a hang", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "chaos-pending-"))),
        (d) => Effect.sync(() => Fs.rmSync(d, { recursive: true, force: true }))
      )
      const log = Path.join(dir, "log.ndjson")
      const outcome = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({
          executable: CHAOS_CLAUDE,
          env: { CHAOS_SEED: "21", CHAOS_LOG: log, CHAOS_ENDING: "exit-pending", CHAOS_END_TURN: "1" },
          closeGrace: "2 seconds",
          controlTimeout: "10 seconds"
        })
        yield* Effect.exit(session.initializeResult)
        const [turn, model] = yield* Effect.all([
          Effect.exit(session.run("hello")),
          Effect.exit(Effect.delay(session.setModel("sonnet"), "20 millis"))
        ], { concurrency: "unbounded" })
        return { turn, model, pid: session.pid }
      }))
      assert.strictEqual(reasonTag(outcome.turn), "ProcessExited")
      assert.include(["ProcessExited", "SessionClosed"], reasonTag(outcome.model))
      assert.isFalse(isAlive(outcome.pid!))
    }).pipe(Effect.provide(processLayer), Effect.provideService(References.MinimumLogLevel, "None")), { timeout: 30_000 })
})
