/**
 * Resuming from a store bounds each store operation by `loadTimeout`. An operation stuck where it
 * cannot be interrupted (`@effect/sql-pg` on a connection whose server stopped answering: its
 * `BEGIN`, or taking a connection, waits for the server even when interrupted) made the timeout
 * wait for it too: opening the session hung instead of failing with `StoreFailed`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Fs from "node:fs"
import * as Path from "node:path"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { materialize } from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000c3"
const projectKey = "-repo-app"
const key = { projectKey, sessionId: SESSION }
const line = (n: number) => `${JSON.stringify({ type: "user", uuid: `u${n}` })}\n`

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) => {
  const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  return fail?._tag === "Fail" ? fail.error.reason : undefined
}

describe("resuming from a store: loadTimeout", () => {
  it.effect.each(["list", "load", "listSubkeys", "append"] as const)(
    "a %s that cannot be interrupted: the resume fails with StoreFailed at loadTimeout, not later",
    (stuck) =>
      Effect.gen(function*() {
        const dir = yield* makeTempDir("ecc-resume-timeout-")
        const projectsDir = Path.join(dir, "projects")
        const gate = yield* Deferred.make<void>()
        const reached = yield* Deferred.make<void>()
        const stall = Effect.andThen(Deferred.succeed(reached, undefined), Effect.uninterruptible(Deferred.await(gate)))
        const memory = yield* SessionStore.makeMemory
        // The store has the session (list, load, listSubkeys are reached), except when the append
        // is the one stuck: then it has none, and the local transcript is appended to it.
        if (stuck !== "append") yield* memory.append(key, [{ type: "user", uuid: "u1" }])
        else {
          Fs.mkdirSync(Path.join(projectsDir, projectKey), { recursive: true })
          Fs.writeFileSync(Path.join(projectsDir, projectKey, `${SESSION}.jsonl`), line(1) + line(2))
        }
        const store = SessionStore.SessionStore.of({
          ...memory,
          list: (p) => stuck === "list" ? Effect.andThen(stall, memory.list(p)) : memory.list(p),
          load: (k) => stuck === "load" ? Stream.unwrap(Effect.as(stall, memory.load(k))) : memory.load(k),
          listSubkeys: (k) => stuck === "listSubkeys" ? Effect.andThen(stall, memory.listSubkeys(k)) : memory.listSubkeys(k),
          append: (k, entries) => stuck === "append" ? Effect.andThen(stall, memory.append(k, entries)) : memory.append(k, entries)
        })
        const resumed = yield* Effect.forkChild(Effect.exit(materialize(store, projectsDir, key, Duration.seconds(5))), {
          startImmediately: true
        })
        yield* Deferred.await(reached)
        yield* TestClock.adjust("6 seconds")
        const exit = resumed.pollUnsafe()
        // The stuck operation ends (its server answers at last), whatever the outcome.
        yield* Deferred.succeed(gate, undefined)
        assert.isDefined(exit, `the resume still waits on a ${stuck} past loadTimeout`)
        assert.isTrue(Exit.isSuccess(exit!))
        const reason = reasonOf((exit as Exit.Success<Exit.Exit<boolean, ClaudeError.ClaudeError>>).value)
        assert.strictEqual(reason?._tag, "StoreFailed")
        assert.include(reason?.message ?? "", "no answer within 5s")
      })
  )
})
