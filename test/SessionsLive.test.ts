/**
 * Sessions against the files the real CLI 2.1.332 writes (the pinned devDependency, on the fake
 * model, in a fresh HOME): list, messages, rename and tag (also in the CLI's own view), fork and
 * resume of the fork, delete; and a 200 MB session file read in flat memory.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"
import { makeTempDir } from "./support/tempDir.ts"

/** The fake model's answers, by the user's last words (a tool result gets "It printed hi."). */
const script: FakeModel.Script = (request) => {
  const said = FakeModel.lastUserText(request)
  if (said === undefined) return FakeModel.text("It printed hi.")
  if (said.includes("Run echo hi")) return FakeModel.toolUse("Bash", { command: "echo hi", description: "Say hi" })
  if (said.includes("What did I ask first")) return FakeModel.text("You asked me to run echo hi.")
  return FakeModel.text("Second answer.")
}

const sessionsOn = (home: string) =>
  Sessions.layer.pipe(
    Layer.provideMerge(SessionStore.layerDirectory(Path.join(home, ".claude"))),
    Layer.provideMerge(NodeServices.layer)
  )

const textOf = (m: Sessions.Message): string => {
  if (m.type === "system") return `system: ${m.content ?? ""}`
  const content = m.message.content
  if (typeof content === "string") return `${m.type}: ${content}`
  return `${m.type}: ${
    content.flatMap((b) =>
      b.type === "text" ? (b.text.startsWith("<system-reminder>") ? [] : [b.text]) : b.type === "tool_use" ? [`tool_use ${b.name}`] : [b.type]
    ).join(" | ")
  }`
}

