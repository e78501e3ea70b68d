import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { invalidMessage } from "./support/outcomes.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }
const repoRoot = Path.resolve(import.meta.dirname, "..")
const realCli = Path.join(repoRoot, "node_modules", ".bin", "claude")

const base = [
  "--output-format",
  "stream-json",
  "--input-format",
  "stream-json",
  "--verbose",
  "--include-partial-messages",
  "--settings",
  `{"attribution":{"commit":"","pr":""}}`
]

/** The base flags with the permission flags a command line has when the CLI asks a handler. */
const baseAsking = [...base.slice(0, 6), "--permission-mode", "default", ...base.slice(6)]

/** The arguments after the fixed base flags. */
const tail = (options: Launch.LaunchOptions, wiring: Launch.Wiring = noWiring): ReadonlyArray<string> => {
  const { args } = Launch.buildCommand(options, wiring)
  const expected = wiring.permissionPromptTool && options.permissionMode === undefined ? baseAsking : base
  assert.deepStrictEqual(args.slice(0, expected.length), expected)
  return args.slice(expected.length)
}

describe("buildCommand: arguments", () => {
  it("emits the exact base flags for empty options", () => {
    assert.deepStrictEqual(Launch.buildCommand({}, noWiring).args, base)
  })

  it("passes no --permission-mode when none is named: the CLI picks its own, as with the official SDKs", () => {
    const { args } = Launch.buildCommand({}, noWiring)
    assert.isFalse(args.includes("--permission-mode"))
    assert.isFalse(args.some((arg) => arg.includes("dangerously")))
    assert.isUndefined(Launch.effectivePermissionMode({}, noWiring))
  })

  it("passes bypassPermissions (with --allow-dangerously-skip-permissions) only when asked", () => {
    assert.deepStrictEqual(Launch.buildCommand({ permissionMode: "bypassPermissions" }, noWiring).args, [
      ...base.slice(0, 6),
      "--permission-mode",
      "bypassPermissions",
      "--allow-dangerously-skip-permissions",
      ...base.slice(6)
    ])
    for (const mode of Launch.permissionModes.filter((m) => m !== "bypassPermissions")) {
      const { args } = Launch.buildCommand({ permissionMode: mode }, noWiring)
      assert.deepStrictEqual(args.slice(5, 8), ["--include-partial-messages", "--permission-mode", mode])
      assert.isFalse(args.some((arg) => arg.includes("dangerously")), mode)
    }
  })

  it("with a permission handler and no mode, passes default, so the CLI asks the handler whatever its settings say", () => {
    const asking: Launch.Wiring = { mcpServers: [], permissionPromptTool: true }
    assert.deepStrictEqual(Launch.buildCommand({}, asking).args, [...baseAsking, "--permission-prompt-tool", "stdio"])
    assert.strictEqual(Launch.effectivePermissionMode({}, asking), "default")
    // A mode the program names wins.
    const { args } = Launch.buildCommand({ permissionMode: "acceptEdits" }, asking)
    assert.deepStrictEqual(args.slice(6, 8), ["--permission-mode", "acceptEdits"])
    assert.isFalse(args.includes("default"))
  })

  it("leaves out --include-partial-messages only when turned off", () => {
    assert.isFalse(Launch.buildCommand({ includePartialMessages: false }, noWiring).args.includes("--include-partial-messages"))
    assert.deepStrictEqual(Launch.buildCommand({ includePartialMessages: true }, noWiring).args, base)
    assert.deepStrictEqual(Launch.buildCommand({}, noWiring).args, base)
  })

  it("merges the user's settings with the attribution default", () => {
    const settingsOf = (settings: Launch.Settings) => {
      const { args } = Launch.buildCommand({ settings }, noWiring)
      return args[args.indexOf("--settings") + 1]
    }
    assert.strictEqual(
      settingsOf({ model: "opus", env: { A: "1" } }),
      `{"attribution":{"commit":"","pr":""},"model":"opus","env":{"A":"1"}}`
    )
    assert.strictEqual(settingsOf({ attribution: { commit: "Co-authored-by: X" } }), `{"attribution":{"commit":"Co-authored-by: X","pr":""}}`)
    assert.strictEqual(settingsOf({ attribution: { commit: "c", pr: "p" } }), `{"attribution":{"commit":"c","pr":"p"}}`)
  })

  it("writes --mcp-config only with servers, alwaysLoad only where true", () => {
    assert.deepStrictEqual(tail({}, { mcpServers: [{ name: "byre", alwaysLoad: true }], permissionPromptTool: false }), [
      "--mcp-config",
      `{"mcpServers":{"byre":{"type":"sdk","name":"byre","alwaysLoad":true}}}`
    ])
    assert.deepStrictEqual(
      tail({}, {
        mcpServers: [{ name: "byre", alwaysLoad: true }, { name: "other", alwaysLoad: false }],
        permissionPromptTool: false
      }),
      [
        "--mcp-config",
        `{"mcpServers":{"byre":{"type":"sdk","name":"byre","alwaysLoad":true},"other":{"type":"sdk","name":"other"}}}`
      ]
    )
    assert.isFalse(Launch.buildCommand({}, noWiring).args.includes("--mcp-config"))
  })

  it("adds --permission-prompt-tool stdio only when wired", () => {
    assert.deepStrictEqual(tail({}, { mcpServers: [], permissionPromptTool: true }), ["--permission-prompt-tool", "stdio"])
    assert.deepStrictEqual(
      tail({}, { mcpServers: [{ name: "byre", alwaysLoad: false }], permissionPromptTool: true }),
      ["--mcp-config", `{"mcpServers":{"byre":{"type":"sdk","name":"byre"}}}`, "--permission-prompt-tool", "stdio"]
    )
    assert.isFalse(Launch.buildCommand({}, noWiring).args.includes("--permission-prompt-tool"))
  })

  it("maps each option to its flag", () => {
    assert.deepStrictEqual(tail({ model: "sonnet" }), ["--model", "sonnet"])
    assert.deepStrictEqual(tail({ fallbackModel: "haiku,sonnet" }), ["--fallback-model", "haiku,sonnet"])
    assert.deepStrictEqual(tail({ resume: "abc" }), ["--resume=abc"])
    assert.deepStrictEqual(tail({ resume: "s", forkSession: true }), ["--resume=s", "--fork-session"])
    assert.deepStrictEqual(tail({ continueConversation: true }), ["--continue"])
    assert.deepStrictEqual(tail({ forkSession: false, continueConversation: false, replayUserMessages: false }), [])
    // The system prompt goes in `initialize` (`Launch.initializePrompts`), never on the command line.
    assert.deepStrictEqual(tail({ systemPrompt: "Be terse." }), [])
    assert.deepStrictEqual(tail({ systemPrompt: "" }), [])
    assert.deepStrictEqual(tail({ appendSystemPrompt: "Also X." }), [])
    assert.deepStrictEqual(tail({ allowedTools: ["Read", "Bash(git *)"] }), ["--allowedTools", "Read,Bash(git *)"])
    assert.deepStrictEqual(tail({ allowedTools: [] }), [])
    assert.deepStrictEqual(tail({ disallowedTools: ["Edit", "Write"] }), ["--disallowedTools", "Edit,Write"])
    assert.deepStrictEqual(tail({ maxTurns: 7 }), ["--max-turns", "7"])
    assert.deepStrictEqual(tail({ addDirs: ["/a", "b c"] }), ["--add-dir", "/a", "--add-dir", "b c"])
    assert.deepStrictEqual(tail({ replayUserMessages: true }), ["--replay-user-messages"])
  })

  it("passes a resume id starting with - as the single element --resume=-abc", () => {
    const rest = tail({ resume: "-abc" })
    assert.deepStrictEqual(rest, ["--resume=-abc"])
    assert.isFalse(rest.includes("-abc"))
  })

  it("uses --flag=value for any value starting with -", () => {
    assert.deepStrictEqual(tail({ model: "-m" }), ["--model=-m"])
    assert.deepStrictEqual(tail({ addDirs: ["-d"] }), ["--add-dir=-d"])
  })

  it("appends extra args last, from a record or verbatim from an array", () => {
    assert.deepStrictEqual(tail({ extraArgs: { effort: "high", debug: null, "debug-file": "-x" }, model: "m" }), [
      "--model",
      "m",
      "--effort",
      "high",
      "--debug",
      "--debug-file=-x"
    ])
    assert.deepStrictEqual(tail({ extraArgs: ["--plugin-dir", "a", "--plugin-dir", "b"], replayUserMessages: true }), [
      "--replay-user-messages",
      "--plugin-dir",
      "a",
      "--plugin-dir",
      "b"
    ])
  })

  it("the system prompt's fields of initialize: a string replaces the prompt, a preset's append or appendSystemPrompt is added", () => {
    assert.deepStrictEqual(Launch.initializePrompts({}), {})
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: "Be terse." }), { systemPrompt: "Be terse." })
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: "" }), { systemPrompt: "" })
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: "- be terse" }), { systemPrompt: "- be terse" })
    assert.deepStrictEqual(Launch.initializePrompts({ appendSystemPrompt: "Also X." }), { appendSystemPrompt: "Also X." })
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: "S", appendSystemPrompt: "A" }), { systemPrompt: "S", appendSystemPrompt: "A" })
    assert.deepStrictEqual(Launch.initializePrompts({ systemPrompt: { type: "preset", preset: "claude_code", append: "B" } }), {
      appendSystemPrompt: "B"
    })
  })

  it("orders every option the same way", () => {
    const { args } = Launch.buildCommand(
      {
        executable: "/bin/claude",
        cwd: "/tmp",
        model: "opus",
        fallbackModel: "sonnet",
        resume: "id-1",
        forkSession: true,
        permissionMode: "acceptEdits",
        systemPrompt: "S",
        appendSystemPrompt: "A",
        allowedTools: ["Read"],
        disallowedTools: ["Bash"],
        maxTurns: 3,
        addDirs: ["/x"],
        settings: { model: "opus" },
        replayUserMessages: true,
        includePartialMessages: false,
        extraArgs: { effort: "max" }
      },
      { mcpServers: [{ name: "byre", alwaysLoad: true }], permissionPromptTool: true }
    )
    assert.deepStrictEqual(args, [
      "--output-format",
      "stream-json",
      "--input-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--settings",
      `{"attribution":{"commit":"","pr":""},"model":"opus"}`,
      "--mcp-config",
      `{"mcpServers":{"byre":{"type":"sdk","name":"byre","alwaysLoad":true}}}`,
      "--permission-prompt-tool",
      "stdio",
      "--model",
      "opus",
      "--fallback-model",
      "sonnet",
      "--resume=id-1",
      "--fork-session",
      "--allowedTools",
      "Read",
      "--disallowedTools",
      "Bash",
      "--max-turns",
      "3",
      "--add-dir",
      "/x",
      "--replay-user-messages",
      "--effort",
      "max"
    ])
  })
})

