/**
 * Where the session entity runs: the deployment shapes of `ClaudeSessionEntity`, each a layer of
 * Effect Cluster (no pool or scheduler of this library's own).
 *
 * - **Embedded** (`layerEmbedded`): one process, `SingleRunner`, message storage in SQL (SQLite
 *   with `SessionStoreSql.layerSqliteClient` of `effect-claude-code/sql`, nothing to run). The
 *   default for one machine.
 * - **Runners** (`layerRunner`): many processes on many machines, `SocketRunner` over TCP, message
 *   and runner storage in PostgreSQL (`SessionStorePg.layerClient` of `effect-claude-code/pg`). Shards of sessions are spread over the runners;
 *   when one dies its shards move, and its sessions start on the others, resumed from the
 *   `SessionStore`.
 * - **Client** (`layerClient`): a process that addresses sessions by id
 *   (`ClaudeSessionEntity.client`) without running any.
 *
 * Each layer takes the `SqlClient` from its context (so one database can hold the store too), and
 * the runners take a `Transport` (the CLI: `ClaudeNode.layer`) and a `SessionStore`.
 *
 * @since 0.2.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import type * as Runners from "effect/cluster/Runners"
import type * as Sharding from "effect/cluster/Sharding"
import type * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SingleRunner from "effect/cluster/SingleRunner"
import type * as Config from "effect/Config"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as SocketServer from "effect/socket/SocketServer"
import type * as SqlClient from "effect/sql/SqlClient"
import * as ClaudeSessionEntity from "./ClaudeSessionEntity.ts"
import type * as SessionStore from "./SessionStore.ts"
import type { Transport } from "./Transport.ts"

/**
 * Options shared by the runner layers.
 *
 * @since 0.2.0
 * @category options
 */
export interface RunnerOptions {
  /** The session entity's options (idle time, `maxLiveSessions`, the CLI's options, ...). */
  readonly sessions?: ClaudeSessionEntity.Options | undefined
  /** Overrides of Effect Cluster's `ShardingConfig` (poll intervals, lock expiration, ...). */
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/**
 * One process runs every session: `SingleRunner` with its mailboxes and runner state in the
 * `SqlClient` of the context (`SessionStoreSql.layerSqliteClient({ filename })` for a file on
 * this machine, which can hold the `SessionStore` too). Messages survive
 * a restart of the process: a turn accepted before is answered after.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerEmbedded = (
  options: RunnerOptions = {}
): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | ClaudeSessionEntity.LiveSessions,
  Config.ConfigError,
  SqlClient.SqlClient | Transport | SessionStore.SessionStore
> =>
  ClaudeSessionEntity.layer(options.sessions).pipe(
    Layer.provideMerge(SingleRunner.layer({ shardingConfig: options.shardingConfig, runnerStorage: "sql" })),
    Layer.provide(NodeCrypto.layerDigest)
  )

/**
 * A runner of a cluster of many: serves the session entity's shards over TCP at `host:port`
 * (`SocketRunner`), with message and runner storage in the `SqlClient` of the context (PostgreSQL
 * with `SessionStorePg.layerClient` of `effect-claude-code/pg`, which can hold the `SessionStore`
 * too; every runner and client uses the same database).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRunner = (
  options: RunnerOptions & {
    /** The address other runners reach this one at. */
    readonly host: string
    /** The TCP port runners talk to this one on. */
    readonly port: number
    /** Where to listen, when not `host:port` (e.g. `0.0.0.0`). */
    readonly listenHost?: string | undefined
  }
): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage | ClaudeSessionEntity.LiveSessions,
  Config.ConfigError | SocketServer.SocketServerError,
  SqlClient.SqlClient | Transport | SessionStore.SessionStore
> =>
  ClaudeSessionEntity.layer(options.sessions).pipe(
    Layer.provideMerge(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...options.shardingConfig,
        runnerAddress: Option.some(RunnerAddress.make(options.host, options.port)),
        ...(options.listenHost === undefined
          ? {}
          : { runnerListenAddress: Option.some(RunnerAddress.make(options.listenHost, options.port)) })
      }
    }))
  )

/**
 * A client of a cluster of runners: addresses sessions by id (`ClaudeSessionEntity.client`) and
 * runs none. Reads the runners and writes messages through the `SqlClient` of the context.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerClient = (
  options: Pick<RunnerOptions, "shardingConfig"> = {}
): Layer.Layer<Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage, Config.ConfigError, SqlClient.SqlClient> =>
  NodeClusterSocket.layer({
    clientOnly: true,
    storage: "sql",
    shardingConfig: { ...options.shardingConfig, runnerAddress: Option.none() }
  })
