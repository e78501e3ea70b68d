/**
 * Permissions against the real CLI (the pinned devDependency) and the fake Messages API: a
 * `Permissions` layer makes the session launch the CLI with `--permission-prompt-tool stdio`
 * and answer its `can_use_tool` requests. The CLI runs in `permissionMode: "default"`, where
 * `touch <file>` in the cwd needs approval (`echo hi` would be allowed without asking, §8 of
 * cli-2.1.332.md).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import { type CanUseToolRequest, type PermissionBehavior, type PermissionUpdateDestination } from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import type { Transport } from "../src/Transport.ts"
import { live, processLayer } from "./support/live.ts"
import { makeHome, makeTempDir, spawnRawCli } from "./support/realCli.ts"
import { assertCancelledWithoutAnswer, wireLog } from "./support/wire.ts"

const bash = (command: string) => FakeModel.toolUse("Bash", { command, description: "permission test" })

const inDefaultMode = { permissionMode: "default" } as const

const resultsOf = (events: ReadonlyArray<Claude.Event>): ReadonlyArray<Claude.TurnResult> =>
  events.filter((e): e is Claude.TurnResult => e.type === "result")

/** A `Permissions` layer answering with `answer` and keeping every request it sees. */
const recordingPermissions = (
  log: Array<CanUseToolRequest>,
  answer: (request: CanUseToolRequest) => ReturnType<typeof Permissions.allow>
) =>
  Permissions.layer((request) =>
    Effect.sync(() => {
      log.push(request)
      return answer(request)
    })
  )

const wait = <A, E>(deferred: Deferred.Deferred<A, E>, what: string) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutOrElse({ duration: "30 seconds", orElse: () => Effect.die(new Error(`timed out waiting for ${what}`)) })
  )

describe("permission schemas for values of later CLIs (no CLI)", () => {
  it.effect("permission_suggestions with an unknown destination or behavior decode, reach the handler and can be sent back", () =>
    Effect.gen(function*() {
      const suggestion = {
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "touch x.txt" }],
        behavior: "escalate",
        destination: "orgSettings"
      }
      const request = {
        subtype: "can_use_tool",
        tool_name: "Bash",
        input: { command: "touch x.txt" },
        tool_use_id: "toolu_1",
        permission_suggestions: [suggestion, { type: "setMode", mode: "acceptEdits", destination: "session" }]
      }
      const seen: Array<CanUseToolRequest> = []
      const service = yield* Permissions.fromHandler((r) =>
        Effect.sync(() => {
          seen.push(r)
          return Permissions.allow({ updatedPermissions: r.permission_suggestions!.slice(0, 1) })
        })
      )
      const wire = yield* Permissions.bind(service).decide(request)
      assert.deepStrictEqual(wire, { behavior: "allow", updatedInput: { command: "touch x.txt" }, updatedPermissions: [suggestion] })
      assert.strictEqual(seen.length, 1)
      const destination: PermissionUpdateDestination = "session"
      const behavior: PermissionBehavior = "allow"
      assert.deepStrictEqual([destination, behavior], ["session", "allow"])
      // Still a string: a number is an invalid request, denied without asking the handler.
      const bad = yield* Permissions.bind(service).decide({
        ...request,
        permission_suggestions: [{ ...suggestion, destination: 7 }]
      })
      assert.strictEqual(bad.behavior, "deny")
      assert.include(String(bad.message), "Invalid can_use_tool request")
      assert.strictEqual(seen.length, 1)
    }).pipe(Effect.provide(Logger.layer([]))))
})

