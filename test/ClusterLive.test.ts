/**
 * Sessions on Effect Cluster, end to end: 30 sessions of 3 turns each, on the store-backed fake CLI
 * (`scripts/cluster/storeFake.ts`: the library's in-memory FakeCli, whose transcript lives in the
 * SessionStore, so a resumed session's history comes from the store whichever runner resumes it).
 *
 * - embedded: one process, `ClaudeCluster.layerEmbedded` on SQLite; the runner is stopped in the
 *   middle of the third round and started again on the same database.
 * - runners: three runner processes (`scripts/cluster/runner.ts`) on 127.0.0.1 and a local
 *   PostgreSQL (message storage, runner storage and the SessionStore); one is killed with SIGKILL
 *   in the middle of the third round.
 *
 * Both check: every turn answered once (one outcome per uuid in the ledger; a turn run again after
 * the loss says `attempt: 2`), every session's last answer names its two earlier prompts (its
 * history came along), and the count of sessions per runner is printed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { freePort, spawnRunner, stopRunners } from "../scripts/cluster/processes.ts"
import * as StoreFake from "../scripts/cluster/storeFake.ts"
import { pgConnection, startPostgres } from "./support/postgres.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSIONS = Number(process.env.CLUSTER_SESSIONS ?? 30)
const root = Path.resolve(import.meta.dirname, "..")

const sessionIds: ReadonlyArray<string> = Array.from({ length: SESSIONS }, () => crypto.randomUUID())
const prompts = ["first", "second", "third"] as const

type Client = (sessionId: string) => {
  readonly Run: (input: { readonly uuid: string; readonly prompt: string }) => Effect.Effect<
    ClaudeSessionEntity.TurnOutcome,
    unknown
  >
}

/** One round: a turn of every session, at most 10 at once; the outcomes by session. */
const round = (client: Client, uuids: ReadonlyMap<string, string>, prompt: string) =>
  Effect.forEach(sessionIds, (id) => client(id).Run({ uuid: uuids.get(id)!, prompt }), { concurrency: 10 })

/** The ledger's outcomes in the store, per turn uuid: how many times each turn was answered. */
const answeredCounts = Effect.gen(function*() {
  const store = yield* SessionStore.SessionStore
  const counts = new Map<string, number>()
  for (const sessionId of sessionIds) {
    const entries = yield* store.load({ projectKey: StoreFake.projectKey, sessionId, subpath: "cluster/turns" }).pipe(
      Stream.runCollect
    )
    for (const entry of entries) {
      if (entry.type === "turn_finished") counts.set(String(entry.turn), (counts.get(String(entry.turn)) ?? 0) + 1)
    }
  }
  return counts
})

const checkOutcomes = (
  rounds: ReadonlyArray<ReadonlyArray<ClaudeSessionEntity.TurnOutcome>>,
  counts: ReadonlyMap<string, number>,
  label: string
) => {
  assert.strictEqual(counts.size, SESSIONS * prompts.length, "a recorded outcome for every turn")
  for (const [uuid, count] of counts) assert.strictEqual(count, 1, `turn ${uuid} answered once`)
  rounds.forEach((outcomes, r) =>
    outcomes.forEach((outcome, i) => {
      assert.strictEqual(outcome.sessionId, sessionIds[i])
      assert.isFalse(outcome.isError)
      const earlier = prompts.slice(0, r)
      assert.strictEqual(
        outcome.text,
        `echo: ${prompts[r]} (after ${r} turns${earlier.length === 0 ? "" : `: ${earlier.join(" | ")}`})`
      )
    })
  )
  const perRunner = new Map<string, number>()
  for (const outcome of rounds[0]!) perRunner.set(outcome.runner, (perRunner.get(outcome.runner) ?? 0) + 1)
  const lastPerRunner = new Map<string, number>()
  for (const outcome of rounds[2]!) lastPerRunner.set(outcome.runner, (lastPerRunner.get(outcome.runner) ?? 0) + 1)
  const retried = rounds[2]!.filter((o) => o.attempt > 1).length
  console.log(
    `${label}: sessions per runner, first round ${JSON.stringify(Object.fromEntries(perRunner))}, ` +
      `last round ${JSON.stringify(Object.fromEntries(lastPerRunner))}; ${retried} turns run again after the loss`
  )
  return { perRunner, lastPerRunner, retried }
}

