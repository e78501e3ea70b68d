/**
 * A first turn its caller abandoned, asked again on the same runner: its second attempt runs (the
 * session started anew under its id, or resumed), where the CLI was launched with `--session-id`
 * on the transcript the first attempt left and refused it ("Session ID ... is already in use"),
 * recorded as the turn's outcome for good (found by a reviewer; failing before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import * as ClaudeCluster from "../src/ClaudeCluster.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { shardingConfig } from "../scripts/cluster/config.ts"
import { live, processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/tempDir.ts"

describe("a first turn its caller abandoned, run again on the same runner", () => {
  it.live("embedded, real CLI: its second attempt runs (the CLI is not launched with --session-id on the transcript the first attempt left)", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-abandoned-first-")
      const cwd = yield* makeTempDir("ecc-abandoned-first-cwd-")
      let hangNext = true
      const script = (_request: FakeModel.RecordedRequest) => {
        if (hangNext) {
          hangNext = false
          return FakeModel.hang
        }
        return FakeModel.text("answered")
      }
      const machine = yield* live(script, { cwd })
      const Runner = ClaudeCluster.layerEmbedded({ shardingConfig, sessions: { session: () => machine.options } }).pipe(
        Layer.provide(processLayer),
        Layer.provideMerge(SessionStoreSql.layer()),
        Layer.provideMerge(SessionStoreSql.layerSqliteClient({ filename: Path.join(dir, "cluster.db") }))
      )
      yield* Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(crypto.randomUUID())
        const turn = crypto.randomUUID()
        const first = yield* Effect.forkChild(session.Run({ uuid: turn, prompt: "first" }), { startImmediately: true })
        yield* machine.model.awaitRequests(1)
        yield* Fiber.interrupt(first)
        yield* Effect.sleep("3 seconds")
        const events = yield* Effect.exit(Stream.runCollect(session.Turn({ uuid: turn, prompt: "first" })))
        assert.isTrue(Exit.isSuccess(events), `the turn's second attempt failed: ${Exit.isFailure(events) ? String(events.cause) : ""}`)
        const outcome = Exit.isSuccess(events) ? ClaudeSessionEntity.outcomeOfEvent(events.value.at(-1)!) : undefined
        assert.strictEqual(outcome?.text, "answered")
        assert.strictEqual(outcome?.attempt, 2)
        // A Run with the uuid (the call its caller abandoned) answers the recorded outcome.
        const again = yield* session.Run({ uuid: turn, prompt: "first" })
        assert.strictEqual(again.text, "answered")
        assert.strictEqual(again.attempt, 2)
      }).pipe(Effect.provide(Runner))
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