describe("Permissions against the real CLI (permissionMode: default)", { timeout: 120_000 }, () => {
  it.live("allow: can_use_tool arrives for `touch`, the tool runs", () =>
    Effect.gen(function*() {
      const { model, options, cwd } = yield* live([bash("touch allowed.txt"), FakeModel.text("touched")], inDefaultMode)
      const log: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(recordingPermissions(log, () => Permissions.allow()))
      )
      const result = yield* session.run("touch a file")
      assert.strictEqual(log.length, 1)
      assert.strictEqual(log[0]!.tool_name, "Bash")
      assert.strictEqual(log[0]!.input.command, "touch allowed.txt")
      assert.strictEqual(log[0]!.blocked_path, Path.join(cwd, "allowed.txt"))
      assert.isTrue(Fs.existsSync(Path.join(cwd, "allowed.txt")))
      assert.strictEqual(result.subtype, "success")
      assert.deepStrictEqual(result.permission_denials, [])
      const [, second] = yield* model.messageRequests
      assert.isFalse(FakeModel.toolResults(second!)[0]!.isError)
    }).pipe(Effect.provide(processLayer)))

  it.live("allow with updatedInput: the changed command runs, the original does not", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([bash("touch one.txt"), FakeModel.text("touched")], inDefaultMode)
      const log: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(recordingPermissions(log, (request) =>
          Permissions.allow({ updatedInput: { ...request.input, command: "touch changed-by-host.txt" } })))
      )
      yield* session.run("touch a file")
      assert.strictEqual(log.length, 1)
      assert.isTrue(Fs.existsSync(Path.join(cwd, "changed-by-host.txt")))
      assert.isFalse(Fs.existsSync(Path.join(cwd, "one.txt")))
    }).pipe(Effect.provide(processLayer)))

  it.live("deny with a message: the tool does not run, the message is the tool result and a permission_denials entry", () =>
    Effect.gen(function*() {
      const { model, options, cwd } = yield* live([bash("touch denied.txt"), FakeModel.text("ok then")], inDefaultMode)
      const log: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(recordingPermissions(log, () => Permissions.deny("not in this directory, please")))
      )
      const events = yield* session.turn("touch a file").pipe(Stream.runCollect)
      const [result] = resultsOf(events)
      assert.strictEqual(result!.subtype, "success")
      assert.strictEqual(result!.result, "ok then")
      assert.isFalse(Fs.existsSync(Path.join(cwd, "denied.txt")))
      assert.strictEqual(result!.permission_denials.length, 1)
      assert.strictEqual(result!.permission_denials[0]!.tool_use_id, log[0]!.tool_use_id)
      assert.strictEqual(result!.permission_denials[0]!.tool_input.command, "touch denied.txt")
      const [, second] = yield* model.messageRequests
      const [toolResult] = FakeModel.toolResults(second!)
      assert.isTrue(toolResult!.isError)
      assert.include(toolResult!.content, "not in this directory, please")
    }).pipe(Effect.provide(processLayer)))

  it.live("deny with interrupt: true ends the turn (error_during_execution, aborted_tools); the next turn works", () =>
    Effect.gen(function*() {
      const { model, options, cwd } = yield* live([bash("touch stop.txt"), FakeModel.text("next turn")], inDefaultMode)
      const log: Array<CanUseToolRequest> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(recordingPermissions(log, () => Permissions.deny("stop everything", { interrupt: true })))
      )
      const result = yield* session.run("touch a file")
      assert.strictEqual(result.subtype, "error_during_execution")
      assert.strictEqual(result.terminal_reason, "aborted_tools")
      // The program's own abort (its denial asked for it): a result, not TurnFailed.
      assert.isTrue(result.turn.interruptRequested)
      assert.isFalse(Fs.existsSync(Path.join(cwd, "stop.txt")))
      // The turn ended without asking the model again.
      assert.strictEqual((yield* model.messageRequests).length, 1)
      const next = yield* session.run("go on")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "next turn")
      assert.strictEqual(log.length, 1)
    }).pipe(Effect.provide(processLayer)))

  describe("a failing handler denies (fails closed)", () => {
    class PolicyDown extends Data.TaggedError("PolicyDown")<{ readonly detail: string }> {}
    const handlers: ReadonlyArray<{
      readonly name: string
      readonly layer: (seen: Array<CanUseToolRequest>) => Layer.Layer<Permissions.Permissions, ClaudeError.ClaudeError>
      readonly reason: string
    }> = [
      {
        name: "fails",
        layer: (seen) =>
          Permissions.layer((request) =>
            Effect.andThen(Effect.sync(() => seen.push(request)), Effect.fail(new PolicyDown({ detail: "policy store unreachable" })))),
        reason: `PolicyDown {"detail":"policy store unreachable"}`
      },
      {
        name: "dies",
        layer: (seen) =>
          Permissions.layer((request) =>
            Effect.andThen(Effect.sync(() => seen.push(request)), Effect.die(new Error("a bug in the policy")))),
        reason: "died: a bug in the policy"
      },
      {
        name: "times out",
        layer: (seen) =>
          Permissions.layer((request) => Effect.andThen(Effect.sync(() => seen.push(request)), Effect.never), {
            timeout: "1 second"
          }),
        reason: "No answer to can_use_tool within 1000 ms"
      }
    ]
    for (const { name, layer, reason } of handlers) {
      const warnings: Array<string> = []
      const logger = Logger.make((options) => {
        if (options.logLevel === "Warn") warnings.push(String(options.message))
      })
      it.live(`a handler that ${name}: \`rm\` does not run, the model sees why, a permission_denials entry, handler_failed on events, warning logged`, () =>
        Effect.gen(function*() {
          const { model, options, cwd } = yield* live([bash("rm victim.txt"), FakeModel.text("kept it")], inDefaultMode)
          Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
          const seen: Array<CanUseToolRequest> = []
          const session = yield* Claude.open(options).pipe(Effect.provide(layer(seen)))
          const reported = yield* session.events.pipe(
            Stream.filter((event): event is HandlerFailure.HandlerFailed => event.type === "handler_failed"),
            Stream.take(1),
            Stream.runCollect,
            Effect.forkChild({ startImmediately: true })
          )
          const result = yield* session.run("delete the file")
          const [failed] = yield* Fiber.join(reported)
          assert.strictEqual(failed!.handler, "can_use_tool")
          assert.strictEqual(failed!.toolName, "Bash")
          assert.strictEqual(failed!.outcome, "denied")
          assert.strictEqual(seen.length, 1, "the CLI asked the handler")
          assert.strictEqual(seen[0]!.input.command, "rm victim.txt")
          assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the file the command would delete is still there")
          assert.strictEqual(result.subtype, "success")
          assert.strictEqual(result.result, "kept it")
          assert.strictEqual(result.permission_denials.length, 1)
          assert.strictEqual(result.permission_denials[0]!.tool_use_id, seen[0]!.tool_use_id)
          const [, second] = yield* model.messageRequests
          const [toolResult] = FakeModel.toolResults(second!)
          assert.isTrue(toolResult!.isError)
          assert.include(toolResult!.content, "so the tool call was denied")
          assert.include(toolResult!.content, reason)
          assert.isTrue(warnings.some((m) => m.includes("so the tool call was denied") && m.includes(reason)), warnings.join("\n"))
        }).pipe(Effect.provide([processLayer, Logger.layer([logger])])))
    }
  })

  it.live("Permissions.bind with a report, answering the real CLI directly (no session): a dying handler denies rm and is reported", () =>
    Effect.gen(function*() {
      const model = yield* FakeModel.make([bash("rm victim.txt"), FakeModel.text("kept it")])
      const home = yield* makeHome
      const cwd = yield* makeTempDir("ecc-cwd-")
      Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
      const reports: Array<HandlerFailure.HandlerFailed> = []
      const service = yield* Permissions.fromHandler(() => Effect.die(new Error("a bug in the policy")))
      const bound = Permissions.bind(service, (event) => void reports.push(event))
      // The later --permission-mode wins over the helper's bypassPermissions.
      const cli = yield* spawnRawCli({
        url: model.url,
        home,
        cwd,
        args: ["--permission-mode", "default", "--permission-prompt-tool", "stdio"]
      })
      yield* cli.sendUser("delete the file")
      const request = yield* cli.awaitLine((l) => l.type === "control_request")
      assert.strictEqual((request.request as { subtype?: unknown }).subtype, "can_use_tool")
      const answer = yield* bound.decide(request.request, String(request.request_id)).pipe(Effect.provide(Logger.layer([])))
      yield* cli.send({ type: "control_response", response: { subtype: "success", request_id: request.request_id, response: answer } })
      const result = yield* cli.awaitLine((l) => l.type === "result", "30 seconds")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the file the command would delete is still there")
      assert.strictEqual((result.permission_denials as ReadonlyArray<unknown>).length, 1)
      assert.strictEqual(reports.length, 1)
      assert.strictEqual(reports[0]!.handler, "can_use_tool")
      assert.strictEqual(reports[0]!.toolName, "Bash")
      assert.strictEqual(reports[0]!.requestId, request.request_id)
      assert.strictEqual(reports[0]!.failure, "died")
      assert.strictEqual(reports[0]!.outcome, "denied")
    }))

  it.live("interrupting a turn while the permission handler runs: control_cancel_request interrupts it (finalizer runs); the next turn works", () =>
    Effect.gen(function*() {
      const { lines, transcript } = wireLog()
      const { options, cwd } = yield* live([bash("touch pending.txt"), FakeModel.text("after the interrupt")], {
        ...inDefaultMode,
        transcript
      })
      const started = yield* Deferred.make<CanUseToolRequest>()
      const finalized = yield* Deferred.make<void>()
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Permissions.layer((request) =>
          Deferred.succeed(started, request).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(finalized, undefined))
          )))
      )
      const fiber = yield* session.turn("touch it").pipe(Stream.runCollect, Effect.forkChild)
      const request = yield* wait(started, "the permission handler to start")
      assert.strictEqual(request.input.command, "touch pending.txt")
      assert.isFalse(Deferred.isDoneUnsafe(finalized))
      yield* Fiber.interrupt(fiber)
      yield* wait(finalized, "the handler's finalizer")

      assertCancelledWithoutAnswer(lines, "can_use_tool")
      assert.isFalse(Fs.existsSync(Path.join(cwd, "pending.txt")))

      const next = yield* session.run("and now?")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "after the interrupt")
    }).pipe(Effect.provide(processLayer)))

  describe("swapping layers", () => {
    /**
     * The program under test. It names the services it runs with but builds none of them: the
     * caller picks the `Hooks`, the `Permissions` and the `Transport` by providing layers.
     */
    const program = (
      options: Claude.SessionOptions
    ): Effect.Effect<Claude.TurnResult, ClaudeError.ClaudeError, Hooks.Hooks | Permissions.Permissions | Transport | Scope.Scope> =>
      Effect.gen(function*() {
        const session = yield* Claude.open(options)
        return yield* session.run("Create the marker file.")
      })

    it.live("one program runs unchanged with a test Hooks layer and a recording Permissions layer", () =>
      Effect.gen(function*() {
        const { options, cwd } = yield* live([bash("touch marker.txt"), FakeModel.text("created")], inDefaultMode)
        const log: Array<string> = []
        const requests: Array<CanUseToolRequest> = []
        const TestHooks = Hooks.layer({
          UserPromptSubmit: (input) => Effect.sync(() => (log.push(`hook UserPromptSubmit ${input.prompt}`), {})),
          PreToolUse: (input) => Effect.sync(() => (log.push(`hook PreToolUse ${String(input.tool_input.command)}`), {})),
          PostToolUse: (input) => Effect.sync(() => (log.push(`hook PostToolUse ${input.tool_name}`), {})),
          Stop: () => Effect.sync(() => (log.push("hook Stop"), {}))
        })
        const RecordingPermissions = Permissions.layer((request) =>
          Effect.sync(() => {
            requests.push(request)
            log.push(`permission ${request.tool_name} ${String(request.input.command)}`)
            return Permissions.allow()
          })
        )
        const result = yield* program(options).pipe(
          Effect.provide(Layer.mergeAll(TestHooks, RecordingPermissions, processLayer))
        )
        assert.strictEqual(result.result, "created")
        assert.isTrue(Fs.existsSync(Path.join(cwd, "marker.txt")))
        assert.strictEqual(requests.length, 1)
        assert.strictEqual(requests[0]!.tool_name, "Bash")
        assert.deepStrictEqual(log, [
          "hook UserPromptSubmit Create the marker file.",
          "hook PreToolUse touch marker.txt",
          "permission Bash touch marker.txt",
          "hook PostToolUse Bash",
          "hook Stop"
        ])
      }))
  })
})
