/**
 * Hooks against the real CLI (the pinned devDependency) and the fake Messages API: the `Hooks`
 * service provided through layers, registered in `initialize`, answered over `hook_callback`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import type { HookOptions } from "../src/Hooks.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { makeHome, makeTempDir, spawnRawCli } from "./support/realCli.ts"
import { assertCancelledWithoutAnswer, wireLog } from "./support/wire.ts"

const bash = (command: string) => FakeModel.toolUse("Bash", { command, description: "hook test" })

/** Every text of a request message's content, system reminders included. */
const contentText = (content: FakeModel.RequestMessage["content"]): string =>
  typeof content === "string"
    ? content
    : content.flatMap((block) => block.type === "text" && typeof block.text === "string" ? [block.text] : []).join("\n")

const messagesText = (request: FakeModel.RecordedRequest, role: string): string =>
  request.messages.filter((m) => m.role === role).map((m) => contentText(m.content)).join("\n")

/** The `role: "system"` entries the CLI puts in `messages` (environment, hook contexts). */
const systemMessagesText = (request: FakeModel.RecordedRequest): string => messagesText(request, "system")

const userMessagesText = (request: FakeModel.RecordedRequest): string => messagesText(request, "user")

const resultsOf = (events: ReadonlyArray<Claude.Event>): ReadonlyArray<Claude.TurnResult> =>
  events.filter((e): e is Claude.TurnResult => e.type === "result")

/** The tool_result blocks of the `user` events of a turn, as JSON text. */
const toolResultLines = (events: ReadonlyArray<Claude.Event>): ReadonlyArray<string> =>
  events.filter((e) => e.type === "user").map((e) => JSON.stringify(e)).filter((line) => line.includes("tool_result"))


/** A logger keeping the messages of warnings (and worse), instead of printing them. */
const warningLog = () => {
  const messages: Array<string> = []
  const logger = Logger.make((options) => {
    if (options.logLevel === "Warn" || options.logLevel === "Error") {
      messages.push(Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message))
    }
  })
  return { messages, logger }
}

class HookBoom extends Data.TaggedError("HookBoom")<{ readonly detail: string }> {}

const wait = <A, E>(deferred: Deferred.Deferred<A, E>, what: string) =>
  Deferred.await(deferred).pipe(
    Effect.timeoutOrElse({ duration: "30 seconds", orElse: () => Effect.die(new Error(`timed out waiting for ${what}`)) })
  )

const baseInput = { session_id: "s", transcript_path: "/t.jsonl", cwd: "/w" } as const

