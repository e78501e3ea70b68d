/**
 * A finished `Turn` asked again with its uuid streams its outcome (the entity answers it from the
 * turn ledger), not the nothing the cluster kept of a streamed reply (its final exit, no chunks)
 * when `Turn` was keyed by the uuid (found by a reviewer; failing before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { makeTempDir } from "./support/tempDir.ts"
import { launchedSession } from "./support/resumedSessions.ts"

describe("Turn asked again with its uuid", () => {
  it.live("embedded: a finished Turn asked again streams its outcome", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-probe-turn-again-")
      let userLines = 0
      const transport = FakeCli.layer((cli) => {
        const sessionId = launchedSession(cli.spec)!
        return FakeCli.conversation({
          sessionId,
          onUser: (text, _i, cli, message) =>
            Effect.andThen(Effect.sync(() => userLines++), Effect.forEach(
              FakeCli.textTurn({ sessionId, text: `echo ${text}`, userMessageUuid: String(message.uuid) }),
              (line) => cli.emit(line),
              { discard: true }
            ))
        })(cli)
      })
      const Runner = ClaudeCluster.layerEmbedded({ shardingConfig }).pipe(
        Layer.provide(transport),
        Layer.provideMerge(SessionStoreSql.layer()),
        Layer.provideMerge(SessionStoreSql.layerSqliteClient({ filename: Path.join(dir, "cluster.db") }))
      )
      yield* Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(crypto.randomUUID())
        const turn = crypto.randomUUID()
        const first = yield* Stream.runCollect(session.Turn({ uuid: turn, prompt: "x" }))
        assert.strictEqual(ClaudeSessionEntity.outcomeOfEvent(first.at(-1)!)?.text, "echo x")
        const again = yield* Stream.runCollect(session.Turn({ uuid: turn, prompt: "x" }))
        assert.strictEqual(userLines, 1)
        // "a turn that already finished streams its outcome only"
        assert.deepStrictEqual(again.map((e) => e.type), ["turn_outcome"])
        assert.strictEqual(ClaudeSessionEntity.outcomeOfEvent(again.at(-1)!)?.text, "echo x")
      }).pipe(Effect.provide(Runner))
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
