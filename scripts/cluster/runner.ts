/**
 * One runner of the cluster demo, tests and benchmark: `ClaudeCluster.layerRunner` on
 * 127.0.0.1:<port>, message and runner storage and the SessionStore in PostgreSQL, sessions on the
 * store-backed fake CLI (`storeFake.ts`). Prints JSON lines on stdout: `{"ready":port}` once it
 * serves, `{"turn":[sessionId, uuid]}` as each turn starts on it.
 *
 *   node scripts/cluster/runner.ts <port> <postgres url> [maxLiveSessions] [turnDelayMs]
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ClaudeCluster from "../../src/ClaudeCluster.ts"
import * as SessionStorePg from "../../src/SessionStorePg.ts"
import * as SessionStoreSql from "../../src/SessionStoreSql.ts"
import { shardingConfig } from "./config.ts"
import * as StoreFake from "./storeFake.ts"

const [portArg, url, maxArg, delayArg] = process.argv.slice(2)
const port = Number(portArg)
if (!Number.isInteger(port) || url === undefined) {
  process.stderr.write("usage: node scripts/cluster/runner.ts <port> <postgres url> [maxLiveSessions] [turnDelayMs]\n")
  process.exit(2)
}
const say = (value: unknown) => process.stdout.write(JSON.stringify(value) + "\n")

const Sql = SessionStorePg.layerClient({ url: Redacted.make(url), maxConnections: 8 })
const Store = SessionStoreSql.layer()
const Fake = StoreFake.layer({
  delayMs: delayArg === undefined ? 0 : Number(delayArg),
  onTurn: (sessionId, uuid) => say({ turn: [sessionId, uuid] })
})

const Runner = ClaudeCluster.layerRunner({
  host: "127.0.0.1",
  port,
  shardingConfig,
  sessions: {
    projectKey: () => StoreFake.projectKey,
    maxLiveSessions: maxArg === undefined ? 16 : Number(maxArg),
    idleTimeToLive: "30 seconds"
  }
}).pipe(
  Layer.provide(Fake),
  Layer.provide(Store),
  Layer.provide(Sql)
)

NodeRuntime.runMain(
  Layer.launch(Layer.merge(Runner, Layer.effectDiscard(Effect.sync(() => say({ ready: port })))))
)
