/**
 * The testing kit's requests to the host: `FakeCli.callHook`, `askPermission` and `callMcpTool`
 * play the CLI's side of a hook, a permission request and an MCP tool call against a real session
 * (with the program's Hooks, Permissions and McpServers layers) and return the typed answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { fromCli } from "./support/fakeCliHost.ts"

const rejection = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${String(exit.cause)}`)
  return error.value.reason
}

const success = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  return assert.fail(`expected a success, got ${String(exit.cause)}`)
}

describe("FakeCli.callHook", () => {
  it.effect("fires the registered hook whose matcher matches, and returns its typed answer", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const { exit, received } = yield* fromCli((cli) =>
        FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf /" } })
      ).pipe(Effect.provide(Hooks.layer(
        Hooks.on("PreToolUse", { matcher: "Edit|Write" }, () => Effect.succeed({})),
        Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
          Effect.sync(() => {
            seen.push(String(input.tool_input.command))
            return {
              hookSpecificOutput: {
                hookEventName: "PreToolUse" as const,
                permissionDecision: "deny" as const,
                permissionDecisionReason: "no rm"
              }
            }
          }))
      )))
      const answer = success(exit)
      assert.deepStrictEqual(seen, ["rm -rf /"])
      assert.strictEqual(answer.hookSpecificOutput?.permissionDecision, "deny")
      assert.strictEqual(answer.hookSpecificOutput?.permissionDecisionReason, "no rm")
      // The answer went to the helper, and was written by the session as a control_response.
      const responses = received.filter((m) => m.type === "control_response")
      assert.strictEqual(responses.length, 1)
    }))

  it.effect("no such hook registered: InvalidInput naming the event and the tool", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: {} }))
        .pipe(Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Edit" }, () => Effect.succeed({})))))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "InvalidInput")
      assert.include(reason.message, "no PreToolUse hook matching Bash")
    }))

  it.effect("the host answers with an error (a failing handler of an event that does not guard): ControlRejected by the host", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.callHook(cli, "Stop", { stop_hook_active: false }))
        .pipe(Effect.provide(Hooks.layer(Hooks.on("Stop", () =>
          Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: "stop handler broke" })))))))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlRejected")
      if (reason._tag !== "ControlRejected") return
      assert.strictEqual(reason.by, "host")
      assert.strictEqual(reason.subtype, "hook_callback")
      assert.include(reason.error, "stop handler broke")
      assert.include(reason.message, "The host rejected hook_callback")
    }))

  it.effect("the host never answers: ControlTimeout after the deadline, and the host's handler is cancelled", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const { exit, received } = yield* fromCli((cli) =>
        FakeCli.callHook(cli, "Stop", { stop_hook_active: false }, { timeout: "50 millis" })
      ).pipe(Effect.provide(Hooks.layer(Hooks.on("Stop", () =>
        Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))))))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlTimeout")
      if (reason._tag !== "ControlTimeout") return
      assert.strictEqual(reason.subtype, "hook_callback")
      assert.strictEqual(reason.timeoutMillis, 50)
      // The control_cancel_request reached the host: its handler was interrupted, and never answered.
      yield* Deferred.await(interrupted)
      assert.isFalse(received.some((m) => m.type === "control_response" && m.response !== undefined &&
        (m.response as { request_id?: unknown }).request_id === "fake-cli-request-1"))
    }))

  it.effect("with no timeout given, the default deadline ends it with ControlTimeout before the unit test's own 5 s", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.callHook(cli, "Stop", { stop_hook_active: false }))
        .pipe(Effect.provide(Hooks.layer(Hooks.on("Stop", () => Effect.never))))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlTimeout")
      if (reason._tag === "ControlTimeout") assert.strictEqual(reason.timeoutMillis, 2000)
    }))
})

describe("FakeCli.askPermission", () => {
  it.effect("returns the host's decision, typed: allow with a rewritten input, deny with a message", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { exit } = yield* fromCli((cli) =>
        Effect.all([
          FakeCli.askPermission(cli, "Bash", { command: "ls" }),
          FakeCli.askPermission(cli, "Bash", { command: "rm -rf /" }, { fields: { title: "Run rm?" } })
        ])
      ).pipe(Effect.provide(Permissions.layer((request) =>
        Effect.sync(() => {
          asked.push(`${request.tool_name}: ${String(request.input.command)} (${request.title ?? "no title"})`)
          return String(request.input.command).startsWith("rm")
            ? Permissions.deny("not that")
            : Permissions.allow({ updatedInput: { command: "ls -la" } })
        })
      )))
      const [first, second] = success(exit)
      assert.deepStrictEqual(asked, ["Bash: ls (no title)", "Bash: rm -rf / (Run rm?)"])
      assert.deepStrictEqual(first, { behavior: "allow", updatedInput: { command: "ls -la" } })
      assert.deepStrictEqual(second, { behavior: "deny", message: "not that" })
    }))

  it.effect("no Permissions layer: the host answers with an error, ControlRejected by the host", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.askPermission(cli, "Bash", { command: "ls" }))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlRejected")
      if (reason._tag !== "ControlRejected") return
      assert.strictEqual(reason.by, "host")
      assert.strictEqual(reason.subtype, "can_use_tool")
    }))

  it.effect("the host never decides: ControlTimeout", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.askPermission(cli, "Bash", { command: "ls" }, { timeout: "50 millis" }))
        .pipe(Effect.provide(Permissions.layer(() => Effect.never)))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlTimeout")
    }))
})

describe("FakeCli.callMcpTool", () => {
  const echo = McpServers.tool({
    name: "echo",
    description: "Echo the given text back.",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) =>
      text === "fail" ? Effect.fail(new Error("the tool failed")) : Effect.succeed(`echo: ${text}`)
  })
  const never = McpServers.tool({
    name: "never",
    description: "Never answers.",
    input: Schema.Struct({}),
    handler: () => Effect.never
  })
  const tools = McpServers.layer(McpServers.server("byre", { version: "0.0.1", tools: [echo, never] }))

  it.effect("returns the tool's result; a failing tool is a result with isError", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) =>
        Effect.all([
          FakeCli.callMcpTool(cli, "byre", "echo", { text: "hi" }),
          FakeCli.callMcpTool(cli, "byre", "echo", { text: "fail" })
        ])
      ).pipe(Effect.provide(tools))
      const [ok, failed] = success(exit)
      assert.deepStrictEqual(ok.content, [{ type: "text", text: "echo: hi" }])
      assert.notStrictEqual(ok.isError, true)
      assert.strictEqual(failed.isError, true)
      assert.include(JSON.stringify(failed.content), "the tool failed")
    }))

  it.effect("an unknown tool: ControlRejected by the host with the JSON-RPC code; bad arguments: an isError result", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) =>
        Effect.all([
          Effect.exit(FakeCli.callMcpTool(cli, "byre", "nope", {})),
          FakeCli.callMcpTool(cli, "byre", "echo", { text: 42 })
        ])
      ).pipe(Effect.provide(tools))
      const [unknown, badArguments] = success(exit)
      const reason = rejection(unknown)
      assert.strictEqual(reason._tag, "ControlRejected")
      if (reason._tag !== "ControlRejected") return
      assert.strictEqual(reason.by, "host")
      assert.strictEqual(reason.errorCode, "-32602")
      assert.include(reason.error, "nope")
      assert.strictEqual(badArguments.isError, true)
      assert.include(JSON.stringify(badArguments.content), "Expected string")
    }))

  it.effect("an unknown server: the host answers with an error, ControlRejected by the host", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.callMcpTool(cli, "nowhere", "echo", { text: "hi" }))
        .pipe(Effect.provide(tools))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlRejected")
      if (reason._tag !== "ControlRejected") return
      assert.strictEqual(reason.subtype, "mcp_message")
      assert.include(reason.error, "nowhere")
    }))

  it.effect("the tool never answers: ControlTimeout", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => FakeCli.callMcpTool(cli, "byre", "never", {}, { timeout: "50 millis" }))
        .pipe(Effect.provide(tools))
      const reason = rejection(exit)
      assert.strictEqual(reason._tag, "ControlTimeout")
      if (reason._tag !== "ControlTimeout") return
      assert.strictEqual(reason.subtype, "mcp_message")
    }))
})
