/**
 * The Sessions service over the memory store and over the directory store on an in-memory file
 * system: titles and first prompts, the live branch, rename/tag/fork/delete, unreadable lines,
 * bad input.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as MemoryFs from "./support/memoryFileSystem.ts"

const cwd = "/work-tree/my project"
const projectKey = Sessions.projectKey(cwd)
const S1 = "11111111-1111-4111-8111-111111111111"
const S2 = "22222222-2222-4222-8222-222222222222"
const ghost = "99999999-9999-4999-8999-999999999999"

let clock = Date.parse("2026-11-30T10:00:00.000Z")
const at = () => new Date(clock += 1000).toISOString()

const user = (sessionId: string, uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) => ({
  type: "user",
  uuid,
  parentUuid,
  sessionId,
  timestamp: at(),
  cwd,
  gitBranch: "main",
  isSidechain: false,
  message: { role: "user", content },
  ...extra
})

const assistant = (sessionId: string, uuid: string, parentUuid: string, content: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  type: "assistant",
  uuid,
  parentUuid,
  sessionId,
  timestamp: at(),
  cwd,
  gitBranch: "feature",
  isSidechain: false,
  message: {
    id: `msg_${uuid}`,
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 }
  },
  ...extra
})

/**
 * A session with a tool call and a rewind: the second prompt ("first try") was abandoned, the
 * third ("second try") continues from the same assistant line.
 */