describe("Sessions on the real CLI's files", { timeout: 120_000 }, () => {
  it.live("list, messages, rename through the CLI, rename/tag offline (also in the CLI's own status), fork + resume, delete", () =>
    Effect.gen(function*() {
      const setup = yield* Offline.make(script, {
        executable: cliPath,
        permissionMode: "bypassPermissions",
        env: { IS_SANDBOX: "1" }
      })
      const { cwd, home, model } = setup
      // A session with a tool call, renamed while it runs (the rename_session control), then a second turn.
      const sessionId = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(setup.options)
        yield* session.run("Run echo hi please")
        yield* session.renameSession("Echo session")
        yield* session.run("And again")
        return yield* session.sessionId
      }))
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(sessionsOn(home)))

      // list finds it in its project, with its first prompt and the title set through the CLI.
      const listed = yield* sessions.list({ cwd })
      assert.deepStrictEqual(listed.map((s) => s.sessionId), [sessionId])
      const info = listed[0]!
      assert.strictEqual(info.firstPrompt, "Run echo hi please")
      assert.strictEqual(info.title, "Echo session")
      assert.strictEqual(info.customTitle, "Echo session")
      assert.strictEqual(info.cwd, Fs.realpathSync(cwd))
      assert.strictEqual(info.projectKey, Sessions.projectKey(Fs.realpathSync(cwd)))
      assert.strictEqual(info.size, Fs.statSync(Path.join(home, ".claude", "projects", info.projectKey, `${sessionId}.jsonl`)).size)
      assert.isDefined(info.createdAt)
      assert.isAtLeast(info.lastModified, info.createdAt!)
      assert.deepStrictEqual((yield* sessions.info(sessionId)).title, "Echo session")

      // messages: the turns in order, with the tool use and its result.
      const messages = yield* Stream.runCollect(sessions.messages(sessionId, { cwd }))
      assert.deepStrictEqual(messages.map(textOf), [
        "user: Run echo hi please",
        "assistant: tool_use Bash",
        "user: tool_result",
        "assistant: It printed hi.",
        "user: And again",
        "assistant: Second answer."
      ])
      const result = messages[2]!
      assert.isTrue(result.type === "user" && typeof result.message.content !== "string" &&
        result.message.content.some((b) => b.type === "tool_result" && JSON.stringify(b.content).includes("hi")))
      // Every line of the CLI's file reads (no problems), kinds this library does not model included.
      const lines = yield* Stream.runCollect(sessions.entries(sessionId))
      assert.deepStrictEqual(lines.filter(Sessions.isProblem), [])
      assert.isTrue(lines.some((l) => !Sessions.isProblem(l) && (l.type as string) === "attachment"))

      // rename and tag offline: list shows them, and so does the CLI when it resumes the session.
      yield* sessions.rename(sessionId, "Renamed offline")
      yield* sessions.tag(sessionId, "keep")
      const relisted = (yield* sessions.list({ cwd }))[0]!
      assert.strictEqual(relisted.title, "Renamed offline")
      assert.strictEqual(relisted.tag, "keep")

      // fork: a new session beside it; resuming the fork continues with the history.
      const forkId = yield* sessions.fork(sessionId)
      assert.strictEqual((yield* sessions.info(forkId)).title, "Renamed offline (fork)")
      const before = (yield* model.messageRequests).length
      const { answer, status } = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ ...setup.options, resume: forkId })
        const result = yield* session.run("What did I ask first?")
        return { answer: result.result, status: yield* session.status() }
      }))
      assert.strictEqual(answer, "You asked me to run echo hi.")
      const resumed = (yield* model.messageRequests).slice(before)
      const asked = resumed.find((r) => FakeModel.lastUserText(r) === "What did I ask first?")!
      const history = JSON.stringify(asked.messages)
      assert.include(history, "Run echo hi please")
      assert.include(history, "It printed hi.")
      assert.include(history, "And again")
      const name = status.sections.flatMap((s) => s.rows).find((r) => r.label === "Session name")
      assert.strictEqual(name?.value, "Renamed offline (fork)")
      // The CLI wrote the fork's new turn into the fork's file, after the copied history.
      const forked = yield* Stream.runCollect(sessions.messages(forkId))
      assert.deepStrictEqual(forked.map(textOf).slice(-2), ["user: What did I ask first?", "assistant: You asked me to run echo hi."])
      assert.strictEqual(forked.length, messages.length + 2)

      // delete: gone from the list and from disk; the other session stays.
      yield* sessions.delete(sessionId)
      assert.deepStrictEqual((yield* sessions.list({ cwd })).map((s) => s.sessionId), [forkId])
      assert.isFalse(Fs.existsSync(Path.join(home, ".claude", "projects", info.projectKey, `${sessionId}.jsonl`)))
      const gone = yield* Effect.flip(sessions.info(sessionId))
      assert.strictEqual(gone.reason._tag, "SessionNotFound")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a 200 MB session file: list and messages stream it with the heap growing by less than 64 MB", () =>
    Effect.gen(function*() {
      const home = yield* makeTempDir("sessions-big-")
      const cwd = "/srv/big project"
      const sessionId = "33333333-3333-4333-8333-333333333333"
      const dir = Path.join(home, ".claude", "projects", Sessions.projectKey(cwd))
      Fs.mkdirSync(dir, { recursive: true })
      const file = Path.join(dir, `${sessionId}.jsonl`)
      // About 12,800 lines of 16 KB: a long session of large answers, as the CLI writes it.
      const filler = "x".repeat(16 * 1024)
      const fd = Fs.openSync(file, "w")
      let parent: string | null = null
      let turns = 0
      for (let i = 0; Fs.fstatSync(fd).size < 200 * 1024 * 1024; i++) {
        let chunk = ""
        for (let j = 0; j < 64; j++, i++) {
          const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
          const base = { uuid, parentUuid: parent, sessionId, timestamp: new Date(1_700_000_000_000 + i).toISOString(), cwd }
          chunk += JSON.stringify(
            i % 2 === 0
              ? { ...base, type: "user", message: { role: "user", content: i === 0 ? "Start the long job" : `step ${i}` } }
              : {
                ...base,
                type: "assistant",
                message: {
                  id: `msg_${i}`,
                  type: "message",
                  role: "assistant",
                  model: "claude-test",
                  content: [{ type: "text", text: filler }],
                  stop_reason: "end_turn",
                  usage: { input_tokens: 1, output_tokens: 1 }
                }
              }
          ) + "\n"
          parent = uuid
          turns++
        }
        Fs.writeSync(fd, chunk)
      }
      Fs.closeSync(fd)
      assert.isAtLeast(Fs.statSync(file).size, 200 * 1024 * 1024)

      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(sessionsOn(home)))
      let peak = 0
      const baseline = process.memoryUsage().heapUsed
      const sample = () => {
        peak = Math.max(peak, process.memoryUsage().heapUsed - baseline)
      }
      let count = 0
      yield* sessions.messages(sessionId).pipe(
        Stream.runForEach(() =>
          Effect.sync(() => {
            if (++count % 100 === 0) sample()
          })
        )
      )
      sample()
      assert.strictEqual(count, turns)
      const listed = yield* sessions.list({ cwd })
      sample()
      assert.strictEqual(listed[0]?.firstPrompt, "Start the long job")
      assert.isBelow(peak, 64 * 1024 * 1024, `peak heap growth ${(peak / 1024 / 1024).toFixed(1)} MB`)
    }).pipe(Effect.scoped))

  it.live("a file the CLI wrote, cut short and with a broken line in the middle: read up to and past them, two problems", () =>
    Effect.gen(function*() {
      const setup = yield* Offline.make(script, { executable: cliPath })
      const sessionId = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(setup.options)
        yield* session.run("Hello there")
        yield* session.run("And again")
        return yield* session.sessionId
      }))
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(sessionsOn(setup.home)))
      const info = yield* sessions.info(sessionId)
      const file = Path.join(setup.home, ".claude", "projects", info.projectKey, `${sessionId}.jsonl`)
      const lines = Fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "")
      const broken = Math.floor(lines.length / 2)
      lines[broken] = lines[broken]!.slice(0, 40)
      Fs.writeFileSync(file, lines.join("\n") + "\n" + "{\"type\":\"user\",\"mess")
      const read = yield* Stream.runCollect(sessions.entries(sessionId))
      const problems = read.filter(Sessions.isProblem)
      assert.deepStrictEqual(problems.map((p) => p.line), [broken + 1, lines.length + 1])
      assert.strictEqual(read.length, lines.length + 1)
      const messages = yield* Stream.runCollect(sessions.messages(sessionId))
      assert.strictEqual(messages.at(-1)?.type, "assistant")
      assert.strictEqual((yield* sessions.list({ cwd: setup.cwd }))[0]?.firstPrompt, "Hello there")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