describe("hook schemas for values and events of later CLIs (no CLI)", () => {
  it.effect("SessionStart.source and PreCompact/PostCompact.trigger accept unknown strings (known ones too); non-strings fail", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const bound = Hooks.bind(
        yield* Hooks.register(
          Hooks.on("SessionStart", (input) => Effect.sync(() => (seen.push(`SessionStart ${input.source}`), {}))),
          Hooks.on("PreCompact", (input) => Effect.sync(() => (seen.push(`PreCompact ${input.trigger}`), {}))),
          Hooks.on("PostCompact", (input) => Effect.sync(() => (seen.push(`PostCompact ${input.trigger}`), {})))
        )
      )
      yield* bound.dispatch("hook_0", { ...baseInput, hook_event_name: "SessionStart", source: "teleport" }, undefined)
      yield* bound.dispatch("hook_0", { ...baseInput, hook_event_name: "SessionStart", source: "compact" }, undefined)
      yield* bound.dispatch(
        "hook_1",
        { ...baseInput, hook_event_name: "PreCompact", trigger: "scheduled", custom_instructions: null },
        undefined
      )
      yield* bound.dispatch(
        "hook_2",
        { ...baseInput, hook_event_name: "PostCompact", trigger: "scheduled", compact_summary: "sum" },
        undefined
      )
      assert.deepStrictEqual(seen, [
        "SessionStart teleport",
        "SessionStart compact",
        "PreCompact scheduled",
        "PostCompact scheduled"
      ])
      const bad = yield* Effect.flip(
        bound.dispatch("hook_0", { ...baseInput, hook_event_name: "SessionStart", source: 42 }, undefined)
      )
      assert.strictEqual(bad.reason._tag, "InvalidInput")
      assert.strictEqual(seen.length, 4)
      const source: HookEvents.SessionStartSource = "resume"
      const trigger: HookEvents.CompactTrigger = "auto"
      assert.deepStrictEqual([source, trigger], ["resume", "auto"])
    }).pipe(Effect.provide(Logger.layer([]))))

  it.effect("events and outputs of the TS SDK: PostToolBatch, UserPromptExpansion, Elicitation(Result), terminalSequence", () =>
    Effect.gen(function*() {
      const bound = Hooks.bind(
        yield* Hooks.register(
          Hooks.on("PostToolBatch", (input) =>
            Effect.succeed({
              terminalSequence: "\u0007",
              ...Hooks.addContext("PostToolBatch", `${input.tool_calls.length} calls: ${input.tool_calls[0]!.tool_name}`)
            })),
          Hooks.on("UserPromptExpansion", (input) =>
            Effect.succeed({
              hookSpecificOutput: { additionalContext: `${input.expansion_type} ${input.command_name}`, suppressOriginalPrompt: true }
            })),
          Hooks.on("Elicitation", (input) =>
            Effect.succeed({ hookSpecificOutput: { action: "accept", content: { server: input.mcp_server_name } } })),
          Hooks.on("ElicitationResult", (input) =>
            Effect.succeed({ hookSpecificOutput: { action: input.action === "accept" ? "decline" : "accept" } }))
        )
      )
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_0", {
          ...baseInput,
          hook_event_name: "PostToolBatch",
          tool_calls: [{ tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1", tool_response: {} }]
        }, undefined),
        {
          terminalSequence: "\u0007",
          hookSpecificOutput: { hookEventName: "PostToolBatch", additionalContext: "1 calls: Bash" }
        }
      )
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_1", {
          ...baseInput,
          hook_event_name: "UserPromptExpansion",
          expansion_type: "slash_command",
          command_name: "review",
          command_args: "",
          prompt: "/review"
        }, undefined),
        {
          hookSpecificOutput: {
            hookEventName: "UserPromptExpansion",
            additionalContext: "slash_command review",
            suppressOriginalPrompt: true
          }
        }
      )
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_2", {
          ...baseInput,
          hook_event_name: "Elicitation",
          mcp_server_name: "byre",
          message: "Your name?",
          mode: "form"
        }, undefined),
        {
          hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: { server: "byre" } },
          // Where CLI 2.1.332 reads an SDK host's Elicitation answer (test/HookElicitationAnswersLive.test.ts).
          systemMessage: JSON.stringify({
            hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: { server: "byre" } }
          })
        }
      )
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_3", {
          ...baseInput,
          hook_event_name: "ElicitationResult",
          mcp_server_name: "byre",
          action: "accept"
        }, undefined),
        { hookSpecificOutput: { hookEventName: "ElicitationResult", action: "decline" }, decision: "block" }
      )
      const missing = yield* Effect.flip(
        bound.dispatch("hook_0", { ...baseInput, hook_event_name: "PostToolBatch" }, undefined)
      )
      assert.strictEqual(missing.reason._tag, "InvalidInput")
      assert.isTrue(HookEvents.isKnownEvent("PostToolBatch"))
    }).pipe(Effect.provide(Logger.layer([]))))
})

