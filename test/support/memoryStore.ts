/**
 * An in-memory `SessionStore` for tests of code built on the store contract (the cluster's turn
 * ledger): entries with a `uuid` are idempotent, `load` fails with `SessionNotFound` for a key never
 * written, as the contract says.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../../src/ClaudeError.ts"
import * as SessionStore from "../../src/SessionStore.ts"

const keyOf = (key: SessionStore.SessionKey) => JSON.stringify([key.projectKey, key.sessionId, key.subpath ?? null])

export const makeMemoryStore = () => {
  const data = new Map<string, Array<SessionStore.Entry>>()
  const store = SessionStore.SessionStore.of({
    name: "memory",
    append: (key, entries) =>
      Effect.sync(() => {
        const k = keyOf(key)
        const list = data.get(k) ?? []
        for (const entry of entries) {
          if (entry.uuid !== undefined && list.some((e) => e.uuid === entry.uuid)) continue
          list.push(entry)
        }
        data.set(k, list)
      }),
    load: (key) =>
      Stream.suspend(() => {
        const list = data.get(keyOf(key))
        return list === undefined
          ? Stream.fail(ClaudeError.make(new ClaudeError.SessionNotFound({ sessionId: key.sessionId, searched: "memory" })))
          : Stream.fromIterable([...list])
      }),
    list: () => Effect.succeed([]),
    listSubkeys: () => Effect.succeed([]),
    delete: (key) => Effect.sync(() => void data.delete(keyOf(key)))
  })
  return { data, store, layer: Layer.succeed(SessionStore.SessionStore, store) }
}
