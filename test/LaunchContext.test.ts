/**
 * The limits, models, context and session identity options (issue 15): the flags they become,
 * spelled as the official SDK 0.3.332 sends them, and the options `validate` refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }
const asking: Launch.Wiring = { mcpServers: [], permissionPromptTool: true }

/** The arguments after `--settings <json>`, the last base flag. */
const tail = (options: Launch.LaunchOptions, wiring: Launch.Wiring = noWiring): ReadonlyArray<string> => {
  const { args } = Launch.buildCommand(options, wiring)
  const at = args.indexOf("--settings")
  return args.slice(at + 2)
}

const invalidOf = (options: Launch.LaunchOptions, wiring?: Launch.Wiring) =>
  Launch.validate(options, wiring).pipe(
    Effect.flip,
    Effect.map((error) => {
      assert.strictEqual(error.reason._tag, "InvalidInput")
      return error.message
    })
  )

describe("buildCommand: thinking and effort", () => {
  it("maps thinking as the SDK does", () => {
    assert.deepStrictEqual(tail({ thinking: { type: "adaptive" } }), ["--thinking=adaptive"])
    assert.deepStrictEqual(tail({ thinking: { type: "disabled" } }), ["--thinking=disabled"])
    assert.deepStrictEqual(tail({ thinking: { type: "enabled", budgetTokens: 2048 } }), [
      "--max-thinking-tokens",
      "2048"
    ])
    assert.deepStrictEqual(tail({ thinking: { type: "enabled" } }), ["--thinking=adaptive"])
    assert.deepStrictEqual(tail({ thinking: { type: "adaptive", display: "omitted" } }), [
      "--thinking=adaptive",
      "--thinking-display",
      "omitted"
    ])
  })

  it("maps maxThinkingTokens: 0 disables thinking, any other count is a budget", () => {
    assert.deepStrictEqual(tail({ maxThinkingTokens: 0 }), ["--thinking=disabled"])
    assert.deepStrictEqual(tail({ maxThinkingTokens: 1024 }), ["--max-thinking-tokens", "1024"])
  })

  it("passes --effort", () => {
    for (const level of Launch.effortLevels) assert.deepStrictEqual(tail({ effort: level }), ["--effort", level])
  })
})

