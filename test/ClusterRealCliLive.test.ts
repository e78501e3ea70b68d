/**
 * The session entity on the real CLI and the fake model, on the embedded layer (SingleRunner on
 * SQLite, the SessionStore in the same database, the CLI's transcript mirrored into it): a turn
 * retried with its uuid is answered once; a session closed on one "machine" (one HOME, one CLI
 * config directory) is resumed on another from the store, and the model's next request carries the
 * earlier turn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { isAlive, live, processLayer } from "./support/live.ts"
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
})