describe("buildCommand: environment", () => {
  it("always removes CLAUDECODE and sets the sdk-ts entrypoint", () => {
    const { env } = Launch.buildCommand({}, noWiring)
    assert.deepStrictEqual(env, {
      CLAUDE_CODE_ENTRYPOINT: "sdk-ts",
      DEBUG: undefined,
      DEBUG_SDK: undefined,
      NODE_OPTIONS: undefined,
      BUN_ENABLE_CRASH_REPORTING: "0",
      CLAUDECODE: undefined
    })
    assert.isTrue(Object.hasOwn(env, "CLAUDECODE"))
    const forced = Launch.buildCommand({ env: { CLAUDECODE: "1" } }, noWiring).env
    assert.isTrue(Object.hasOwn(forced, "CLAUDECODE"))
    assert.strictEqual(forced.CLAUDECODE, undefined)
  })

  // The CLI's runtime (Bun) sends crash reports to its makers unless told not to; the official SDK
  // turns them off unless the program asks for them.
  it("turns the CLI runtime's crash reports off unless the session's env asks for them", () => {
    assert.strictEqual(Launch.buildCommand({}, noWiring).env.BUN_ENABLE_CRASH_REPORTING, "0")
    assert.strictEqual(
      Launch.buildCommand({ env: { BUN_ENABLE_CRASH_REPORTING: "1" } }, noWiring).env.BUN_ENABLE_CRASH_REPORTING,
      "1"
    )
    const reported = Launch.buildCommand({ env: { BUN_CRASH_REPORT_URL: "https://crash.example" } }, noWiring).env
    assert.isFalse(Object.hasOwn(reported, "BUN_ENABLE_CRASH_REPORTING"))
  })

  it("lets env override the entrypoint and remove variables", () => {
    const { env } = Launch.buildCommand({ env: { CLAUDE_CODE_ENTRYPOINT: "mine", FOO: "bar", HOME: undefined } }, noWiring)
    assert.strictEqual(env.CLAUDE_CODE_ENTRYPOINT, "mine")
    assert.strictEqual(env.FOO, "bar")
    assert.isTrue(Object.hasOwn(env, "HOME"))
    assert.strictEqual(env.HOME, undefined)
  })

  it("sets PWD to the absolute cwd", () => {
    assert.strictEqual(Launch.buildCommand({ cwd: "/srv/x" }, noWiring).env.PWD, "/srv/x")
    assert.strictEqual(Launch.buildCommand({ cwd: "rel" }, noWiring).env.PWD, Path.resolve("rel"))
    assert.isFalse(Object.hasOwn(Launch.buildCommand({}, noWiring).env, "PWD"))
  })

  it("keeps secrets Redacted: apiKey, Redacted env values, secretEnv and default secret names", () => {
    const apiKey = Redacted.make("sk-live-123")
    const token = Redacted.make("tok-456")
    const { env } = Launch.buildCommand({
      apiKey,
      env: { MY_TOKEN: token, DB_PASSWORD: "pw-789", GITHUB_TOKEN: "gh-000", PLAIN: "visible" },
      secretEnv: ["DB_PASSWORD"]
    }, noWiring)
    assert.strictEqual(env.ANTHROPIC_API_KEY, apiKey)
    assert.strictEqual(env.MY_TOKEN, token)
    for (const [name, secret] of [["DB_PASSWORD", "pw-789"], ["GITHUB_TOKEN", "gh-000"]] as const) {
      const value = env[name]
      assert.isTrue(Redacted.isRedacted(value), name)
      if (!Redacted.isRedacted(value)) return
      assert.strictEqual(Redacted.value(value), secret)
    }
    assert.strictEqual(env.PLAIN, "visible")
    const shown = JSON.stringify(env) + String(Object.values(env))
    for (const secret of ["sk-live-123", "tok-456", "pw-789", "gh-000"]) assert.notInclude(shown, secret)
  })

  it("lets apiKey win over an ANTHROPIC_API_KEY in env", () => {
    const apiKey = Redacted.make("k2")
    const { env } = Launch.buildCommand({ apiKey, env: { ANTHROPIC_API_KEY: "k1" } }, noWiring)
    assert.strictEqual(env.ANTHROPIC_API_KEY, apiKey)
  })

  it("sets the git identity for author and committer", () => {
    const { env } = Launch.buildCommand({ gitIdentity: { name: "Bot", email: "bot@example.com" } }, noWiring)
    assert.strictEqual(env.GIT_AUTHOR_NAME, "Bot")
    assert.strictEqual(env.GIT_AUTHOR_EMAIL, "bot@example.com")
    assert.strictEqual(env.GIT_COMMITTER_NAME, "Bot")
    assert.strictEqual(env.GIT_COMMITTER_EMAIL, "bot@example.com")
  })

  it("turns on file checkpointing only when asked", () => {
    assert.strictEqual(
      Launch.buildCommand({ fileCheckpointing: true }, noWiring).env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING,
      "true"
    )
    assert.isFalse(
      Object.hasOwn(Launch.buildCommand({ fileCheckpointing: false }, noWiring).env, "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING")
    )
  })

  it("keeps process-level options out of argv", () => {
    const { args } = Launch.buildCommand({ executable: "/opt/claude", cwd: "/srv", apiKey: Redacted.make("k") }, noWiring)
    assert.deepStrictEqual(args, base)
  })
})