const conversation = (sessionId: string): Array<SessionStore.Entry> => [
  { type: "queue-operation", operation: "enqueue", sessionId, timestamp: at() },
  user(sessionId, "u1", null, "<command-name>/clear</command-name>", {}),
  user(sessionId, "u2", "u1", [{ type: "text", text: "Run echo hi please" }]),
  { type: "attachment", uuid: "at1", parentUuid: "u2", sessionId, timestamp: at(), attachment: { type: "todo" } },
  assistant(sessionId, "a1", "at1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hi" } }]),
  user(sessionId, "u3", "a1", [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi" }]),
  assistant(sessionId, "a2", "u3", [{ type: "text", text: "It printed hi." }]),
  { type: "last-prompt", lastPrompt: "Run echo hi please", sessionId },
  { type: "system", subtype: "informational", uuid: "s1", parentUuid: "a2", sessionId, timestamp: at(), content: "note" },
  user(sessionId, "u4", "s1", "first try"),
  assistant(sessionId, "a3", "u4", [{ type: "text", text: "abandoned" }]),
  user(sessionId, "u5", "s1", "second try"),
  user(sessionId, "m1", "u5", "meta", { isMeta: true }),
  assistant(sessionId, "a4", "m1", [{ type: "text", text: "live answer" }]),
  // A trailing non-message line is not the leaf: the branch ends at the last message (as the CLI's).
  { type: "system", subtype: "informational", uuid: "s2", parentUuid: "a4", sessionId, timestamp: at(), content: "trailing" }
]

const withMemory = Sessions.layer.pipe(Layer.provideMerge(SessionStore.layerMemory))

const seed = (sessionId: string, entries: ReadonlyArray<SessionStore.Entry>) =>
  Effect.flatMap(SessionStore.SessionStore, (store) => store.append({ projectKey, sessionId }, entries))

const texts = (messages: ReadonlyArray<Sessions.Message>): Array<string> =>
  messages.map((m) => {
    const content = m.type === "system" ? m.content ?? "" : m.message.content
    if (typeof content === "string") return `${m.type}: ${content}`
    return `${m.type}: ${content.map((b) => b.type === "text" ? b.text : b.type).join(",")}`
  })

const reason = (error: ClaudeError.ClaudeError) => error.reason._tag

/** A relative path `n` directories up, then `name` (built, so no file names a path outside the repository). */
const up = (n: number, name: string): string => [...Array.from({ length: n }, () => ".."), name].join("/")

describe("Sessions", () => {
  it.effect("list: newest first, with title, first prompt, timestamps, git branch and size; paging", () =>
    Effect.gen(function*() {
      const entries = conversation(S1)
      yield* seed(S1, entries)
      yield* seed(S2, [user(S2, "x1", null, "Another session")])
      const sessions = yield* Sessions.Sessions
      const all = yield* sessions.list({ cwd })
      assert.deepStrictEqual(all.map((s) => s.sessionId), [S2, S1])
      const s1 = all[1]!
      // The last prompt wins over the first prompt as the title; commands are not prompts.
      assert.strictEqual(s1.title, "Run echo hi please")
      assert.strictEqual(s1.firstPrompt, "Run echo hi please")
      assert.strictEqual(s1.gitBranch, "feature")
      assert.strictEqual(s1.cwd, cwd)
      assert.strictEqual(s1.projectKey, projectKey)
      assert.isAbove(s1.size ?? 0, 0)
      assert.strictEqual(s1.createdAt, Date.parse(entries[0]!.timestamp!))
      assert.strictEqual(all[0]!.title, "Another session")
      assert.deepStrictEqual((yield* sessions.list({ cwd, limit: 1 })).map((s) => s.sessionId), [S2])
      assert.deepStrictEqual((yield* sessions.list({ cwd, offset: 1 })).map((s) => s.sessionId), [S1])
      assert.deepStrictEqual((yield* sessions.list()).length, 2)
      assert.deepStrictEqual(yield* sessions.list({ cwd: "/elsewhere" }), [])
    }).pipe(Effect.provide(withMemory)))

  it.effect("messages: the live branch in order, tool use and result included, abandoned and meta lines left out", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const sessions = yield* Sessions.Sessions
      const messages = yield* Stream.runCollect(sessions.messages(S1, { cwd }))
      assert.deepStrictEqual(texts(messages), [
        "user: <command-name>/clear</command-name>",
        "user: Run echo hi please",
        "assistant: tool_use",
        "user: tool_result",
        "assistant: It printed hi.",
        "user: second try",
        "assistant: live answer"
      ])
      const withSystem = yield* Stream.runCollect(sessions.messages(S1, { includeSystem: true }))
      assert.deepStrictEqual(texts(withSystem).slice(4, 6), ["assistant: It printed hi.", "system: note"])
      assert.strictEqual(withSystem.length, messages.length + 1)
    }).pipe(Effect.provide(withMemory)))

  it.effect("rename and tag append lines; the last wins; untag clears; list and info show them", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const sessions = yield* Sessions.Sessions
      yield* sessions.rename(S1, "  First title ")
      yield* sessions.rename(S1, "Renamed", { cwd })
      yield* sessions.tag(S1, "todo")
      let info = yield* sessions.info(S1)
      assert.strictEqual(info.title, "Renamed")
      assert.strictEqual(info.customTitle, "Renamed")
      assert.strictEqual(info.tag, "todo")
      assert.strictEqual((yield* sessions.list({ cwd }))[0]!.title, "Renamed")
      yield* sessions.untag(S1)
      info = yield* sessions.info(S1)
      assert.isUndefined(info.tag)
      const kinds = yield* Stream.runCollect(sessions.entries(S1)).pipe(
        Effect.map((lines) => lines.flatMap((l) => Sessions.isProblem(l) ? [] : [l.type]))
      )
      assert.deepStrictEqual(kinds.slice(-4), ["custom-title", "custom-title", "tag", "tag"])
    }).pipe(Effect.provide(withMemory)))

  it.effect("fork: a new id, the live history with fresh uuids and the new session id, titled (fork)", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const sessions = yield* Sessions.Sessions
      const forkId = yield* sessions.fork(S1)
      assert.notStrictEqual(forkId, S1)
      const original = yield* Stream.runCollect(sessions.messages(S1))
      const forked = yield* Stream.runCollect(sessions.messages(forkId))
      assert.deepStrictEqual(texts(forked), texts(original))
      for (const m of forked) {
        assert.strictEqual(m.sessionId, forkId)
        assert.isFalse(original.some((o) => o.uuid === m.uuid))
      }
      assert.strictEqual((yield* sessions.info(forkId)).title, "Run echo hi please (fork)")
      const upTo = yield* sessions.fork(S1, { upToMessageId: "a2", title: "Early" })
      assert.deepStrictEqual(texts(yield* Stream.runCollect(sessions.messages(upTo))).at(-1), "assistant: It printed hi.")
      assert.strictEqual((yield* sessions.info(upTo)).title, "Early")
    }).pipe(Effect.provide(withMemory)))

  it.effect("delete removes the session and its subagents; a second delete is SessionNotFound", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey, sessionId: S1, subpath: "subagents/agent-x" }, [user(S1, "sa", null, "sub", { isSidechain: true })])
      const sessions = yield* Sessions.Sessions
      yield* sessions.delete(S1)
      assert.deepStrictEqual(yield* sessions.list(), [])
      assert.deepStrictEqual(yield* store.listSubkeys({ projectKey, sessionId: S1 }), [])
      assert.strictEqual(reason(yield* Effect.flip(sessions.delete(S1))), "SessionNotFound")
    }).pipe(Effect.provide(withMemory)))

  it.effect("bad input is a typed error: not a UUID, empty title or tag, bad paging, unknown message, unknown session", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const sessions = yield* Sessions.Sessions
      assert.strictEqual(reason(yield* Effect.flip(sessions.info("not-a-uuid"))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(Stream.runDrain(sessions.messages("../etc")))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.rename(S1, "   "))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.tag(S1, "\u0007 "))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.list({ limit: -1 }))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.list({ offset: 0.5 }))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.fork(S1, { upToMessageId: "nope" }))), "InvalidInput")
      assert.strictEqual(reason(yield* Effect.flip(sessions.info(ghost))), "SessionNotFound")
      assert.strictEqual(reason(yield* Effect.flip(sessions.info(S1, { cwd: "/elsewhere" }))), "SessionNotFound")
      assert.strictEqual(reason(yield* Effect.flip(sessions.rename(ghost, "x"))), "SessionNotFound")
    }).pipe(Effect.provide(withMemory)))

  it.effect("the constructors and every public operation run in a span of their own (H1)", () =>
    Effect.gen(function*() {
      const names: Array<string> = []
      const tracer = Tracer.make({
        span(options) {
          names.push(options.name)
          return new Tracer.NativeSpan(options)
        }
      })
      yield* Effect.gen(function*() {
        const memory = MemoryFs.make()
        yield* Effect.gen(function*() {
          const store = yield* SessionStore.makeDirectory("/users-home/someone/.claude")
          yield* store.append({ projectKey, sessionId: S1 }, conversation(S1))
          const sessions = yield* Sessions.makeWith().pipe(Effect.provideService(SessionStore.SessionStore, store))
          yield* sessions.list()
          yield* sessions.info(S1)
          yield* Stream.runDrain(sessions.entries(S1))
          yield* Stream.runDrain(sessions.messages(S1))
          yield* sessions.rename(S1, "t")
          yield* sessions.tag(S1, "x")
          yield* sessions.untag(S1)
          yield* sessions.fork(S1)
          yield* sessions.delete(S1)
        }).pipe(Effect.provide(memory.layer))
      }).pipe(Effect.withTracer(tracer))
      for (
        const name of [
          "SessionStore.makeDirectory",
          "Sessions.makeWith",
          "Sessions.list",
          "Sessions.info",
          "Sessions.entries",
          "Sessions.messages",
          "Sessions.rename",
          "Sessions.tag",
          "Sessions.untag",
          "Sessions.fork",
          "Sessions.delete"
        ]
      ) assert.include(names, name)
    }))

  it.effect("an agentId that is not a plain name (a path, empty) is InvalidInput (F7)", () =>
    Effect.gen(function*() {
      yield* seed(S1, conversation(S1))
      const sessions = yield* Sessions.Sessions
      for (const agentId of [up(2, "x"), `x/${up(2, "y")}`, "a\\b", "", "a.b"]) {
        assert.strictEqual(reason(yield* Effect.flip(Stream.runDrain(sessions.entries(S1, { agentId })))), "InvalidInput")
        assert.strictEqual(reason(yield* Effect.flip(Stream.runDrain(sessions.messages(S1, { agentId })))), "InvalidInput")
      }
    }).pipe(Effect.provide(withMemory)))

  it.effect("a session whose first line is a sidechain is not listed; a subagent transcript reads with agentId", () =>
    Effect.gen(function*() {
      yield* seed(S2, [user(S2, "x1", null, "side", { isSidechain: true })])
      const store = yield* SessionStore.SessionStore
      yield* seed(S1, conversation(S1))
      yield* store.append({ projectKey, sessionId: S1, subpath: "subagents/agent-abc" }, [
        user(S1, "sa1", null, "Find the file", { isSidechain: true }),
        assistant(S1, "sa2", "sa1", [{ type: "text", text: "Found it" }], { isSidechain: true })
      ])
      const sessions = yield* Sessions.Sessions
      assert.deepStrictEqual((yield* sessions.list()).map((s) => s.sessionId), [S1])
      const sub = yield* Stream.runCollect(sessions.messages(S1, { agentId: "abc" }))
      assert.deepStrictEqual(texts(sub), ["user: Find the file", "assistant: Found it"])
    }).pipe(Effect.provide(withMemory)))
})