describe("buildCommand: limits, context and identity", () => {
  it("maps each option to its flag", () => {
    assert.deepStrictEqual(tail({ maxBudgetUsd: 0.25 }), ["--max-budget-usd", "0.25"])
    assert.deepStrictEqual(tail({ taskBudget: { total: 50000 } }), ["--task-budget", "50000"])
    assert.deepStrictEqual(tail({ settingSources: ["project", "local"] }), ["--setting-sources", "project,local"])
    assert.deepStrictEqual(tail({ settingSources: [] }), ["--setting-sources", ""])
    assert.deepStrictEqual(tail({ betas: ["context-1m-2025-08-07", "b"] }), ["--betas", "context-1m-2025-08-07,b"])
    assert.deepStrictEqual(tail({ betas: [] }), [])
    assert.deepStrictEqual(tail({ tools: ["Read", "Grep"] }), ["--tools", "Read,Grep"])
    assert.deepStrictEqual(tail({ tools: [] }), ["--tools", ""])
    assert.deepStrictEqual(tail({ tools: { type: "preset", preset: "claude_code" } }), ["--tools", "default"])
    assert.deepStrictEqual(tail({ agent: "reviewer" }), ["--agent", "reviewer"])
    const id = "0b8f4a52-3f1e-4c1d-9f0a-6d2f1e7a9b3c"
    assert.deepStrictEqual(tail({ sessionId: id }), ["--session-id", id])
    assert.deepStrictEqual(tail({ resume: "s", resumeSessionAt: id }), ["--resume=s", "--resume-session-at", id])
    assert.deepStrictEqual(tail({ persistSession: false }), ["--no-session-persistence"])
    assert.deepStrictEqual(tail({ persistSession: true }), [])
    assert.deepStrictEqual(tail({ includeHookEvents: true }), ["--include-hook-events"])
    assert.deepStrictEqual(tail({ resume: "s", resumeSessionAt: id, resumeDropsTurn: "p" }), [
      "--resume=s",
      "--resume-session-at",
      id,
      "--resume-drops-turn",
      "p"
    ])
    assert.deepStrictEqual(tail({ debug: true }), ["--debug"])
    assert.deepStrictEqual(tail({ projectConfigRoot: "/srv/repo" }), ["--project-config-root", "/srv/repo"])
    assert.deepStrictEqual(
      tail({ managedSettings: { permissions: { deny: ["Bash"] } } }),
      ["--managed-settings", `{"permissions":{"deny":["Bash"]}}`]
    )
    assert.deepStrictEqual(tail({ debug: false }), [])
    assert.deepStrictEqual(tail({ debug: "hooks,mcp" }), ["--debug=hooks,mcp"])
    assert.deepStrictEqual(tail({ debug: "!statsig" }), ["--debug=!statsig"])
    assert.deepStrictEqual(tail({ debugFile: "logs/d.txt", debug: true }), ["--debug-file", "logs/d.txt"])
    assert.deepStrictEqual(tail({ debugFile: "-d.txt" }), ["--debug-file=-d.txt"])
    assert.deepStrictEqual(tail({ plugins: [{ type: "local", path: "a" }, { type: "local", path: "b" }] }), [
      "--plugin-dir",
      "a",
      "--plugin-dir",
      "b"
    ])
    assert.deepStrictEqual(tail({ permissionPromptToolName: "mcp__perm__ask" }), [
      "--permission-prompt-tool",
      "mcp__perm__ask"
    ])
  })

  it("sandbox goes in the --settings JSON; enabled without failIfUnavailable fails closed, in settings.sandbox too", () => {
    const settingsOf = (options: Launch.LaunchOptions) => {
      const args = Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false }).args
      return JSON.parse(args[args.indexOf("--settings") + 1]!) as { sandbox?: unknown; model?: unknown }
    }
    assert.deepStrictEqual(settingsOf({ sandbox: { enabled: true } }).sandbox, { enabled: true, failIfUnavailable: true })
    assert.deepStrictEqual(settingsOf({ sandbox: { enabled: true, failIfUnavailable: false } }).sandbox, { enabled: true, failIfUnavailable: false })
    assert.deepStrictEqual(settingsOf({ sandbox: { enabled: false } }).sandbox, { enabled: false })
    assert.deepStrictEqual(
      settingsOf({ sandbox: { enabled: true, network: { allowedDomains: ["example.com"] } } }).sandbox,
      { enabled: true, network: { allowedDomains: ["example.com"] }, failIfUnavailable: true }
    )
    const viaSettings = settingsOf({ settings: { model: "m", sandbox: { enabled: true } } })
    assert.deepStrictEqual(viaSettings, { ...viaSettings, model: "m", sandbox: { enabled: true, failIfUnavailable: true } })
    assert.isUndefined(settingsOf({}).sandbox)
  })

  it("skills add Skill rules after allowedTools, as the SDK does", () => {
    assert.deepStrictEqual(tail({ skills: ["pdf", "docx"] }), ["--allowedTools", "Skill(pdf),Skill(docx)"])
    assert.deepStrictEqual(tail({ allowedTools: ["Read", "Skill(pdf)"], skills: ["pdf"] }), [
      "--allowedTools",
      "Read,Skill(pdf)"
    ])
    assert.deepStrictEqual(tail({ skills: "all" }), ["--allowedTools", "Skill"])
    assert.deepStrictEqual(tail({ skills: [] }), [])
  })

  it("a system prompt preset keeps the CLI's prompt and appends (in initialize, not on the command line)", () => {
    assert.deepStrictEqual(tail({ systemPrompt: { type: "preset", preset: "claude_code" } }), [])
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: { type: "preset", preset: "claude_code" } }), {})
    assert.deepStrictEqual(tail({ systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief." } }), [])
    assert.deepStrictEqual(
      Launch.initializePrompts({ systemPrompt: { type: "preset", preset: "claude_code", append: "Be brief." } }),
      { appendSystemPrompt: "Be brief." }
    )
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: "Only this." }), { systemPrompt: "Only this." })
  })

  it("puts the new flags after the existing option flags and before extraArgs", () => {
    assert.deepStrictEqual(tail({ maxTurns: 2, effort: "low", extraArgs: ["--x"] }), [
      "--max-turns",
      "2",
      "--effort",
      "low",
      "--x"
    ])
  })
})

