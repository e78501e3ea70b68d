/**
 * The session entity on the real CLI and the fake model. Embedded (SingleRunner on SQLite, the
 * SessionStore in the same database, the CLI's transcript mirrored into it): a turn retried with
 * its uuid is answered once; a session closed on one "machine" (one HOME, one CLI config
 * directory) is resumed on another from the store, and the model's next request carries the
 * earlier turn; a lost first turn runs again without its lost prompt. Runners: 30 sessions on
 * three runner processes with PostgreSQL, one killed mid-turn, every answer seeing exactly the
 * session's earlier turns.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStoreWiring from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { cliProcesses, freePort, spawnRunner, stopRunners } from "../scripts/cluster/processes.ts"
import { isAlive, live, processLayer } from "./support/live.ts"
import { startPostgres } from "./support/postgres.ts"
import { makeTempDir } from "./support/tempDir.ts"

describe("ClaudeSessionEntity on the real CLI", () => {
  it.live("embedded: a retried turn is answered once; closed on one HOME, resumed from the store on another with its history", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-cluster-real-")
      const cwd = yield* makeTempDir("ecc-cluster-real-cwd-")
      const one = yield* live([FakeModel.text("Noted: the code word is PAPAYA-42.")], { cwd })
      const two = yield* live([FakeModel.text("The code word was PAPAYA-42.")], { cwd })
      let machine = one
      const Runner = ClaudeCluster.layerEmbedded({
        shardingConfig,
        sessions: { session: () => ({ ...machine.options, sessionStore: true }) }
      }).pipe(
        Layer.provide(processLayer),
        Layer.provideMerge(SessionStoreSql.layer()),
        Layer.provideMerge(SessionStoreSql.layerSqliteClient({ filename: Path.join(dir, "cluster.db") }))
      )
      yield* Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(crypto.randomUUID())
        const turn = crypto.randomUUID()
        const first = yield* session.Run({ uuid: turn, prompt: "Remember the code word PAPAYA-42." })
        assert.strictEqual(first.text, "Noted: the code word is PAPAYA-42.")
        const again = yield* session.Run({ uuid: turn, prompt: "Remember the code word PAPAYA-42." })
        assert.deepStrictEqual(again, first)
        assert.strictEqual((yield* one.model.messageRequests).length, 1, "the retried turn reached the model once")
        const { pid } = yield* session.Status()
        assert.isNotNull(pid)

        // Closed here; the next turn opens the CLI on the other "machine", from the store.
        yield* session.Close()
        assert.isFalse(isAlive(pid!))
        machine = two
        const second = yield* session.Run({ uuid: crypto.randomUUID(), prompt: "What was the code word?" })
        assert.strictEqual(second.text, "The code word was PAPAYA-42.")
        const request = JSON.stringify((yield* two.model.messageRequests).at(-1)!.messages)
        assert.include(request, "Remember the code word PAPAYA-42.")
        assert.include(request, "Noted: the code word is PAPAYA-42.")
        assert.include(request, "What was the code word?")
      }).pipe(Effect.provide(Runner))
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("embedded: a first turn lost mid-turn (its prompt in the store and the local transcript) runs again on a new conversation: the model never sees that prompt twice, later resumes included", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-cluster-lost-first-")
      const cwd = yield* makeTempDir("ecc-cluster-lost-first-cwd-")
      const prompts = ["first", "second"]
      let hangNext = true
      // Answers name the earlier prompts the request carried (the conversation the model sees);
      // the first request of all hangs: the turn is lost with its "runner" there.
      const script = (request: FakeModel.RecordedRequest) => {
        const texts = request.messages.filter((m) => m.role === "user").flatMap((m) =>
          typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => b.type === "text" ? [String(b.text)] : [])
        ).filter((t) => prompts.includes(t))
        if (hangNext && texts.length > 0) {
          hangNext = false
          return FakeModel.hang
        }
        return FakeModel.text(`echo: ${texts.at(-1)} (after: ${texts.slice(0, -1).join(" | ")})`)
      }
      const one = yield* live(script, { cwd })
      const two = yield* live(script, { cwd })
      const Sql = SessionStoreSql.layerSqliteClient({ filename: Path.join(dir, "cluster.db") })
      const Store = SessionStoreSql.layer().pipe(Layer.provideMerge(Sql))
      const sessionId = crypto.randomUUID() as string
      const firstTurn = crypto.randomUUID() as string
      // The lost attempt: the CLI writes the prompt to its transcript (mirrored to the store), the
      // model never answers, the runner goes away with the turn accepted in the ledger.
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append({ projectKey: "cluster", sessionId, subpath: "cluster/turns" }, [
          { type: "turn_started", uuid: `${firstTurn}:started:1`, turn: firstTurn, cli: firstTurn }
        ])
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open({ ...one.options, sessionId, sessionStore: true, closeGrace: "2 seconds" })
          yield* session.send({ text: "first", uuid: firstTurn })
          yield* one.model.awaitRequests(1)
        }))
        const where = SessionStoreWiring.locate(one.options.env ?? {}, cwd)
        const stored = yield* Stream.runCollect(store.load({ projectKey: where.projectKey, sessionId }))
        assert.isTrue(stored.some((e) => e.uuid === firstTurn), "the lost prompt is in the store")
      }).pipe(Effect.provide(Layer.merge(Store, processLayer)))

      let machine = one
      const Runner = ClaudeCluster.layerEmbedded({
        shardingConfig,
        sessions: { session: () => ({ ...machine.options, sessionStore: true }) }
      }).pipe(Layer.provide(processLayer), Layer.provideMerge(SessionStoreSql.layer()), Layer.provideMerge(Sql))
      yield* Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(sessionId)
        // Run again on the same machine (its local transcript holds the lost prompt too).
        const first = yield* session.Run({ uuid: firstTurn, prompt: "first" })
        assert.strictEqual(first.attempt, 2)
        assert.strictEqual(first.text, "echo: first (after: )")
        // Closed, then resumed on the other machine from the store, which still holds the lost root.
        yield* session.Close()
        machine = two
        const second = yield* session.Run({ uuid: crypto.randomUUID(), prompt: "second" })
        assert.strictEqual(second.text, "echo: second (after: first)")
      }).pipe(Effect.provide(Runner))
    }).pipe(Effect.scoped), { timeout: 120_000 })

  it.live("runners: 30 sessions of 3 turns on three runner processes (each its own HOME), PostgreSQL, one killed with SIGKILL mid-turn; no CLI process left", () =>
    Effect.gen(function*() {
      const pg = yield* startPostgres
      const cwd = yield* makeTempDir("ecc-cluster-real-cwd-")
      const prompts = ["first", "second", "third"]
      // Answers name the earlier prompts the request carried: the session's history as the model sees it.
      const model = yield* FakeModel.make((request) => {
        const texts = request.messages.filter((m) => m.role === "user").flatMap((m) =>
          typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => b.type === "text" ? [String(b.text)] : [])
        ).filter((t) => prompts.includes(t))
        return FakeModel.text(`echo: ${texts.at(-1)} (after: ${texts.slice(0, -1).join(" | ")})`, { delayMs: 400 })
      })
      const ports = yield* Effect.forEach([0, 1, 2], () => freePort)
      const runners = yield* Effect.forEach(ports, (port) =>
        spawnRunner({ port, url: pg.url, maxLiveSessions: 4, turnDelayMs: 0, real: { modelUrl: model.url, cwd } }, () => undefined))
      yield* Effect.forEach(runners, (runner) => Deferred.await(runner.ready), { discard: true })
      const Client = ClaudeCluster.layerClient({ shardingConfig }).pipe(
        Layer.provide(SessionStorePg.layerClient({ url: Redacted.make(pg.url), maxConnections: 4 }))
      )
      const sessionIds = Array.from({ length: Number(process.env.CLUSTER_REAL_SESSIONS ?? 30) }, () => crypto.randomUUID() as string)
      yield* Effect.gen(function*() {
        const client = yield* ClaudeSessionEntity.client
        const round = (prompt: string) =>
          Effect.forEach(sessionIds, (id) => client(id).Run({ uuid: crypto.randomUUID(), prompt }), { concurrency: 10 })
        const round1 = yield* round("first")
        console.log("real CLI runners: round 1")
        const round2 = yield* round("second")
        console.log("real CLI runners: round 2")
        // The third round: once the model is asked, the runner holding the most sessions is killed.
        const before = (yield* model.messageRequests).length
        const third = yield* Effect.forkChild(round("third"))
        yield* model.awaitRequests(before + 1, { timeout: "60 seconds" })
        const perRunner = new Map<string, number>()
        for (const o of round2) perRunner.set(o.runner, (perRunner.get(o.runner) ?? 0) + 1)
        const [victimAddress] = [...perRunner].sort((a, b) => b[1] - a[1])[0]!
        const victim = runners.find((r) => victimAddress.endsWith(`:${r.port}`))!
        victim.child.kill("SIGKILL")
        const round3 = yield* Fiber.join(third)
        const retried = round3.filter((o) => o.attempt > 1).length
        console.log(
          `real CLI runners: sessions per runner, first round ${
            JSON.stringify(Object.fromEntries([...new Set(round1.map((o) => o.runner))].map((r) => [r, round1.filter((o) => o.runner === r).length])))
          }; killed ${victimAddress} holding ${perRunner.get(victimAddress)}; ${retried} turns run again`
        )
        // Every turn is answered, once, by the model, and every answer saw exactly the session's
        // earlier turns: a turn run again (lost with the killed runner, or caught by a shard move)
        // never sees its lost attempt's prompt, and no finished turn is missing from a resumed
        // history (a turn is answered only once its transcript is in the store).
        const rounds = [round1, round2, round3]
        const rerun = new Set(rounds.flat().filter((o) => o.attempt > 1).map((o) => o.sessionId))
        console.log(`real CLI runners: ${rerun.size} sessions had a turn run again`)
        assert.isAbove(rerun.size, 0, "the kill (and the shard moves) made turns run again: the history check below covers them")
        for (const [r, outcomes] of rounds.entries()) {
          assert.strictEqual(outcomes.length, sessionIds.length)
          for (const o of outcomes) {
            assert.isFalse(o.isError)
            assert.strictEqual(
              o.text,
              `echo: ${prompts[r]} (after: ${prompts.slice(0, r).join(" | ")})`,
              `${o.sessionId} turn ${r + 1} (attempt ${o.attempt})`
            )
          }
        }
        for (const o of round3) assert.notStrictEqual(o.runner, victimAddress)
      }).pipe(Effect.provide(Client))
      yield* stopRunners(runners)
      // The killed runner's CLIs saw their stdin end and exited; the others were closed.
      let left = cliProcesses()
      for (let i = 0; i < 40 && left.length > 0; i++) {
        yield* Effect.sleep("500 millis")
        left = cliProcesses()
      }
      assert.deepStrictEqual(left, [], "no CLI process of the runners is left")
    }).pipe(Effect.scoped), { timeout: 600_000 })
})
