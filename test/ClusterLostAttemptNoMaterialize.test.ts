/**
 * With `sessionStore: { materialize: false }` the CLI resumes the transcript file of the runner's
 * own config directory, not the store's copy: a turn run again after its runner was lost mid-turn
 * (a crash and restart on the same machine) is resumed before the lost attempt that file holds,
 * so the model never sees the lost prompt, as with the store's copy (found by a review; the entity
 * planned on the store's copy, which lacked the attempt, and the CLI resumed the whole file, the
 * lost prompt and its partial answer in the conversation, before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { mirroredSession, mirroringCli, S1, uuid } from "./support/clusterEntity.ts"
import { writeJsonLines } from "./support/stores.ts"

describe("a lost attempt in the runner's own transcript, with materialize: false", () => {
  it.effect("the turn run again resumes before it (--resume-session-at the last finished turn's end)", () =>
    Effect.gen(function*() {
      const { sessionOptions, filePath } = yield* mirroredSession("ecc-entity-lost-nomaterialize-", { materialize: false })
      const memory = Effect.runSync(SessionStore.makeMemory)
      const { launches, transport } = mirroringCli(filePath, (_text, index) => `answer-${index}`)
      // A runner, and the same runner after its restart (a fresh entity reading the ledger).
      const runner = () =>
        ClaudeSessionEntity.layer({ session: () => sessionOptions }).pipe(
          Layer.provideMerge(Layer.fresh(TestRunner.layer)),
          Layer.provide(transport),
          Layer.provide(Layer.succeed(SessionStore.SessionStore, memory))
        )
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "one" })
      }).pipe(Effect.provide(runner()))
      yield* Effect.gen(function*() {
        // What a runner that crashed mid-turn leaves: the turn accepted (no outcome), and in its
        // own transcript file (the store never got them) the turn's prompt and a partial answer.
        yield* memory.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
          { type: "turn_started", uuid: `${uuid(2)}:started:1`, turn: uuid(2), cli: uuid(2) }
        ])
        writeJsonLines(filePath, [
          { type: "user", uuid: uuid(1) },
          { type: "assistant", uuid: "answer-0", parentUuid: uuid(1) },
          { type: "user", uuid: uuid(2), parentUuid: "answer-0" },
          { type: "assistant", uuid: "partial", parentUuid: uuid(2) }
        ])
        yield* TestClock.adjust(1)
        const again = yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(2), prompt: "two" })
        assert.strictEqual(again.attempt, 2)
        assert.strictEqual(launches.length, 2)
        const args = launches[1]!
        const at = args.indexOf("--resume-session-at")
        assert.isTrue(at !== -1, `resumed the whole file, the lost attempt in it: ${args.join(" ")}`)
        assert.strictEqual(args[at + 1], "answer-0")
      }).pipe(Effect.provide(runner()))
    }).pipe(Effect.scoped))
})
