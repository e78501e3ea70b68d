/**
 * What the session stores refuse, and how: an entry JSON cannot hold (a BigInt) is
 * `InvalidInput` with nothing of its batch stored, in every store, not a defect; the SQL store
 * refuses a key the contract rules out (an empty subpath, which it took for the main
 * transcript), and keeps apart uuids that a text column would not (lone surrogates, which a driver writes as U+FFFD). Each was wrong
 * before (found by an audit); the same on PostgreSQL is in `SqlStoreRacesLive.test.ts`.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import { reasonOf } from "./support/outcomes.ts"
import { withStore } from "./support/sessionStoreContract.ts"
import { makeTempDir } from "./support/tempDir.ts"

const key = { projectKey: "-repo-app", sessionId: "s1" }

const sqlite = (options: SessionStoreSql.Options = {}) => SessionStoreSql.layerSqlite({ filename: ":memory:", ...options })

const stores: ReadonlyArray<
  readonly [string, Effect.Effect<Layer.Layer<SessionStore.SessionStore, ClaudeError.ClaudeError>, never, Scope.Scope>]
> = [
  ["memory", Effect.succeed(SessionStore.layerMemory)],
  ["directory", Effect.map(makeTempDir("ecc-store-inputs-"), (dir) =>
    SessionStore.layerDirectory(dir).pipe(Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))))],
  ["sqlite", Effect.succeed(sqlite())]
]

describe("the session stores' inputs", () => {
  for (const [name, makeLayer] of stores) {
    it.effect(`${name}: an entry JSON cannot hold (a BigInt) fails append with InvalidInput, and nothing of its batch is stored`, () =>
      Effect.gen(function*() {
        const layer = yield* makeLayer
        yield* withStore(layer, (store) =>
          Effect.gen(function*() {
            yield* store.append(key, [{ type: "user", uuid: "u0" }])
            const exit = yield* Effect.exit(store.append(key, [{ type: "user", uuid: "u1" }, { type: "user", uuid: "u2", n: 1n }]))
            const reason = reasonOf(exit)
            assert.strictEqual(reason?._tag, "InvalidInput", `a typed failure, not a defect: ${String(exit)}`)
            assert.include(reason?.message ?? "", "entry 1 of the batch cannot be written as JSON")
            const loaded = yield* Stream.runCollect(store.load(key))
            assert.deepStrictEqual(loaded.map((e) => e.uuid), ["u0"])
          }))
      }))
  }

  for (const [name, makeLayer] of stores) {
    it.effect(`${name}: an empty subpath is refused as InvalidInput, and never reaches the main transcript`, () =>
      Effect.gen(function*() {
        const layer = yield* makeLayer
        yield* withStore(layer, (store) =>
          Effect.gen(function*() {
            yield* store.append(key, [{ type: "user", uuid: "u1" }])
            const appended = yield* Effect.exit(store.append({ ...key, subpath: "" }, [{ type: "user", uuid: "x1" }]))
            const deleted = yield* Effect.exit(store.delete({ ...key, subpath: "" }))
            const loadedEmpty = yield* Effect.exit(Stream.runCollect(store.load({ ...key, subpath: "" })))
            for (const reason of [reasonOf(appended), reasonOf(deleted), reasonOf(loadedEmpty)]) {
              assert.strictEqual(reason?._tag, "InvalidInput")
            }
            const loaded = yield* Stream.runCollect(store.load(key))
            assert.deepStrictEqual(loaded.map((e) => e.uuid), ["u1"])
            assert.deepStrictEqual((yield* store.list(key.projectKey)).map((s) => s.sessionId), ["s1"])
          }))
      }))
  }

  it.effect("sqlite: a long table prefix is taken (only PostgreSQL cuts names)", () =>
    withStore(sqlite({ tablePrefix: "p".repeat(70) }), (store) =>
      Effect.gen(function*() {
        const batch = [{ type: "user", uuid: "u1" }, { type: "assistant", uuid: "a1" }]
        yield* store.append(key, batch)
        yield* store.append(key, batch)
        assert.deepStrictEqual((yield* Stream.runCollect(store.load(key))).map((e) => e.uuid), ["u1", "a1"])
      })))

  it.effect("sqlite: uuids a text column would merge (lone surrogates) or could mistake (one like another's JSON text) are kept apart", () =>
    withStore(sqlite(), (store) =>
      Effect.gen(function*() {
        const uuids = ["\ud800", "\udc00", "\"\\ud800\"", "u1"]
        for (const uuid of uuids) yield* store.append(key, [{ type: "user", uuid }])
        // Each again: a retried batch is still stored once.
        for (const uuid of uuids) yield* store.append(key, [{ type: "user", uuid }])
        const loaded = yield* Stream.runCollect(store.load(key))
        assert.deepStrictEqual(loaded.map((e) => e.uuid), uuids)
      })))
})