/**
 * Every option of a session set to `undefined`. The type lists every key (a key added to
 * `SessionOptions` and left out here fails to compile), and passing it where options are expected
 * type-checks only while every field accepts `undefined` under `exactOptionalPropertyTypes`.
 */
const everyOptionUndefined: { readonly [K in keyof Required<Claude.SessionOptions>]: undefined } = {
  executable: undefined,
  cwd: undefined,
  model: undefined,
  fallbackModel: undefined,
  resume: undefined,
  forkSession: undefined,
  continueConversation: undefined,
  permissionMode: undefined,
  systemPrompt: undefined,
  appendSystemPrompt: undefined,
  allowedTools: undefined,
  disallowedTools: undefined,
  maxTurns: undefined,
  addDirs: undefined,
  projectConfigRoot: undefined,
  settings: undefined,
  managedSettings: undefined,
  sandbox: undefined,
  env: undefined,
  secretEnv: undefined,
  apiKey: undefined,
  gitIdentity: undefined,
  replayUserMessages: undefined,
  fileCheckpointing: undefined,
  extraArgs: undefined,
  includePartialMessages: undefined,
  // Limits, models, context, session identity (issue 15)
  thinking: undefined,
  maxThinkingTokens: undefined,
  effort: undefined,
  maxBudgetUsd: undefined,
  taskBudget: undefined,
  settingSources: undefined,
  betas: undefined,
  tools: undefined,
  agent: undefined,
  sessionId: undefined,
  resumeSessionAt: undefined,
  resumeDropsTurn: undefined,
  persistSession: undefined,
  includeHookEvents: undefined,
  debug: undefined,
  debugFile: undefined,
  plugins: undefined,
  permissionPromptToolName: undefined,
  agents: undefined,
  forwardSubagentText: undefined,
  title: undefined,
  promptSuggestions: undefined,
  planModeInstructions: undefined,
  skills: undefined,
  maxLineBytes: undefined,
  closeGrace: undefined,
  controlTimeout: undefined,
  initializeTimeout: undefined,
  interruptTimeout: undefined,
  stallTimeout: undefined,
  turnTimeout: undefined,
  errorResults: undefined,
  verbatimPrompts: undefined,
  cliVersionPolicy: undefined,
  transcript: undefined,
  // structured output (issue 15)
  jsonSchema: undefined,
  outputFormat: undefined,
  // external MCP servers (issue 15)
  mcpServers: undefined,
  strictMcpConfig: undefined,
  sessionStore: undefined
}

