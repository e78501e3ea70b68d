/**
 * Sessions in a store, against the real CLI and the fake model: a session run with the SQLite
 * store (and with PostgreSQL) in one fresh HOME is resumed from the store in a second fresh HOME,
 * another CLAUDE_CONFIG_DIR with no local copy, and the model sees the first session's history; a
 * store whose appends always fail produces `mirror_error` events and the turns still succeed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as Events from "../src/Events.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as SessionStorePg from "../src/SessionStorePg.ts"
import * as SessionStoreSql from "../src/SessionStoreSql.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { pgConnection, startPostgres } from "./support/postgres.ts"
import { appendOnlyStore } from "./support/stores.ts"
import { makeTempDir } from "./support/tempDir.ts"

const requestText = (request: FakeModel.RecordedRequest): string => JSON.stringify(request.messages)

/** Runs a session with the store in one fresh HOME, then resumes it from the store in another. */
const moveBetweenMachines = (storeLayer: Layer.Layer<SessionStore.SessionStore, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    const cwd = yield* makeTempDir("ecc-store-cwd-")
    const store = yield* Effect.service(SessionStore.SessionStore)

    // Machine one.
    const first = yield* Effect.scoped(Effect.gen(function*() {
      const one = yield* live([FakeModel.text("Noted: the code word is PAPAYA-42.")], { cwd })
      const session = yield* Claude.open({ ...one.options, sessionStore: true })
      const result = yield* session.run("Remember the code word PAPAYA-42.")
      // The CLI's own transcript, which the store mirrors.
      const projects = Path.join(one.home, ".claude", "projects")
      assert.isTrue(
        Fs.readdirSync(projects).some((key) => Fs.existsSync(Path.join(projects, key, `${result.session_id}.jsonl`)))
      )
      return { sessionId: result.session_id }
    }))
    // Closed: what the CLI wrote is in the store, under the CLI's own project key.
    const stored = yield* store.list(undefined)
    const mine = stored.find((s) => s.sessionId === first.sessionId)
    assert.isDefined(mine, JSON.stringify(stored))
    const entries = yield* Stream.runCollect(store.load({ projectKey: mine!.projectKey, sessionId: first.sessionId }))
    assert.isTrue(entries.some((e) => e.type === "user" && JSON.stringify(e).includes("PAPAYA-42")))
    assert.isTrue(entries.some((e) => e.type === "assistant"))

    // Machine two: a fresh HOME (another config directory) where the session never ran.
    const second = yield* Effect.scoped(Effect.gen(function*() {
      const two = yield* live([FakeModel.text("The code word was PAPAYA-42.")], { cwd })
      const materialized = Path.join(two.home, ".claude", "projects", mine!.projectKey, `${first.sessionId}.jsonl`)
      assert.isFalse(Fs.existsSync(materialized))
      const session = yield* Claude.open({ ...two.options, resume: first.sessionId, sessionStore: true })
      assert.isTrue(Fs.existsSync(materialized), "written from the store before the CLI started")
      const result = yield* session.run("What was the code word?")
      const requests = yield* two.model.messageRequests
      return { result, requests }
    }))
    assert.strictEqual(second.result.result, "The code word was PAPAYA-42.")
    const last = second.requests.at(-1)!
    assert.include(requestText(last), "Remember the code word PAPAYA-42.")
    assert.include(requestText(last), "Noted: the code word is PAPAYA-42.")
    assert.include(requestText(last), "What was the code word?")
    // The resumed session went on mirroring: the store has the second turn too.
    const after = yield* Stream.runCollect(store.load({ projectKey: mine!.projectKey, sessionId: second.result.session_id }))
    assert.isTrue(after.some((e) => JSON.stringify(e).includes("What was the code word?")))
  }).pipe(Effect.provide(storeLayer))

let attempts = 0
const failing = Layer.succeed(SessionStore.SessionStore)(appendOnlyStore("broken", () =>
  Effect.suspend(() => {
    attempts++
    return Effect.fail(ClaudeError.make(
      new ClaudeError.StoreFailed({ store: "broken", operation: "append", description: "disk on fire" })
    ))
  })))

