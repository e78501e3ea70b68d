/**
 * The `SessionStore` contract as one suite, run against every layer (memory, directory, SQLite,
 * PostgreSQL): the same tests, so the layers cannot drift apart. Starts nothing itself; a layer
 * that needs a server gets it from its caller.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SessionStore from "../../src/SessionStore.ts"

/** What the suite needs: a fresh, empty store for each test. */
export interface ContractOptions {
  readonly name: string
  readonly fresh: () => Layer.Layer<SessionStore.SessionStore, unknown>
  /** Entries in the "long session" test: past the layer's page size, to cross pages. */
  readonly longSession?: number
}

const key = (sessionId: string, subpath?: string): SessionStore.SessionKey =>
  subpath === undefined ? { projectKey: "-repo-app", sessionId } : { projectKey: "-repo-app", sessionId, subpath }

const entry = (n: number, extra: Record<string, unknown> = {}): SessionStore.Entry => ({
  type: n % 2 === 0 ? "user" : "assistant",
  uuid: `uuid-${n}`,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  message: { role: n % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `line ${n} ✓` }] },
  ...extra
})

const loadAll = (store: SessionStore.SessionStore["Service"], k: SessionStore.SessionKey) =>
  Stream.runCollect(store.load(k))

/** Runs `f` with the store `layer` builds. */
export const withStore = <A, E, E2>(
  layer: Layer.Layer<SessionStore.SessionStore, E2>,
  f: (store: SessionStore.SessionStore["Service"]) => Effect.Effect<A, E>
) => Effect.flatMap(Effect.service(SessionStore.SessionStore), f).pipe(Effect.provide(layer))

