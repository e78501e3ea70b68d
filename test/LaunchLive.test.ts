/**
 * The pinned CLI (node_modules/.bin/claude, run with `--help` and with a full command line) accepts
 * every flag `Launch.buildCommand` emits (live tier). The pure tests are in test/Launch.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Launch from "../src/Launch.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }
const repoRoot = Path.resolve(import.meta.dirname, "..")
const realCli = Path.join(repoRoot, "node_modules", ".bin", "claude")

describe("the pinned CLI accepts every flag buildCommand emits", () => {
  /** Flags the CLI accepts but leaves out of `--help`; the run below proves they parse. */
  const hiddenFlags = new Set(["--max-turns", "--permission-prompt-tool"])
  const everything: Launch.LaunchOptions = {
    model: "sonnet",
    fallbackModel: "haiku",
    continueConversation: true,
    forkSession: true,
    systemPrompt: "S",
    appendSystemPrompt: "A",
    allowedTools: ["Read", "Bash"],
    disallowedTools: ["Edit"],
    maxTurns: 2,
    addDirs: [Os.tmpdir()],
    replayUserMessages: true,
    fileCheckpointing: true,
    settings: { cleanupPeriodDays: 30 }
  }
  const wiring: Launch.Wiring = { mcpServers: [{ name: "byre", alwaysLoad: true }], permissionPromptTool: true }
  const flagsOf = (args: ReadonlyArray<string>) =>
    args.filter((arg) => arg.startsWith("--")).map((arg) => arg.split("=")[0] ?? arg)

  const runCli = (args: ReadonlyArray<string>, home: string) => {
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
    for (const [name, value] of Object.entries(Launch.buildCommand(everything, wiring).env)) {
      if (value === undefined) delete env[name]
      else env[name] = typeof value === "string" ? value : Redacted.value(value)
    }
    Object.assign(env, {
      HOME: home,
      IS_SANDBOX: "1",
      ANTHROPIC_API_KEY: "sk-test",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1"
    })
    return ChildProcess.spawnSync(realCli, args, { input: "", env, cwd: home, encoding: "utf8", timeout: 45_000 })
  }

  it("lists every documented flag in --help", () => {
    const help = ChildProcess.execFileSync(realCli, ["--help"], { encoding: "utf8", timeout: 30_000 })
    const documented = new Set<string>()
    for (const line of help.split("\n")) {
      const match = /^ {2}((?:-\w, )?--[\w-]+(?:, --[\w-]+)*)/.exec(line)
      for (const name of match?.[1]?.split(", ") ?? []) documented.add(name)
    }
    assert.isTrue(documented.has("--model"), "help parsing found no options")
    const emitted = new Set([
      ...flagsOf(Launch.buildCommand({ ...everything, continueConversation: false, resume: "id" }, wiring).args),
      ...flagsOf(Launch.buildCommand(everything, wiring).args),
      ...flagsOf(Launch.buildCommand({ permissionMode: "plan", includePartialMessages: false }, noWiring).args),
      ...flagsOf(Launch.buildCommand({ permissionMode: "bypassPermissions" }, noWiring).args)
    ])
    for (const flag of ["--resume", "--continue", "--allow-dangerously-skip-permissions", "--permission-prompt-tool"]) {
      assert.isTrue(emitted.has(flag), flag)
    }
    for (const flag of emitted) {
      if (!hiddenFlags.has(flag)) assert.isTrue(documented.has(flag), `${flag} is not in claude --help`)
    }
  })

  it("parses the full command line without an option error", () => {
    const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "launch-cli-"))
    try {
      const parseError = /unknown option|is invalid|argument missing|error: option/i
      const full = runCli(Launch.buildCommand(everything, wiring).args, home)
      assert.strictEqual(full.error, undefined)
      assert.notMatch(full.stderr + full.stdout, parseError)
      assert.strictEqual(full.status, 0, full.stderr)

      const resumed = runCli(Launch.buildCommand({ resume: "-abc" }, noWiring).args, home)
      assert.notMatch(resumed.stderr, parseError)
      assert.include(resumed.stderr, `"-abc"`)

      const bad = runCli([...Launch.buildCommand({}, noWiring).args, "--no-such-flag"], home)
      assert.match(bad.stderr, parseError)
    } finally {
      Fs.rmSync(home, { recursive: true, force: true })
    }
  })
})
