/**
 * The store contract: a store keeps entries deep-equal, not byte-equal (PostgreSQL's JSONB, for
 * one, orders an object's keys its own way). Resuming compared the store's lines without a uuid
 * (titles, tags, mode markers) with the local transcript's as JSON text, so on such a store every
 * one of them read as missing from the store: each resume appended them to the store again (a
 * title stored twice, three times, ...) and kept the local file in place of the store's copy.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import { materialize } from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { reordering, writeJsonLines } from "./support/stores.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000e1"
const projectKey = "-repo-app"
const key = { projectKey, sessionId: SESSION }

const lines: ReadonlyArray<SessionStore.Entry> = [
  { type: "user", uuid: "u1", message: { role: "user", content: "hi" } },
  { type: "custom-title", customTitle: "Plan", sessionId: SESSION },
  { type: "tag", tag: "work", sessionId: SESSION },
  { type: "assistant", uuid: "u2", message: { role: "assistant", content: "hello" } }
]

describe("resuming from a store that keeps entries deep-equal, not byte-equal", () => {
  it.effect("lines without a uuid the store holds are not appended again", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-key-order-")
      const projectsDir = Path.join(dir, "projects")
      const memory = yield* SessionStore.makeMemory
      const store = reordering(memory)
      yield* memory.append(key, lines)
      // The local transcript the CLI wrote: the same lines, in the CLI's key order.
      const file = Path.join(projectsDir, projectKey, `${SESSION}.jsonl`)
      writeJsonLines(file, lines)
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.isTrue(yield* materialize(store, projectsDir, key))
      const stored = yield* Stream.runCollect(memory.load(key))
      assert.deepStrictEqual(stored, lines, "the store's copy changed on resume")
    }).pipe(Effect.scoped))
})
