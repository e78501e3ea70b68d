/**
 * `Sessions.list` with one session file it cannot read (a file `sudo claude` left owned by root,
 * a read error): the whole list failed with `StoreFailed`, hiding every other session. The
 * official SDK's `listSessions` leaves such a file out and lists the rest; so does `list` now,
 * with a warning in the log, as for a project directory it cannot read (found by a review).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import { makeTempDir } from "./support/tempDir.ts"

const cwd = "/srv/project"
const READABLE = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a11"
const UNREADABLE = "6c1e0e1a-6d43-4c35-9f0e-1c0b8f3d2a12"

const write = (config: string, sessionId: string, prompt: string) => {
  const dir = Path.join(config, "projects", Sessions.projectKey(cwd))
  Fs.mkdirSync(dir, { recursive: true })
  Fs.writeFileSync(Path.join(dir, `${sessionId}.jsonl`), JSON.stringify({
    type: "user",
    uuid: `${sessionId.slice(0, 8)}-0000-4000-8000-000000000001`,
    parentUuid: null,
    sessionId,
    timestamp: "2026-12-07T10:00:00.000Z",
    cwd,
    message: { role: "user", content: prompt }
  }) + "\n")
}

/** The sessions of a directory store whose file of {@link UNREADABLE} fails to read with `error`. */
const sessionsFailingOn = (error: "PermissionDenied" | "Unknown", description: string) =>
  Effect.gen(function*() {
    const config = Path.join(yield* makeTempDir("ecc-sessions-unreadable-"), ".claude")
    write(config, READABLE, "Readable")
    write(config, UNREADABLE, "Unreadable")
    const fs = yield* FileSystem.FileSystem
    const denying: FileSystem.FileSystem = {
      ...fs,
      stream: (path, options) =>
        path.endsWith(`${UNREADABLE}.jsonl`)
          ? Stream.fail(PlatformError.systemError({
            _tag: error,
            module: "FileSystem",
            method: "stream",
            description,
            pathOrDescriptor: path
          }))
          : fs.stream(path, options)
    }
    return yield* Sessions.Sessions.pipe(
      Effect.provide(Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerDirectory(config)))),
      Effect.provideService(FileSystem.FileSystem, denying)
    )
  })

describe("Sessions.list and a session file it cannot read", () => {
  it.effect("the other sessions are listed; the unreadable one is left out, not a failed list", () =>
    Effect.gen(function*() {
      const sessions = yield* sessionsFailingOn("PermissionDenied", "EACCES: permission denied")
      assert.deepStrictEqual((yield* sessions.list()).map((s) => s.title), ["Readable"])
      assert.deepStrictEqual((yield* sessions.list({ cwd })).map((s) => s.title), ["Readable"])
      // Reading that session itself still fails, with the store's error.
      const error = yield* Effect.flip(sessions.info(UNREADABLE))
      assert.strictEqual(error.reason._tag, "StoreFailed")
    }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)), Effect.scoped))

  // A failure that is not the file's (too many open files, an I/O error) may hit any session: the
  // list would look whole and miss them.
  it.effect("another read failure (EMFILE) fails the list, not a short one", () =>
    Effect.gen(function*() {
      const sessions = yield* sessionsFailingOn("Unknown", "EMFILE: too many open files")
      const error = yield* Effect.flip(sessions.list())
      assert.strictEqual(error.reason._tag, "StoreFailed")
    }).pipe(Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)), Effect.scoped))
})
