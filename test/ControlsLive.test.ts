/**
 * The session's control methods added for issue 15, each against the real CLI (the pinned
 * devDependency) on the fake model, showing its effect: on the requests the CLI then makes to
 * the model, on what the CLI reports afterwards, or on what the session serves.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const EchoInput = Schema.Struct({ text: Schema.String })

const echoServer = (name: string, received: Array<string>) =>
  McpServers.server(name, {
    alwaysLoad: true,
    tools: [McpServers.tool({
      name: "echo",
      description: "Echo the given text back.",
      input: EchoInput,
      handler: (input) =>
        Effect.sync(() => {
          received.push(input.text)
          return `echo: ${input.text}`
        })
    })]
  })

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${String(exit.cause)}`)
  return error.value.reason
}

const open = (script: FakeModel.Script, allowedTools?: ReadonlyArray<string>) =>
  Offline.open(script, { executable: cliPath, ...(allowedTools === undefined ? {} : { allowedTools }) })

const stdioServer = Path.join(import.meta.dirname, "fixtures", "stdio-mcp-server.mjs")

describe("control methods against the real CLI", { timeout: 120_000 }, () => {
  it.live("setMcpServers: an in-process server added mid-session is offered on the next turn and its tool runs; toggle disables it; set again removes it", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const offline = yield* open([
        FakeModel.text("first"),
        FakeModel.toolUse("mcp__late__echo", { text: "hi" }),
        FakeModel.text("It said echo: hi."),
        FakeModel.text("third"),
        FakeModel.text("fourth")
      ], ["mcp__late__echo"])
      const { session, model } = offline
      yield* session.run("one")
      const added = yield* session.setMcpServers({}, { inProcess: [echoServer("late", received)] })
      assert.deepStrictEqual(added.added, ["late"])
      assert.deepStrictEqual(added.errors, {})
      const second = yield* session.run("Call the echo tool with text hi")
      assert.strictEqual(second.result, "It said echo: hi.")
      assert.deepStrictEqual(received, ["hi"])
      const status = yield* session.mcpStatus()
      assert.strictEqual(status.mcpServers.find((s) => s.name === "late")?.status, "connected")

      // Disabled: its tool leaves the next request.
      yield* session.toggleMcpServer("late", false)
      const toggled = yield* session.mcpStatus()
      assert.strictEqual(toggled.mcpServers.find((s) => s.name === "late")?.status, "disabled")
      yield* session.toggleMcpServer("late", true)
      const enabled = yield* session.mcpStatus()
      assert.strictEqual(enabled.mcpServers.find((s) => s.name === "late")?.status, "connected")
      yield* session.run("three")
      // Removed by a set without it.
      const removed = yield* session.setMcpServers({})
      assert.deepStrictEqual(removed.removed, ["late"])
      const after = yield* session.mcpStatus()
      assert.isUndefined(after.mcpServers.find((s) => s.name === "late"))
      yield* session.run("four")

      const requests = yield* model.messageRequests
      assert.isFalse(FakeModel.hasTool(requests[0]!, "mcp__late__echo"))
      assert.isTrue(FakeModel.hasTool(requests[1]!, "mcp__late__echo"), requests[1]!.tools.join(", "))
      // (The CLI 2.1.332 keeps offering a disabled or removed in-process server's tool in later
      // requests; its status above is what changes.)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("setMcpServers with a stdio server: the model calls its tool; reconnectMcpServer restarts it; readMcpResource reads its ui:// resource; unknown names are ControlRejected", () =>
    Effect.gen(function*() {
      const offline = yield* open([
        FakeModel.text("one"),
        FakeModel.toolUse("mcp__outside__echo", { text: "over stdio" }),
        FakeModel.text("done")
      ], ["mcp__outside__echo"])
      const { session, model } = offline
      const log = Path.join(offline.cwd, "echo.log")
      yield* session.run("one")
      const set = yield* session.setMcpServers({
        outside: { type: "stdio", command: process.execPath, args: [stdioServer, "outside"], env: { ECHO_LOG: log } }
      })
      assert.deepStrictEqual(set.added, ["outside"])
      assert.deepStrictEqual(set.errors, {})
      const result = yield* session.run("Call the echo tool")
      assert.strictEqual(result.result, "done")
      assert.strictEqual(Fs.readFileSync(log, "utf8"), "over stdio\n")
      const [, , answered] = yield* model.messageRequests
      assert.strictEqual(FakeModel.toolResults(answered!)[0]?.content, "stdio echo: over stdio")

      yield* session.reconnectMcpServer("outside")
      const status = yield* session.mcpStatus()
      assert.strictEqual(status.mcpServers.find((s) => s.name === "outside")?.status, "connected")
      const resource = yield* session.readMcpResource("outside", "ui://echo/widget")
      assert.deepStrictEqual(resource.contents, [{ uri: "ui://echo/widget", mimeType: "text/html", text: "<p>echo widget</p>" }])

      const unknown = reasonOf(yield* Effect.exit(session.reconnectMcpServer("nope")))
      assert.strictEqual(unknown._tag, "ControlRejected")
      assert.include((unknown as ClaudeError.ControlRejected).error, "Server not found: nope")
      const unknownResource = reasonOf(yield* Effect.exit(session.readMcpResource("nope", "ui://x")))
      assert.strictEqual(unknownResource._tag, "ControlRejected")
      assert.strictEqual((unknownResource as ClaudeError.ControlRejected).subtype, "mcp_read_resource")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  // CLI 2.1.332 refuses it with an internal error ("SDK servers should be handled in print.ts"):
  // the session says so itself, naming what to do (test/McpServerRemovedLive.test.ts).
  it.live("reconnectMcpServer on an in-process server added by setMcpServers: InvalidInput naming toggleMcpServer", () =>
    Effect.gen(function*() {
      const { session } = yield* open([FakeModel.text("one")])
      yield* session.run("one")
      yield* session.setMcpServers({}, { inProcess: [echoServer("inside", [])] })
      const refused = reasonOf(yield* Effect.exit(session.reconnectMcpServer("inside")))
      assert.strictEqual(refused._tag, "InvalidInput")
      assert.include(refused.message, "toggleMcpServer")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("setMaxThinkingTokens: on a model with thinking budgets, the next request carries the budget; 0 turns thinking off", () =>
    Effect.gen(function*() {
      const thinking = (request: FakeModel.RecordedRequest) => (request.body as { thinking?: unknown }).thinking
      const { session, model } = yield* Offline.open(
        [FakeModel.text("one"), FakeModel.text("two"), FakeModel.text("three")],
        { executable: cliPath, model: "claude-sonnet-4-5" }
      )
      yield* session.run("one")
      yield* session.setMaxThinkingTokens(3000)
      yield* session.run("two")
      yield* session.setMaxThinkingTokens(0)
      yield* session.run("three")
      const [first, second, third] = yield* model.messageRequests
      assert.deepInclude(thinking(second!) as object, { budget_tokens: 3000 })
      assert.notDeepEqual(thinking(first!), thinking(second!))
      assert.deepStrictEqual(thinking(third!), { type: "disabled" })

      const bad = reasonOf(yield* Effect.exit(session.setMaxThinkingTokens(-1)))
      assert.strictEqual(bad._tag, "InvalidInput")
      const fraction = reasonOf(yield* Effect.exit(session.setMaxThinkingTokens(1.5)))
      assert.strictEqual(fraction._tag, "InvalidInput")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("contextUsage: detail summary answers without counting tokens with the API; full counts", () =>
    Effect.gen(function*() {
      const { session, model } = yield* open([FakeModel.text("one")])
      yield* session.run("one")
      const counted = Effect.map(model.requests, (all) => all.filter((r) => r.endpoint === "count_tokens").length)
      const before = yield* counted
      const summary = yield* session.contextUsage({ detail: "summary" })
      assert.isAbove(summary.totalTokens, 0)
      const afterSummary = yield* counted
      const full = yield* session.contextUsage({ detail: "full" })
      assert.isAbove(full.categories.length, 0)
      const afterFull = yield* counted
      assert.strictEqual(afterSummary, before)
      assert.isAbove(afterFull, afterSummary)
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("interruptRequest with cancelQueued: a message queued behind a running turn is withdrawn and listed under cancelled", () =>
    Effect.gen(function*() {
      const { session, model } = yield* open([FakeModel.text("one"), FakeModel.hang, FakeModel.text("unused")])
      yield* session.run("one")
      yield* session.send("two")
      // The second turn is at the model (hanging) before the third message is queued behind it.
      yield* Effect.gen(function*() {
        while ((yield* model.messageRequests).length < 2) yield* Effect.sleep("20 millis")
      }).pipe(Effect.timeout("30 seconds"))
      const queued = yield* session.send("three")
      const receipt = yield* session.interruptRequest({ cancelQueued: true })
      assert.deepStrictEqual(receipt.cancelled, [queued])
      assert.deepStrictEqual(receipt.still_queued, [])
      const plain = yield* session.interruptRequest()
      assert.isUndefined(plain.cancelled)
      // The withdrawn message never reached the model.
      const requests = yield* model.messageRequests
      assert.isFalse(requests.some((r) => FakeModel.lastUserText(r) === "three"))
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("renameSession: the CLI's status names the session with the new title", () =>
    Effect.gen(function*() {
      const { session } = yield* open([FakeModel.text("one")])
      yield* session.run("one")
      yield* session.renameSession("Release planning")
      const status = yield* session.status()
      const row = status.sections.flatMap((s) => s.rows).find((r) => r.label === "Session name")
      assert.strictEqual(row?.value, "Release planning")
      const empty = reasonOf(yield* Effect.exit(session.renameSession("  ")))
      assert.strictEqual(empty._tag, "InvalidInput")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("reloadSkills, reloadOutputStyles, reloadPlugins: files written mid-session are listed after the reload", () =>
    Effect.gen(function*() {
      const offline = yield* open([FakeModel.text("one")])
      const { session } = offline
      yield* session.run("one")
      const skills = Path.join(offline.cwd, ".claude", "skills", "tidy-desk")
      Fs.mkdirSync(skills, { recursive: true })
      Fs.writeFileSync(Path.join(skills, "SKILL.md"), "---\nname: tidy-desk\ndescription: Tidies the desk.\n---\nTidy it.\n")
      const styles = Path.join(offline.cwd, ".claude", "output-styles")
      Fs.mkdirSync(styles, { recursive: true })
      Fs.writeFileSync(Path.join(styles, "terse.md"), "---\nname: Terse\ndescription: Few words.\n---\nBe terse.\n")
      const reloaded = yield* session.reloadSkills()
      assert.isTrue(reloaded.skills.some((s) => s.name === "tidy-desk"), reloaded.skills.map((s) => s.name).join(", "))
      const outputStyles = yield* session.reloadOutputStyles()
      assert.include(outputStyles.available_output_styles, "Terse")
      const plugins = yield* session.reloadPlugins()
      assert.strictEqual(plugins.error_count, 0)
      assert.isTrue(plugins.commands.some((c) => c.name === "tidy-desk"))
      const relative = reasonOf(yield* Effect.exit(session.reloadPlugins({ addPlugins: ["plugins/mine"] })))
      assert.strictEqual(relative._tag, "InvalidInput")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("applyFlagSettings: settings() shows the value in the flag layer, and the next request carries the effort", () =>
    Effect.gen(function*() {
      const { session, model } = yield* open([FakeModel.text("one"), FakeModel.text("two")])
      yield* session.run("one")
      yield* session.applyFlagSettings({ effortLevel: "low" })
      const settings = yield* session.settings()
      assert.strictEqual(settings.effective.effortLevel, "low")
      assert.isTrue(settings.sources.some((s) => s.source === "flagSettings" && s.settings.effortLevel === "low"))
      yield* session.run("two")
      const [first, second] = yield* model.messageRequests
      const effort = (request: FakeModel.RecordedRequest) =>
        (request.body as { output_config?: { effort?: unknown } }).output_config?.effort
      assert.strictEqual(effort(second!), "low")
      assert.notStrictEqual(effort(first!), "low")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("readFile reads a file of the session's cwd; updateSettings writes the local settings file", () =>
    Effect.gen(function*() {
      const offline = yield* open([FakeModel.text("one")])
      const { session } = offline
      yield* session.run("one")
      Fs.writeFileSync(Path.join(offline.cwd, "notes.txt"), "hello notes\n")
      const file = yield* session.readFile("notes.txt")
      assert.strictEqual(file.contents, "hello notes\n")
      assert.strictEqual(Fs.realpathSync(file.absPath), Fs.realpathSync(Path.join(offline.cwd, "notes.txt")))
      const cut = yield* session.readFile("notes.txt", { maxBytes: 5 })
      assert.strictEqual(cut.contents, "hello")
      assert.isTrue(cut.truncated)
      const missing = reasonOf(yield* Effect.exit(session.readFile("missing.txt")))
      assert.strictEqual(missing._tag, "ControlRejected")

      yield* session.updateSettings("localSettings", { outputStyle: "Concise" })
      const written = JSON.parse(Fs.readFileSync(Path.join(offline.cwd, ".claude", "settings.local.json"), "utf8"))
      assert.strictEqual(written.outputStyle, "Concise")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("sideQuestion asks the model aside; status names the session; exportConversation has the conversation's text", () =>
    Effect.gen(function*() {
      const { session, model } = yield* open([FakeModel.text("Hello back."), FakeModel.text("Four.")])
      yield* session.run("Hello there")
      const answer = yield* session.sideQuestion("What is 2+2?")
      assert.strictEqual(answer, "Four.")
      const requests = yield* model.messageRequests
      assert.strictEqual(requests.length, 2)
      assert.include(JSON.stringify(requests[1]!.messages), "What is 2+2?")
      const status = yield* session.status()
      const rows = status.sections.flatMap((s) => s.rows)
      assert.strictEqual(rows.find((r) => r.label === "Session ID")?.value, yield* session.sessionId)
      const exported = yield* session.exportConversation()
      assert.include(exported.text, "Hello there")
      assert.include(exported.text, "Hello back.")
      // The side question is not part of the conversation.
      assert.notInclude(exported.text, "What is 2+2?")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("usage, listModels, setMcpPermissionModeOverride, backgroundTasks, seedReadState: typed answers from the CLI", () =>
    Effect.gen(function*() {
      const { session } = yield* open([FakeModel.text("one")])
      const result = yield* session.run("one")
      const usage = yield* session.usage({ skipBehaviors: true })
      assert.closeTo(usage.session.total_cost_usd, result.total_cost_usd ?? -1, 1e-9)
      assert.isFalse(usage.rate_limits_available)
      const models = yield* session.listModels()
      assert.isTrue(models.some((m) => m.value === "default"))
      const override = yield* session.setMcpPermissionModeOverride("not-yet", "default")
      assert.include(override.warning ?? "", "not-yet")
      assert.isTrue(yield* session.backgroundTasks())
      yield* session.seedReadState("notes.txt", Date.now())
      const badMtime = reasonOf(yield* Effect.exit(session.seedReadState("notes.txt", Number.NaN)))
      assert.strictEqual(badMtime._tag, "InvalidInput")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
