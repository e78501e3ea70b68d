/**
 * The `sessionStore` option on the in-memory FakeCli: `transcript_mirror` frames are decoded, kept
 * out of the turn streams and events, and appended to the store in batches (at the end of a turn,
 * at the thresholds, or eagerly), with bounded retry on the TestClock and a `mirror_error` event
 * when the store keeps failing. The real CLI does the same in SessionStoreLive.test.ts.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as Events from "../src/Events.ts"
import { keyOfPath } from "../src/internal/mirror.ts"
import * as Protocol from "../src/Protocol.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { appendOnlyStore } from "./support/stores.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-000000000001"
const configDir = Path.join(Os.tmpdir(), "ecc-mirror-config")
const projects = Path.join(configDir, "projects")
const mainFile = Path.join(projects, "-repo-app", `${SESSION}.jsonl`)
const agentFile = Path.join(projects, "-repo-app", SESSION, "subagents", "agent-a1.jsonl")
const options = { env: { CLAUDE_CONFIG_DIR: configDir } }

const entry = (n: number) => ({ type: "user", uuid: `u${n}`, message: { role: "user", content: `line ${n}` } })
const frame = (filePath: string, ...ns: Array<number>) => ({ type: "transcript_mirror", filePath, entries: ns.map(entry) })

interface Call {
  readonly key: SessionStore.SessionKey
  readonly uuids: ReadonlyArray<string | undefined>
}

/** A store that records each append attempt on a queue, failing the first `failures` of them. */
const recordingStore = (failures: number) =>
  Effect.gen(function*() {
    const calls = yield* Queue.unbounded<Call & { readonly ok: boolean }>()
    let attempts = 0
    const store = appendOnlyStore("recording", (key, entries) =>
      Effect.suspend(() => {
        attempts++
        const ok = attempts > failures
        Queue.offerUnsafe(calls, { key, uuids: entries.map((e) => e.uuid), ok })
        return ok ? Effect.void : Effect.fail(ClaudeError.make(
          new ClaudeError.StoreFailed({ store: "recording", operation: "append", description: `attempt ${attempts}` })
        ))
      }))
    return { calls, layer: Layer.succeed(SessionStore.SessionStore)(store) }
  })

/** A CLI that writes `frames` before each turn's answer. */
const mirroringCli = (frames: (index: number) => ReadonlyArray<unknown>) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli) =>
      Effect.gen(function*() {
        for (const f of frames(index)) yield* cli.emit(f)
        for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `re: ${text}` })) yield* cli.emit(line)
      })
  }))