describe("Hooks against the real CLI", { timeout: 120_000 }, () => {
  it.live("Stop: block once with a reason, then allow → ONE result with num_turns 2; the reason reaches the model", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("Hello."), FakeModel.text("Goodbye.")])
      const calls: Array<boolean> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("Stop", (input) =>
          Effect.sync(() => {
            calls.push(input.stop_hook_active)
            return input.stop_hook_active ? Hooks.allow() : Hooks.block("Also say goodbye, please.")
          }))))
      )
      const events = yield* session.turn("Say hello").pipe(Stream.runCollect)
      const results = resultsOf(events)
      assert.strictEqual(results.length, 1)
      assert.strictEqual(results[0]!.subtype, "success")
      assert.strictEqual(results[0]!.num_turns, 2)
      assert.strictEqual(results[0]!.result, "Goodbye.")
      assert.deepStrictEqual(calls, [false, true])
      const requests = yield* model.messageRequests
      assert.strictEqual(requests.length, 2)
      assert.notInclude(JSON.stringify(requests[0]!.messages), "Also say goodbye, please.")
      // The CLI wraps the feedback in a <system-reminder> of the user message after "Hello.".
      const feedback = contentText(FakeModel.lastUserMessage(requests[1]!)!.content)
      assert.include(feedback, "Stop hook feedback:\nAlso say goodbye, please.")
    }).pipe(Effect.provide(processLayer)))

  it.live("Stop answered with async: true and a block: an invalid answer, not sent as given (the CLI would ignore the block)", () =>
    Effect.gen(function*() {
      const { lines, transcript } = wireLog()
      const { model, options } = yield* live([FakeModel.text("Hello."), FakeModel.text("Goodbye.")], { transcript })
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("Stop", () =>
          Effect.succeed({ ...Hooks.async(5_000), ...Hooks.block("Also say goodbye, please.") }))))
      )
      const result = yield* session.run("Say hello")
      assert.strictEqual(result.num_turns, 1)
      assert.strictEqual(result.result, "Hello.")
      assert.strictEqual((yield* model.messageRequests).length, 1)
      // CLI 2.1.332 reads an async answer as no decision and ignores the rest (a guard's deny
      // there let the tool run: SilentNonGuardsLive.test.ts), so the library does not send it.
      const answers = lines.filter((l) => l.direction === "send" && l.message.type === "control_response")
      assert.isFalse(answers.some((l) => JSON.stringify(l.message).includes("Also say goodbye")))
    }).pipe(Effect.provide(processLayer)))

  it.live("PreToolUse deny: the Bash command does not run; the tool_result carries the reason", () =>
    Effect.gen(function*() {
      const { model, options, cwd } = yield* live([bash("touch denied.txt"), FakeModel.text("ok, not touching")])
      const seen: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
          Effect.sync(() => {
            seen.push(String(input.tool_input.command))
            return Hooks.deny("no touching in this test")
          }))))
      )
      const events = yield* session.turn("touch a file").pipe(Stream.runCollect)
      assert.deepStrictEqual(seen, ["touch denied.txt"])
      assert.isFalse(Fs.existsSync(Path.join(cwd, "denied.txt")))
      const lines = toolResultLines(events)
      assert.strictEqual(lines.length, 1)
      assert.include(lines[0]!, "no touching in this test")
      const [, second] = yield* model.messageRequests
      const [result] = FakeModel.toolResults(second!)
      assert.isTrue(result!.isError)
      assert.include(result!.content, "PreToolUse:Bash hook error")
      assert.include(result!.content, "no touching in this test")
      assert.strictEqual(resultsOf(events)[0]!.result, "ok, not touching")
    }).pipe(Effect.provide(processLayer)))

  it.live("PreToolUse allow with updatedInput: the changed command runs instead of the original", () =>
    Effect.gen(function*() {
      const { model, options, cwd } = yield* live([bash("touch original.txt"), FakeModel.text("done")])
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
          Effect.succeed(Hooks.allowWith({
            ...input.tool_input,
            command: "touch changed-by-hook.txt && echo changed-by-hook"
          })))))
      )
      yield* session.run("touch a file")
      assert.isTrue(Fs.existsSync(Path.join(cwd, "changed-by-hook.txt")))
      assert.isFalse(Fs.existsSync(Path.join(cwd, "original.txt")))
      const [, second] = yield* model.messageRequests
      const [result] = FakeModel.toolResults(second!)
      assert.isFalse(result!.isError)
      assert.include(result!.content, "changed-by-hook")
    }).pipe(Effect.provide(processLayer)))

  it.live("UserPromptSubmit additionalContext reaches the model (the system entry of the request)", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("noted")])
      const prompts: Array<string> = []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer({
          UserPromptSubmit: (input) =>
            Effect.sync(() => {
              prompts.push(input.prompt)
              return Hooks.addContext("UserPromptSubmit", "The secret word is CTX-pelican-42.")
            })
        }))
      )
      yield* session.run("What is the secret word?")
      assert.deepStrictEqual(prompts, ["What is the secret word?"])
      const [request] = yield* model.messageRequests
      // CLI 2.1.332 appends it to the environment entry, a `role: "system"` message of `messages`.
      assert.include(systemMessagesText(request!), "UserPromptSubmit hook additional context: The secret word is CTX-pelican-42.")
      assert.notInclude(userMessagesText(request!), "CTX-pelican-42")
    }).pipe(Effect.provide(processLayer)))

  it.live("PostToolUse fires after the tool with its tool_response (stdout) and tool_use_id", () =>
    Effect.gen(function*() {
      const { options } = yield* live([bash("echo post-tool-marker"), FakeModel.text("done")])
      const seen: Array<{ readonly response: unknown; readonly toolUseId: string; readonly metaId: string | undefined }> =
        []
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PostToolUse", (input, meta) =>
          Effect.sync(() => {
            seen.push({ response: input.tool_response, toolUseId: input.tool_use_id, metaId: meta.toolUseId })
            return Hooks.allow()
          }))))
      )
      const events = yield* session.turn("echo something").pipe(Stream.runCollect)
      assert.strictEqual(seen.length, 1)
      const response = seen[0]!.response as { readonly stdout?: unknown }
      assert.strictEqual(typeof response.stdout, "string")
      assert.include(String(response.stdout), "post-tool-marker")
      assert.strictEqual(seen[0]!.metaId, seen[0]!.toolUseId)
      const assistant = JSON.stringify(events.filter((e) => e.type === "assistant"))
      assert.include(assistant, seen[0]!.toolUseId)
    }).pipe(Effect.provide(processLayer)))

  describe("guards fail closed: a broken PreToolUse guard keeps the command from running", () => {
    const guards: ReadonlyArray<{
      readonly name: string
      readonly options: HookOptions
      readonly handler: () => Effect.Effect<HookEvents.HookOutput<"PreToolUse">, HookBoom>
      readonly reason: string
    }> = [
      { name: "fails", options: {}, handler: () => Effect.fail(new HookBoom({ detail: "a typed failure" })), reason: `HookBoom {"detail":"a typed failure"}` },
      {
        name: "throws",
        options: {},
        handler: () => {
          throw new Error("thrown by the guard")
        },
        reason: "thrown by the guard"
      },
      { name: "dies", options: {}, handler: () => Effect.die(new Error("a defect in the guard")), reason: "a defect in the guard" },
      // The CLI is told 1 + 5 s: the library's refusal comes first, and says why.
      { name: "times out", options: { timeout: "1 second" }, handler: () => Effect.never, reason: "The PreToolUse hook (hook_0) did not answer within 1000 ms" }
    ]
    for (const { name, options: hookOptions, handler, reason } of guards) {
      const warnings = warningLog()
      it.live(`a guard that ${name}: \`rm\` does not run, the model sees the reason, the turn goes on, handler_failed on events and the turn, warning logged`, () =>
        Effect.gen(function*() {
          const { lines, transcript } = wireLog()
          const { model, options, cwd } = yield* live(
            [bash("rm victim.txt"), FakeModel.text("left it alone")],
            { transcript, permissionMode: "bypassPermissions" }
          )
          Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
          const session = yield* Claude.open(options).pipe(
            Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash", ...hookOptions }, handler)))
          )
          const reported = yield* session.events.pipe(
            Stream.filter((event): event is HandlerFailure.HandlerFailed => event.type === "handler_failed"),
            Stream.take(1),
            Stream.runCollect,
            Effect.forkChild({ startImmediately: true })
          )
          const events = yield* session.turn("delete the file").pipe(Stream.runCollect)
          assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the file the command would delete is still there")
          // The program is told, on events and on the stream of the turn that caused it.
          const [failed] = yield* Fiber.join(reported)
          assert.strictEqual(failed!.hookEvent, "PreToolUse")
          assert.strictEqual(failed!.toolName, "Bash")
          assert.strictEqual(failed!.outcome, "denied")
          assert.include(failed!.message, reason)
          assert.isTrue(events.some((event) => event.type === "handler_failed"), "the turn's stream has the failure")
          const [result] = resultsOf(events)
          assert.strictEqual(result!.subtype, "success")
          assert.strictEqual(result!.result, "left it alone")
          const [, second] = yield* model.messageRequests
          const [toolResult] = FakeModel.toolResults(second!)
          assert.isTrue(toolResult!.isError)
          assert.include(toolResult!.content, "PreToolUse:Bash hook error")
          assert.include(toolResult!.content, reason)
          // The CLI got a deny (a success answer), never had to cancel, and was not left to time out.
          const answers = lines.filter((l) => l.direction === "send" && l.message.type === "control_response")
          const deny = answers.find((l) => JSON.stringify(l.message).includes(`"permissionDecision":"deny"`))
          assert.isDefined(deny)
          assert.strictEqual((deny!.message.response as { subtype?: unknown }).subtype, "success")
          assert.isFalse(lines.some((l) => l.direction === "recv" && l.message.type === "control_cancel_request"))
          assert.isTrue(
            warnings.messages.some((m) => m.includes("PreToolUse hook (hook_0) failed") && m.includes("tool call was refused")),
            warnings.messages.join("\n")
          )
        }).pipe(Effect.provide([processLayer, Logger.layer([warnings.logger])])))
    }

    it.live("onFailure: \"continue\" opts out: a failing guard lets the command run (hook_callback_failed), the session works", () =>
      Effect.gen(function*() {
        const { lines, transcript } = wireLog()
        const { options, cwd } = yield* live([
          bash("rm victim.txt"),
          FakeModel.text("first done"),
          FakeModel.text("second done")
        ], { transcript, permissionMode: "bypassPermissions" })
        Fs.writeFileSync(Path.join(cwd, "victim.txt"), "doomed")
        const session = yield* Claude.open(options).pipe(
          Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { onFailure: "continue" }, () =>
            Effect.fail(new HookBoom({ detail: "a typed failure" })))))
        )
        const first = yield* session.turn("first").pipe(Stream.runCollect, Effect.provide(Logger.layer([])))
        const second = yield* session.run("second")
        assert.isFalse(Fs.existsSync(Path.join(cwd, "victim.txt")))
        const failed = first.filter((e) => e.type === "system" && e.subtype === "informational" && e.tag === "hook_callback_failed")
        assert.strictEqual(failed.length, 1)
        assert.strictEqual(resultsOf(first)[0]!.result, "first done")
        assert.strictEqual(second.result, "second done")
        const errors = lines.flatMap((l) =>
          l.direction === "send" && l.message.type === "control_response" &&
            (l.message.response as { subtype?: unknown }).subtype === "error"
            ? [String((l.message.response as { error?: unknown }).error)]
            : []
        )
        assert.strictEqual(errors.length, 1)
        assert.include(errors[0]!, `HookBoom {"detail":"a typed failure"}`)
      }).pipe(Effect.provide(processLayer)))
  })

  it.live("a dying UserPromptSubmit guard drops the prompt (no model call); a dying Stop hook does not hold the turn", () =>
    Effect.gen(function*() {
      const { model, options } = yield* live([FakeModel.text("answered")], { permissionMode: "bypassPermissions" })
      let guardCalls = 0
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(
          Hooks.on("UserPromptSubmit", (input) =>
            Effect.suspend(() => {
              guardCalls++
              return input.prompt.includes("secret") ? Effect.die(new Error("the prompt scanner crashed")) : Effect.succeed({})
            })),
          Hooks.on("Stop", () => Effect.die(new Error("the Stop hook crashed")))
        )),
        Effect.provide(Logger.layer([]))
      )
      const dropped = yield* session.turn("here is a secret").pipe(Stream.runCollect)
      assert.strictEqual((yield* model.messageRequests).length, 0, "the prompt never reached the model")
      const blocked = dropped.filter((e) => e.type === "system" && e.subtype === "informational")
      assert.isTrue(blocked.some((e) => JSON.stringify(e).includes("the prompt scanner crashed")))
      assert.strictEqual(resultsOf(dropped)[0]!.num_turns, 0)
      // A Stop hook is not a guard: its failure gets the non-blocking answer and the turn ends.
      const next = yield* session.run("an ordinary prompt")
      assert.strictEqual(next.result, "answered")
      assert.strictEqual(guardCalls, 2)
    }).pipe(Effect.provide(processLayer)))

  describe("Hooks.bind with a report, answering the real CLI directly (no session)", () => {
    const guards: ReadonlyArray<{
      readonly name: string
      readonly options: HookOptions
      readonly handler: () => Effect.Effect<HookEvents.HookOutput<"PreToolUse">>
      readonly failure: HandlerFailure.FailureKind
    }> = [
      {
        name: "throws",
        options: {},
        handler: () => {
          throw new Error("thrown by the guard")
        },
        failure: "died"
      },
      { name: "dies", options: {}, handler: () => Effect.die(new Error("a defect in the guard")), failure: "died" },
      { name: "times out", options: { timeout: "1 second" }, handler: () => Effect.never, failure: "timed_out" }
    ]
    for (const { name, options: hookOptions, handler, failure } of guards) {
      it.live(`a guard that ${name}: rm does not run and the report names the tool, the request and the outcome`, () =>
        Effect.gen(function*() {
          const model = yield* FakeModel.make([bash("rm victim.txt"), FakeModel.text("left it alone")])
          const home = yield* makeHome
          const cwd = yield* makeTempDir("ecc-cwd-")
          Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
          const reports: Array<HandlerFailure.HandlerFailed> = []
          const hooks = yield* Effect.provide(
            Effect.service(Hooks.Hooks),
            Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash", ...hookOptions }, handler))
          )
          const bound = Hooks.bind(hooks, (event) => void reports.push(event))
          const cli = yield* spawnRawCli({ url: model.url, home, cwd })
          yield* cli.send({ type: "control_request", request_id: "init", request: { subtype: "initialize", hooks: bound.initialize } })
          yield* cli.awaitLine((l) => l.type === "control_response")
          yield* cli.sendUser("delete the file")
          const request = yield* cli.awaitLine((l) => l.type === "control_request")
          const body = request.request as { callback_id: string; input: unknown; tool_use_id: string }
          const answer = yield* bound.dispatch(body.callback_id, body.input, body.tool_use_id, String(request.request_id)).pipe(
            Effect.provide(Logger.layer([]))
          )
          yield* cli.send({
            type: "control_response",
            response: { subtype: "success", request_id: request.request_id, response: answer }
          })
          yield* cli.awaitLine((l) => l.type === "result", "30 seconds")
          assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")), "the file the command would delete is still there")
          assert.strictEqual(reports.length, 1)
          const report = reports[0]!
          assert.strictEqual(report.type, "handler_failed")
          assert.strictEqual(report.handler, "hook")
          assert.strictEqual(report.hookEvent, "PreToolUse")
          assert.strictEqual(report.toolName, "Bash")
          assert.strictEqual(report.toolUseId, body.tool_use_id)
          assert.strictEqual(report.requestId, request.request_id)
          assert.strictEqual(report.failure, failure)
          assert.strictEqual(report.outcome, "denied")
          const [, second] = yield* model.messageRequests
          assert.include(FakeModel.toolResults(second!)[0]!.content, "PreToolUse:Bash hook error")
        }))
    }
  })

  describe("what CLI 2.1.332 does on its own hook timeout (why the library answers first)", () => {
    it.live("an unanswered PreToolUse hook_callback past the registration's timeout: cancelled, the tool not run, no reason from the host", () =>
      Effect.gen(function*() {
        const model = yield* FakeModel.make([bash("rm victim.txt"), FakeModel.text("done")])
        const home = yield* makeHome
        const cwd = yield* makeTempDir("ecc-cwd-")
        Fs.writeFileSync(Path.join(cwd, "victim.txt"), "still here")
        const cli = yield* spawnRawCli({ url: model.url, home, cwd })
        yield* cli.send({
          type: "control_request",
          request_id: "init",
          request: { subtype: "initialize", hooks: { PreToolUse: [{ matcher: null, hookCallbackIds: ["never"], timeout: 2 }] } }
        })
        yield* cli.awaitLine((l) => l.type === "control_response")
        yield* cli.sendUser("delete the file")
        const request = yield* cli.awaitLine((l) => l.type === "control_request")
        const cancel = yield* cli.awaitLine((l) => l.type === "control_cancel_request", "20 seconds")
        assert.strictEqual(cancel.request_id, request.request_id)
        yield* cli.awaitLine((l) => l.type === "result", "30 seconds")
        assert.isTrue(Fs.existsSync(Path.join(cwd, "victim.txt")))
        const [, second] = yield* model.messageRequests
        const [toolResult] = FakeModel.toolResults(second!)
        assert.isTrue(toolResult!.isError)
        assert.include(toolResult!.content, "did not respond before its timeout")
        assert.include(toolResult!.content, "The tool call was not executed")
      }))
  })

  describe("two Hooks layers", () => {
    const recordingLayer = (name: string, log: Array<string>) =>
      Hooks.layer(Hooks.on("UserPromptSubmit", () =>
        Effect.sync(() => {
          log.push(name)
          return Hooks.addContext("UserPromptSubmit", `context from layer ${name}`)
        })))

    it.live("stacked Effect.provide: both fire and both contexts reach the model", () =>
      Effect.gen(function*() {
        const { model, options } = yield* live([FakeModel.text("ok")])
        const log: Array<string> = []
        const session = yield* Claude.open(options).pipe(
          Effect.provide(recordingLayer("A", log)),
          Effect.provide(recordingLayer("B", log))
        )
        const init = yield* session.initializeResult
        assert.isDefined(init)
        yield* session.run("hi")
        assert.sameMembers(log, ["A", "B"])
        const [request] = yield* model.messageRequests
        assert.include(systemMessagesText(request!), "context from layer A")
        assert.include(systemMessagesText(request!), "context from layer B")
      }).pipe(Effect.provide(processLayer)))

    it.live("Hooks.mergeLayers: both fire and both contexts reach the model", () =>
      Effect.gen(function*() {
        const { model, options } = yield* live([FakeModel.text("ok")])
        const log: Array<string> = []
        const session = yield* Claude.open(options).pipe(
          Effect.provide(Hooks.mergeLayers(recordingLayer("A", log), recordingLayer("B", log)))
        )
        yield* session.run("hi")
        assert.sameMembers(log, ["A", "B"])
        const [request] = yield* model.messageRequests
        assert.include(systemMessagesText(request!), "context from layer A")
        assert.include(systemMessagesText(request!), "context from layer B")
      }).pipe(Effect.provide(processLayer)))
  })

  it.live("interrupting a turn while a PreToolUse handler runs: control_cancel_request interrupts it (finalizer runs); the next turn works", () =>
    Effect.gen(function*() {
      const { lines, transcript } = wireLog()
      const { options, cwd } = yield* live([bash("touch never.txt"), FakeModel.text("after the interrupt")], {
        transcript
      })
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<void>()
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(finalized, undefined))
          )))))
      const fiber = yield* session.turn("touch it").pipe(Stream.runCollect, Effect.forkChild)
      yield* wait(started, "the PreToolUse handler to start")
      assert.isFalse(Deferred.isDoneUnsafe(finalized))
      yield* Fiber.interrupt(fiber)
      yield* wait(finalized, "the handler's finalizer")

      assertCancelledWithoutAnswer(lines, "hook_callback")
      assert.isFalse(Fs.existsSync(Path.join(cwd, "never.txt")))

      const next = yield* session.run("and now?")
      assert.strictEqual(next.subtype, "success")
      assert.strictEqual(next.result, "after the interrupt")
    }).pipe(Effect.provide(processLayer)))
})
