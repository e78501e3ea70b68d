/**
 * The conformance scenarios across the supported range (issue 22): each tested version other than
 * the pinned one (`CliVersion.tested`: the floor and one in the middle; the pinned newest is
 * `test/Conformance.test.ts`) is installed from the npm registry into its own folder under `.tmp/`
 * (`test/support/cliVersions.ts`), then every scenario runs live against it and the fake model.
 *
 * Per scenario and version:
 * - every line the CLI wrote decodes (no `ProtocolViolation`: the schemas tolerate what the
 *   version omits);
 * - the scenario's summary is the pinned CLI's (its replayed recording), except where
 *   `testdata/cli-versions/<version>.json` records a difference, which must then be exactly the
 *   one seen. `CLI_VERSIONS_RECORD=1` rewrites those files from a run.
 *
 * `CLI_VERSIONS=2.1.3,2.1.100` runs other versions (their files are then written on the first run
 * with `CLI_VERSIONS_RECORD=1`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Claude from "../src/Claude.ts"
import * as CliVersion from "../src/CliVersion.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as Launch from "../src/Launch.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Transcript from "../src/Transcript.ts"
import { Transport } from "../src/Transport.ts"
import { installOnce as install, pinnedVersion, versionsDir } from "./support/cliVersions.ts"
import { liveHarness, replayHarness, type Scenario, scenarios, type Summary } from "./scenarios.ts"
import { live, processLayer } from "./support/live.ts"

type Json = Record<string, unknown>

/** The in-process MCP server of the conformance scenarios. */
const echoServer = McpServers.layer(McpServers.server("byre", {
  tools: [
    McpServers.tool({
      name: "echo",
      description: "Echo the given text back.",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(`echo: ${text}`)
    })
  ]
}))

const versions = (process.env.CLI_VERSIONS ?? CliVersion.tested.filter((v) => v !== CliVersion.pinned).join(","))
  .split(",")
  .map((v) => v.trim())
  .filter((v) => v.length > 0 && v !== pinnedVersion)
const record = process.env.CLI_VERSIONS_RECORD === "1"

/** Where a version's differences from the pinned CLI are recorded. */
const differencesPath = (version: string) => Path.resolve(import.meta.dirname, `../testdata/cli-versions/${version}.json`)

interface Difference {
  /** The scenario's summary with this version. */
  readonly summary: Summary
  /** Why it differs (kept when the file is rewritten). */
  readonly why: string
}

interface Differences {
  readonly version: string
  /**
   * Whether the turn of a user message that carries a `uuid` names it (`user_message_uuid(s)` on
   * its `result`), which turn identity relies on. Absent: as the pinned CLI (it does).
   */
  readonly namesUserMessageUuid?: boolean
  /**
   * The outcome of each control operation of the "control requests" check (`ok` or the reason's
   * tag and message), where it is not `ok`.
   */
  readonly controlRequests?: Readonly<Record<string, string>>
  readonly scenarios: Readonly<Record<string, Difference>>
}

const readDifferences = (version: string): Differences | undefined =>
  Fs.existsSync(differencesPath(version))
    ? JSON.parse(Fs.readFileSync(differencesPath(version), "utf8")) as Differences
    : undefined

/** Ids that change from run to run. */
const normalize = (summary: Summary): Summary => summary.map((line) => line.replace(/req_fake\w+/g, "req_fake<id>"))

/**
 * The scenario's script as a function: requests that are not turns of the conversation get a
 * canned answer and leave the script alone. Older CLIs send them: a `Warmup` request per
 * built-in agent at start-up, and tool-less side requests (the file paths a Bash command touched).
 */
const withSideRequests = (scenario: Scenario): FakeModel.Script => {
  const script = scenario.model as ReadonlyArray<FakeModel.Reply>
  let next = 0
  return (request) => {
    const content = request.messages.at(-1)?.content
    const text = typeof content === "string"
      ? content
      : Array.isArray(content) && content.length === 1
      ? (content[0] as { readonly text?: unknown }).text
      : undefined
    if (text === "Warmup" || request.tools.length === 0) return FakeModel.text("ok")
    return script[next++] ?? FakeModel.httpError(500, { message: `FakeModel: script exhausted after ${script.length} replies` })
  }
}

