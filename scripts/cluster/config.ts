/**
 * The cluster settings of the demo, tests and benchmark: short polls and a short lock
 * expiration, so a runner killed with SIGKILL is noticed and its shards move within seconds
 * (Effect Cluster's defaults are made for production: a minute of health checks).
 */
import * as Duration from "effect/Duration"

export const shardingConfig = {
  shardsPerGroup: 30,
  entityMessagePollInterval: Duration.millis(500),
  entityReplyPollInterval: Duration.millis(100),
  refreshAssignmentsInterval: Duration.millis(500),
  runnerHealthCheckInterval: Duration.seconds(1),
  shardLockRefreshInterval: Duration.seconds(1),
  shardLockExpiration: Duration.seconds(4),
  entityTerminationTimeout: Duration.seconds(5)
}