describe("options set to undefined", () => {
  it("an undefined field builds the same argv and environment as an absent one", () => {
    const absent = Launch.buildCommand({}, noWiring)
    assert.deepStrictEqual(Launch.buildCommand({ model: undefined }, noWiring), absent)
    assert.deepStrictEqual(Launch.buildCommand(everyOptionUndefined, noWiring), absent)
    const wired: Launch.Wiring = { mcpServers: [{ name: "byre", alwaysLoad: true }], permissionPromptTool: true }
    assert.deepStrictEqual(Launch.buildCommand(everyOptionUndefined, wired), Launch.buildCommand({}, wired))
    // The check itself: a field that is set does change the command.
    assert.notDeepEqual(Launch.buildCommand({ model: "haiku" }, noWiring), absent)
  })

  it.effect("validate accepts every field undefined", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Launch.validate(everyOptionUndefined), everyOptionUndefined)
    }))

  it.effect("Claude.open({ model: env.MODEL }) type-checks, and an unset variable launches the CLI as {} does", () =>
    Effect.gen(function*() {
      // Typed as `process.env` is: `string | undefined`, here with MODEL unset.
      const env: NodeJS.ProcessEnv = {}
      const launched: Array<ReadonlyArray<string>> = []
      const runOnce = (options: Claude.SessionOptions) =>
        Effect.gen(function*() {
          const session = yield* Claude.open(options)
          return (yield* session.run("hi")).result
        }).pipe(
          Effect.scoped,
          Effect.provide(FakeCli.layer((cli) => {
            launched.push(cli.spec.args)
            return FakeCli.conversation({})(cli)
          }))
        )
      assert.strictEqual(yield* runOnce({ model: env.MODEL }), "echo: hi")
      assert.strictEqual(yield* runOnce({}), "echo: hi")
      assert.strictEqual(yield* runOnce(everyOptionUndefined), "echo: hi")
      assert.strictEqual(launched.length, 3)
      assert.deepStrictEqual(launched[0], launched[1])
      assert.deepStrictEqual(launched[2], launched[1])
      assert.isFalse(launched[0]!.includes("--model"))
    }))
})