describe("ClusterLive", () => {
  it.live("embedded (SingleRunner, SQLite): 30 sessions of 3 turns; the runner stopped mid-turn and started again", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-cluster-")
      const Sql = SessionStoreSql.layerSqliteClient({ filename: Path.join(dir, "cluster.db") })
      const started: Array<string> = []
      let turnStarted: Deferred.Deferred<void> | undefined
      const makeRunner = () =>
        ClaudeCluster.layerEmbedded({
          shardingConfig,
          sessions: { projectKey: () => StoreFake.projectKey, maxLiveSessions: 8, idleTimeToLive: "30 seconds" }
        }).pipe(
          Layer.provide(StoreFake.layer({
            delayMs: 300,
            onTurn: (_, uuid) => {
              started.push(uuid)
              if (turnStarted !== undefined) Deferred.doneUnsafe(turnStarted, Exit.void)
            }
          })),
          Layer.provideMerge(SessionStoreSql.layer()),
          Layer.provideMerge(Sql)
        )
      const uuids = prompts.map(() => new Map(sessionIds.map((id) => [id, crypto.randomUUID()])))

      // The first runner: two rounds, then the third is cut in the middle.
      const scope1 = yield* Scope.make()
      const first = yield* Layer.buildWithScope(makeRunner(), scope1)
      const client1 = yield* Effect.provideContext(ClaudeSessionEntity.client, first)
      console.log("embedded: runner up")
      const round1 = yield* round(client1, uuids[0]!, prompts[0])
      console.log("embedded: round 1")
      const round2 = yield* round(client1, uuids[1]!, prompts[1])
      console.log("embedded: round 2")
      started.length = 0
      const armed = yield* Deferred.make<void>()
      turnStarted = armed
      const cut = yield* Effect.forkChild(round(client1, uuids[2]!, prompts[2]))
      // Stopped while turns run (each holds 300 ms before its answer).
      yield* Deferred.await(armed)
      yield* Effect.sleep("100 millis")
      const startedBeforeStop = started.length
      console.log(`embedded: stopping with ${startedBeforeStop} turns started`)
      yield* Scope.close(scope1, Exit.void)
      yield* Fiber.interrupt(cut)
      console.log("embedded: stopped")
      assert.isAbove(startedBeforeStop, 0, "turns of the third round had started")

      // The second runner on the same database: the callers retry with the same uuids.
      const scope2 = yield* Scope.make()
      const second = yield* Layer.buildWithScope(makeRunner(), scope2)
      const client2 = yield* Effect.provideContext(ClaudeSessionEntity.client, second)
      const round3 = yield* round(client2, uuids[2]!, prompts[2])
      const counts = yield* Effect.provideContext(answeredCounts, second)
      yield* Scope.close(scope2, Exit.void)
      const { retried } = checkOutcomes([round1, round2, round3], counts, "embedded")
      // A turn is run again only when its first run was lost, and says so.
      assert.isAtMost(retried, startedBeforeStop)
    }), 120_000)

  it.live("runners (SocketRunner, PostgreSQL): 30 sessions of 3 turns on three runner processes; one killed with SIGKILL mid-turn", () =>
    Effect.gen(function*() {
      const pg = yield* startPostgres
      const ports = yield* Effect.forEach([0, 1, 2], () => freePort)
      const turnsSeen: Array<{ readonly port: number; readonly sessionId: string }> = []
      let turnStarted: { readonly deferred: Deferred.Deferred<number> } | undefined
      const runners = yield* Effect.forEach(ports, (port) =>
        spawnRunner({ port, url: pg.url, maxLiveSessions: 8, turnDelayMs: 1500 }, (line) => {
          const message = JSON.parse(line) as { readonly turn?: readonly [string, string] }
          if (message.turn !== undefined) {
            turnsSeen.push({ port, sessionId: message.turn[0] })
            if (turnStarted !== undefined) Deferred.doneUnsafe(turnStarted.deferred, Exit.succeed(port))
          }
        }))
      yield* Effect.forEach(runners, (runner) => Deferred.await(runner.ready), { discard: true })
      console.log(`runners: up on ${ports.join(", ")}`)

      const Client = ClaudeCluster.layerClient({ shardingConfig }).pipe(
        Layer.provideMerge(SessionStoreSql.layer()),
        Layer.provideMerge(SessionStorePg.layerClient({ url: Redacted.make(pg.url), maxConnections: 8 }))
      )
      const uuids = prompts.map(() => new Map(sessionIds.map((id) => [id, crypto.randomUUID()])))
      yield* Effect.gen(function*() {
        const client = yield* ClaudeSessionEntity.client
        const round1 = yield* round(client, uuids[0]!, prompts[0])
        console.log("runners: round 1")
        const round2 = yield* round(client, uuids[1]!, prompts[1])
        console.log("runners: round 2")
        const armed = yield* Deferred.make<number>()
        turnStarted = { deferred: armed }
        const third = yield* Effect.forkChild(round(client, uuids[2]!, prompts[2]))
        // SIGKILL to the runner of the first turn of the third round, while it runs (1.5 s a turn).
        const victimPort = yield* Deferred.await(armed)
        yield* Effect.sleep("300 millis")
        const victim = runners[ports.indexOf(victimPort)]!
        const heldByVictim = round2.filter((o) => o.runner === `127.0.0.1:${victimPort}`).map((o) => o.sessionId)
        const startedOnVictim = turnsSeen.filter((t) => t.port === victimPort).length
        victim.child.kill("SIGKILL")
        console.log(`runners: killed ${victimPort} (SIGKILL), which held ${heldByVictim.length} sessions`)
        const round3 = yield* Fiber.join(third)
        console.log("runners: round 3")
        const counts = yield* answeredCounts
        const { retried } = checkOutcomes([round1, round2, round3], counts, "runners")
        // Every session the victim held finished its third turn elsewhere, with its history.
        assert.isAbove(heldByVictim.length, 0)
        for (const sessionId of heldByVictim) {
          const outcome = round3[sessionIds.indexOf(sessionId)]!
          assert.notStrictEqual(outcome.runner, `127.0.0.1:${victimPort}`)
        }
        // The sessions were spread over the three runners.
        assert.strictEqual(new Set(round1.map((o) => o.runner)).size, 3)
        assert.isAbove(startedOnVictim, 0)
        assert.isAtMost(retried, heldByVictim.length)
      }).pipe(Effect.provide(Client))

      // The other runners stop on SIGTERM, each within stopRunners' bound.
      yield* stopRunners(runners)
    }), 240_000)
})
