/**
 * The directory store (`SessionStore.makeDirectory`) on the real file system: an append after a
 * line cut short (a CLI killed mid-write, or this store's own failed write) starts on a line of
 * its own, so neither it nor the store's retry is lost; concurrent appends of one uuid keep one
 * line; listing every project skips what is not a project (a stray file, an odd name). Each was
 * wrong before (found by an audit).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as PlatformError from "effect/PlatformError"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as SessionStore from "../src/SessionStore.ts"
import { makeTempDir } from "./support/tempDir.ts"

const node = Layer.merge(NodeFileSystem.layer, NodePath.layer)
const S1 = "11111111-1111-4111-8111-111111111111"

describe("the directory store", () => {
  it.effect("an entry appended after a truncated last line (a CLI killed mid-write) is not lost", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-dir-")
      const config = Path.join(dir, "config")
      const file = Path.join(config, "projects", "p", `${S1}.jsonl`)
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      // A file whose last line was cut short (documented: read as an UnreadableLine).
      Fs.writeFileSync(file, JSON.stringify({ type: "user", uuid: "u1" }) + "\n" + "{\"type\":\"assistant\",\"uuid\":\"cu")
      const store = yield* SessionStore.makeDirectory(config)
      yield* store.append({ projectKey: "p", sessionId: S1 }, [{ type: "custom-title", customTitle: "T", uuid: "u9" }])
      const loaded = yield* Stream.runCollect(store.load({ projectKey: "p", sessionId: S1 }))
      // The appended entry must come back as an entry.
      assert.isTrue(
        loaded.some((e) => e.uuid === "u9"),
        `appended entry lost; loaded: ${JSON.stringify(loaded.map((e) => e.type === SessionStore.unreadableLineType ? e.excerpt : e.uuid))}`
      )
    }).pipe(Effect.provide(node), Effect.scoped))

  it.effect("concurrent appends of the same uuid to one session keep one line", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-dir-")
      const store = yield* SessionStore.makeDirectory(Path.join(dir, "config"))
      const key = { projectKey: "p", sessionId: S1 }
      yield* store.append(key, [{ type: "user", uuid: "u0" }])
      yield* Effect.forEach([1, 2, 3, 4], () => store.append(key, [{ type: "user", uuid: "same" }]), {
        concurrency: "unbounded",
        discard: true
      })
      const loaded = yield* Stream.runCollect(store.load(key))
      assert.strictEqual(loaded.filter((e) => e.uuid === "same").length, 1, JSON.stringify(loaded.map((e) => e.uuid)))
    }).pipe(Effect.provide(node), Effect.scoped))

  it.effect("list of every project does not break on a stray file in projects/", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-dir-")
      const config = Path.join(dir, "config")
      const store = yield* SessionStore.makeDirectory(config)
      yield* store.append({ projectKey: "p", sessionId: S1 }, [{ type: "user", uuid: "u1" }])
      Fs.writeFileSync(Path.join(config, "projects", ".DS_Store"), "x")
      const listed = yield* Effect.result(store.list(undefined))
      assert.strictEqual(listed._tag, "Success", JSON.stringify(listed))
    }).pipe(Effect.provide(node), Effect.scoped))

  it.effect("list of every project does not break on a directory name that is not a plain key", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-dir-")
      const config = Path.join(dir, "config")
      const store = yield* SessionStore.makeDirectory(config)
      yield* store.append({ projectKey: "p", sessionId: S1 }, [{ type: "user", uuid: "u1" }])
      Fs.mkdirSync(Path.join(config, "projects", "a\\b"))
      const listed = yield* Effect.result(store.list(undefined))
      assert.strictEqual(listed._tag, "Success", JSON.stringify(listed))
    }).pipe(Effect.provide(node), Effect.scoped))

  it.effect("a write that fails part way (part of the batch written, cut mid-line): the retry stores every entry", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-dir-")
      const fs = yield* FileSystem.FileSystem
      let failNext = true
      const flaky: FileSystem.FileSystem = {
        ...fs,
        writeFile: (path, data, options) => {
          if (!failNext) return fs.writeFile(path, data, options)
          failNext = false
          // ENOSPC after some of the bytes reached the file (the case the store's comment names).
          return Effect.andThen(
            fs.writeFile(path, data.subarray(0, Math.floor(data.length / 2) + 3), options),
            Effect.fail(PlatformError.systemError({
              _tag: "Unknown",
              module: "FileSystem",
              method: "writeFile",
              description: "ENOSPC: no space left on device"
            }))
          )
        }
      }
      const store = yield* SessionStore.makeDirectory(Path.join(dir, "config")).pipe(
        Effect.provideService(FileSystem.FileSystem, flaky)
      )
      const key = { projectKey: "p", sessionId: S1 }
      const batch = [{ type: "user", uuid: "u1", text: "a" }, { type: "assistant", uuid: "u2", text: "b" }]
      yield* Effect.flip(store.append(key, batch))
      yield* store.append(key, batch)
      const loaded = yield* Stream.runCollect(store.load(key))
      const uuids = loaded.filter((e) => !SessionStore.isUnreadableLine(e)).map((e) => e.uuid)
      assert.deepStrictEqual(uuids, ["u1", "u2"], JSON.stringify(loaded))
    }).pipe(Effect.provide(node), Effect.scoped))
})