/** The message of the `InvalidInput` that `options` fail `validate` with. */
const invalidOf = (options: Launch.LaunchOptions) => invalidMessage(Launch.validate(options))

describe("validate", () => {
  it.effect("returns good options unchanged", () =>
    Effect.gen(function*() {
      const options: Launch.LaunchOptions = {
        model: "opus",
        resume: "-abc",
        forkSession: true,
        maxTurns: 1,
        systemPrompt: "",
        env: { A: "1", B: undefined, C: Redacted.make("c") },
        apiKey: Redacted.make("k"),
        gitIdentity: { name: "n", email: "e@x" },
        extraArgs: { effort: "high", debug: null },
        settings: { attribution: { pr: "x" } }
      }
      assert.strictEqual(yield* Launch.validate(options), options)
      assert.deepStrictEqual(yield* Launch.validate({}), {})
      assert.deepStrictEqual(yield* Launch.validate({ extraArgs: ["-x", "anything"] }), { extraArgs: ["-x", "anything"] })
      const interpreter = { executable: { command: "node", args: ["cli.mjs", "--max-old-space-size=100"] } }
      assert.strictEqual(yield* Launch.validate(interpreter), interpreter)
    }))

  it.effect("bypassPermissions with a permission handler is InvalidInput; without one, or another mode with one, is fine", () =>
    Effect.gen(function*() {
      const asking: Launch.Wiring = { mcpServers: [], permissionPromptTool: true }
      const error = yield* Effect.flip(Launch.validate({ permissionMode: "bypassPermissions" }, asking))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.strictEqual(
        error.message,
        `Invalid launch options: permissionMode "bypassPermissions" cannot be combined with a Permissions layer: ` +
          `in that mode the CLI never asks, so the layer would never be called. Leave permissionMode unset ` +
          `(the CLI then asks the layer), name another mode ("default", "acceptEdits", "auto", ...), ` +
          `or remove the Permissions layer`
      )
      assert.deepStrictEqual(
        yield* Launch.validate({ permissionMode: "bypassPermissions" }, noWiring),
        { permissionMode: "bypassPermissions" }
      )
      assert.deepStrictEqual(yield* Launch.validate({ permissionMode: "bypassPermissions" }), { permissionMode: "bypassPermissions" })
      for (const mode of Launch.permissionModes.filter((m) => m !== "bypassPermissions")) {
        assert.deepStrictEqual(yield* Launch.validate({ permissionMode: mode }, asking), { permissionMode: mode })
      }
      assert.deepStrictEqual(yield* Launch.validate({}, asking), {})
    }))

  it.effect("rejects options that would make a bad command line", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Launch.LaunchOptions, string]> = [
        [{ maxTurns: 0 }, "maxTurns must be a positive integer (got 0)"],
        [{ maxTurns: 1.5 }, "maxTurns must be a positive integer"],
        [{ maxTurns: Number.NaN }, "maxTurns must be a positive integer"],
        [{ model: "" }, "model must not be empty"],
        [{ model: "  " }, "model must not be empty"],
        [{ fallbackModel: "" }, "fallbackModel must not be empty"],
        [{ resume: "" }, "resume must not be empty"],
        [{ executable: "" }, "executable must not be empty"],
        [{ cwd: "" }, "cwd must not be empty"],
        [{ resume: "a", continueConversation: true }, "resume and continueConversation cannot be combined"],
        [{ forkSession: true }, "forkSession needs resume or continueConversation"],
        [{ permissionMode: "manual" as Launch.PermissionMode }, "permissionMode must be one of"],
        [{ allowedTools: ["Read", ""] }, "allowedTools must hold non-empty strings"],
        [{ disallowedTools: [""] }, "disallowedTools must hold non-empty strings"],
        [{ addDirs: [""] }, "addDirs must hold non-empty strings"],
        [{ extraArgs: { "--effort": "high" } }, `extraArgs name "--effort" must start with a letter`],
        [{ extraArgs: { "1x": null } }, `extraArgs name "1x" must start with a letter`],
        [{ extraArgs: { "output-format": "json" } }, "extraArgs must not set --output-format"],
        [{ env: { "A=B": "x" } }, `env name "A=B"`],
        [{ gitIdentity: { name: "", email: "e" } }, "gitIdentity.name must be a non-empty string"],
        [{ systemPrompt: "a\0b" }, "systemPrompt must not contain NUL characters"],
        [{ env: { X: "a\0b" } }, "env.X must not contain NUL characters"],
        [{ settings: { n: 1n } }, "settings must be JSON"],
        [{ executable: { command: " " } }, "executable.command must be a non-empty string"],
        [{ executable: { command: "node", args: ["a", 1] } } as unknown as Launch.LaunchOptions, "executable.args must be an array of strings"],
        [{ executable: { command: "node", args: ["a\0b"] } }, "executable.args must not contain NUL characters"]
      ]
      for (const [options, expected] of cases) {
        const message = yield* invalidOf(options)
        assert.include(message, expected, JSON.stringify(Object.keys(options)))
        assert.include(message, "Invalid launch options")
      }
    }))

  it.effect("lists every problem at once", () =>
    Effect.gen(function*() {
      const message = yield* invalidOf({ model: "", maxTurns: -1 })
      assert.include(message, "model must not be empty")
      assert.include(message, "maxTurns must be a positive integer (got -1)")
    }))

  it.effect("checks types given by JavaScript callers", () =>
    Effect.gen(function*() {
      const loose = { maxTurns: "3", apiKey: "plain", forkSession: "yes" } as unknown as Launch.LaunchOptions
      const message = yield* invalidOf(loose)
      assert.include(message, "maxTurns must be a positive integer")
      assert.include(message, "apiKey must be a Redacted string")
      assert.include(message, "forkSession must be a boolean")
    }))
})