describe("sessionStore: mirroring on the FakeCli", () => {
  it.effect("frames are appended at the end of the turn, one append per transcript file, and never reach the streams", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      const program = Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        const all = yield* Effect.forkScoped(
          Stream.runCollect(Stream.takeUntil(session.events, (event) => event.type === "result")),
          { startImmediately: true }
        )
        const turn = yield* Stream.runCollect(session.turn("go"))
        assert.isFalse(turn.some((event) => (event.type as string) === "transcript_mirror"))
        const first = yield* Queue.take(calls)
        const second = yield* Queue.take(calls)
        assert.deepStrictEqual(first, { key: { projectKey: "-repo-app", sessionId: SESSION }, uuids: ["u1", "u2", "u4"], ok: true })
        assert.deepStrictEqual(second, {
          key: { projectKey: "-repo-app", sessionId: SESSION, subpath: "subagents/agent-a1" },
          uuids: ["u3"],
          ok: true
        })
        const events = yield* Fiber.join(all)
        assert.isFalse(events.some((event) => (event.type as string) === "transcript_mirror"))
      })
      const cli = mirroringCli(() => [
        frame(mainFile, 1, 2),
        frame(agentFile, 3),
        frame(Path.join(Os.tmpdir(), "elsewhere", "x.jsonl"), 9),
        frame(mainFile, 4)
      ])
      yield* program.pipe(Effect.provide(Layer.merge(cli, layer)))
      // The frame outside the config directory was dropped, not appended.
      assert.strictEqual(Queue.sizeUnsafe(calls), 0)
    }))

  it.effect("past maxPendingEntries the pending frames are appended while the turn still runs", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      const gate = yield* Deferred.make<void>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(frame(mainFile, 1))
          yield* cli.emit(frame(mainFile, 2, 3))
          // The turn has not ended: only the threshold can flush these.
          yield* Deferred.await(gate)
          yield* cli.emit(frame(mainFile, 4))
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "done" })) yield* cli.emit(line)
          yield* Effect.exit(cli.next)
          return 0
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: { maxPendingEntries: 2 } })
        const turn = yield* Effect.forkScoped(session.run("go"))
        assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u1", "u2", "u3"])
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(turn)
        assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u4"])
      }).pipe(Effect.provide(Layer.merge(cli, layer)), Effect.scoped)
    }))

  it.effect("eager: one append per frame, never merged", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: { flush: "eager" } })
        yield* session.run("go")
        const taken = [yield* Queue.take(calls), yield* Queue.take(calls), yield* Queue.take(calls)]
        assert.deepStrictEqual(taken.map((c) => c.uuids), [["u1"], ["u2", "u3"], ["u4"]])
      }).pipe(
        Effect.provide(Layer.merge(mirroringCli(() => [frame(mainFile, 1), frame(mainFile, 2, 3), frame(mainFile, 4)]), layer)),
        Effect.scoped
      )
    }))

  it.effect("a failed append is retried after 200 ms and 800 ms (TestClock); the third attempt lands", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(2)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        const failures = yield* Effect.forkScoped(Stream.runCollect(Stream.take(
          Stream.filter(session.events, (e) => e.type === "mirror_error"),
          1
        )))
        yield* session.run("go")
        assert.isFalse((yield* Queue.take(calls)).ok)
        yield* TestClock.adjust("199 millis")
        assert.strictEqual(Queue.sizeUnsafe(calls), 0)
        yield* TestClock.adjust("1 millis")
        assert.isFalse((yield* Queue.take(calls)).ok)
        yield* TestClock.adjust("799 millis")
        assert.strictEqual(Queue.sizeUnsafe(calls), 0)
        yield* TestClock.adjust("1 millis")
        const landed = yield* Queue.take(calls)
        assert.isTrue(landed.ok)
        assert.deepStrictEqual(landed.uuids, ["u1"])
        yield* TestClock.adjust("10 seconds")
        assert.isUndefined(failures.pollUnsafe())
      }).pipe(Effect.provide(Layer.merge(mirroringCli(() => [frame(mainFile, 1)]), layer)), Effect.scoped)
    }))

  it.effect("a store that keeps failing: after 3 attempts a mirror_error event says so, the batch is kept and tried again in front of the next, the turns go on", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(Number.POSITIVE_INFINITY)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        const failures = yield* Effect.forkScoped(Stream.runCollect(Stream.take(
          Stream.filter(session.events, (e): e is Events.MirrorFailed => e.type === "mirror_error"),
          1
        )))
        assert.strictEqual((yield* session.run("one")).result, "re: one")
        yield* Queue.take(calls)
        yield* TestClock.adjust("200 millis")
        yield* Queue.take(calls)
        yield* TestClock.adjust("800 millis")
        yield* Queue.take(calls)
        const [failed] = yield* Fiber.join(failures)
        assert.strictEqual(failed!.attempts, 3)
        assert.strictEqual(failed!.entries, 2)
        assert.deepStrictEqual(failed!.key, { projectKey: "-repo-app", sessionId: SESSION })
        assert.strictEqual(failed!.error.reason._tag, "StoreFailed")
        // The session is fine: the next turn runs, and the kept entries go in front of its batch.
        assert.strictEqual((yield* session.run("two")).result, "re: two")
        assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u1", "u2", "u3"])
        // Its retries run out before the session closes (closing waits for the last flush).
        yield* TestClock.adjust("1 second")
      }).pipe(Effect.provide(Layer.merge(mirroringCli((i) => i === 0 ? [frame(mainFile, 1, 2)] : [frame(mainFile, 3)]), layer)), Effect.scoped)
    }))

  it.effect("flushStore waits until the turn's entries are appended; it fails while entries are kept unsaved, whoever calls it, and succeeds once the store took them, in order", () =>
    Effect.gen(function*() {
      // Appends fail 3 times (the turn's flush, which both flushStores queued behind it join), then land.
      const { calls, layer } = yield* recordingStore(3)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        yield* session.run("one")
        const flushed = yield* Effect.forkScoped(Effect.exit(session.flushStore), { startImmediately: true })
        const second = yield* Effect.forkScoped(Effect.exit(session.flushStore), { startImmediately: true })
        for (let attempt = 1; attempt <= 3; attempt++) {
          const call = yield* Queue.take(calls)
          assert.isFalse(call.ok)
          if (attempt < 3) assert.isUndefined(flushed.pollUnsafe(), "flushStore returned while the batch was still being tried")
          // A flush tries 3 times: after 200 ms, then 800 ms.
          yield* TestClock.adjust(attempt % 3 === 1 ? "200 millis" : attempt % 3 === 2 ? "800 millis" : 0)
        }
        // Both callers learn that the entries are not in the store.
        for (const exit of [yield* Fiber.join(flushed), yield* Fiber.join(second)]) {
          assert.isTrue(Exit.isFailure(exit))
          const error = (exit as Exit.Failure<void, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
          assert.strictEqual((error as { error: ClaudeError.ClaudeError }).error.reason._tag, "StoreFailed")
        }
        // The store is back: the kept entries land in front of the next turn's, and flushStore succeeds.
        yield* session.run("two")
        yield* session.flushStore
        const landed = yield* Queue.takeAll(calls)
        assert.deepStrictEqual(landed.filter((call) => call.ok).map((call) => call.uuids), [["u1", "u2", "u3"]])
      }).pipe(Effect.provide(Layer.merge(mirroringCli((i) => i === 0 ? [frame(mainFile, 1, 2)] : [frame(mainFile, 3)]), layer)), Effect.scoped)
    }))

  it.effect("flushStore without sessionStore succeeds at once", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open(options)
      yield* session.run("one")
      yield* session.flushStore
    }).pipe(Effect.provide(mirroringCli(() => [])), Effect.scoped))

  it.effect("a store that dies once (a defect): the batch is tried again and lands, the mirror goes on with the next", () =>
    Effect.gen(function*() {
      const seen = yield* Queue.unbounded<ReadonlyArray<string | undefined>>()
      let calls = 0
      const dying = Layer.succeed(SessionStore.SessionStore)(appendOnlyStore("dying", (_key, entries) =>
        Effect.suspend(() => {
          calls++
          if (calls === 1) return Effect.die(new Error("driver bug"))
          Queue.offerUnsafe(seen, entries.map((e) => e.uuid))
          return Effect.void
        })))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        assert.strictEqual((yield* session.run("one")).result, "re: one")
        yield* TestClock.adjust("200 millis")
        assert.deepStrictEqual(yield* Queue.take(seen), ["u1"])
        assert.strictEqual((yield* session.run("two")).result, "re: two")
        assert.deepStrictEqual(yield* Queue.take(seen), ["u2"])
      }).pipe(
        Effect.provide(Layer.merge(mirroringCli((i) => [frame(mainFile, i + 1)]), dying)),
        Effect.scoped
      )
    }))

  // The store's defect is named in the report whatever it is: an error's message, or a value
  // with no message by its tag and fields.
  for (
    const [what, defect, named] of [
      ["an error", new Error("driver bug"), "the store died: driver bug"],
      ["a value with no message", { _tag: "DriverPanic", code: 7 }, `the store died: DriverPanic {"code":7}`]
    ] as const
  ) {
    it.effect(`a store that dies (${what}) on one transcript: that batch is retried and reported, the flush's other batches land (F2)`, () =>
      Effect.gen(function*() {
        const seen = yield* Queue.unbounded<SessionStore.SessionKey>()
        let deaths = 0
        const dying = Layer.succeed(SessionStore.SessionStore)(appendOnlyStore("dying", (key) =>
          Effect.suspend(() => {
            if (key.subpath === undefined) {
              deaths++
              return Effect.die(defect)
            }
            Queue.offerUnsafe(seen, key)
            return Effect.void
          })))
        yield* Effect.gen(function*() {
          const session = yield* Claude.open({ ...options, sessionStore: true })
          const failures = yield* Effect.forkScoped(Stream.runCollect(Stream.take(
            Stream.filter(session.events, (e): e is Events.MirrorFailed => e.type === "mirror_error"),
            1
          )), { startImmediately: true })
          assert.strictEqual((yield* session.run("one")).result, "re: one")
          yield* TestClock.adjust("200 millis")
          yield* TestClock.adjust("800 millis")
          const [failed] = yield* Fiber.join(failures)
          assert.deepStrictEqual(failed!.key, { projectKey: "-repo-app", sessionId: SESSION })
          assert.strictEqual(failed!.error.reason._tag, "StoreFailed")
          assert.include(failed!.error.message, named)
          assert.strictEqual(failed!.attempts, 3)
          assert.strictEqual(deaths, 3)
          assert.deepStrictEqual(yield* Queue.take(seen), {
            projectKey: "-repo-app",
            sessionId: SESSION,
            subpath: "subagents/agent-a1"
          })
        }).pipe(
          Effect.provide(Layer.merge(mirroringCli(() => [frame(mainFile, 1), frame(agentFile, 2)]), dying)),
          Effect.scoped
        )
      }))
  }

  it.effect("a relative CLAUDE_CONFIG_DIR is the CLI's: relative to the session's cwd (F3)", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      const cwd = Path.join(Os.tmpdir(), "ecc-mirror-cwd")
      const file = Path.join(cwd, "relative-config", "projects", "-repo-app", `${SESSION}.jsonl`)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ env: { CLAUDE_CONFIG_DIR: "relative-config" }, cwd, sessionStore: true })
        assert.strictEqual((yield* session.run("one")).result, "re: one")
        assert.deepStrictEqual(yield* Queue.take(calls), {
          key: { projectKey: "-repo-app", sessionId: SESSION },
          uuids: ["u1"],
          ok: true
        })
      }).pipe(Effect.provide(Layer.merge(mirroringCli(() => [frame(file, 1)]), layer)), Effect.scoped)
    }))

  it.effect("a frame outside the config directory is reported once per file: a mirror_error without a key (F3)", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      const elsewhere = Path.join(Os.tmpdir(), "elsewhere", "x.jsonl")
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        const failures = yield* Effect.forkScoped(
          Stream.runCollect(Stream.filter(session.events, (e): e is Events.MirrorFailed => e.type === "mirror_error")),
          { startImmediately: true }
        )
        assert.strictEqual((yield* session.run("one")).result, "re: one")
        assert.strictEqual((yield* session.run("two")).result, "re: two")
        // The turn's good frame lands after the bad one was reported.
        assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u2"])
        assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u4"])
        yield* session.endInput
        const failed = yield* Fiber.join(failures)
        assert.strictEqual(failed.length, 1)
        assert.isUndefined(failed[0]!.key)
        assert.strictEqual(failed[0]!.entries, 1)
        assert.include(failed[0]!.error.message, elsewhere)
      }).pipe(
        Effect.provide(Layer.merge(
          mirroringCli((i) => i === 0 ? [frame(elsewhere, 1), frame(mainFile, 2)] : [frame(elsewhere, 3), frame(mainFile, 4)]),
          layer
        )),
        Effect.scoped
      )
    }))

  it.effect("entries still unsaved when closing times out are reported and logged as errors (F3)", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
        if (logLevel === "Error") logged.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      const hanging = Layer.succeed(SessionStore.SessionStore)(appendOnlyStore("hanging", () => Effect.never))
      const closed = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ ...options, sessionStore: true })
        assert.strictEqual((yield* session.run("one")).result, "re: one")
      }).pipe(
        Effect.provide(Layer.merge(mirroringCli(() => [frame(mainFile, 1, 2), frame(agentFile, 3)]), hanging)),
        Effect.scoped,
        Effect.provide(Logger.layer([logger])),
        Effect.forkChild({ startImmediately: true })
      )
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(closed)
      assert.strictEqual(logged.length, 2)
      assert.include(logged[0]!, `2 entries of -repo-app/${SESSION} were not saved`)
      assert.include(logged[1]!, `1 entries of -repo-app/${SESSION}/subagents/agent-a1 were not saved`)
    }))

  it.effect("closing the session appends what is still pending", () =>
    Effect.gen(function*() {
      const { calls, layer } = yield* recordingStore(0)
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit(frame(mainFile, 7))
          yield* Effect.exit(cli.next)
          return 0
        })
      )
      yield* Effect.gen(function*() {
        yield* Claude.open({ ...options, sessionStore: true })
      }).pipe(Effect.provide(Layer.merge(cli, layer)), Effect.scoped)
      assert.deepStrictEqual((yield* Queue.take(calls)).uuids, ["u7"])
    }))

  it.effect("--session-mirror is passed only with the option", () =>
    Effect.gen(function*() {
      const { layer } = yield* recordingStore(0)
      const argv: Array<ReadonlyArray<string>> = []
      const cli = FakeCli.layer((cli) => {
        argv.push(cli.spec.args)
        return FakeCli.conversation({ sessionId: SESSION })(cli)
      })
      yield* Effect.scoped(Effect.andThen(Claude.open({ ...options, sessionStore: true }), (s) => s.run("a"))).pipe(
        Effect.provide(Layer.merge(cli, layer))
      )
      yield* Effect.scoped(Effect.andThen(Claude.open(options), (s) => s.run("b"))).pipe(Effect.provide(cli))
      assert.isTrue(argv[0]?.includes("--session-mirror"))
      assert.isFalse(argv[1]?.includes("--session-mirror"))
    }))

  it.effect("sessionStore without a SessionStore in the context, or with persistSession: false, is InvalidInput", () =>
    Effect.gen(function*() {
      const cli = FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))
      const missing = yield* Effect.exit(Effect.scoped(Claude.open({ sessionStore: true })).pipe(Effect.provide(cli)))
      const { layer } = yield* recordingStore(0)
      const noPersist = yield* Effect.exit(
        Effect.scoped(Claude.open({ sessionStore: true, persistSession: false })).pipe(Effect.provide(Layer.merge(cli, layer)))
      )
      for (const [exit, words] of [[missing, "needs a SessionStore"], [noPersist, "persistSession"]] as const) {
        assert.isTrue(Exit.isFailure(exit))
        const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const error = fail?._tag === "Fail" ? fail.error : undefined
        assert.strictEqual(error?.reason._tag, "InvalidInput")
        assert.include(error?.message ?? "", words)
      }
    }))

  it.effect("a directory store on the session's own config directory is InvalidInput; on another directory it mirrors (F10)", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-mirror-own-")
      const own = Path.join(dir, "config")
      const cli = mirroringCli(() => [frame(Path.join(own, "projects", "-repo-app", `${SESSION}.jsonl`), 1)])
      const open = (storeDir: string) =>
        Effect.scoped(Effect.andThen(
          Claude.open({ env: { CLAUDE_CONFIG_DIR: own }, sessionStore: true }),
          (session) => session.run("one")
        )).pipe(
          Effect.provide(Layer.merge(
            cli,
            SessionStore.layerDirectory(storeDir).pipe(Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))
          )),
          Effect.exit
        )
      // The same directory, spelled relative to this process's cwd.
      const exit = yield* open(Path.relative(process.cwd(), own))
      const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      const error = fail?._tag === "Fail" ? fail.error : undefined
      assert.strictEqual(error?.reason._tag, "InvalidInput")
      assert.include(error?.message ?? "", "config directory")
      const elsewhere = Path.join(dir, "backup")
      assert.isTrue(Exit.isSuccess(yield* open(elsewhere)))
      const stored = Fs.readFileSync(Path.join(elsewhere, "projects", "-repo-app", `${SESSION}.jsonl`), "utf8")
      assert.deepStrictEqual(stored.trim().split("\n").map((l) => (JSON.parse(l) as { uuid: string }).uuid), ["u1"])
    }).pipe(Effect.scoped))

  it.effect("sessionStore options out of range are InvalidInput naming the option (T2)", () =>
    Effect.gen(function*() {
      const cli = FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))
      const { layer } = yield* recordingStore(0)
      const cases: ReadonlyArray<readonly [Claude.SessionStoreOptions, string]> = [
        [{ flush: "eagr" as "eager" }, "flush"],
        [{ maxPendingEntries: Number.NaN }, "maxPendingEntries"],
        [{ maxPendingEntries: -1 }, "maxPendingEntries"],
        [{ maxPendingBytes: 1.5 }, "maxPendingBytes"],
        [{ loadTimeout: "soon" as "1 second" }, "loadTimeout"],
        [{ loadTimeout: -5 }, "loadTimeout"]
      ]
      for (const [sessionStore, words] of cases) {
        const exit = yield* Effect.exit(
          Effect.scoped(Claude.open({ ...options, sessionStore })).pipe(Effect.provide(Layer.merge(cli, layer)))
        )
        const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const error = fail?._tag === "Fail" ? fail.error : undefined
        assert.strictEqual(error?.reason._tag, "InvalidInput", words)
        assert.include(error?.message ?? "", words)
      }
    }))
})

describe("transcript_mirror frames", () => {
  it("decode with their Schema; a broken one is a protocol problem, not a frame", () => {
    const good = Protocol.decodeMessage(frame(mainFile, 1))
    assert.strictEqual(good._tag, "Success")
    const bad = Protocol.decodeMessage({ type: "transcript_mirror", filePath: mainFile, entries: "nope" })
    assert.strictEqual(bad._tag, "Failure")
  })

  it("a file path names its store key as the official SDK reads it", () => {
    assert.deepStrictEqual(keyOfPath(projects, mainFile), { projectKey: "-repo-app", sessionId: SESSION })
    assert.deepStrictEqual(keyOfPath(projects, agentFile), {
      projectKey: "-repo-app",
      sessionId: SESSION,
      subpath: "subagents/agent-a1"
    })
    assert.isUndefined(keyOfPath(projects, Path.join(configDir, "other", "x.jsonl")))
    assert.isUndefined(keyOfPath(projects, Path.join(projects, "-repo-app", "notes.txt")))
    assert.isUndefined(keyOfPath(projects, Path.join(projects, "-repo-app", SESSION, "x.jsonl")))
    assert.isUndefined(keyOfPath(projects, projects))
  })
})