describe("Sessions on the directory store (in-memory file system)", () => {
  const configDir = "/users-home/someone/.claude"
  const file = `${configDir}/projects/${projectKey}/${S1}.jsonl`
  const setup = () => {
    const memory = MemoryFs.make()
    const layer = Sessions.layer.pipe(
      Layer.provideMerge(SessionStore.layerDirectory(configDir)),
      Layer.provideMerge(memory.layer)
    )
    return { memory, layer }
  }

  it.effect("a truncated last line and one broken line in the middle read with two reported problems", () => {
    const { layer, memory } = setup()
    const lines = conversation(S1).map((e) => JSON.stringify(e))
    lines.splice(5, 0, "{\"type\":\"user\",\"uuid\":")
    const text = lines.join("\n") + "\n" + "{\"type\":\"assistant\",\"uuid\":\"cut"
    MemoryFs.writeText(memory.state, file, text)
    return Effect.gen(function*() {
      const sessions = yield* Sessions.Sessions
      const all = yield* Stream.runCollect(sessions.entries(S1, { cwd }))
      const problems = all.filter(Sessions.isProblem)
      assert.strictEqual(problems.length, 2)
      assert.deepStrictEqual(problems.map((p) => p.line), [6, lines.length + 1])
      assert.include(problems[0]!.description, "not JSON")
      assert.strictEqual(problems[1]!.excerpt, "{\"type\":\"assistant\",\"uuid\":\"cut")
      assert.strictEqual(all.length - problems.length, conversation(S1).length)
      // The messages still read, and the list still finds the session.
      assert.strictEqual((yield* Stream.runCollect(sessions.messages(S1))).length, 7)
      assert.strictEqual((yield* sessions.list())[0]!.title, "Run echo hi please")
    }).pipe(Effect.provide(layer))
  })

  it.effect("rename appends to the CLI's file (the bytes before are untouched); fork writes a new file beside it", () => {
    const { layer, memory } = setup()
    const before = conversation(S1).map((e) => JSON.stringify(e) + "\n").join("")
    MemoryFs.writeText(memory.state, file, before)
    return Effect.gen(function*() {
      const sessions = yield* Sessions.Sessions
      yield* sessions.rename(S1, "On disk")
      const after = new TextDecoder().decode(memory.state.files.get(file)!.data)
      assert.isTrue(after.startsWith(before))
      assert.strictEqual(JSON.parse(after.slice(before.length)).customTitle, "On disk")
      const forkId = yield* sessions.fork(S1)
      assert.isTrue(memory.state.files.has(`${configDir}/projects/${projectKey}/${forkId}.jsonl`))
      const listed = yield* sessions.list({ cwd })
      assert.deepStrictEqual(listed.map((s) => s.title), ["On disk (fork)", "On disk"])
      assert.strictEqual(listed[1]!.size, after.length)
    }).pipe(Effect.provide(layer))
  })

  it.effect("append is idempotent by uuid, also across store instances reading the same file", () => {
    const { layer, memory } = setup()
    return Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const key = { projectKey, sessionId: S1 }
      const batch = conversation(S1)
      yield* store.append(key, batch)
      yield* store.append(key, batch.slice(0, 3))
      const fresh = yield* SessionStore.makeDirectory(configDir)
      yield* fresh.append(key, batch.slice(2))
      const read = yield* Stream.runCollect(store.load(key))
      // Lines without a uuid (queue-operation, last-prompt) are appended again; the rest are not.
      const withUuid = read.filter((e) => e.uuid !== undefined)
      assert.strictEqual(withUuid.length, batch.filter((e) => e.uuid !== undefined).length)
      assert.strictEqual(read.length, batch.length + 2)
      assert.isTrue(memory.state.files.has(file))
    }).pipe(Effect.provide(layer))
  })

  it.effect("load of a session never written is SessionNotFound; delete of a missing one is not an error", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const error = yield* Effect.flip(Stream.runDrain(store.load({ projectKey, sessionId: ghost })))
      assert.strictEqual(reason(error), "SessionNotFound")
      yield* store.delete({ projectKey, sessionId: ghost })
      assert.deepStrictEqual(yield* store.list(undefined), [])
    }).pipe(Effect.provide(layer))
  })

  it.effect("subagent transcripts live under <sessionId>/subagents/ and are listed as subkeys", () => {
    const { layer, memory } = setup()
    return Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      yield* store.append({ projectKey, sessionId: S1 }, conversation(S1))
      yield* store.append({ projectKey, sessionId: S1, subpath: "subagents/agent-abc" }, [user(S1, "q", null, "sub")])
      assert.isTrue(memory.state.files.has(`${configDir}/projects/${projectKey}/${S1}/subagents/agent-abc.jsonl`))
      assert.deepStrictEqual(yield* store.listSubkeys({ projectKey, sessionId: S1 }), ["subagents/agent-abc"])
      assert.deepStrictEqual((yield* store.list(projectKey)).map((s) => s.sessionId), [S1])
      yield* store.delete({ projectKey, sessionId: S1 })
      assert.deepStrictEqual(yield* store.listSubkeys({ projectKey, sessionId: S1 }), [])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a key whose parts are not plain names (.., separators, empty) is InvalidInput and touches no file (F7)", () => {
    const { layer, memory } = setup()
    MemoryFs.writeText(memory.state, "/users-home/someone/secret.jsonl", JSON.stringify(user(S1, "s", null, "secret")) + "\n")
    return Effect.gen(function*() {
      const store = yield* SessionStore.SessionStore
      const bad: ReadonlyArray<SessionStore.SessionKey> = [
        { projectKey: "..", sessionId: "secret" },
        { projectKey: "../..", sessionId: "secret" },
        { projectKey, sessionId: up(3, "secret") },
        { projectKey, sessionId: "" },
        { projectKey, sessionId: S1, subpath: up(4, "secret") },
        { projectKey, sessionId: S1, subpath: "subagents//agent-a" },
        { projectKey, sessionId: S1, subpath: "subagents\\agent-a" }
      ]
      const before = [...memory.state.files.keys()]
      for (const key of bad) {
        assert.strictEqual(reason(yield* Effect.flip(Stream.runDrain(store.load(key)))), "InvalidInput", JSON.stringify(key))
        assert.strictEqual(reason(yield* Effect.flip(store.append(key, [user(S1, "w", null, "w")]))), "InvalidInput")
        assert.strictEqual(reason(yield* Effect.flip(store.delete(key))), "InvalidInput")
        assert.strictEqual(reason(yield* Effect.flip(store.listSubkeys(key))), "InvalidInput")
      }
      assert.strictEqual(reason(yield* Effect.flip(store.list(".."))), "InvalidInput")
      assert.deepStrictEqual([...memory.state.files.keys()], before)
    }).pipe(Effect.provide(layer))
  })

  it.effect("layerDisk reads the sessions of the config directory the environment names (CLAUDE_CONFIG_DIR, else HOME/.claude), with the CLI's project directory override", () => {
    const memory = MemoryFs.make()
    const text = conversation(S1).map((e) => JSON.stringify(e) + "\n").join("")
    MemoryFs.writeText(memory.state, `/elsewhere/config/projects/${projectKey}/${S1}.jsonl`, text)
    MemoryFs.writeText(memory.state, `/users-home/ada/.claude/projects/${projectKey}/${S2}.jsonl`, JSON.stringify(user(S2, "h", null, "At home")) + "\n")
    const listWith = (env: Record<string, string>) =>
      Effect.flatMap(Sessions.Sessions, (sessions) => sessions.list()).pipe(
        Effect.provide(Sessions.layerDisk.pipe(Layer.provide(memory.layer))),
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
      )
    return Effect.gen(function*() {
      const configured = yield* listWith({ HOME: "/users-home/ada", CLAUDE_CONFIG_DIR: "/elsewhere/config" })
      assert.deepStrictEqual(configured.map((s) => s.sessionId), [S1])
      const home = yield* listWith({ HOME: "/users-home/ada" })
      assert.deepStrictEqual(home.map((s) => s.title), ["At home"])
      // The CLI's CLAUDE_CODE_PROJECT_DIR_NAME (honoured with CLAUDE_CONFIG_DIR): every cwd's project key.
      MemoryFs.writeText(memory.state, `/elsewhere/config/projects/shared_dir/${S2}.jsonl`, JSON.stringify(user(S2, "o", null, "Overridden")) + "\n")
      const inProject = (env: Record<string, string>) =>
        Effect.flatMap(Sessions.Sessions, (sessions) => sessions.list({ cwd })).pipe(
          Effect.provide(Sessions.layerDisk.pipe(Layer.provide(memory.layer))),
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
        )
      const overridden = yield* inProject({ CLAUDE_CONFIG_DIR: "/elsewhere/config", CLAUDE_CODE_PROJECT_DIR_NAME: "shared_dir" })
      assert.deepStrictEqual(overridden.map((s) => s.title), ["Overridden"])
      const ignored = yield* inProject({ HOME: "/users-home/ada", CLAUDE_CODE_PROJECT_DIR_NAME: "shared_dir" })
      assert.deepStrictEqual(ignored.map((s) => s.title), ["At home"])
    })
  })
})
