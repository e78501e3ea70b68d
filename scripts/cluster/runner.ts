/**
 * One runner of the cluster demo, tests and benchmark: `ClaudeCluster.layerRunner` on
 * 127.0.0.1:<port>, message and runner storage and the SessionStore in PostgreSQL, sessions on the
 * store-backed fake CLI (`storeFake.ts`). Prints JSON lines on stdout: `{"ready":port}` once it
 * serves, `{"turn":[sessionId, uuid]}` as each turn starts on it.
 *
 * With `real <model url> <cwd>` it runs the real `claude` CLI against that fake model instead, in a
 * HOME of its own (its own CLI config directory: a "machine"), the transcripts mirrored into the
 * store (`sessionStore: true`) and written back from it when a session resumes here.
 *
 *   node scripts/cluster/runner.ts <port> <postgres url> [maxLiveSessions] [turnDelayMs] [real <model url> <cwd> [home]]
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Claude from "../../src/Claude.ts"
import * as ClaudeCluster from "../../src/ClaudeCluster.ts"
import * as SessionStorePg from "../../src/SessionStorePg.ts"
import * as SessionStoreSql from "../../src/SessionStoreSql.ts"
import * as FakeModel from "../../src/testing/FakeModel.ts"
import { shardingConfig } from "./config.ts"
import * as StoreFake from "./storeFake.ts"

const [portArg, url, maxArg, delayArg, mode, modelUrl, cwd, homeArg] = process.argv.slice(2)
const port = Number(portArg)
if (!Number.isInteger(port) || url === undefined) {
  process.stderr.write("usage: node scripts/cluster/runner.ts <port> <postgres url> [maxLiveSessions] [turnDelayMs]\n")
  process.exit(2)
}
const say = (value: unknown) => process.stdout.write(JSON.stringify(value) + "\n")

const Sql = SessionStorePg.layerClient({ url: Redacted.make(url), maxConnections: 8 })
const Store = SessionStoreSql.layer()
const real = mode === "real" && modelUrl !== undefined && cwd !== undefined
const home = real ? homeArg ?? Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-runner-home-")) : undefined
const Cli = real
  ? Claude.layerProcess.pipe(Layer.provide(NodeServices.layer))
  : StoreFake.layer({
    delayMs: delayArg === undefined ? 0 : Number(delayArg),
    onTurn: (sessionId, uuid) => say({ turn: [sessionId, uuid] })
  })
const realSession = (): Claude.SessionOptions => ({
  executable: Path.resolve(import.meta.dirname, "../../node_modules/.bin/claude"),
  cwd: cwd!,
  permissionMode: "bypassPermissions",
  env: { ...FakeModel.cliEnvironment(modelUrl!, home!), IS_SANDBOX: "1" },
  sessionStore: true,
  closeGrace: "3 seconds"
})

const Runner = ClaudeCluster.layerRunner({
  host: "127.0.0.1",
  port,
  shardingConfig,
  sessions: {
    projectKey: () => StoreFake.projectKey,
    ...(real ? { session: realSession } : {}),
    maxLiveSessions: maxArg === undefined ? 16 : Number(maxArg),
    idleTimeToLive: "30 seconds"
  }
}).pipe(
  Layer.provide(Cli),
  Layer.provide(Store),
  Layer.provide(Sql)
)

NodeRuntime.runMain(
  Layer.launch(Layer.merge(Runner, Layer.effectDiscard(Effect.sync(() => say({ ready: port }))))).pipe(
    Effect.ensuring(Effect.sync(() => home !== undefined && homeArg === undefined && Fs.rmSync(home, { recursive: true, force: true })))
  )
)
