/**
 * The limits, models, context and session identity options (issue 15) against the real CLI and
 * the fake model: each option's effect on what the CLI sends the model, or on its result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

/** Runs one turn offline and returns the first Messages request's body, with the offline session. */
const firstRequest = (options: Offline.Options) =>
  Effect.gen(function*() {
    const offline = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, ...options })
    yield* offline.session.run("hi")
    const requests = yield* offline.model.messageRequests
    const request = requests[0]
    assert.isDefined(request)
    return { request: request!, body: request!.body as Record<string, unknown>, offline }
  })

/** A model with a fixed thinking budget (the default model always thinks adaptively). */
const budgetModel = "claude-sonnet-4-5"

/** Files under a directory, recursively (empty when it does not exist). */
const filesUnder = (dir: string): ReadonlyArray<string> =>
  Fs.existsSync(dir) ? Fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) : []

/** A fresh directory with a project `CLAUDE.md` holding `marker`, removed when the scope closes. */
const projectWithMemory = (marker: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "launch-context-"))
      Fs.writeFileSync(Path.join(dir, "CLAUDE.md"), `Project rule: ${marker}\n`)
      return dir
    }),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("thinking and effort reach the model", () => {
  it.live("thinking enabled with a budget: the request carries thinking { type: enabled, budget_tokens }", () =>
    Effect.scoped(Effect.gen(function*() {
      const { body } = yield* firstRequest({ model: budgetModel, thinking: { type: "enabled", budgetTokens: 3000 } })
      assert.deepInclude(body.thinking as object, { type: "enabled", budget_tokens: 3000 })
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("maxThinkingTokens: the request's thinking budget is that count", () =>
    Effect.scoped(Effect.gen(function*() {
      const { body } = yield* firstRequest({ model: budgetModel, maxThinkingTokens: 2000 })
      assert.deepInclude(body.thinking as object, { type: "enabled", budget_tokens: 2000 })
      // Without the option the CLI picks another budget: the option is what set it.
      const plain = yield* firstRequest({ model: budgetModel })
      assert.notStrictEqual((plain.body.thinking as { budget_tokens?: number }).budget_tokens, 2000)
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("thinking disabled: the request says thinking { type: disabled }", () =>
    Effect.scoped(Effect.gen(function*() {
      const { body } = yield* firstRequest({ model: budgetModel, thinking: { type: "disabled" } })
      assert.deepStrictEqual(body.thinking, { type: "disabled" })
    })).pipe(Effect.provide(processLayer)), 60_000)

  // The CLI 2.1.332 asks for adaptive thinking only on models that have it (the default model
  // thinks adaptively anyway; on claude-sonnet-4-5 it falls back to a budget), so this shows the
  // flag is accepted and the request is adaptive, not that the flag made it so.
  it.live("thinking adaptive: accepted, and the request says thinking { type: adaptive }", () =>
    Effect.scoped(Effect.gen(function*() {
      const { body } = yield* firstRequest({ thinking: { type: "adaptive" } })
      assert.deepInclude(body.thinking as object, { type: "adaptive" })
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("effort and taskBudget: the request's output_config carries them", () =>
    Effect.scoped(Effect.gen(function*() {
      const { body } = yield* firstRequest({ effort: "low", taskBudget: { total: 40000 } })
      assert.deepStrictEqual(body.output_config, { effort: "low", task_budget: { type: "tokens", total: 40000 } })
      const plain = yield* firstRequest({})
      assert.notDeepEqual(plain.body.output_config, body.output_config)
    })).pipe(Effect.provide(processLayer)), 60_000)
})

describe("limits", () => {
  it.live("maxBudgetUsd: a budget reached ends the turn with error_max_budget_usd, a LimitReached failure", () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open([FakeModel.text("ok"), FakeModel.text("again")], {
        executable: cliPath,
        maxBudgetUsd: 0.000001
      })
      const error = yield* Effect.flip(offline.session.run("hi"))
      assert.strictEqual(error.reason._tag, "LimitReached")
      if (error.reason._tag === "LimitReached") {
        assert.strictEqual(error.reason.limit, "error_max_budget_usd")
        assert.strictEqual((error.reason.result as { subtype?: string }).subtype, "error_max_budget_usd")
      }
    })).pipe(Effect.provide(processLayer)), 60_000)
})

describe("context and session identity", () => {
  it.live("settingSources: a project CLAUDE.md reaches the model with [\"project\"], not with []", () =>
    Effect.scoped(Effect.gen(function*() {
      const marker = "use-tabs-7f3a"
      const cwd = yield* projectWithMemory(marker)
      const withProject = yield* firstRequest({ cwd, settingSources: ["project"] })
      assert.include(JSON.stringify(withProject.request.messages), marker)
      const without = yield* firstRequest({ cwd, settingSources: [] })
      assert.notInclude(JSON.stringify(without.request.body), marker)
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("systemPrompt preset with append: the CLI's own prompt with the text at its end", () =>
    Effect.scoped(Effect.gen(function*() {
      const { request } = yield* firstRequest({
        systemPrompt: { type: "preset", preset: "claude_code", append: "Appended rule 41c2." }
      })
      const system = FakeModel.systemText(request)
      assert.include(system, "Appended rule 41c2.")
      assert.include(system, "Claude")
      const replaced = yield* firstRequest({ systemPrompt: "Only this prompt 9d1e." })
      assert.notInclude(FakeModel.systemText(replaced.request), "Appended rule 41c2.")
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("tools: the request offers only the named base tools", () =>
    Effect.scoped(Effect.gen(function*() {
      const { request } = yield* firstRequest({ tools: ["Read"] })
      assert.isTrue(FakeModel.hasTool(request, "Read"))
      assert.isFalse(FakeModel.hasTool(request, "Bash"))
      const plain = yield* firstRequest({})
      assert.isTrue(FakeModel.hasTool(plain.request, "Bash"))
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("sessionId: the session runs under the given id", () =>
    Effect.scoped(Effect.gen(function*() {
      const id = "0b8f4a52-3f1e-4c1d-9f0a-6d2f1e7a9b3c"
      const { offline } = yield* firstRequest({ sessionId: id })
      assert.strictEqual(yield* offline.session.sessionId, id)
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("persistSession: false leaves no session file under HOME's .claude/projects; the default does", () =>
    Effect.scoped(Effect.gen(function*() {
      const kept = yield* firstRequest({})
      const keptId = yield* kept.offline.session.sessionId
      const ephemeral = yield* firstRequest({ persistSession: false })
      const ephemeralId = yield* ephemeral.offline.session.sessionId
      assert.isTrue(filesUnder(Path.join(kept.offline.home, ".claude", "projects")).some((f) => f.includes(keptId)))
      assert.isFalse(
        filesUnder(Path.join(ephemeral.offline.home, ".claude", "projects")).some((f) => f.includes(ephemeralId))
      )
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("subagents", () => {
  it.live("agents: listed in initializeResult; the model's Agent tool call runs the definition, whose prompt is the subagent's system prompt", () =>
    Effect.scoped(Effect.gen(function*() {
      const agentPrompt = "You are the reviewer agent 5b7e."
      const script: FakeModel.Script = (request) => {
        if (FakeModel.systemText(request).includes(agentPrompt)) return FakeModel.text("Reviewed: looks fine.")
        if (FakeModel.toolResults(request).length > 0) return FakeModel.text("The reviewer said it looks fine.")
        return FakeModel.toolUse("Agent", {
          description: "Review the code",
          prompt: "Review the code please",
          subagent_type: "reviewer",
          run_in_background: false
        })
      }
      const offline = yield* Offline.open(script, {
        executable: cliPath,
        agents: { reviewer: { description: "Reviews code for bugs", prompt: agentPrompt, tools: ["Read"] } }
      })
      const init = yield* offline.session.initializeResult
      assert.isTrue((init.agents ?? []).some((agent) => agent.name === "reviewer" && agent.description === "Reviews code for bugs"))
      const result = yield* offline.session.run("Please review")
      assert.strictEqual(result.result, "The reviewer said it looks fine.")
      const requests = yield* offline.model.messageRequests
      const sub = requests.find((request) => FakeModel.systemText(request).includes(agentPrompt))
      assert.isDefined(sub)
      // The definition's tools: the subagent is offered Read, not Bash.
      assert.isTrue(FakeModel.hasTool(sub!, "Read"))
      assert.isFalse(FakeModel.hasTool(sub!, "Bash"))
      // The main thread got the subagent's answer as the Agent tool's result.
      assert.isTrue(
        requests.some((request) =>
          FakeModel.toolResults(request).some((toolResult) => toolResult.content.includes("Reviewed: looks fine."))
        )
      )
    })).pipe(Effect.provide(processLayer)), 90_000)
})

/** The script of a main thread that runs the `reviewer` subagent once (in the foreground). */
const reviewerScript = (agentPrompt: string): FakeModel.Script => (request) => {
  if (FakeModel.systemText(request).includes(agentPrompt)) return FakeModel.text("Reviewed: looks fine.")
  if (FakeModel.toolResults(request).length > 0) return FakeModel.text("The reviewer said it looks fine.")
  return FakeModel.toolUse("Agent", {
    description: "Review the code",
    prompt: "Review the code please",
    subagent_type: "reviewer",
    run_in_background: false
  })
}

/** The events of one turn. */
const turnEvents = (session: Claude.Session, input: string) =>
  Stream.runCollect(session.turn(input)).pipe(Effect.map((events): ReadonlyArray<Claude.Event> => Array.from(events)))

/** Assistant events of a subagent (with `parent_tool_use_id`) that hold text. */
const subagentTexts = (events: ReadonlyArray<Claude.Event>): ReadonlyArray<string> =>
  events.flatMap((event) => {
    const e = event as { type?: string; parent_tool_use_id?: string | null; message?: { content?: unknown } }
    if (e.type !== "assistant" || typeof e.parent_tool_use_id !== "string") return []
    const content = Array.isArray(e.message?.content) ? e.message.content as ReadonlyArray<{ type?: string; text?: string }> : []
    return content.flatMap((block) => block.type === "text" && block.text !== undefined ? [block.text] : [])
  })

describe("subagents: the main thread's agent and forwarded text", () => {
  it.live("agent: the main thread runs as the named agent (its prompt is the system prompt)", () =>
    Effect.scoped(Effect.gen(function*() {
      const agentPrompt = "You are the main-thread agent 2c9d."
      const { request } = yield* firstRequest({
        agent: "lead",
        agents: { lead: { description: "Leads", prompt: agentPrompt } }
      })
      assert.include(FakeModel.systemText(request), agentPrompt)
      const plain = yield* firstRequest({ agents: { lead: { description: "Leads", prompt: agentPrompt } } })
      assert.notInclude(FakeModel.systemText(plain.request), agentPrompt)
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("forwardSubagentText: the subagent's text arrives as assistant events with parent_tool_use_id; not without it", () =>
    Effect.scoped(Effect.gen(function*() {
      const agentPrompt = "You are the reviewer agent 8a1f."
      const agents = { reviewer: { description: "Reviews code", prompt: agentPrompt } }
      const forwarded = yield* Offline.open(reviewerScript(agentPrompt), { executable: cliPath, agents, forwardSubagentText: true })
      assert.include(subagentTexts(yield* turnEvents(forwarded.session, "Please review")), "Reviewed: looks fine.")
      const plain = yield* Offline.open(reviewerScript(agentPrompt), { executable: cliPath, agents })
      assert.deepStrictEqual(subagentTexts(yield* turnEvents(plain.session, "Please review")), [])
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("betas, hook events, plugins", () => {
  it.live("betas: the API request carries the beta header", () =>
    Effect.scoped(Effect.gen(function*() {
      const { request } = yield* firstRequest({ betas: ["context-1m-2025-08-07"] })
      assert.include(request.headers["anthropic-beta"] ?? "", "context-1m-2025-08-07")
      const plain = yield* firstRequest({})
      assert.notInclude(plain.request.headers["anthropic-beta"] ?? "", "context-1m-2025-08-07")
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("includeHookEvents: the CLI writes a settings hook's hook_started/hook_response lines; not without it", () =>
    Effect.scoped(Effect.gen(function*() {
      const settings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "true" }] }] } }
      // The lines the CLI writes, seen through the session's recorder.
      const hookLines = (includeHookEvents: boolean) =>
        Effect.gen(function*() {
          const seen: Array<string> = []
          const transcript: Claude.Recorder = {
            record: (direction, message) => {
              const line = message as { type?: unknown; subtype?: unknown }
              if (direction === "recv" && line.type === "system" && typeof line.subtype === "string") {
                if (line.subtype.startsWith("hook_")) seen.push(line.subtype)
              }
            }
          }
          const offline = yield* Offline.open([FakeModel.text("ok")], {
            executable: cliPath,
            settings,
            includeHookEvents,
            transcript
          })
          yield* offline.session.run("hi")
          return seen
        })
      const seen = yield* hookLines(true)
      assert.include(seen, "hook_started")
      assert.include(seen, "hook_response")
      assert.deepStrictEqual(yield* hookLines(false), [])
    })).pipe(Effect.provide(processLayer)), 90_000)

  it.live("plugins: two plugin directories, each one's agent listed in initializeResult", () =>
    Effect.scoped(Effect.gen(function*() {
      const root = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "launch-plugins-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const plugin = (name: string) => {
        const dir = Path.join(root, name)
        Fs.mkdirSync(Path.join(dir, ".claude-plugin"), { recursive: true })
        Fs.mkdirSync(Path.join(dir, "agents"))
        Fs.writeFileSync(Path.join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name, version: "1.0.0" }))
        Fs.writeFileSync(
          Path.join(dir, "agents", `${name}-helper.md`),
          `---\nname: ${name}-helper\ndescription: Helps with ${name}\n---\nYou help with ${name}.\n`
        )
        return { type: "local" as const, path: dir }
      }
      const offline = yield* Offline.open([FakeModel.text("ok")], {
        executable: cliPath,
        plugins: [plugin("alpha"), plugin("beta")]
      })
      const names = ((yield* offline.session.initializeResult).agents ?? []).map((agent) => agent.name)
      assert.isTrue(names.some((name) => name.includes("alpha-helper")), JSON.stringify(names))
      assert.isTrue(names.some((name) => name.includes("beta-helper")), JSON.stringify(names))
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("resumeSessionAt", () => {
  it.live("resume up to the first turn's answer: the resumed model request holds the first turn, not the second", () =>
    Effect.scoped(Effect.gen(function*() {
      const first = yield* Offline.open([FakeModel.text("answer one"), FakeModel.text("answer two")], {
        executable: cliPath
      })
      const events = yield* turnEvents(first.session, "question one")
      yield* first.session.run("question two")
      const sessionId = yield* first.session.sessionId
      const uuids = events.flatMap((event) => {
        const e = event as { type?: string; uuid?: unknown }
        return e.type === "assistant" && typeof e.uuid === "string" ? [e.uuid] : []
      })
      const at = uuids[uuids.length - 1]
      assert.isDefined(at)
      // Resumed without it (first, since resuming may rewrite the transcript), the second turn is there.
      const whole = yield* Offline.open([FakeModel.text("answer three")], {
        executable: cliPath,
        cwd: first.cwd,
        env: { HOME: first.home },
        resume: sessionId
      })
      yield* whole.session.run("question three")
      const [wholeRequest] = yield* whole.model.messageRequests
      assert.include(JSON.stringify(wholeRequest?.messages), "question two")
      const resumed = yield* Offline.open([FakeModel.text("answer three")], {
        executable: cliPath,
        cwd: first.cwd,
        env: { HOME: first.home },
        resume: sessionId,
        resumeSessionAt: at!
      })
      yield* resumed.session.run("question three")
      const [request] = yield* resumed.model.messageRequests
      const messages = JSON.stringify(request?.messages)
      assert.include(messages, "question one")
      assert.include(messages, "question three")
      assert.notInclude(messages, "question two")
    })).pipe(Effect.provide(processLayer)), 90_000)
})

/** The uuids of a session's transcript entries of `type` whose text holds `text`, in order. */
const entryUuids = (home: string, sessionId: string, type: string, text: string): ReadonlyArray<string> => {
  const file = filesUnder(Path.join(home, ".claude/projects")).find((f) => f.endsWith(`${sessionId}.jsonl`))
  assert.isDefined(file, "the session's transcript")
  return Fs.readFileSync(Path.join(home, ".claude/projects", file!), "utf8").split("\n").flatMap((line) => {
    if (line === "") return []
    const entry = JSON.parse(line) as { type?: string; uuid?: string; isMeta?: boolean; message?: unknown }
    return entry.type === type && entry.isMeta !== true && typeof entry.uuid === "string" &&
        JSON.stringify(entry.message ?? "").includes(text)
      ? [entry.uuid]
      : []
  })
}

describe("resumeDropsTurn", () => {
  it.live("the CLI drops the declared turn; a turn it would drop besides it refuses the resume (ProcessExited naming it)", () =>
    Effect.scoped(Effect.gen(function*() {
      const first = yield* Offline.open(
        [FakeModel.text("answer one"), FakeModel.text("answer two"), FakeModel.text("answer three")],
        { executable: cliPath }
      )
      yield* first.session.run("question one")
      yield* first.session.run("question two")
      yield* first.session.run("question three")
      const sessionId = yield* first.session.sessionId
      const endOfOne = entryUuids(first.home, sessionId, "assistant", "answer one").at(-1)
      const endOfTwo = entryUuids(first.home, sessionId, "assistant", "answer two").at(-1)
      const promptThree = entryUuids(first.home, sessionId, "user", "question three")[0]
      assert.isDefined(endOfOne)
      assert.isDefined(endOfTwo)
      assert.isDefined(promptThree)
      const resumeWith = (at: string, answer: string) =>
        Offline.open([FakeModel.text(answer)], {
          executable: cliPath,
          cwd: first.cwd,
          env: { HOME: first.home },
          resume: sessionId,
          resumeSessionAt: at,
          resumeDropsTurn: promptThree!
        })
      // Past the end of turn one lie turns two and three: dropping "turn three" would drop two as well.
      const refused = yield* resumeWith(endOfOne!, "answer four")
      const error = yield* Effect.flip(refused.session.run("question four"))
      assert.strictEqual(error.reason._tag, "ProcessExited", String(error))
      if (error.reason._tag === "ProcessExited") {
        assert.include(error.reason.stderrTail, "Resume rejected by --resume-drops-turn:")
      }
      assert.lengthOf(yield* refused.model.messageRequests, 0)
      // Past the end of turn two lies turn three alone: dropped, and the model never sees it.
      const resumed = yield* resumeWith(endOfTwo!, "answer five")
      yield* resumed.session.run("question five")
      const [request] = yield* resumed.model.messageRequests
      const messages = JSON.stringify(request?.messages)
      assert.include(messages, "question two")
      assert.include(messages, "question five")
      assert.notInclude(messages, "question three")
    })).pipe(Effect.provide(processLayer)), 120_000)
})

describe("debug and debugFile", () => {
  it.live("debugFile: the CLI writes its debug log there; debug: the CLI writes it under HOME's .claude/debug", () =>
    Effect.scoped(Effect.gen(function*() {
      const dir = yield* projectWithMemory("debug")
      const file = Path.join(dir, "logs", "debug.txt")
      Fs.mkdirSync(Path.dirname(file))
      const toFile = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, debugFile: file })
      yield* toFile.session.run("hi")
      assert.match(Fs.readFileSync(file, "utf8"), /\[DEBUG\]/)
      const quiet = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath })
      yield* quiet.session.run("hi")
      assert.deepStrictEqual(filesUnder(Path.join(quiet.home, ".claude/debug")), [])
      const debug = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, debug: true })
      yield* debug.session.run("hi")
      const sessionId = yield* debug.session.sessionId
      const log = Path.join(debug.home, ".claude/debug", `${sessionId}.txt`)
      assert.isTrue(Fs.existsSync(log), `no ${sessionId}.txt in ${JSON.stringify(filesUnder(Path.join(debug.home, ".claude/debug")))}`)
      assert.match(Fs.readFileSync(log, "utf8"), /\[DEBUG\]/)
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("title and planModeInstructions (initialize)", () => {
  it.live("title: the new session's transcript carries it as its title", () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open([FakeModel.text("ok")], { executable: cliPath, title: "Release notes 7f3a" })
      yield* offline.session.run("Write the release notes")
      const sessionId = yield* offline.session.sessionId
      const file = filesUnder(Path.join(offline.home, ".claude/projects")).find((f) => f.endsWith(`${sessionId}.jsonl`))
      assert.isDefined(file)
      const titles = Fs.readFileSync(Path.join(offline.home, ".claude/projects", file!), "utf8").split("\n")
        .flatMap((line) => line === "" ? [] : [JSON.parse(line) as { type?: string; customTitle?: string }])
        .flatMap((entry) => entry.type === "custom-title" ? [entry.customTitle] : [])
      assert.deepStrictEqual(titles.slice(-1), ["Release notes 7f3a"])
    })).pipe(Effect.provide(processLayer)), 60_000)

  it.live("planModeInstructions: in plan mode the model reads them in place of the CLI's workflow", () =>
    Effect.scoped(Effect.gen(function*() {
      const marker = "Draft the plan as three bullet points, marker 5c1e."
      const { body } = yield* firstRequest({ permissionMode: "plan", planModeInstructions: marker })
      assert.include(JSON.stringify(body.messages), marker)
      const { body: plain } = yield* firstRequest({ permissionMode: "plan" })
      assert.notInclude(JSON.stringify(plain.messages), "marker 5c1e")
    })).pipe(Effect.provide(processLayer)), 60_000)
})

describe("promptSuggestions (initialize)", () => {
  /** The model: a suggestion for the CLI's suggestion requests, "ok" for the turns. */
  const suggesting: FakeModel.Script = (request) =>
    FakeModel.text(JSON.stringify(request.messages.at(-1)?.content ?? "").includes("SUGGESTION MODE") ? "run the tests 9d2b" : "ok")

  it.live("after the second turn the CLI writes the model's suggestion, read from Session.events; without the option it never asks", () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open(suggesting, { executable: cliPath, promptSuggestions: true })
      const suggestion = yield* offline.session.events.pipe(
        Stream.filter((event) => event.type === "prompt_suggestion"),
        Stream.runHead,
        Effect.forkScoped
      )
      yield* offline.session.run("question one")
      yield* offline.session.run("question two")
      const first = yield* Fiber.join(suggestion).pipe(Effect.timeout("30 seconds"))
      assert.isTrue(Option.isSome(first))
      assert.strictEqual(Option.isSome(first) && first.value.type === "prompt_suggestion" ? first.value.suggestion : "", "run the tests 9d2b")

      const plain = yield* Offline.open(suggesting, { executable: cliPath })
      yield* plain.session.run("question one")
      yield* plain.session.run("question two")
      yield* plain.session.run("question three")
      const asked = (yield* plain.model.messageRequests).filter((request) => JSON.stringify(request.messages).includes("SUGGESTION MODE"))
      assert.lengthOf(asked, 0)
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("permissionPromptToolName", () => {
  it.live("the CLI asks the named MCP tool about a risky call; its deny reaches the model as the tool result", () =>
    Effect.scoped(Effect.gen(function*() {
      const asked: Array<string> = []
      const ask = McpServers.tool({
        name: "ask",
        description: "Answers permission prompts.",
        input: Schema.Struct({ tool_name: Schema.String, input: Schema.Unknown }),
        handler: ({ tool_name }) =>
          Effect.sync(() => {
            asked.push(tool_name)
            return JSON.stringify({ behavior: "deny", message: "Denied by the prompt tool 6e2b" })
          })
      })
      const offline = yield* Offline.open(
        [FakeModel.toolUse("Bash", { command: "touch made-by-bash", description: "Make a file" }), FakeModel.text("done")],
        { executable: cliPath, permissionMode: "default", permissionPromptToolName: "mcp__perm__ask" }
      ).pipe(Effect.provide(McpServers.layer(McpServers.server("perm", { tools: [ask] }))))
      yield* offline.session.run("Make a file")
      assert.deepStrictEqual(asked, ["Bash"])
      const requests = yield* offline.model.messageRequests
      const results = requests.flatMap((request) => FakeModel.toolResults(request))
      assert.isTrue(results.some((r) => r.content.includes("Denied by the prompt tool 6e2b")), JSON.stringify(results))
      assert.isFalse(Fs.existsSync(Path.join(offline.cwd, "made-by-bash")))
    })).pipe(Effect.provide(processLayer)), 90_000)
})

describe("skills", () => {
  it.live("skills: only the named project skill is offered to the model", () =>
    Effect.scoped(Effect.gen(function*() {
      const cwd = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "launch-skills-"))
          for (const name of ["alpha", "beta"]) {
            const skill = Path.join(dir, ".claude", "skills", name)
            Fs.mkdirSync(skill, { recursive: true })
            Fs.writeFileSync(
              Path.join(skill, "SKILL.md"),
              `---\nname: ${name}\ndescription: The ${name} skill 4d0c-${name}\n---\nDo ${name} things.\n`
            )
          }
          return dir
        }),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const all = yield* firstRequest({ cwd })
      const plain = JSON.stringify(all.request.body)
      assert.include(plain, "4d0c-alpha")
      assert.include(plain, "4d0c-beta")
      const only = yield* firstRequest({ cwd, skills: ["alpha"] })
      const body = JSON.stringify(only.request.body)
      assert.include(body, "4d0c-alpha")
      assert.notInclude(body, "4d0c-beta")
    })).pipe(Effect.provide(processLayer)), 90_000)
})
