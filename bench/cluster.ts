/**
 * The cluster benchmark (`BENCH_ONLY=cluster npm run bench`, or `node bench/cluster.ts` alone):
 * sessions on Effect Cluster with one runner and with three, side by side, on the store-backed
 * fake CLI (`scripts/cluster/storeFake.ts`, its transcript in the SessionStore), with a local
 * PostgreSQL for message storage, runner storage and the store; and one turn through the cluster
 * against the same turn on a direct session (`Claude.open` in this process, same fake, same store).
 *
 * Per scenario and round: `SESSIONS` sessions started (each its first turn), then `TURNS` more
 * turns on each (all sessions at once, each session's turns one after the other), then one session's
 * `SERIAL` turns back to back (ms per turn). Prints a JSON line of figures per scenario and round,
 * and the summary (medians) last.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Exit from "effect/Exit"
import * as Deferred from "effect/Deferred"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { freePort, spawnRunner, stopRunners } from "../scripts/cluster/processes.ts"
import * as StoreFake from "../scripts/cluster/storeFake.ts"
import { startPostgres } from "../test/support/postgres.ts"

const quick = process.env.BENCH_QUICK === "1"
const ROUNDS = Number(process.env.BENCH_PAIRS ?? (quick ? 2 : 3))
const SESSIONS = quick ? 20 : 40
const TURNS = quick ? 3 : 5
const SERIAL = quick ? 20 : 50

interface Figures {
  readonly scenario: string
  readonly sessionsPerSec: number
  readonly turnsPerSec: number
  readonly msPerTurn: number
}

const now = () => performance.now()

/** Sessions started, turns, serial turns: the same steps through any `run`. */
const measure = (scenario: string, run: (sessionId: string, prompt: string) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const ids = Array.from({ length: SESSIONS }, () => crypto.randomUUID())
    let t = now()
    yield* Effect.forEach(ids, (id) => run(id, "start"), { concurrency: 10 })
    const sessionsPerSec = SESSIONS / ((now() - t) / 1000)
    t = now()
    yield* Effect.forEach(ids, (id) => Effect.forEach(Array.from({ length: TURNS }, (_, i) => `turn ${i}`), (p) => run(id, p)), {
      concurrency: "unbounded"
    })
    const turnsPerSec = (SESSIONS * TURNS) / ((now() - t) / 1000)
    const serial = ids[0]!
    t = now()
    for (let i = 0; i < SERIAL; i++) yield* run(serial, `serial ${i}`)
    const msPerTurn = (now() - t) / SERIAL
    const figures: Figures = { scenario, sessionsPerSec, turnsPerSec, msPerTurn }
    process.stdout.write(JSON.stringify(figures) + "\n")
    return figures
  })

const clusterScenario = (url: string, runnerCount: number) =>
  Effect.scoped(Effect.gen(function*() {
    const ports = yield* Effect.forEach(Array.from({ length: runnerCount }), () => freePort)
    const runners = yield* Effect.forEach(ports, (port) =>
      spawnRunner({ port, url, maxLiveSessions: 64, turnDelayMs: 0 }, () => undefined))
    yield* Effect.forEach(runners, (runner) => Deferred.await(runner.ready), { discard: true })
    // The runners take their shards (a few assignment refreshes) before the clock starts.
    yield* Effect.sleep("3 seconds")
    const Client = ClaudeCluster.layerClient({ shardingConfig }).pipe(
      Layer.provide(SessionStorePg.layerClient({ url: Redacted.make(url), maxConnections: 8 }))
    )
    const figures = yield* Effect.gen(function*() {
      const client = yield* ClaudeSessionEntity.client
      return yield* measure(
        `cluster, ${runnerCount} runner${runnerCount > 1 ? "s" : ""}`,
        (id, prompt) => client(id).Run({ uuid: crypto.randomUUID(), prompt })
      )
    }).pipe(Effect.provide(Client))
    yield* stopRunners(runners)
    return figures
  }))

/** The same turns on sessions opened in this process (no cluster), with the same fake and store. */
const directScenario = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const scope = yield* Effect.scope
    const sessions = new Map<string, Claude.Session>()
    const context = yield* Layer.build(
      StoreFake.layer({}).pipe(
        Layer.provideMerge(SessionStoreSql.layer()),
        Layer.provide(SessionStorePg.layerClient({ url: Redacted.make(url), maxConnections: 8 }))
      )
    )
    const session = (id: string) =>
      Effect.suspend(() => {
        const open = sessions.get(id)
        if (open !== undefined) return Effect.succeed(open)
        return Claude.open({ sessionId: id }).pipe(
          Scope.provide(scope),
          Effect.provideContext(context),
          Effect.tap((s) => Effect.sync(() => sessions.set(id, s)))
        )
      })
    return yield* measure("direct session", (id, prompt) =>
      Effect.flatMap(session(id), (s) => s.run({ text: prompt, uuid: crypto.randomUUID() })))
  }))

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const main = Effect.scoped(Effect.gen(function*() {
  const pg = yield* startPostgres
  const all: Array<Figures> = []
  const scenarios = [
    () => directScenario(pg.url),
    () => clusterScenario(pg.url, 1),
    () => clusterScenario(pg.url, 3)
  ]
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < scenarios.length; k++) all.push(yield* scenarios[(k + r) % scenarios.length]!())
    process.stderr.write(`  cluster round ${r + 1}/${ROUNDS} done\n`)
  }
  const by = (scenario: string, key: keyof Omit<Figures, "scenario">) =>
    median(all.filter((f) => f.scenario === scenario).map((f) => f[key]))
  const names = ["direct session", "cluster, 1 runner", "cluster, 3 runners"]
  const summary = {
    ok: true,
    sessions: SESSIONS,
    turns: TURNS,
    serial: SERIAL,
    rounds: ROUNDS,
    rows: names.map((name) => ({
      scenario: name,
      sessionsPerSec: by(name, "sessionsPerSec"),
      turnsPerSec: by(name, "turnsPerSec"),
      msPerTurn: by(name, "msPerTurn")
    }))
  }
  process.stdout.write(JSON.stringify(summary) + "\n")
}))

Effect.runPromiseExit(main).then((exit) => {
  if (Exit.isFailure(exit)) {
    process.stderr.write(`cluster bench failed: ${String(exit.cause)}\n`)
    process.exit(1)
  }
  process.exit(0)
})
