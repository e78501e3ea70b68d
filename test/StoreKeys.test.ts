/**
 * Where `resume` looks for a stored session: the project key of a cwd whose name is decomposed
 * (NFD) is the CLI's on Linux (no normalization there; the CLI and its SDK normalize on macOS
 * only), and the SQL store lists only sessions with a main transcript, so one with a subagent's
 * entries alone is left to the CLI instead of failing the resume. Each was wrong before (found by
 * an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ProjectKey from "../src/internal/projectKey.ts"
import * as SessionStoreWiring from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"

describe("the store wiring", () => {
  // The real CLI 2.1.332 on Linux, run (offline, fake model) in `<base>/u\u0308ber` (an NFD name),
  // made the project directory `...-u-ber`: it does not NFC-normalize its cwd on Linux (the SDK's
  // `oD`/`Qe` normalize on darwin only). `locate` normalizes and names `...--ber`.
  it.skipIf(process.platform !== "linux")(
    "locate's project key for a cwd with an NFD name is the one the CLI uses on Linux",
    () => {
      const base = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-store-nfd-"))
      try {
        const cwd = Path.join(base, "u\u0308ber")
        Fs.mkdirSync(cwd)
        const real = Fs.realpathSync.native(cwd)
        const cliKey = ProjectKey.fromCwd(real) // what the CLI computed in the run above
        assert.isTrue(cliKey.endsWith("-u-ber"))
        const where = SessionStoreWiring.locate({ HOME: base }, cwd)
        assert.strictEqual(where.projectKey, cliKey)
      } finally {
        Fs.rmSync(base, { recursive: true, force: true })
      }
    }
  )

  it.effect("SQL store: a session with only a subagent transcript is not listed (as memory and directory)", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey: "p", sessionId: "s", subpath: "subagents/agent-a" }, [{ type: "user", uuid: "a1" }])
      const listed = yield* store.list("p")
      const loadable = yield* Effect.exit(Stream.runCollect(store.load({ projectKey: "p", sessionId: "s" })))
      // What list reports must load.
      assert.isFalse(
        listed.length === 1 && loadable._tag === "Failure",
        `listed ${JSON.stringify(listed)} but its load fails: ${JSON.stringify(loadable)}`
      )
    }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename: ":memory:" }))))

  it.effect("materialize: a session the store lists only by a subagent transcript is left to the CLI, not a failed resume", () =>
    Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const id = "22222222-2222-4222-8222-222222222222"
      yield* store.append({ projectKey: "p", sessionId: id, subpath: "subagents/agent-a" }, [{ type: "user", uuid: "a1" }])
      const base = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-store-mat-"))
      const result = yield* Effect.exit(
        SessionStoreWiring.materialize(store, Path.join(base, "projects"), { projectKey: "p", sessionId: id })
      )
      Fs.rmSync(base, { recursive: true, force: true })
      assert.strictEqual(result._tag, "Success", JSON.stringify(result))
    }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename: ":memory:" }))))
})