describe("findExecutable", () => {
  let tmp = ""
  const script = (file: string, mode: number) => {
    Fs.mkdirSync(Path.dirname(file), { recursive: true })
    Fs.writeFileSync(file, "#!/bin/sh\necho fake\n")
    Fs.chmodSync(file, mode)
    return file
  }
  beforeAll(() => {
    tmp = Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "launch-test-")))
  })
  afterAll(() => {
    Fs.rmSync(tmp, { recursive: true, force: true })
  })

  const notFound = (effect: Effect.Effect<string, ClaudeError.ClaudeError>) =>
    Effect.flip(effect).pipe(Effect.map((error) => {
      if (error.reason._tag !== "CliNotFound") return assert.fail(`expected CliNotFound, got ${error.reason._tag}`)
      return { searched: error.reason.searched, message: error.message }
    }))

  it.effect("accepts an explicit executable path, relative to cwd too", () =>
    Effect.gen(function*() {
      const file = script(Path.join(tmp, "explicit", "my-claude"), 0o755)
      assert.strictEqual(yield* Launch.findExecutable(file, undefined, { path: "" }), file)
      assert.strictEqual(yield* Launch.findExecutable("./my-claude", Path.join(tmp, "explicit"), { path: "" }), file)
    }))

  it.effect("rejects an explicit path that is missing (CliNotFound), not executable or a directory (NotExecutable), without searching on", () =>
    Effect.gen(function*() {
      const plain = script(Path.join(tmp, "explicit-bad", "claude"), 0o644)
      const lookup = { path: Path.dirname(realCli), processCwd: repoRoot }
      const missing = Path.join(tmp, "explicit-bad", "missing")
      const { searched, message } = yield* notFound(Launch.findExecutable(missing, undefined, lookup))
      assert.deepStrictEqual(searched, [missing])
      assert.include(message, missing)

      const notExecutable = yield* Effect.flip(Launch.findExecutable(plain, undefined, lookup))
      assert.deepStrictEqual<unknown>({ ...notExecutable.reason }, { _tag: "NotExecutable", path: plain, mode: 0o644, isDirectory: false })
      assert.strictEqual(
        notExecutable.message,
        `The executable ${plain} exists but is not executable (mode 0644): make it executable (chmod +x), ` +
          `or run it through its interpreter, e.g. executable: { command: "node", args: [${JSON.stringify(plain)}] }`
      )
      const dir = Path.join(tmp, "explicit-bad")
      const directory = yield* Effect.flip(Launch.findExecutable(dir, undefined, lookup))
      assert.strictEqual(directory.reason._tag, "NotExecutable")
      assert.isTrue((directory.reason as ClaudeError.NotExecutable).isDirectory)
      assert.match(directory.message, new RegExp(`^The executable ${dir} is a directory \\(mode 0\\d{3}\\), not a program$`))
    }))

  it.effect("an explicit bare name found on PATH only without its execute bit is NotExecutable, naming that file", () =>
    Effect.gen(function*() {
      const plain = script(Path.join(tmp, "named-bad", "claude-plain"), 0o640)
      const error = yield* Effect.flip(Launch.findExecutable("claude-plain", undefined, { path: Path.join(tmp, "named-bad") }))
      assert.deepStrictEqual<unknown>({ ...error.reason }, { _tag: "NotExecutable", path: plain, mode: 0o640, isDirectory: false })
      assert.include(error.message, "(mode 0640)")
      // Without an explicit name, a stray non-executable claude is not reported: the CLI was not found.
      script(Path.join(tmp, "stray", "claude"), 0o644)
      const { searched } = yield* notFound(
        Launch.findExecutable(undefined, undefined, { path: Path.join(tmp, "stray"), processCwd: Path.join(tmp, "stray") })
      )
      assert.include(searched, Path.join(tmp, "stray", "claude"))
    }))

  it.effect("looks an explicit bare name up on PATH", () =>
    Effect.gen(function*() {
      const file = script(Path.join(tmp, "named", "claude-nightly"), 0o755)
      assert.strictEqual(yield* Launch.findExecutable("claude-nightly", undefined, { path: Path.join(tmp, "named") }), file)
    }))

  it.effect("finds claude on PATH before node_modules/.bin", () =>
    Effect.gen(function*() {
      script(Path.join(tmp, "path1", "claude"), 0o644)
      const good = script(Path.join(tmp, "path2", "claude"), 0o755)
      const path = [Path.join(tmp, "path0-missing"), Path.join(tmp, "path1"), Path.join(tmp, "path2")].join(Path.delimiter)
      assert.strictEqual(yield* Launch.findExecutable(undefined, repoRoot, { path, processCwd: repoRoot }), good)
    }))

  it.effect("falls back to node_modules/.bin/claude walking up from process.cwd(), the program's directory", () =>
    Effect.gen(function*() {
      const project = Path.join(tmp, "project")
      const bin = script(Path.join(project, "node_modules", ".bin", "claude"), 0o755)
      const deep = Path.join(project, "a", "b", "c")
      Fs.mkdirSync(deep, { recursive: true })
      const elsewhere = Path.join(tmp, "elsewhere")
      Fs.mkdirSync(elsewhere, { recursive: true })
      assert.strictEqual(yield* Launch.findExecutable(undefined, elsewhere, { path: "", processCwd: deep }), bin)
      assert.strictEqual(yield* Launch.findExecutable(undefined, undefined, { path: "", processCwd: deep }), bin)
    }))

  // A session's `cwd` may be a checkout the program does not trust (a review bot's): a `claude`
  // in its node_modules/.bin would run with the host's credentials.
  it.effect("never runs a claude from the session's cwd: only PATH and the program's own directory", () =>
    Effect.gen(function*() {
      const checkout = Path.join(tmp, "untrusted-checkout")
      const planted = script(Path.join(checkout, "node_modules", ".bin", "claude"), 0o755)
      const program = Path.join(tmp, "program-without-cli")
      Fs.mkdirSync(program, { recursive: true })
      const { searched } = yield* notFound(Launch.findExecutable(undefined, checkout, { path: "", processCwd: program }))
      assert.notInclude(searched, planted)
    }))

  it.effect("finds the pinned CLI of this repository from its own directory", () =>
    Effect.gen(function*() {
      const found = yield* Launch.findExecutable(undefined, Path.join(repoRoot, "src"), { path: "" })
      assert.strictEqual(found, realCli)
    }))

  it.effect("fails with CliNotFound listing every place searched and how to install", () =>
    Effect.gen(function*() {
      const empty = Path.join(tmp, "empty", "x")
      Fs.mkdirSync(empty, { recursive: true })
      const pathDir = Path.join(tmp, "empty-path")
      const { searched, message } = yield* notFound(
        Launch.findExecutable(undefined, empty, { path: pathDir, processCwd: empty })
      )
      assert.strictEqual(searched[0], Path.join(pathDir, "claude"))
      assert.include(searched, Path.join(empty, "node_modules", ".bin", "claude"))
      assert.include(searched, Path.join(tmp, "node_modules", ".bin", "claude"))
      assert.include(searched, Path.join("/", "node_modules", ".bin", "claude"))
      assert.strictEqual(new Set(searched).size, searched.length)
      assert.include(message, "The claude CLI was not found")
      assert.include(message, Path.join(pathDir, "claude"))
      assert.include(message, "npm install @anthropic-ai/claude-code")
      assert.include(message, "`executable` option")
    }))
  // Found by an audit: the preset without its own `append` dropped `appendSystemPrompt`.
  it.effect("appendSystemPrompt with the claude_code preset (no append of its own) reaches the CLI", () =>
    Effect.gen(function*() {
      const options: Launch.LaunchOptions = {
        systemPrompt: { type: "preset", preset: "claude_code" },
        appendSystemPrompt: "Always answer in French."
      }
      yield* Launch.validate(options, noWiring)
      assert.deepStrictEqual(Launch.initializePrompts(options), { appendSystemPrompt: "Always answer in French." })
    }))
})