describe("validate: limits, context and identity", () => {
  it.effect("accepts good options", () =>
    Effect.gen(function*() {
      const good: Launch.LaunchOptions = {
        thinking: { type: "enabled", budgetTokens: 1024, display: "summarized" },
        effort: "max",
        maxBudgetUsd: 0.01,
        taskBudget: { total: 1000 },
        settingSources: ["user", "project", "local"],
        betas: ["x"],
        tools: [],
        agent: "a",
        sessionId: "0B8F4A52-3F1E-4C1D-9F0A-6D2F1E7A9B3C",
        persistSession: false,
        includeHookEvents: true,
        plugins: [{ type: "local", path: "p" }],
        systemPrompt: { type: "preset", preset: "claude_code", append: "x" },
        agents: { reviewer: { description: "d", prompt: "p", tools: ["Read"], model: "haiku", maxTurns: 3 } },
        forwardSubagentText: true
      }
      assert.deepStrictEqual(yield* Launch.validate(good), good)
      assert.deepStrictEqual(yield* Launch.validate({ maxThinkingTokens: 0 }), { maxThinkingTokens: 0 })
    }))

  it.effect("rejects bad values with InvalidInput", () =>
    Effect.gen(function*() {
      const loose = (u: unknown) => u as Launch.LaunchOptions
      const cases: ReadonlyArray<readonly [Launch.LaunchOptions, string]> = [
        [{ maxBudgetUsd: -1 }, "maxBudgetUsd must be a positive number of US dollars (got -1)"],
        [{ maxBudgetUsd: 0 }, "maxBudgetUsd must be a positive number"],
        [{ maxBudgetUsd: Number.POSITIVE_INFINITY }, "maxBudgetUsd must be a positive number"],
        [loose({ maxBudgetUsd: "1" }), "maxBudgetUsd must be a positive number"],
        [{ taskBudget: { total: 0 } }, "taskBudget must be { total } with a positive integer"],
        [{ taskBudget: { total: 1.5 } }, "taskBudget must be { total } with a positive integer"],
        [loose({ settingSources: ["project", "global"] }), `settingSources must hold only user, project, local (got "global")`],
        [loose({ settingSources: "project" }), "settingSources must be an array of non-empty strings"],
        [loose({ thinking: { type: "on" } }), "thinking must be"],
        [{ thinking: { type: "enabled", budgetTokens: -5 } }, "thinking.budgetTokens must be a positive integer (got -5)"],
        [loose({ thinking: { type: "disabled", display: "omitted" } }), "thinking.display cannot be set"],
        [loose({ thinking: { type: "adaptive", display: "loud" } }), `thinking.display must be "summarized" or "omitted"`],
        [{ thinking: { type: "adaptive" }, maxThinkingTokens: 5 }, "thinking and maxThinkingTokens cannot be combined"],
        [{ maxThinkingTokens: -1 }, "maxThinkingTokens must be a non-negative integer (got -1)"],
        [loose({ effort: "extreme" }), "effort must be one of low, medium, high, xhigh, max (got extreme)"],
        [{ betas: [""] }, "betas must be an array of non-empty strings"],
        [loose({ tools: { type: "preset", preset: "other" } }), "tools must be an array of tool names or"],
        [{ tools: ["Read", ""] }, "tools must be an array of non-empty strings"],
        [{ agent: "" }, "agent must be a non-empty string"],
        [{ sessionId: "not-a-uuid" }, "sessionId must be a UUID (got not-a-uuid)"],
        [{ sessionId: "0b8f4a52-3f1e-4c1d-9f0a-6d2f1e7a9b3c", resume: "x" }, "sessionId with resume or continueConversation needs forkSession"],
        [{ resumeSessionAt: "m" }, "resumeSessionAt needs resume"],
        [{ resume: "s", resumeDropsTurn: "p" }, "resumeDropsTurn needs resumeSessionAt"],
        [{ resume: "s", resumeSessionAt: "m", resumeDropsTurn: " " }, "resumeDropsTurn must be a non-empty string"],
        [loose({ debug: 1 }), "debug must be a boolean or a non-empty category filter"],
        [{ debug: "" }, "debug must be a boolean or a non-empty category filter"],
        [{ debugFile: "" }, "debugFile must be a non-empty string"],
        [{ debugFile: "a\0b" }, "debugFile must not contain NUL characters"],
        [loose({ persistSession: "no" }), "persistSession must be a boolean"],
        [loose({ includeHookEvents: 1 }), "includeHookEvents must be a boolean"],
        [loose({ plugins: [{ type: "remote", path: "x" }] }), `plugins must hold { type: "local", path }`],
        [{ plugins: [{ type: "local", path: "" }] }, `plugins must hold { type: "local", path }`],
        [loose({ systemPrompt: { type: "preset", preset: "other" } }), `systemPrompt must be a string or { type: "preset"`],
        [
          { systemPrompt: { type: "preset", preset: "claude_code", append: "a" }, appendSystemPrompt: "b" },
          "systemPrompt.append and appendSystemPrompt cannot be combined"
        ],
        [{ permissionPromptToolName: "" }, "permissionPromptToolName must be a non-empty string"],
        [loose({ agents: [] }), "agents must be an object of agent definitions by name"],
        [loose({ agents: { r: "x" } }), "agents.r must be an object { description, prompt, ... }"],
        [{ agents: { r: { description: "", prompt: "p" } } }, "agents.r.description must be a non-empty string"],
        [{ agents: { r: { description: "d", prompt: " " } } }, "agents.r.prompt must be a non-empty string"],
        [{ agents: { r: { description: "d", prompt: "p", tools: [""] } } }, "agents.r.tools must be an array of non-empty strings"],
        [{ agents: { r: { description: "d", prompt: "p", maxTurns: 0 } } }, "agents.r.maxTurns must be a positive integer (got 0)"],
        [loose({ agents: { r: { description: "d", prompt: "p", permissionMode: "x" } } }), "agents.r.permissionMode must be one of"],
        [loose({ forwardSubagentText: "yes" }), "forwardSubagentText must be a boolean"],
        [{ title: " " }, "title must be a non-empty string"],
        [loose({ sandbox: true }), "sandbox must be an object"],
        [loose({ sandbox: { enabled: "yes" } }), "sandbox.enabled must be a boolean"],
        [loose({ sandbox: { failIfUnavailable: 0 } }), "sandbox.failIfUnavailable must be a boolean"],
        [loose({ sandbox: { enable: true } }), "sandbox.enable is not a sandbox setting (enabled, failIfUnavailable,"],
        [{ sandbox: { enabled: true }, settings: { sandbox: { enabled: false } } }, "sandbox and settings.sandbox cannot be combined"],
        [{ projectConfigRoot: "repo" }, "projectConfigRoot must be an absolute path (got repo)"],
        [{ projectConfigRoot: "/srv/\0" }, "projectConfigRoot must not contain NUL characters"],
        [loose({ managedSettings: ["deny"] }), "managedSettings must be an object"],
        [{ managedSettings: { permissions: { deny: [new Map()] } } }, "managedSettings must be plain JSON data"],
        [loose({ planModeInstructions: 5 }), "planModeInstructions must be a non-empty string"],
        [loose({ skills: "some" }), `skills must be "all" or an array of non-empty skill names`],
        [{ skills: [""] }, `skills must be "all" or an array of non-empty skill names`],
        [{ skills: ["a,b"] }, `skills name "a,b": parentheses, commas and control characters are not allowed`]
      ]
      for (const [options, expected] of cases) {
        const message = yield* invalidOf(options)
        assert.include(message, expected, JSON.stringify(options))
      }
    }))

  it.effect("permissionPromptToolName cannot be combined with a Permissions layer", () =>
    Effect.gen(function*() {
      const message = yield* invalidOf({ permissionPromptToolName: "mcp__p__ask" }, asking)
      assert.include(message, "permissionPromptToolName cannot be combined with a Permissions layer")
      assert.deepStrictEqual(yield* Launch.validate({ permissionPromptToolName: "mcp__p__ask" }, noWiring), {
        permissionPromptToolName: "mcp__p__ask"
      })
    }))
})

