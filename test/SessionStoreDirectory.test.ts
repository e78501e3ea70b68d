/**
 * The directory store (the CLI's layout) under failures the contract suite cannot produce: a write
 * that fails part way, on the real file system of a temp directory.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"
import * as Path from "node:path"
import * as SessionStore from "../src/SessionStore.ts"
import { makeTempDir } from "./support/tempDir.ts"

const node = Layer.merge(NodeFileSystem.layer, NodePath.layer)

describe("SessionStore.makeDirectory", () => {
  it.effect("a failed write stores nothing it claims: the retry writes the entries (F1)", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-directory-store-")
      const fs = yield* FileSystem.FileSystem
      let failNext = true
      const flaky: FileSystem.FileSystem = {
        ...fs,
        writeFile: (path, data, options) => {
          if (!failNext) return fs.writeFile(path, data, options)
          failNext = false
          return Effect.fail(PlatformError.systemError({
            _tag: "Unknown",
            module: "FileSystem",
            method: "writeFile",
            description: "ENOSPC: no space left on device"
          }))
        }
      }
      const store = yield* SessionStore.makeDirectory(Path.join(dir, "config")).pipe(
        Effect.provideService(FileSystem.FileSystem, flaky)
      )
      const key = { projectKey: "p", sessionId: "s" }
      const batch = [{ type: "user", uuid: "u1" }, { type: "assistant", uuid: "u2" }]
      const first = yield* Effect.flip(store.append(key, batch))
      assert.strictEqual(first.reason._tag, "StoreFailed")
      yield* store.append(key, batch)
      const loaded = yield* Stream.runCollect(store.load(key))
      assert.deepStrictEqual(loaded.map((e) => e.uuid), ["u1", "u2"])
    }).pipe(Effect.provide(node), Effect.scoped))
})
