/**
 * Resuming from a session store (the `sessionStore` option with `resume`): the session's
 * transcripts written from the store into the CLI's config directory before the CLI starts. On a
 * memory store and a temp directory, with the FakeCli where the session itself is needed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { locate, materialize, removeLocalTranscript } from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { withWarnings } from "./support/outcomes.ts"
import { makeTempDir } from "./support/tempDir.ts"

const SESSION = "5e551011-0000-4000-8000-0000000000aa"
const projectKey = "-repo-app"
const key = { projectKey, sessionId: SESSION }
const entry = (n: number) => ({ type: "user", uuid: `u${n}`, message: { role: "user", content: `line ${n}` } })
const jsonl = (ns: ReadonlyArray<number>) => ns.map((n) => `${JSON.stringify(entry(n))}\n`).join("")
const uuidsIn = (file: string) =>
  Fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { uuid: string }).uuid)

const setup = Effect.gen(function*() {
  const dir = yield* makeTempDir("ecc-resume-")
  const projectsDir = Path.join(dir, "projects")
  const file = Path.join(projectsDir, projectKey, `${SESSION}.jsonl`)
  const store = yield* SessionStore.makeMemory
  return { dir, projectsDir, file, store }
})

/** `store` whose copy of the main transcript holds `line` after its first entry. */
const withLine = (store: SessionStore.SessionStore["Service"], line: SessionStore.Entry) =>
  SessionStore.SessionStore.of({
    ...store,
    load: (k) =>
      k.subpath === undefined
        ? store.load(k).pipe(Stream.take(1), Stream.concat(Stream.make(line)), Stream.concat(Stream.drop(store.load(k), 1)))
        : store.load(k)
  })

/** `store`, recording every entry appended to it (by key, as text), in order. */
const counting = (store: SessionStore.SessionStore["Service"]) => {
  const appended: Array<string> = []
  const keyText = (k: SessionStore.SessionKey) => k.subpath === undefined ? k.sessionId : `${k.sessionId}/${k.subpath}`
  return {
    appended,
    store: SessionStore.SessionStore.of({
      ...store,
      append: (k, entries) =>
        Effect.andThen(
          Effect.sync(() => appended.push(...entries.map((e) => `${keyText(k)} ${e.uuid ?? e.type}`))),
          store.append(k, entries)
        )
    })
  }
}

/** What `store` holds of one transcript: each line's uuid, or its type for a line without one. */
const storedOf = (store: SessionStore.SessionStore["Service"], k: SessionStore.SessionKey) =>
  Effect.map(Stream.runCollect(store.load(k)), (entries) => entries.map((e) => e.uuid ?? e.type))

const reasonOf = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>) => {
  const fail = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
  return fail?._tag === "Fail" ? fail.error.reason : undefined
}