export const sessionStoreContract = (options: ContractOptions) =>
  describe(`SessionStore contract: ${options.name}`, () => {
    const withFresh = <A, E>(f: (store: SessionStore.SessionStore["Service"]) => Effect.Effect<A, E>) =>
      withStore(options.fresh(), f)

    it.effect("load gives back what append wrote, deep-equal and in append order", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          const first = [entry(1), entry(2, { nested: { a: [1, null, true], b: "é" } })]
          const second = [entry(3), { type: "custom-title", customTitle: "Refactor" }]
          yield* store.append(key("s1"), first)
          yield* store.append(key("s1"), second)
          assert.deepStrictEqual(yield* loadAll(store, key("s1")), [...first, ...second])
        })
      ))

    it.effect("a retried batch never duplicates a line with a uuid; lines without one are appended as they come", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          const batch = [entry(1), { type: "tag", tag: "x" }, entry(2)]
          yield* store.append(key("s1"), batch)
          yield* store.append(key("s1"), batch)
          const loaded = yield* loadAll(store, key("s1"))
          assert.deepStrictEqual(loaded.map((e) => e.uuid ?? e.type), ["uuid-1", "tag", "uuid-2", "tag"])
        })
      ))

    it.effect("a line whose uuid is not a string (null, a number: the CLI's lines are untrusted JSON) has none: appended as it comes", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          const batch = [{ type: "a", uuid: null }, { type: "b", uuid: null }, { type: "c", uuid: 7 }] as unknown as Array<
            SessionStore.Entry
          >
          yield* store.append(key("s1"), batch)
          yield* store.append(key("s1"), batch.slice(2))
          assert.deepStrictEqual((yield* loadAll(store, key("s1"))).map((e) => e.type), ["a", "b", "c", "c"])
        })
      ))

    it.effect("a key never written fails with SessionNotFound, not an empty stream", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          yield* store.append(key("s1"), [entry(1)])
          for (const missing of [key("nope"), key("s1", "subagents/agent-none")]) {
            const exit = yield* Effect.exit(loadAll(store, missing))
            assert.isTrue(Exit.isFailure(exit))
            if (Exit.isFailure(exit)) {
              const error = exit.cause.reasons.find((r) => r._tag === "Fail")
              assert.strictEqual(error?._tag === "Fail" ? error.error.reason._tag : undefined, "SessionNotFound")
            }
          }
        })
      ))

    it.effect("a long session streams whole and in order", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          const count = options.longSession ?? 1234
          const all = Array.from({ length: count }, (_, n) => entry(n))
          for (let i = 0; i < count; i += 100) yield* store.append(key("long"), all.slice(i, i + 100))
          const loaded = yield* loadAll(store, key("long"))
          assert.strictEqual(loaded.length, count)
          assert.deepStrictEqual(loaded.map((e) => e.uuid), all.map((e) => e.uuid))
        })
      ))

    // On the live clock: a store may take its mtime from the Clock, the file system or the database,
    // and a real database's pool must not see the clock jump. The bounds allow a coarse file-system clock.
    it.live("list reports each session once with the time of its last append", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          const before = yield* Clock.currentTimeMillis
          yield* store.append(key("s1"), [entry(1)])
          yield* store.append({ projectKey: "-other", sessionId: "s9" }, [entry(1)])
          yield* store.append(key("s2"), [entry(1)])
          yield* store.append(key("s2", "subagents/agent-a"), [entry(2)])
          yield* Effect.sleep("30 millis")
          const middle = yield* Clock.currentTimeMillis
          yield* store.append(key("s1"), [entry(2)])
          const after = yield* Clock.currentTimeMillis
          const mine = [...yield* store.list("-repo-app")].sort((a, b) => a.sessionId.localeCompare(b.sessionId))
          assert.deepStrictEqual(mine.map((s) => `${s.projectKey}/${s.sessionId}`), ["-repo-app/s1", "-repo-app/s2"])
          const [s1, s2] = mine
          assert.isTrue(Number.isInteger(s1?.mtime) && Number.isInteger(s2?.mtime))
          assert.isTrue((s2?.mtime ?? 0) >= before - 1000 && (s2?.mtime ?? 0) <= middle, `s2 ${s2?.mtime}`)
          assert.isTrue((s1?.mtime ?? 0) >= middle - 20 && (s1?.mtime ?? 0) <= after, `s1 ${s1?.mtime}`)
          assert.isAbove(s1?.mtime ?? 0, s2?.mtime ?? 0)
          const all = yield* store.list(undefined)
          assert.deepStrictEqual(all.map((s) => `${s.projectKey}/${s.sessionId}`).sort(), [
            "-other/s9",
            "-repo-app/s1",
            "-repo-app/s2"
          ])
          assert.deepStrictEqual(yield* store.list("-nobody"), [])
        })
      ))

    it.effect("subagent transcripts are their own keys, listed by listSubkeys", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          yield* store.append(key("s1"), [entry(1)])
          yield* store.append(key("s1", "subagents/agent-a"), [entry(2)])
          yield* store.append(key("s1", "subagents/agent-b"), [entry(3), entry(4)])
          yield* store.append(key("s2", "subagents/agent-c"), [entry(5)])
          const subkeys = [...yield* store.listSubkeys({ projectKey: "-repo-app", sessionId: "s1" })].sort()
          assert.deepStrictEqual(subkeys, ["subagents/agent-a", "subagents/agent-b"])
          assert.deepStrictEqual(
            (yield* loadAll(store, key("s1", "subagents/agent-b"))).map((e) => e.uuid),
            ["uuid-3", "uuid-4"]
          )
          assert.deepStrictEqual((yield* loadAll(store, key("s1"))).map((e) => e.uuid), ["uuid-1"])
          assert.deepStrictEqual(yield* store.listSubkeys({ projectKey: "-repo-app", sessionId: "none" }), [])
        })
      ))

    it.effect("delete removes a session with its subagents; a subpath alone; a missing one is fine", () =>
      withFresh((store) =>
        Effect.gen(function*() {
          yield* store.append(key("s1"), [entry(1)])
          yield* store.append(key("s1", "subagents/agent-a"), [entry(2)])
          yield* store.append(key("s1", "subagents/agent-b"), [entry(3)])
          yield* store.append(key("s2"), [entry(4)])
          yield* store.delete(key("s1", "subagents/agent-a"))
          assert.deepStrictEqual(yield* store.listSubkeys({ projectKey: "-repo-app", sessionId: "s1" }), [
            "subagents/agent-b"
          ])
          yield* store.delete(key("s1"))
          assert.isTrue(Exit.isFailure(yield* Effect.exit(loadAll(store, key("s1")))))
          assert.isTrue(Exit.isFailure(yield* Effect.exit(loadAll(store, key("s1", "subagents/agent-b")))))
          assert.deepStrictEqual((yield* store.list("-repo-app")).map((s) => s.sessionId), ["s2"])
          yield* store.delete(key("never"))
          assert.deepStrictEqual((yield* loadAll(store, key("s2"))).map((e) => e.uuid), ["uuid-4"])
        })
      ))
  })