/** Every `recv` line of the transcripts that does not decode. */
const undecodable = (files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const problems = new Set<string>()
    for (const file of files) {
      for (const line of yield* Transcript.read(file)) {
        if (line.dir !== "recv") continue
        const decoded = Protocol.decodeMessage(line.msg)
        if (Result.isFailure(decoded)) problems.add(decoded.failure)
      }
    }
    return [...problems]
  })

/** A failed run as one summary line: the reason and the first line of its message. */
const failure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isNone(error)) return `failed: ${Cause.pretty(cause).split("\n")[0]}`
  const e = error.value
  return ClaudeError.isClaudeError(e) ? `failed: ${e.reason._tag}: ${e.message.split("\n")[0]}` : `failed: ${String(e)}`
}

const seen = new Map<string, Record<string, Difference>>()

for (const version of versions) {
  describe(`CLI ${version}`, () => {
    it.live("installs from the npm registry into its own folder", () =>
      Effect.gen(function*() {
        const { executable, millis } = yield* install(version)
        assert.isTrue(Fs.existsSync(executable))
        yield* Effect.logInfo(`CLI ${version}: ${millis === 0 ? "cached" : `installed in ${millis} ms`}`)
      }), 300_000)

    it.live("turn identity: whether a turn's result names the uuid of its user message", () =>
      Effect.gen(function*() {
        const { executable } = yield* install(version)
        const setup = yield* live((request) => request.tools.length === 0 ? FakeModel.text("ok") : FakeModel.text("hello"), { executable })
        const command = Launch.buildCommand(setup.options, { mcpServers: [], permissionPromptTool: false })
        const transport = yield* Transport
        const connection = yield* transport.open({ executable, args: command.args, env: { ...command.env, ...setup.options.env }, cwd: setup.cwd, closeGrace: Duration.seconds(2) })
        const uuid = "11111111-2222-4333-8444-555555555555"
        yield* connection.send(JSON.stringify(Protocol.controlRequest("req_1", { subtype: "initialize", hooks: {} })))
        yield* connection.send(JSON.stringify(Protocol.userTurn({ text: "hi", uuid })))
        const result = yield* connection.incoming.pipe(
          Stream.decodeText,
          Stream.splitLines,
          Stream.map((line) => JSON.parse(line) as Json),
          Stream.filter((message) => message.type === "result"),
          Stream.runHead,
          Effect.timeout("60 seconds"),
          Effect.map(Option.getOrThrow)
        )
        const names = result.user_message_uuid === uuid ||
          (Array.isArray(result.user_message_uuids) && result.user_message_uuids.includes(uuid))
        const recorded = readDifferences(version)?.namesUserMessageUuid ?? true
        if (record) {
          const file = readDifferences(version) ?? { version, scenarios: {} }
          Fs.mkdirSync(Path.dirname(differencesPath(version)), { recursive: true })
          Fs.writeFileSync(differencesPath(version), JSON.stringify({ ...file, namesUserMessageUuid: names }, null, 2) + "\n")
          return
        }
        assert.strictEqual(names, recorded, `CLI ${version}: result ${JSON.stringify(result).slice(0, 300)}`)
      }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)

    it.live("control requests: can_use_tool reaches Permissions; mcp_status, get_context_usage, set_permission_mode answer", () =>
      Effect.gen(function*() {
        const { executable } = yield* install(version)
        let turn = 0
        const setup = yield* live((request) =>
          request.tools.length === 0 || JSON.stringify(request.messages.at(-1)?.content).includes("Warmup")
            ? FakeModel.text("ok")
            : turn++ === 0
            ? FakeModel.toolUse("Bash", { command: "touch allowed.txt", description: "permission check" })
            : FakeModel.text("done"), { executable, permissionMode: "default" })
        const asked: Array<string> = []
        const session = yield* Claude.open(setup.options).pipe(
          Effect.provide(Permissions.layer((request) => Effect.sync(() => {
            asked.push(request.tool_name)
            return Permissions.allow()
          }))),
          Effect.provide(echoServer)
        )
        const outcome = <A, E>(effect: Effect.Effect<A, E>) =>
          Effect.map(Effect.exit(effect), (exit) => Exit.isSuccess(exit) ? "ok" : failure(exit.cause))
        const result = yield* session.run("touch allowed.txt")
        const outcomes: Record<string, string> = {
          "can_use_tool": asked.includes("Bash") && result.subtype === "success" ? "ok" : `asked ${JSON.stringify(asked)}, ${result.subtype}`,
          "mcp_status": yield* outcome(Effect.map(session.mcpStatus({ timeout: "10 seconds" }), (s) => {
            if (!s.mcpServers.some((server) => server.name === "byre" && server.status === "connected")) throw new Error("byre is not connected")
          })),
          "get_context_usage": yield* outcome(session.contextUsage({ timeout: "10 seconds" })),
          "set_permission_mode": yield* outcome(session.setPermissionMode("acceptEdits", { timeout: "10 seconds" }))
        }
        const notOk = Object.fromEntries(Object.entries(outcomes).filter(([, o]) => o !== "ok"))
        if (record) {
          const file = readDifferences(version) ?? { version, scenarios: {} }
          const { controlRequests: _previous, ...rest } = file
          Fs.writeFileSync(differencesPath(version), JSON.stringify(Object.keys(notOk).length === 0 ? rest : { ...rest, controlRequests: notOk }, null, 2) + "\n")
          return
        }
        assert.deepStrictEqual(notOk, readDifferences(version)?.controlRequests ?? {})
      }).pipe(Effect.scoped, Effect.provide(processLayer)), 120_000)

    describe.concurrent("conformance scenarios", { timeout: 240_000 }, () => {
      for (const scenario of scenarios) {
        it.live(scenario.name, () =>
          Effect.gen(function*() {
            const { executable } = yield* install(version)
            const dir = Path.join(versionsDir, `${version}-transcripts`)
            Fs.mkdirSync(dir, { recursive: true })
            const files: Array<string> = []
            const recordTo = (name: string, index: number) => {
              const file = Path.join(dir, `${name}.${index + 1}.ndjson`)
              files.push(file)
              return file
            }
            const exit = yield* Effect.scoped(
              Effect.flatMap(
                liveHarness({ ...scenario, model: withSideRequests(scenario) }, { executable, record: true, recordTo }),
                scenario.run
              )
            // The scenarios run concurrently: on a loaded 2-core machine one took 61 s (CLI 2.1.0, resume-fork).
            ).pipe(Effect.timeout("150 seconds"), Effect.exit)
            const live = normalize(Exit.isSuccess(exit) ? exit.value : [failure(exit.cause)])
            const pinned = normalize(yield* Effect.scoped(scenario.run(replayHarness(scenario))))

            assert.deepStrictEqual(yield* undecodable(files), [], `lines of CLI ${version} that do not decode`)

            const recorded = readDifferences(version)?.scenarios[scenario.name]
            if (record) {
              const all = seen.get(version) ?? {}
              seen.set(version, all)
              if (JSON.stringify(live) !== JSON.stringify(pinned)) {
                all[scenario.name] = { summary: live, why: recorded?.why ?? "TODO: say why" }
              }
              const previous = readDifferences(version)
              const file: Differences = { ...previous, version, scenarios: Object.fromEntries(Object.entries(all).sort()) }
              Fs.mkdirSync(Path.dirname(differencesPath(version)), { recursive: true })
              Fs.writeFileSync(differencesPath(version), JSON.stringify(file, null, 2) + "\n")
              return
            }
            assert.deepStrictEqual(live, recorded?.summary ?? pinned, recorded === undefined
              ? `CLI ${version} differs from ${pinnedVersion} in ${scenario.name}: record it (CLI_VERSIONS_RECORD=1) and say why`
              : `CLI ${version} no longer shows the recorded difference in ${scenario.name}`)
            if (recorded !== undefined) assert.notDeepEqual(recorded.summary, pinned, "a recorded difference that is none")
          }))
      }
    })
  })
}

describe("recorded differences", () => {
  it("every file under testdata/cli-versions/ is for a tested version, and names only known scenarios", () => {
    const dir = Path.resolve(import.meta.dirname, "../testdata/cli-versions")
    const names = new Set(scenarios.map((s) => s.name))
    for (const file of Fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const differences = JSON.parse(Fs.readFileSync(Path.join(dir, file), "utf8")) as Differences
      assert.strictEqual(file, `${differences.version}.json`)
      assert.include(CliVersion.tested, differences.version)
      assert.isTrue(CliVersion.isSupported(differences.version))
      for (const [name, difference] of Object.entries(differences.scenarios)) {
        assert.isTrue(names.has(name), `${file}: no scenario ${name}`)
        assert.notInclude(difference.why, "TODO", `${file}: say why ${name} differs`)
      }
    }
  })
})
