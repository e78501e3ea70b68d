/**
 * A guard's answer that its schema takes but that is no usable answer (README, "Guards fail
 * closed"): a permission handler that returns nothing, and answers holding a value JSON cannot
 * write (a BigInt, a cycle). Each was refused at once and reported as a `handler_failed` event;
 * before, the first died (no report) and the others got the CLI no answer at all, so it waited
 * (a `can_use_tool` for as long as the turn ran). An MCP tool's `structuredContent` JSON cannot
 * write is the tool's failure, an `isError` result (`test/Incoming.test.ts` has the backstop: an
 * answer no check covers gets the CLI an error answer).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import type { PermissionResult } from "../src/Permissions.ts"
import * as UserDialogs from "../src/UserDialogs.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { capturedRequest } from "./support/protocolTranscripts.ts"

/** What the CLI's request got (within a second) and the `handler_failed` events meanwhile. */
const ask = <ROut>(
  request: (cli: FakeCli.FakeCliHandle) => Effect.Effect<unknown, ClaudeError.ClaudeError>,
  handlers: Layer.Layer<ROut, ClaudeError.ClaudeError>
) =>
  Effect.gen(function*() {
    const outcome = yield* Deferred.make<Exit.Exit<unknown, ClaudeError.ClaudeError>>()
    // The CLI asks once the program reads `events`.
    const go = yield* Deferred.make<void>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* Deferred.await(go)
        yield* Deferred.succeed(outcome, yield* Effect.exit(request(cli)))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      const session = yield* Claude.open()
      const failed = yield* Deferred.make<HandlerFailure.HandlerFailed>()
      yield* Effect.forkScoped(
        Stream.runForEach(session.events, (event) =>
          event.type === "handler_failed" ? Deferred.succeed(failed, event) : Effect.void),
        { startImmediately: true }
      )
      yield* Deferred.succeed(go, undefined)
      const exit = yield* Deferred.await(outcome)
      // The first report, if one comes within a second of real time (none fails the tests below).
      const report = yield* Deferred.await(failed).pipe(Effect.timeoutOption("1 second"))
      const failures = report._tag === "Some" ? [[report.value.handler, report.value.failure, report.value.outcome]] : []
      return { exit, failures }
    }).pipe(Effect.provide([cli, handlers]), Effect.provide(Logger.layer([])))
  })

const within = { timeout: "1 second" } as const

