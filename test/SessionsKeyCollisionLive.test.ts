/**
 * Two working directories whose project keys collide (`/x/a-b` and `/x/a.b` both become
 * `-x-a-b`): the CLI writes the sessions of both into one project directory, and the official
 * SDK's `listSessions({ dir })` (0.3.332) leaves out those whose `cwd` is the other directory
 * (while it exists). `list({ cwd })` did not: it listed the other directory's sessions as its own
 * (found by a review).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import { makeTempDir } from "./support/tempDir.ts"

const DASH = "1b7c4a1e-2f3d-4c5b-8a69-7e8f9a0b1c21"
const DOT = "2c8d5b2f-3a4e-4d6c-9b7a-8f9a0b1c2d32"
const GONE = "3d9e6c3a-4b5f-4e7d-8c8b-9a0b1c2d3e43"
const MOVED = "4e0f7d4b-5c6a-4f8e-9d9c-0b1c2d3e4f54"

/** A one-prompt session of `cwd`, in the project directory `key`, modified at `mtime` (seconds). */
const writeSession = (config: string, key: string, sessionId: string, cwd: string, mtime: number, extra: Array<object> = []) => {
  const dir = Path.join(config, "projects", key)
  Fs.mkdirSync(dir, { recursive: true })
  const file = Path.join(dir, `${sessionId}.jsonl`)
  const line = {
    type: "user",
    uuid: crypto.randomUUID(),
    parentUuid: null,
    sessionId,
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd,
    message: { role: "user", content: `Hello from ${cwd}` }
  }
  Fs.writeFileSync(file, [line, ...extra].map((l) => JSON.stringify(l) + "\n").join(""))
  Fs.utimesSync(file, mtime, mtime)
}

const ids = (infos: ReadonlyArray<Sessions.SessionInfo>) => infos.map((s) => s.sessionId)

describe("Sessions.list and project keys that collide", () => {
  it.effect("list({ cwd }) leaves out the sessions of another existing directory with the same key, as the SDK", () =>
    Effect.gen(function*() {
      const root = Fs.realpathSync(yield* makeTempDir("sessions-collide-"))
      const config = Path.join(root, "config")
      const dash = Path.join(root, "a-b")
      const dot = Path.join(root, "a.b")
      Fs.mkdirSync(dash)
      Fs.mkdirSync(dot)
      const key = Sessions.projectKey(dash)
      assert.strictEqual(Sessions.projectKey(dot), key)
      writeSession(config, key, DASH, dash, 1_000)
      writeSession(config, key, DOT, dot, 2_000)
      // A directory that no longer exists cannot be told apart: its session stays (as the SDK).
      writeSession(config, key, GONE, Path.join(root, "a_b"), 3_000)
      // A session moved here (`relocated`) is the directory it was moved to.
      writeSession(config, key, MOVED, dot, 4_000, [{ type: "relocated", sessionId: MOVED, relocatedCwd: dash }])
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(config)),
        Layer.provideMerge(NodeServices.layer)
      )))
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: dash })), [MOVED, GONE, DASH])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: dot })), [GONE, DOT])
      assert.deepStrictEqual(ids(yield* sessions.list({ cwd: dot, limit: 1, offset: 1 })), [DOT])
      // Without cwd, every session of every project.
      assert.deepStrictEqual(ids(yield* sessions.list()), [MOVED, GONE, DOT, DASH])
      // A lookup by id is not filtered (as the SDK's getSessionInfo({ dir })).
      assert.strictEqual((yield* sessions.info(DOT, { cwd: dash })).sessionId, DOT)
    }).pipe(Effect.scoped))
})
