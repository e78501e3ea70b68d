/**
 * The SQLite store's database holds every stored session's transcript (prompts, tool output,
 * whatever secrets they carry). The directory store writes its files 0600, as resuming writes
 * the CLI's; the SQLite file (and its WAL, which SQLite creates with the database's mode) was
 * created with the process's umask: readable by every user of the machine. It is 0600 now,
 * when the store creates it; an existing file keeps its mode.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import { makeTempDir } from "./support/tempDir.ts"

const key = { projectKey: "-repo-app", sessionId: "5e551011-0000-4000-8000-0000000000e7" }

describe("the SQLite store's database file", () => {
  it.effect("is created readable by its owner only, its WAL too", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-sqlite-mode-")
      const filename = Path.join(dir, "sessions.db")
      // (With the usual umask, 022, the file was 0644.)
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [{ type: "user", uuid: "u1", message: { role: "user", content: "secret" } }])
        for (const file of [filename, `${filename}-wal`]) {
          assert.strictEqual((Fs.statSync(file).mode & 0o777).toString(8), "600", file)
        }
      }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })), Effect.scoped)
    }).pipe(Effect.scoped))

  it.effect("an existing database keeps its mode", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-sqlite-mode-")
      const filename = Path.join(dir, "sessions.db")
      Fs.writeFileSync(filename, "", { mode: 0o640 })
      Fs.chmodSync(filename, 0o640)
      yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        yield* store.append(key, [{ type: "user", uuid: "u1" }])
      }).pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename })), Effect.scoped)
      assert.strictEqual((Fs.statSync(filename).mode & 0o777).toString(8), "640")
    }).pipe(Effect.scoped))
})