describe("a guard's answer that is no usable answer", () => {
  it.live("a permission handler that returns nothing (undefined, null) is denied and reported", () =>
    Effect.gen(function*() {
      const request = capturedRequest("c6-callback-error-responses", "can_use_tool")
      for (const nothing of [undefined, null]) {
        const { exit, failures } = yield* ask(
          (cli) => cli.request(request, within),
          Permissions.layer(() => Effect.succeed(nothing as unknown as PermissionResult))
        )
        assert.isTrue(Exit.isSuccess(exit), `${nothing}: ${String(exit)}`)
        const answer = (exit as Exit.Success<{ subtype: string; response: { behavior: string } }>).value
        assert.strictEqual(answer.subtype, "success", `${nothing}: an error answer, the handler's death`)
        assert.strictEqual(answer.response.behavior, "deny")
        assert.deepStrictEqual(failures, [["can_use_tool", "invalid_answer", "denied"]])
      }
    }))

  it.live("a permission allow with a BigInt in updatedInput is denied and reported", () =>
    Effect.gen(function*() {
      const { exit, failures } = yield* ask(
        (cli) => FakeCli.askPermission(cli, "Bash", { command: "ls" }, within),
        Permissions.layer(() => Effect.succeed(Permissions.allow({ updatedInput: { command: "ls", n: 1n as unknown } })))
      )
      assert.isTrue(Exit.isSuccess(exit), `the CLI got no answer: ${String(exit)}`)
      const decision = (exit as Exit.Success<{ behavior: string; message?: string }>).value
      assert.strictEqual(decision.behavior, "deny")
      assert.include(decision.message, "cannot be written as JSON")
      assert.deepStrictEqual(failures, [["can_use_tool", "invalid_answer", "denied"]])
    }))

  // JSON writes a Map or a Set as {} and a Date as its string: the tool would run with an input
  // the handler never gave (found by a reviewing helper: the CLI got {"updatedInput":{}}).
  it.live("a permission allow whose updatedInput holds what JSON would change (a Set, a Map, a Date) is denied and reported", () =>
    Effect.gen(function*() {
      const cases = [
        [{ command: "ls", files: new Set(["a"]) }, "updatedInput.files is a Set, which JSON writes as {}"],
        [new Map([["command", "rm -rf /"]]) as unknown as Record<string, unknown>, "updatedInput is a Map, which JSON writes as {}"],
        [{ command: "ls", at: [new Date(0)] }, "updatedInput.at[0] is a Date, which JSON writes as what its toJSON gives"]
      ] as const
      for (const [updatedInput, why] of cases) {
        const { exit, failures } = yield* ask(
          (cli) => FakeCli.askPermission(cli, "Bash", { command: "ls" }, within),
          Permissions.layer(() => Effect.succeed(Permissions.allow({ updatedInput })))
        )
        assert.isTrue(Exit.isSuccess(exit), `the CLI got no answer: ${String(exit)}`)
        const decision = (exit as Exit.Success<{ behavior: string; message?: string }>).value
        assert.strictEqual(decision.behavior, "deny", why)
        assert.include(decision.message, `gave an answer that is not JSON data: ${why}`)
        assert.deepStrictEqual(failures, [["can_use_tool", "invalid_answer", "denied"]])
      }
    }))

  it.live("a PreToolUse hook's allowWith of an input holding a Map is refused and reported", () =>
    Effect.gen(function*() {
      const { exit, failures } = yield* ask(
        (cli) => FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } } as never, within),
        Hooks.layer(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allowWith({ command: "ls", env: new Map([["A", "1"]]) }))))
      )
      assert.isTrue(Exit.isSuccess(exit), `the CLI got no answer: ${String(exit)}`)
      const output = (exit as Exit.Success<Hooks.HookOutput<"PreToolUse">>).value
      assert.strictEqual(output.hookSpecificOutput?.permissionDecision, "deny")
      assert.include(
        output.hookSpecificOutput?.permissionDecisionReason,
        "gave an answer that is not JSON data: hookSpecificOutput.updatedInput.env is a Map, which JSON writes as {}"
      )
      assert.deepStrictEqual(failures.map(([, failure]) => failure), ["invalid_answer"])
    }))

  it.live("a PreToolUse hook's allowWith of a cyclic input is refused and reported", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = { command: "ls" }
      cyclic.self = cyclic
      const { exit, failures } = yield* ask(
        (cli) => FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } } as never, within),
        Hooks.layer(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allowWith(cyclic))))
      )
      assert.isTrue(Exit.isSuccess(exit), `the CLI got no answer: ${String(exit)}`)
      const output = (exit as Exit.Success<Hooks.HookOutput<"PreToolUse">>).value
      assert.strictEqual(output.hookSpecificOutput?.permissionDecision, "deny")
      assert.isUndefined(output.hookSpecificOutput?.updatedInput)
      assert.deepStrictEqual(failures.map(([, failure]) => failure), ["invalid_answer"])
    }))

  it.live("a dialog completed with a BigInt result is cancelled and reported", () =>
    Effect.gen(function*() {
      const { exit, failures } = yield* ask(
        (cli) => cli.request({ subtype: "request_user_dialog", dialog_kind: "refusal_fallback_prompt", payload: {} }, within),
        UserDialogs.layer(["refusal_fallback_prompt"], () => Effect.succeed(UserDialogs.completed({ n: 1n })))
      )
      assert.isTrue(Exit.isSuccess(exit), `the CLI got no answer: ${String(exit)}`)
      const answer = (exit as Exit.Success<{ subtype: string; response: { behavior: string } }>).value
      assert.strictEqual(answer.response.behavior, "cancelled")
      assert.deepStrictEqual(failures, [["request_user_dialog", "invalid_answer", "cancelled"]])
    }))

  it.live("an MCP tool result JSON cannot write is an isError result the model reads", () =>
    Effect.gen(function*() {
      const odd = McpServers.tool({
        name: "odd",
        description: "Answers a BigInt.",
        input: Schema.Struct({}),
        handler: () => Effect.succeed(McpServers.structured({ n: 1n }, { text: "one" }))
      })
      const { exit } = yield* ask(
        (cli) => FakeCli.callMcpTool(cli, "byre", "odd", {}, within),
        McpServers.layer(McpServers.server("byre", { version: "0.0.1", tools: [odd] }))
      )
      assert.isTrue(Exit.isSuccess(exit), `no JSON-RPC result: ${String(exit)}`)
      const result = (exit as Exit.Success<{ isError?: boolean; content: ReadonlyArray<{ text?: string }> }>).value
      assert.isTrue(result.isError)
      assert.include(result.content[0]?.text, "JSON cannot write")
    }))
})
