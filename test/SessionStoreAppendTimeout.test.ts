/**
 * An `append` that never answers (a PostgreSQL connection lost without a reset, a store stuck on
 * a lock) must not stop the mirror: each attempt is bounded (60 s, the official SDK's
 * `sendTimeoutMs`), then it counts as failed (a `mirror_error` event, the batch kept for the
 * next flush), so `flushStore` answers and the next turns' entries still reach the store.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as Events from "../src/Events.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { appendOnlyStore } from "./support/stores.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000a7"
const configDir = Path.join(Os.tmpdir(), "ecc-append-timeout-config")
const mainFile = Path.join(configDir, "projects", "-repo-app", `${SESSION}.jsonl`)

const entry = (n: number) => ({ type: "user", uuid: `u${n}`, message: { role: "user", content: `line ${n}` } })
const frame = (...ns: Array<number>) => ({ type: "transcript_mirror", filePath: mainFile, entries: ns.map(entry) })

describe("sessionStore: an append that never answers", () => {
  // `interruptible: false`: stuck where interrupting it waits for the server (as `@effect/sql-pg`
  // is on a connection whose server stopped answering): the mirror must not wait for it either.
  it.effect.each([{ interruptible: true }, { interruptible: false }])("each attempt times out after 60 s (interruptible: $interruptible): flushStore fails with StoreFailed, a mirror_error is published, and the kept batch lands with the next turn's", ({ interruptible }) =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      // The first append hangs forever (the turn's flush, which flushStore queued behind it joins);
      // every later one lands.
      const landed = yield* Queue.unbounded<ReadonlyArray<string | undefined>>()
      let calls = 0
      const store = appendOnlyStore("stuck", (_key, entries) =>
        Effect.suspend(() => {
          calls++
          return calls <= 1 ? (interruptible ? Effect.never : Effect.uninterruptible(Deferred.await(gate))) : Queue.offer(landed, entries.map((e) => e.uuid))
        }))
      const cli = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, index, cli) =>
          Effect.gen(function*() {
            yield* cli.emit(index === 0 ? frame(1, 2) : frame(3))
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `re: ${text}` })) yield* cli.emit(line)
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ env: { CLAUDE_CONFIG_DIR: configDir }, sessionStore: true })
        const failures = yield* Effect.forkScoped(Stream.runCollect(Stream.take(
          Stream.filter(session.events, (e): e is Events.MirrorFailed => e.type === "mirror_error"),
          1
        )), { startImmediately: true })
        yield* session.run("one")
        const flushed = yield* Effect.forkScoped(session.flushStore, { startImmediately: true })
        yield* TestClock.adjust("121 seconds")
        const exit = flushed.pollUnsafe()
        if (exit === undefined) {
          // Let the session's close (its last flush, bounded by the TestClock) end, then fail.
          yield* Effect.forkDetach(Effect.repeat(Effect.andThen(Effect.yieldNow, TestClock.adjust("1 second")), { times: 60 }))
          assert.fail("flushStore still waits on an append that never answers")
        }
        assert.isTrue(Exit.isFailure(exit!))
        const reason = (exit as Exit.Failure<void, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
        assert.strictEqual((reason as { error: ClaudeError.ClaudeError }).error.reason._tag, "StoreFailed")
        const [failed] = yield* Fiber.join(failures)
        assert.strictEqual(failed!.entries, 2)
        assert.deepStrictEqual(failed!.key, { projectKey: "-repo-app", sessionId: SESSION })
        // The mirror goes on: the kept entries land in front of the next turn's.
        yield* session.run("two")
        yield* session.flushStore
        assert.deepStrictEqual(yield* Queue.takeAll(landed), [["u1", "u2", "u3"]])
      }).pipe(Effect.provide(Layer.merge(cli, Layer.succeed(SessionStore.SessionStore)(store))), Effect.scoped)
      // The stalled appends end (their server answers at last).
      yield* Deferred.succeed(gate, undefined)
    }))
})
