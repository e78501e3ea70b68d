/**
 * Resuming replaces the local transcript with the store's copy only when that copy holds every
 * line of it. Lines without a uuid were compared as a set: a line the local file holds twice (a
 * session renamed A, then B, then A again; a permission mode switched back) counted as held when
 * the store had it once, so a store copy that missed the last such line (the last flush failed)
 * replaced the local file: the line was gone from both, and the session resumed under the wrong
 * title. They are counted now: each occurrence the store lacks is appended to it, the local file kept.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import { materialize } from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { readJsonLines, writeJsonLines } from "./support/stores.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000e4"
const projectKey = "-repo-app"
const key = { projectKey, sessionId: SESSION }
const title = (customTitle: string) => ({ type: "custom-title", customTitle, sessionId: SESSION })
const user = { type: "user", uuid: "u1", message: { role: "user", content: "hi" } }

describe("resuming from a store: a line without a uuid the local transcript holds more often than the store", () => {
  it.effect("is appended to the store, and the local file is kept", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-repeated-")
      const projectsDir = Path.join(dir, "projects")
      const store = yield* SessionStore.makeMemory
      // The store missed the last rename (back to "A").
      yield* store.append(key, [user, title("A"), title("B")])
      const local = [user, title("A"), title("B"), title("A")]
      const file = Path.join(projectsDir, projectKey, `${SESSION}.jsonl`)
      writeJsonLines(file, local)
      yield* materialize(store, projectsDir, key)
      assert.deepStrictEqual(readJsonLines(file), local, "the local transcript lost a line")
      assert.deepStrictEqual(yield* Stream.runCollect(store.load(key)), local)
      // Resumed again: nothing more to append, nothing lost.
      yield* materialize(store, projectsDir, key)
      assert.deepStrictEqual(yield* Stream.runCollect(store.load(key)), local)
    }).pipe(Effect.scoped))
})