describe("sessions in a store (real CLI, fake model)", () => {
  it.live("SQLite: a session run in one HOME resumes from the store in another; the model sees its history", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-sqlite-")
      yield* moveBetweenMachines(SessionStoreSql.layerSqlite({ filename: Path.join(dir, "sessions.db") }))
    }).pipe(Effect.scoped, Effect.provide(processLayer)), { timeout: 120_000 })

  it.live("PostgreSQL: the same, on a throwaway server", () =>
    Effect.gen(function*() {
      const server = yield* startPostgres
      yield* moveBetweenMachines(SessionStorePg.layer({ connection: pgConnection(server) }))
    }).pipe(Effect.scoped, Effect.provide(processLayer)), { timeout: 120_000 })

  it.live("SQLite: a session run before sessionStore was set, resumed with it, is whole in the store; another HOME resumes it from there", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-store-late-")
      const cwd = yield* makeTempDir("ecc-store-cwd-")
      const one = yield* live([FakeModel.text("Noted: the code word is MANGO-7."), FakeModel.text("Noted: and the colour is teal.")], {
        cwd
      })
      const program = Effect.gen(function*() {
        const store = yield* Effect.service(SessionStore.SessionStore)
        const projects = Path.join(one.home, ".claude", "projects")
        const lines = (file: string) =>
          Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as SessionStore.Entry)
        // Machine one, no store: the first turn is only in the CLI's transcript.
        const sessionId = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open(one.options)
          return (yield* session.run("Remember the code word MANGO-7.")).session_id
        }))
        assert.deepStrictEqual(yield* store.list(undefined), [])
        const projectKey = Fs.readdirSync(projects).find((key) => Fs.existsSync(Path.join(projects, key, `${sessionId}.jsonl`)))!
        const before = lines(Path.join(projects, projectKey, `${sessionId}.jsonl`))
        // The same machine turns mirroring on and resumes it: the store gets the first turn too.
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open({ ...one.options, resume: sessionId, sessionStore: true })
          yield* session.run("Remember the colour teal.")
          yield* session.flushStore
        }))
        assert.deepStrictEqual((yield* store.list(undefined)).map((s) => [s.projectKey, s.sessionId]), [[projectKey, sessionId]])
        const stored = (yield* Stream.runCollect(store.load({ projectKey, sessionId }))).map((e) => JSON.stringify(e))
        // The first run's lines, in their order, then the resumed run's as the CLI mirrors them (it
        // leaves some out): the local file's lines in its order, none stored twice.
        assert.deepStrictEqual(stored.slice(0, before.length), before.map((e) => JSON.stringify(e)))
        assert.isAbove(stored.length, before.length)
        const local = lines(Path.join(projects, projectKey, `${sessionId}.jsonl`)).map((e) => JSON.stringify(e))
        let at = 0
        for (const line of stored) {
          at = local.indexOf(line, at) + 1
          assert.isAbove(at, 0, `stored in the local file's order, once: ${line}`)
        }
        // Machine two resumes it from the store alone: the model sees both turns.
        return yield* Effect.scoped(Effect.gen(function*() {
          const two = yield* live([FakeModel.text("MANGO-7, teal.")], { cwd })
          const session = yield* Claude.open({ ...two.options, resume: sessionId, sessionStore: true })
          yield* session.run("What were the code word and the colour?")
          return yield* two.model.messageRequests
        }))
      })
      const requests = yield* program.pipe(Effect.provide(SessionStoreSql.layerSqlite({ filename: Path.join(dir, "sessions.db") })))
      const last = requestText(requests.at(-1)!)
      assert.include(last, "Remember the code word MANGO-7.")
      assert.include(last, "Noted: the code word is MANGO-7.")
      assert.include(last, "Remember the colour teal.")
    }).pipe(Effect.scoped, Effect.provide(processLayer)), { timeout: 120_000 })

  it.live("a store whose appends always fail: mirror_error events, and the turns succeed", () =>
    Effect.gen(function*() {
      const one = yield* live([FakeModel.text("first"), FakeModel.text("second")])
      const session = yield* Claude.open({ ...one.options, sessionStore: true })
      const errors = yield* session.events.pipe(
        Stream.filter((event): event is Events.MirrorFailed => event.type === "mirror_error"),
        Stream.take(1),
        Stream.runCollect,
        Effect.forkScoped
      )
      assert.strictEqual((yield* session.run("one")).result, "first")
      assert.strictEqual((yield* session.run("two")).result, "second")
      const [error] = yield* Fiber.join(errors)
      assert.strictEqual(error!.error.reason._tag, "StoreFailed")
      assert.strictEqual(error!.attempts, 3)
      assert.isAbove(error!.entries, 0)
      assert.strictEqual(error!.key?.sessionId, yield* session.sessionId)
      assert.isAtLeast(attempts, 3)
    }).pipe(Effect.scoped, Effect.provide([processLayer, failing])), { timeout: 120_000 })
})