describe("resuming from a session store", () => {
  it.effect("removing a session's local transcript: the file goes; one that cannot be removed is a warning naming why", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-remove-local-")
      const cwd = Path.join(dir, "repo")
      Fs.mkdirSync(cwd)
      const options = { env: { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }, cwd }
      const { projectKey: localKey, projectsDir } = locate(options.env, cwd)
      const file = Path.join(projectsDir, localKey, `${SESSION}.jsonl`)
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      Fs.writeFileSync(file, jsonl([1]))
      const removed = yield* withWarnings(removeLocalTranscript(options, SESSION))
      assert.isTrue(Exit.isSuccess(removed.exit))
      assert.deepStrictEqual(removed.warnings, [])
      assert.isFalse(Fs.existsSync(file))
      // A directory where the file would be: rmSync refuses it (EISDIR), and the warning says so.
      Fs.mkdirSync(file)
      const refused = yield* withWarnings(removeLocalTranscript(options, SESSION))
      assert.isTrue(Exit.isSuccess(refused.exit), "never fails")
      assert.strictEqual(refused.warnings.length, 1)
      assert.match(refused.warnings[0]!, new RegExp(`^session ${SESSION}: cannot remove its local transcript: .*EISDIR`))
    }))

  it.effect("a local transcript holding entries the store lacks is kept, not overwritten (F4)", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, [entry(1), entry(2)])
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      Fs.writeFileSync(file, jsonl([1, 2, 3]))
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(uuidsIn(file), ["u1", "u2", "u3"])
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [`${SESSION}.jsonl`])
    }).pipe(Effect.scoped))

  it.effect("the lines a kept local transcript holds that the store lacks go to the store first, in order (the CLI continues from them)", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      // The store missed the end of the last run (its last flush failed, or the process died).
      const title = { type: "custom-title", customTitle: "kept", sessionId: SESSION }
      yield* store.append(key, [entry(1), entry(2)])
      const sub = { ...key, subpath: "subagents/agent-a1" }
      yield* store.append(sub, [entry(7)])
      Fs.mkdirSync(Path.join(Path.dirname(file), SESSION, "subagents"), { recursive: true })
      Fs.writeFileSync(file, `${jsonl([1, 2, 3])}${JSON.stringify(title)}\n${jsonl([4])}{"type":"user","uuid":"cut`)
      Fs.writeFileSync(Path.join(Path.dirname(file), SESSION, "subagents", "agent-a1.jsonl"), jsonl([7, 8]))
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(uuidsIn(Path.join(projectsDir, projectKey, SESSION, "subagents", "agent-a1.jsonl")), ["u7", "u8"])
      // The CLI resumes from the local copy and the mirror stores only what it writes next: without
      // u3, the title and u4 in the store, its copy would hold a hole before them for good. A line
      // cut short is no entry (the CLI does not read it either).
      const stored = yield* Stream.runCollect(store.load(key))
      assert.deepStrictEqual(stored.map((e) => e.uuid ?? e.type), ["u1", "u2", "u3", "custom-title", "u4"])
      assert.deepStrictEqual((yield* Stream.runCollect(store.load(sub))).map((e) => e.uuid), ["u7", "u8"])
      // Once the store holds them all, resuming again writes nothing twice.
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual((yield* Stream.runCollect(store.load(key))).map((e) => e.uuid ?? e.type), ["u1", "u2", "u3", "custom-title", "u4"])
    }).pipe(Effect.scoped))

  it.effect("a session the store lacks, kept locally: resuming stores its local lines first, in order, then the CLI's new ones; a second resume appends nothing again", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-resume-unstored-")
      const cwd = Path.join(dir, "repo")
      Fs.mkdirSync(cwd)
      const env = { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }
      // The key the mirror stores the CLI's writes under: their files' directory.
      const where = locate(env, cwd)
      const sessionDir = Path.join(where.projectsDir, where.projectKey)
      const mainFile = Path.join(sessionDir, `${SESSION}.jsonl`)
      const agentFile = Path.join(sessionDir, SESSION, "subagents", "agent-a1.jsonl")
      // The session ran before `sessionStore` was set: the store has none of it.
      const title = { type: "custom-title", customTitle: "kept", sessionId: SESSION }
      Fs.mkdirSync(Path.dirname(agentFile), { recursive: true })
      Fs.writeFileSync(mainFile, `${jsonl([1, 2])}${JSON.stringify(title)}\n${jsonl([3])}{"type":"user","uuid":"cut`)
      Fs.writeFileSync(agentFile, jsonl([7, 8]))
      Fs.writeFileSync(Path.join(Path.dirname(agentFile), "agent-a1.meta.json"), JSON.stringify({ agentType: "x" }))
      const { appended, store } = counting(yield* SessionStore.makeMemory)
      // The CLI resumes from its copy and writes u4 (main) and u9 (the subagent): the mirror stores those.
      const cli = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, _index, cli) =>
          Effect.gen(function*() {
            yield* cli.emit({ type: "transcript_mirror", filePath: mainFile, entries: [entry(4)] })
            yield* cli.emit({ type: "transcript_mirror", filePath: agentFile, entries: [entry(9)] })
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `re: ${text}` })) yield* cli.emit(line)
          })
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ env, cwd, resume: SESSION, sessionStore: true })
        yield* session.run("go on")
        yield* session.flushStore
      })).pipe(Effect.provide(Layer.merge(cli, Layer.succeed(SessionStore.SessionStore)(store))))
      const mainKey = { projectKey: where.projectKey, sessionId: SESSION }
      const agentKey = { ...mainKey, subpath: "subagents/agent-a1" }
      // Every local line, in file order (the line cut short is no entry), then the CLI's: the
      // store's copy resumes on another machine without a hole.
      assert.deepStrictEqual(yield* storedOf(store, mainKey), ["u1", "u2", "custom-title", "u3", "u4"])
      // The subagent's sidecar follows its lines, as the official SDK imports it.
      assert.deepStrictEqual(yield* storedOf(store, agentKey), ["u7", "u8", "agent_metadata", "u9"])
      assert.deepStrictEqual(Fs.readFileSync(agentFile, "utf8"), jsonl([7, 8]), "the local copy is left as it was")
      // A second resume (the CLI wrote u4 and u9 locally meanwhile) appends nothing again, not
      // even the line without a uuid, which no store dedupes.
      Fs.appendFileSync(mainFile, jsonl([4]))
      Fs.appendFileSync(agentFile, jsonl([9]))
      appended.length = 0
      assert.isTrue(yield* materialize(store, where.projectsDir, mainKey))
      assert.deepStrictEqual(appended, [])
      assert.deepStrictEqual(yield* storedOf(store, mainKey), ["u1", "u2", "custom-title", "u3", "u4"])
    }).pipe(Effect.scoped))

  it.effect("a local subagent transcript the store does not list is stored before the CLI starts, once", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store: memory } = yield* setup
      const { appended, store } = counting(memory)
      yield* memory.append(key, [entry(1), entry(2)])
      const sessionDir = Path.join(Path.dirname(file), SESSION)
      Fs.mkdirSync(Path.join(sessionDir, "subagents", "workflows", "w1"), { recursive: true })
      Fs.writeFileSync(file, jsonl([1, 2]))
      const title = { type: "agent-name", agentName: "b2" }
      Fs.writeFileSync(Path.join(sessionDir, "subagents", "agent-b2.jsonl"), `${JSON.stringify(title)}\n${jsonl([5, 6])}`)
      Fs.writeFileSync(Path.join(sessionDir, "subagents", "workflows", "w1", "agent-c3.jsonl"), jsonl([8]))
      Fs.writeFileSync(Path.join(sessionDir, "subagents", "agent-b2.meta.json"), JSON.stringify({ agentType: "x" }))
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(appended, [
        `${SESSION}/subagents/agent-b2 agent-name`,
        `${SESSION}/subagents/agent-b2 u5`,
        `${SESSION}/subagents/agent-b2 u6`,
        `${SESSION}/subagents/agent-b2 agent_metadata`,
        `${SESSION}/subagents/workflows/w1/agent-c3 u8`
      ])
      assert.deepStrictEqual(
        yield* memory.listSubkeys(key).pipe(Effect.map((subkeys) => [...subkeys].sort())),
        ["subagents/agent-b2", "subagents/workflows/w1/agent-c3"]
      )
      assert.deepStrictEqual(uuidsIn(file), ["u1", "u2"])
      // Resuming again: the store lists them now, and holds every line of them.
      appended.length = 0
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(appended, [])
      assert.deepStrictEqual(yield* storedOf(memory, { ...key, subpath: "subagents/agent-b2" }), ["agent-name", "u5", "u6", "agent_metadata"])
    }).pipe(Effect.scoped))

  it.effect("a store that refuses the local lines of a session it lacks fails the resume with StoreFailed; the local copy is kept", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      Fs.writeFileSync(file, jsonl([1, 2]))
      const refusing = SessionStore.SessionStore.of({
        ...store,
        append: () =>
          Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "refusing", operation: "append", description: "full" })))
      })
      const exit = yield* Effect.exit(materialize(refusing, projectsDir, key))
      assert.strictEqual(reasonOf(exit)?._tag, "StoreFailed")
      assert.deepStrictEqual(uuidsIn(file), ["u1", "u2"])
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [`${SESSION}.jsonl`])
    }).pipe(Effect.scoped))

  it.effect("a session neither the store nor the config directory holds is left to the CLI; nothing is stored", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store: memory } = yield* setup
      const { appended, store } = counting(memory)
      // Only a subagent's file: no conversation to resume, so nothing to store under the session.
      Fs.mkdirSync(Path.join(Path.dirname(file), SESSION, "subagents"), { recursive: true })
      Fs.writeFileSync(Path.join(Path.dirname(file), SESSION, "subagents", "agent-a1.jsonl"), jsonl([7]))
      assert.isFalse(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(appended, [])
    }).pipe(Effect.scoped))

  it.effect("a local transcript the store holds all of (and more) is replaced by the store's; an absent one is written (F4)", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, [entry(1), entry(2), entry(3)])
      yield* store.append({ ...key, subpath: "subagents/agent-a1" }, [entry(7)])
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      Fs.writeFileSync(file, jsonl([1, 2]))
      assert.isTrue(yield* materialize(store, projectsDir, key))
      assert.deepStrictEqual(uuidsIn(file), ["u1", "u2", "u3"])
      assert.deepStrictEqual(uuidsIn(Path.join(projectsDir, projectKey, SESSION, "subagents", "agent-a1.jsonl")), ["u7"])
    }).pipe(Effect.scoped))

  it.effect("a store copy with a line the store could not read fails with StoreFailed naming it; nothing is written for the CLI", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, [entry(1), entry(3)])
      // What a directory store's `load` yields for a broken line of its file: a stand-in for
      // `Sessions.entries` to report, never a line of the CLI's. One wrong where it stands.
      const broken = SessionStore.parseLine(`{"type":"assistant","uuid":"u2"}}`, 2)
      const damaged = withLine(store, broken)
      const absent = yield* Effect.exit(materialize(damaged, projectsDir, key))
      const reason = reasonOf(absent)
      assert.strictEqual(reason?._tag, "StoreFailed")
      assert.strictEqual(
        (reason as ClaudeError.StoreFailed).description,
        `its copy of session ${SESSION} holds a line it could not read (line 2: not JSON (Unexpected non-whitespace character after JSON at position 32 (line 1 column 33))); ` +
          "the session was not resumed from it (materialize: false resumes from the CLI's own copy)"
      )
      assert.isFalse(Fs.existsSync(file), "no transcript written for the CLI")
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [], "no temporary file left")
      // A local copy is left as it was.
      Fs.writeFileSync(file, jsonl([1]))
      const local = yield* Effect.exit(materialize(damaged, projectsDir, key))
      assert.strictEqual(reasonOf(local)?._tag, "StoreFailed")
      assert.deepStrictEqual(uuidsIn(file), ["u1"])
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [`${SESSION}.jsonl`])
    }).pipe(Effect.scoped))

  it.effect("a line cut short in the store copy (a write that never finished) is left out; the rest is written", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, [entry(1), entry(3)])
      const cut = SessionStore.parseLine(`{"type":"assistant","uuid":"u2","mess`, 2)
      assert.isTrue((cut as SessionStore.UnreadableLine).cut)
      assert.isTrue(yield* materialize(withLine(store, cut), projectsDir, key))
      assert.deepStrictEqual(uuidsIn(file), ["u1", "u3"])
    }).pipe(Effect.scoped))

  it("a line is cut short when its JSON ends after its text does, not when it is wrong where it stands", () => {
    const cutOf = (text: string) => {
      const parsed = SessionStore.parseLine(text, 1)
      return SessionStore.isUnreadableLine(parsed) ? parsed.cut : "read"
    }
    assert.deepStrictEqual(
      [
        `{"type":"user","uuid":"u1","message":{"content":"abc`,
        `{"type":"user",`,
        `{"type":"user","n":`,
        `{`,
        `{"type":"user"}}`,
        `{"type":"user" x}`,
        `[1,2]`,
        // V8 quotes this text in its message: its words are not the message's.
        `x at position 17 `,
        `{"type":"user"}`
      ].map(cutOf),
      [true, true, true, true, false, false, false, false, "read"]
    )
  })

  it.effect("interrupted while writing, it leaves no temporary file behind (T5)", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, [entry(1)])
      const stuck = SessionStore.SessionStore.of({
        ...store,
        load: (k) => Stream.concat(store.load(k), Stream.never)
      })
      const fiber = yield* Effect.forkChild(materialize(stuck, projectsDir, key), { startImmediately: true })
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      assert.lengthOf(Fs.readdirSync(Path.dirname(file)), 1, "the temporary file is being written")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [])
    }).pipe(Effect.scoped))

  it.effect("two resumes of one session at once in one process do not collide (T5)", () =>
    Effect.gen(function*() {
      const { projectsDir, file, store } = yield* setup
      yield* store.append(key, Array.from({ length: 600 }, (_, i) => entry(i)))
      const slow = SessionStore.SessionStore.of({
        ...store,
        load: (k) => store.load(k).pipe(Stream.tap(() => Effect.yieldNow))
      })
      const both = yield* Effect.all([materialize(slow, projectsDir, key), materialize(slow, projectsDir, key)], {
        concurrency: 2
      })
      assert.deepStrictEqual(both, [true, true])
      assert.lengthOf(uuidsIn(file), 600)
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), [`${SESSION}.jsonl`])
    }).pipe(Effect.scoped))

  it.effect("a store that never answers fails Claude.open after 60 s with StoreFailed naming the operation (F5)", () =>
    Effect.gen(function*() {
      const { dir } = yield* setup
      // The clock moves once the store was asked: the store's module is loaded with `import()`
      // as the session opens, which takes real time in a fresh process, and a clock moved before
      // the deadline is set would never reach it.
      const asked = Deferred.makeUnsafe<void>()
      const hanging = Layer.succeed(SessionStore.SessionStore)(SessionStore.SessionStore.of({
        name: "hanging",
        append: () => Effect.void,
        load: () => Stream.never,
        list: () => Effect.andThen(Deferred.succeed(asked, undefined), Effect.never),
        listSubkeys: () => Effect.never,
        delete: () => Effect.void
      }))
      const cli = FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))
      const opening = yield* Effect.scoped(
        Claude.open({ env: { CLAUDE_CONFIG_DIR: dir }, resume: SESSION, sessionStore: true })
      ).pipe(Effect.provide(Layer.merge(cli, hanging)), Effect.exit, Effect.forkChild({ startImmediately: true }))
      // (An open that failed before asking the store ends the wait too, and fails below.)
      yield* Effect.raceFirst(Deferred.await(asked), Effect.asVoid(Fiber.await(opening)))
      yield* Effect.yieldNow
      yield* TestClock.adjust("60 seconds")
      const exit = yield* Fiber.join(opening)
      const reason = reasonOf(exit)
      assert.strictEqual(reason?._tag, "StoreFailed")
      assert.include(reason?._tag === "StoreFailed" ? reason.operation : "", "list")
    }).pipe(Effect.scoped))
})
