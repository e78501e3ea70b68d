/**
 * `npm run cluster:demo`: sessions across machines, on this machine. Starts a local PostgreSQL (in
 * a temporary directory, on a free port), three runner processes (`scripts/cluster/runner.ts`:
 * `ClaudeCluster.layerRunner` on 127.0.0.1, each in a HOME of its own, as on three machines) and a
 * client (this process, `ClaudeCluster.layerClient`). Twenty sessions run three turns each on the
 * real `claude` CLI against the fake model (`FakeModel`, whose answer names the earlier prompts the
 * request carried), their transcripts mirrored into the SessionStore in PostgreSQL. In the middle of
 * the second round a runner is killed with SIGKILL; its sessions finish on the others, resumed from
 * the store. Prints where each session ran and each turn's result.
 *
 * `npm run cluster:demo -- --fake-cli`: the same on the store-backed fake CLI
 * (`scripts/cluster/storeFake.ts`), no CLI processes.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { startPostgres } from "../test/support/postgres.ts"
import { shardingConfig } from "./cluster/config.ts"
import { cliProcesses, freePort, spawnRunner, stopRunners } from "./cluster/processes.ts"

const SESSIONS = 20
const prompts = ["hello", "what did I say?", "and before that?"] as const
const fakeCli = process.argv.includes("--fake-cli")
const say = (line: string) => Effect.sync(() => process.stdout.write(line + "\n"))

const main = Effect.gen(function*() {
  const pg = yield* startPostgres
  yield* say(`PostgreSQL on 127.0.0.1:${pg.port}`)
  const cwd = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-demo-cwd-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const model = yield* FakeModel.make((request) => {
    const texts = request.messages.filter((m) => m.role === "user").flatMap((m) =>
      typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => b.type === "text" ? [String(b.text)] : [])
    ).filter((t) => (prompts as ReadonlyArray<string>).includes(t))
    return FakeModel.text(`you said "${texts.at(-1)}"; before: ${texts.slice(0, -1).join(" | ") || "nothing"}`, { delayMs: 400 })
  })
  yield* say(fakeCli ? "sessions on the store-backed fake CLI" : `sessions on the real claude CLI, the fake model on ${model.url}`)
  const ports = yield* Effect.forEach([0, 1, 2], () => freePort)
  let armed: Deferred.Deferred<number> | undefined
  const runners = yield* Effect.forEach(ports, (port) =>
    spawnRunner({
      port,
      url: pg.url,
      maxLiveSessions: 8,
      turnDelayMs: 1000,
      real: fakeCli ? undefined : { modelUrl: model.url, cwd }
    }, (line) => {
      if (armed !== undefined && line.startsWith("{\"turn\"")) Deferred.doneUnsafe(armed, Exit.succeed(port))
    }))
  yield* Effect.forEach(runners, (runner) => Deferred.await(runner.ready), { discard: true })
  yield* say(`runners on 127.0.0.1:${ports.join(", 127.0.0.1:")} (pids ${runners.map((r) => r.child.pid).join(", ")})`)
  // The runners take their shards (a few assignment refreshes) before the first session; a turn
  // caught by a shard moving meanwhile is run again on the shard's new runner (attempt 2).
  yield* Effect.sleep("3 seconds")

  const Client = ClaudeCluster.layerClient({ shardingConfig }).pipe(
    Layer.provide(SessionStorePg.layerClient({ url: Redacted.make(pg.url), maxConnections: 4 }))
  )
  const sessionIds: ReadonlyArray<string> = Array.from({ length: SESSIONS }, () => crypto.randomUUID())
  const rounds = yield* Effect.gen(function*() {
    const client = yield* ClaudeSessionEntity.client
    const round = (prompt: string) =>
      Effect.forEach(sessionIds, (id) => client(id).Run({ uuid: crypto.randomUUID(), prompt }), { concurrency: 10 })
    const first = yield* round(prompts[0])
    yield* say("round 1 done")
    const victimPort = yield* Deferred.make<number>()
    armed = victimPort
    const asked = (yield* model.messageRequests).length
    const second = yield* Effect.forkChild(round(prompts[1]))
    // The fake CLI says which runner started a turn; with the real CLI, the model was asked: the
    // runner that held the most sessions goes.
    const port = fakeCli
      ? yield* Deferred.await(victimPort)
      : yield* Effect.map(model.awaitRequests(asked + 1), () => {
        const held = new Map<string, number>()
        for (const o of first) held.set(o.runner, (held.get(o.runner) ?? 0) + 1)
        const busiest = [...held].sort((a, b) => b[1] - a[1])[0]![0]
        return Number(busiest.split(":").at(-1))
      })
    yield* Effect.sleep("300 millis")
    const victim = runners[ports.indexOf(port)]!
    victim.child.kill("SIGKILL")
    yield* say(`round 2: killed the runner on 127.0.0.1:${port} (pid ${victim.child.pid}, SIGKILL) mid-turn`)
    const secondOutcomes = yield* Fiber.join(second)
    yield* say("round 2 done")
    const third = yield* round(prompts[2])
    yield* say("round 3 done")
    return [first, secondOutcomes, third] as const
  }).pipe(Effect.provide(Client))

  yield* say("")
  yield* say(`${"session".padEnd(8)}  ${"turn 1".padEnd(24)}  ${"turn 2".padEnd(24)}  ${"turn 3".padEnd(24)}  last answer`)
  for (const [i, id] of sessionIds.entries()) {
    const where = rounds.map((outcomes) => {
      const o = outcomes[i]!
      return `${o.runner}${o.attempt > 1 ? ` (try ${o.attempt})` : ""}`
    })
    yield* say(`${id.slice(0, 8)}  ${where[0]!.padEnd(24)}  ${where[1]!.padEnd(24)}  ${where[2]!.padEnd(24)}  ${rounds[2][i]!.text}`)
  }
  yield* say("")
  yield* say("each turn's result:")
  for (const [i, id] of sessionIds.entries()) {
    for (const [r, outcomes] of rounds.entries()) {
      const o = outcomes[i]!
      yield* say(`${id.slice(0, 8)} turn ${r + 1} on ${o.runner}${o.attempt > 1 ? ` (attempt ${o.attempt})` : ""}: ${o.text}`)
    }
  }
  const perRunner = new Map<string, number>()
  for (const outcome of rounds[0]) perRunner.set(outcome.runner, (perRunner.get(outcome.runner) ?? 0) + 1)
  const retried = rounds[1].filter((o) => o.attempt > 1).length
  yield* say("")
  yield* say(`sessions per runner at first: ${[...perRunner].map(([r, n]) => `${r} ${n}`).join(", ")}`)
  yield* say(`turns: ${rounds.flat().length} answered, each once; ${retried} run again after the kill (attempt 2, reported)`)

  // Fails, naming it, if a runner has not exited 30 s after SIGTERM.
  yield* stopRunners(runners)
  yield* say(`runner processes stopped: ${runners.length} of ${runners.length}`)
  if (!fakeCli) {
    let clis = cliProcesses()
    for (let i = 0; i < 40 && clis.length > 0; i++) {
      yield* Effect.sleep("500 millis")
      clis = cliProcesses()
    }
    yield* say(`claude CLI processes of the runners left: ${clis.length}`)
  }
})

NodeRuntime.runMain(Effect.scoped(main))