describe("initialize: agents and forwardSubagentText", () => {
  /** The `initialize` request a session with these options sends. */
  const initializeOf = (options: Claude.SessionOptions) =>
    Effect.gen(function*() {
      const seen = yield* Deferred.make<Record<string, unknown>>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const initialize = yield* FakeCli.answerInitialize(cli)
          yield* Deferred.succeed(seen, initialize.request as Record<string, unknown>)
          return yield* Effect.never
        })
      )
      return yield* Effect.scoped(Effect.gen(function*() {
        yield* Claude.open(options)
        return yield* Deferred.await(seen)
      })).pipe(Effect.provide(cli))
    })

  it.effect("sends the definitions and the flag as the SDK does; neither when unset", () =>
    Effect.gen(function*() {
      const agents = { reviewer: { description: "Reviews", prompt: "You review.", tools: ["Read"], model: "haiku" } }
      const sent = yield* initializeOf({ agents, forwardSubagentText: true, skills: ["pdf"] })
      assert.deepStrictEqual(sent.skills, ["pdf"])
      assert.deepStrictEqual(sent.agents, agents)
      assert.strictEqual(sent.forwardSubagentText, true)
      const plain = yield* initializeOf({})
      assert.isFalse("agents" in plain)
      assert.isFalse("forwardSubagentText" in plain)
      assert.isFalse("skills" in plain)
      assert.isFalse("skills" in (yield* initializeOf({ skills: "all" })))
    }))
})
