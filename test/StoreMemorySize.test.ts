/**
 * `StoredSession.size` is the main transcript's size in bytes. The memory store counted UTF-16
 * code units, so a transcript with any non-ASCII text (é, 日本, an emoji) listed smaller than the
 * same transcript in the directory store, whose size is the file's.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as SessionStore from "../src/SessionStore.ts"
import { makeTempDir } from "./support/tempDir.ts"

const key = { projectKey: "-repo-app", sessionId: "5e551011-0000-4000-8000-0000000000e6" }
const entries = [
  { type: "user", uuid: "u1", message: { role: "user", content: "café 日本 🙂" } },
  { type: "custom-title", customTitle: "naïve" }
]

describe("the memory store's size", () => {
  it.effect("is the transcript's size in bytes, as the directory store's", () =>
    Effect.gen(function*() {
      const memory = yield* SessionStore.makeMemory
      const dir = yield* makeTempDir("ecc-memory-size-")
      const directory = yield* SessionStore.makeDirectory(Path.join(dir, "config")).pipe(
        Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
      )
      for (const store of [memory, directory]) yield* store.append(key, entries)
      const [fromMemory] = yield* memory.list(key.projectKey)
      const [fromDirectory] = yield* directory.list(key.projectKey)
      const bytes = entries.reduce((n, entry) => n + Buffer.byteLength(JSON.stringify(entry)) + 1, 0)
      assert.strictEqual(fromDirectory?.size, bytes)
      assert.strictEqual(fromMemory?.size, bytes)
    }).pipe(Effect.scoped))
})
