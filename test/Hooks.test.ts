import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import { TestClock } from "effect/testing"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as HookEvents from "../src/HookEvents.ts"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import type { HookOptions } from "../src/Hooks.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { capturedRequest } from "./support/protocolTranscripts.ts"

/**
 * Every distinct shape of the 41 real `hook_callback` requests in the CLI 2.1.332 captures
 * (`testdata/protocol/`): the first request of each of these callbacks, without its `subtype`.
 */
const hookCallbacks: ReadonlyArray<{ readonly file: string; readonly request: { readonly callback_id: string; readonly input: Record<string, unknown>; readonly tool_use_id: string } }> = ([
  ["c-stop-hook", "hook_0"],
  ["c2-hooks-all-events", "hook_UserPromptSubmit"],
  ["c2-hooks-all-events", "hook_PreToolUse"],
  ["c2-hooks-all-events", "hook_PostToolUse"],
  ["c2-hooks-all-events", "hook_PostToolUseFailure"],
  ["c4-subagent-background", "sub_start"],
  ["c4-subagent-background", "stop"],
  ["c4-subagent-background", "sub_stop"],
  ["c5-subagent-foreground", "sub_stop"],
  ["c7-compact", "h_PreCompact"],
  ["c7-compact", "h_SessionStart"],
  ["c7-compact", "h_PostCompact"]
] as const).map(([file, callbackId]) => {
  const { subtype: _subtype, ...request } = capturedRequest(file, "hook_callback", (r) => r.callback_id === callbackId)
  return { file, request: request as { readonly callback_id: string; readonly input: Record<string, unknown>; readonly tool_use_id: string } }
})

const fixture = (event: string) => {
  const found = hookCallbacks.find((f) => f.request.input.hook_event_name === event)
  if (found === undefined) throw new Error(`no fixture for ${event}`)
  return found.request
}

/** The `Hooks` service in the context (or `Hooks.empty`). */
const currentHooks = Effect.map(Effect.serviceOption(Hooks.Hooks), (o) => o._tag === "Some" ? o.value : Hooks.empty)

/** Builds a layer and binds the resulting service, like the session does. */
const bindLayer = <E>(layer: Layer.Layer<Hooks.Hooks, E>) => Effect.map(Effect.provide(currentHooks, layer), Hooks.bind)

interface LogEntry {
  readonly level: string
  readonly message: string
  readonly hasCause: boolean
}

/** Captures the log lines of `effect`. */
const withLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const logs: Array<LogEntry> = []
    const logger = Logger.make((options) => {
      const message = Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message)
      logs.push({ level: options.logLevel, message, hasCause: options.cause.reasons.length > 0 })
    })
    const exit = yield* Effect.exit(effect.pipe(Effect.provide(Logger.layer([logger]))))
    return { exit, logs }
  })

const failureOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.ClaudeError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (error === undefined || error._tag !== "Fail") throw new Error("expected a Fail reason")
  return error.error
}

class Greeter extends Context.Service<Greeter, { readonly greet: (name: string) => string }>()("test/Greeter") {
  static readonly layer = Layer.succeed(Greeter, { greet: (name: string) => `hello ${name}` })
}

describe("Hooks", () => {
  describe("inputs", () => {
    it.effect("every real hook_callback input decodes with its event's schema", () =>
      Effect.gen(function*() {
        assert.isAtLeast(hookCallbacks.length, 12)
        for (const { file, request } of hookCallbacks) {
          const event = request.input.hook_event_name as string
          assert.isTrue(HookEvents.isKnownEvent(event), `${file}: ${event} has a schema`)
          const decoded = yield* Schema.decodeUnknownEffect(HookEvents.inputSchema(event))(request.input)
          assert.strictEqual((decoded as { hook_event_name: string }).hook_event_name, event)
        }
      }))

    it.effect("dispatch hands every handler the CLI's original object (extra fields kept)", () =>
      Effect.gen(function*() {
        const seen: Array<{ readonly event: string; readonly input: unknown; readonly toolUseId: string | undefined }> =
          []
        const events = [...new Set(hookCallbacks.map((f) => f.request.input.hook_event_name as HookEvents.KnownEvent))]
        const bound = yield* bindLayer(
          Hooks.layer(...events.map((event) =>
            Hooks.on(event, (input, meta) =>
              Effect.sync(() => {
                seen.push({ event, input, toolUseId: meta.toolUseId })
                return Hooks.allow()
              }))
          ))
        )
        for (const { request } of hookCallbacks) {
          const event = request.input.hook_event_name as HookEvents.KnownEvent
          const id = `hook_${events.indexOf(event)}`
          const extended = { ...request.input, field_from_a_newer_cli: 42 }
          const output = yield* bound.dispatch(id, extended, request.tool_use_id)
          assert.deepStrictEqual(output, {})
          const last = seen[seen.length - 1]!
          assert.strictEqual(last.event, event)
          assert.strictEqual(last.input, extended)
          assert.strictEqual(last.toolUseId, request.tool_use_id)
        }
        assert.strictEqual(seen.length, hookCallbacks.length)
      }))

    it.effect("typed fields are readable in handlers", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", (input) => Effect.succeed(Hooks.block(`${input.tool_name}:${input.tool_input.command}`))),
          Hooks.on("Stop", (input) => Effect.succeed(Hooks.block(`${input.stop_hook_active}:${input.last_assistant_message}`))),
          Hooks.on("SubagentStop", (input) => Effect.succeed(Hooks.block(`${input.agent_type}:${input.background_tasks?.[0]?.status}`)))
        ))
        const pre = fixture("PreToolUse")
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", pre.input, pre.tool_use_id), {
          decision: "block",
          reason: "Bash:echo hi"
        })
        const stop = fixture("Stop")
        assert.deepStrictEqual(yield* bound.dispatch("hook_1", stop.input, stop.tool_use_id), {
          decision: "block",
          reason: "false:Hello."
        })
        const sub = fixture("SubagentStop")
        assert.deepStrictEqual(yield* bound.dispatch("hook_2", sub.input, sub.tool_use_id), {
          decision: "block",
          reason: "general-purpose:running"
        })
      }))

    it.effect("a PreToolUse hook on Bash reads tool_input.command as a string, with no cast; a changed input fails closed", () =>
      Effect.gen(function*() {
        const seen: Array<string | undefined> = []
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
            Effect.sync(() => {
              // The matcher names Bash exactly, so the input is Bash's: no check, no cast.
              const command: string = input.tool_input.command
              seen.push(command)
              return command.startsWith("rm ") ? Hooks.deny(`no rm: ${input.tool_input.description}`) : Hooks.allow()
            }))
        ))
        const pre = fixture("PreToolUse")
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", pre.input, pre.tool_use_id), {})
        const rm = { ...pre.input, tool_input: { command: "rm -rf build", description: "Delete build" } }
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", rm, pre.tool_use_id), {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "no rm: Delete build"
          }
        })
        assert.deepStrictEqual(seen, ["echo hi", "rm -rf build"])
        // The typing is not checked at run time: a Bash input of another shape (a later CLI) reaches
        // the handler as it came; the guard trips on it (`command` is undefined) and the tool is refused.
        const changed = { ...pre.input, tool_input: { cmd: "rm -rf build" } }
        const { exit } = yield* withLogs(bound.dispatch("hook_0", changed, pre.tool_use_id))
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) {
          const specific = exit.value.hookSpecificOutput as Record<string, unknown>
          assert.strictEqual(specific.permissionDecision, "deny")
        }
        assert.deepStrictEqual(seen, ["echo hi", "rm -rf build", undefined])
      }))

    it.effect("an input that does not match the event's schema is InvalidInput naming the event", () =>
      Effect.gen(function*() {
        let called = false
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("PreToolUse", { onFailure: "continue" }, () => {
          called = true
          return Effect.succeed(Hooks.allow())
        })))
        const { tool_name: _tool_name, ...input } = fixture("PreToolUse").input
        const error = yield* Effect.flip(bound.dispatch("hook_0", input, undefined))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "PreToolUse")
        assert.include(error.message, "tool_name")
        // an input of another event
        const stop = fixture("Stop")
        const error2 = yield* Effect.flip(bound.dispatch("hook_0", stop.input, undefined))
        assert.strictEqual(error2.reason._tag, "InvalidInput")
        assert.isFalse(called)
      }))

    it.effect("an event without a schema gets the raw object", () =>
      Effect.gen(function*() {
        const received: Array<HookEvents.UnknownHookInput> = []
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("FutureEvent", (input) =>
          Effect.sync(() => {
            received.push(input)
            return { hookSpecificOutput: { whatever: 1 } }
          }))))
        assert.deepStrictEqual(bound.initialize, { FutureEvent: [{ matcher: null, hookCallbackIds: ["hook_0"] }] })
        const input = { session_id: "s", hook_event_name: "FutureEvent", nested: { a: 1 } }
        const output = yield* bound.dispatch("hook_0", input, "t")
        assert.strictEqual(received[0], input)
        assert.deepStrictEqual(output, { hookSpecificOutput: { hookEventName: "FutureEvent", whatever: 1 } })
      }))
  })

  describe("initialize", () => {
    it.effect("registrations become the initialize hooks JSON, ids in registration order", () =>
      Effect.gen(function*() {
        const ok = () => Effect.succeed(Hooks.allow())
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("UserPromptSubmit", ok),
          Hooks.on("PreToolUse", { matcher: "Bash" }, ok),
          Hooks.on("PostToolUse", ok),
          Hooks.on("PreToolUse", { matcher: "Write|Edit", timeout: "5 seconds" }, ok),
          Hooks.on("Stop", { timeout: 1500 }, ok)
        ))
        assert.strictEqual(
          JSON.stringify(bound.initialize),
          JSON.stringify({
            // Guards fail closed: the library's deadline (60 s by default) plus a margin for the
            // CLI, and onFailure: "block" so the CLI also blocks on an error answer.
            UserPromptSubmit: [{ matcher: null, hookCallbackIds: ["hook_0"], timeout: 65, onFailure: "block" }],
            PreToolUse: [
              { matcher: "Bash", hookCallbackIds: ["hook_1"], timeout: 65, onFailure: "block" },
              { matcher: "Write|Edit", hookCallbackIds: ["hook_3"], timeout: 10, onFailure: "block" }
            ],
            PostToolUse: [{ matcher: null, hookCallbackIds: ["hook_2"] }],
            Stop: [{ matcher: null, hookCallbackIds: ["hook_4"], timeout: 7 }]
          })
        )
      }))

    it.effect("the keyed form registers the same way", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer({
          Stop: (input) => Effect.succeed(input.stop_hook_active ? Hooks.allow() : Hooks.block("more")),
          PreToolUse: [
            { matcher: "Bash", handler: (input) => Effect.succeed(Hooks.deny(`no ${input.tool_name}`)) },
            (input) => Effect.succeed(Hooks.allowWith(input.tool_input))
          ]
        }))
        assert.deepStrictEqual(bound.initialize, {
          Stop: [{ matcher: null, hookCallbackIds: ["hook_0"] }],
          PreToolUse: [
            { matcher: "Bash", hookCallbackIds: ["hook_1"], timeout: 65, onFailure: "block" },
            { matcher: null, hookCallbackIds: ["hook_2"], timeout: 65, onFailure: "block" }
          ]
        })
        const stop = fixture("Stop")
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", stop.input, stop.tool_use_id), {
          decision: "block",
          reason: "more"
        })
        const pre = fixture("PreToolUse")
        assert.deepStrictEqual(yield* bound.dispatch("hook_1", pre.input, pre.tool_use_id), {
          hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no Bash" }
        })
      }))

    it.effect("no Hooks service: Hooks.empty registers nothing", () =>
      Effect.gen(function*() {
        const hooks = yield* currentHooks
        assert.strictEqual(hooks, Hooks.empty)
        const bound = Hooks.bind(hooks)
        assert.deepStrictEqual(bound.initialize, {})
        const error = yield* Effect.flip(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        assert.strictEqual(error.reason._tag, "InvalidInput")
      }))

    it.effect("ids restart at hook_0 for every binding", () =>
      Effect.gen(function*() {
        const hooks = yield* Effect.provide(currentHooks, Hooks.layer(Hooks.on("Stop", () => Effect.succeed({}))))
        assert.deepStrictEqual(Hooks.bind(hooks).initialize, Hooks.bind(hooks).initialize)
        assert.deepStrictEqual(Hooks.bind(hooks).initialize.Stop?.[0]?.hookCallbackIds, ["hook_0"])
      }))
  })

  describe("dispatch", () => {
    it.effect("routes by callback id and encodes the answers exactly as the CLI reads them", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("Stop", () => Effect.succeed(Hooks.block("Also say goodbye."))),
          Hooks.on("PreToolUse", () => Effect.succeed(Hooks.deny("DENY-REASON-no-bash-today"))),
          Hooks.on("PreToolUse", () =>
            Effect.succeed(Hooks.allowWith({ command: "echo changed-by-hook", description: "changed" }))),
          Hooks.on("UserPromptSubmit", () => Effect.succeed(Hooks.addContext("UserPromptSubmit", "CTX-MARKER-UPS-1"))),
          Hooks.on("PostToolUse", () => Effect.succeed(Hooks.stop("STOP-REASON-halted-by-host"))),
          Hooks.on("PostToolUse", () => Effect.succeed(Hooks.addContext("PostToolUse", "CTX-MARKER-POST-2"))),
          Hooks.on("UserPromptSubmit", () => Effect.succeed(Hooks.block("prompt blocked by host"))),
          Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allow()))
        ))
        const answer = (id: string, event: string) => {
          const request = fixture(event)
          return Effect.map(bound.dispatch(id, request.input, request.tool_use_id), (output) => JSON.stringify(output))
        }
        // the exact bodies of the control_responses in c-stop-hook and c3-hook-outputs
        assert.strictEqual(yield* answer("hook_0", "Stop"), `{"decision":"block","reason":"Also say goodbye."}`)
        assert.strictEqual(
          yield* answer("hook_1", "PreToolUse"),
          `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-REASON-no-bash-today"}}`
        )
        assert.strictEqual(
          yield* answer("hook_2", "PreToolUse"),
          `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo changed-by-hook","description":"changed"}}}`
        )
        assert.strictEqual(
          yield* answer("hook_3", "UserPromptSubmit"),
          `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-MARKER-UPS-1"}}`
        )
        assert.strictEqual(
          yield* answer("hook_4", "PostToolUse"),
          `{"continue":false,"stopReason":"STOP-REASON-halted-by-host"}`
        )
        assert.strictEqual(
          yield* answer("hook_5", "PostToolUse"),
          `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"CTX-MARKER-POST-2"}}`
        )
        assert.strictEqual(yield* answer("hook_6", "UserPromptSubmit"), `{"decision":"block","reason":"prompt blocked by host"}`)
        assert.strictEqual(yield* answer("hook_7", "PreToolUse"), `{}`)
      }))

    it.effect("fills in hookEventName and drops keys the CLI does not know", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", () =>
            Effect.succeed({
              systemMessage: "hi",
              hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "check" }
            })),
          Hooks.on("PermissionRequest", () =>
            Effect.succeed({ hookSpecificOutput: { decision: { behavior: "deny", message: "no" } } })),
          Hooks.on("Stop", () => Effect.succeed({ decision: "block", reason: "r", notAField: 1 } as HookEvents.HookOutput<"Stop">))
        ))
        const pre = fixture("PreToolUse")
        assert.strictEqual(
          JSON.stringify(yield* bound.dispatch("hook_0", pre.input, pre.tool_use_id)),
          `{"systemMessage":"hi","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}`
        )
        const permissionRequest = {
          ...pre.input,
          hook_event_name: "PermissionRequest",
          permission_suggestions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }]
        }
        assert.deepStrictEqual(yield* bound.dispatch("hook_1", permissionRequest, undefined), {
          hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no" } }
        })
        const stop = fixture("Stop")
        assert.deepStrictEqual(yield* bound.dispatch("hook_2", stop.input, undefined), { decision: "block", reason: "r" })
      }))

    it.effect("an answer that breaks the event's output schema is InvalidInput (an event that does not guard)", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", { onFailure: "continue" }, () =>
            Effect.succeed({ hookSpecificOutput: { permissionDecision: "maybe" } } as unknown as HookEvents.HookOutput<"PreToolUse">)),
          Hooks.on("PreToolUse", { onFailure: "continue" }, () =>
            Effect.succeed({ hookSpecificOutput: { hookEventName: "Stop" } } as unknown as HookEvents.HookOutput<"PreToolUse">))
        ))
        const pre = fixture("PreToolUse")
        for (const id of ["hook_0", "hook_1"]) {
          const { exit, logs } = yield* withLogs(bound.dispatch(id, pre.input, pre.tool_use_id))
          const error = failureOf(exit)
          assert.strictEqual(error.reason._tag, "InvalidInput")
          assert.include(error.message, "PreToolUse")
          assert.strictEqual(logs.length, 1)
        }
      }))

    it.effect("an unknown callback id is InvalidInput", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("Stop", () => Effect.succeed(Hooks.allow()))))
        const error = yield* Effect.flip(bound.dispatch("hook_7", fixture("Stop").input, undefined))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "hook_7")
      }))

    it.effect("a failing handler is a ClaudeError, logged with the event and callback id", () =>
      Effect.gen(function*() {
        class Boom extends Schema.TaggedError<Boom>()("Boom", { detail: Schema.String }) {}
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("Stop", () => Effect.succeed(Hooks.allow())),
          Hooks.on("Stop", () => Effect.fail(new Boom({ detail: "kaput" })))
        ))
        const { exit, logs } = yield* withLogs(bound.dispatch("hook_1", fixture("Stop").input, undefined))
        const error = failureOf(exit)
        assert.isTrue(ClaudeError.isClaudeError(error))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "Stop")
        assert.include(error.message, "hook_1")
        assert.strictEqual(logs.length, 1)
        assert.strictEqual(logs[0]!.level, "Warn")
        assert.include(logs[0]!.message, "Stop")
        assert.include(logs[0]!.message, "hook_1")
        assert.isTrue(logs[0]!.hasCause)
      }))

    it.effect("a dying handler of an event that does not guard is a ClaudeError, logged", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PostToolUse", () => Effect.die(new Error("bug in the hook")))
        ))
        const post = fixture("PostToolUse")
        const { exit, logs } = yield* withLogs(bound.dispatch("hook_0", post.input, post.tool_use_id))
        const error = failureOf(exit)
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "died")
        assert.include(error.message, "bug in the hook")
        assert.strictEqual(logs.length, 1)
        assert.strictEqual(logs[0]!.level, "Warn")
        assert.include(logs[0]!.message, "PostToolUse")
        assert.include(logs[0]!.message, "hook_0")
      }))

    it.effect("a handler throwing synchronously is a ClaudeError, not a crash", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("Stop", () => {
          throw new Error("thrown")
        })))
        const { exit } = yield* withLogs(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        assert.include(failureOf(exit).message, "thrown")
      }))

    it.effect("a handler that interrupts itself is a ClaudeError, so the CLI still gets an answer", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("Stop", () => Effect.interrupt)))
        const { exit, logs } = yield* withLogs(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        const error = failureOf(exit)
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "was interrupted")
        assert.strictEqual(logs.length, 1)
      }))

    it.effect("a handler's ClaudeError is passed through as is", () =>
      Effect.gen(function*() {
        const original = ClaudeError.make(new ClaudeError.SessionClosed({ operation: "x" }))
        const bound = yield* bindLayer(Hooks.layer(Hooks.on("Stop", () => Effect.fail(original))))
        const { exit, logs } = yield* withLogs(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        assert.strictEqual(failureOf(exit), original)
        assert.strictEqual(logs.length, 1)
      }))

    it.effect("a handler past its timeout (an event that does not guard): ControlTimeout, handler interrupted", () =>
      Effect.gen(function*() {
        const finalized = yield* Ref.make(false)
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PostToolUse", { matcher: "Bash", timeout: "5 seconds" }, () =>
            Effect.never.pipe(Effect.ensuring(Ref.set(finalized, true))))
        ))
        assert.deepStrictEqual(bound.initialize.PostToolUse, [{ matcher: "Bash", hookCallbackIds: ["hook_0"], timeout: 10 }])
        const post = fixture("PostToolUse")
        const fiber = yield* Effect.forkChild(withLogs(bound.dispatch("hook_0", post.input, post.tool_use_id)))
        yield* TestClock.adjust("4999 millis")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        const { exit, logs } = yield* Fiber.join(fiber)
        const error = failureOf(exit)
        assert.strictEqual(error.reason._tag, "ControlTimeout")
        if (error.reason._tag === "ControlTimeout") assert.strictEqual(error.reason.timeoutMillis, 5000)
        assert.isTrue(yield* Ref.get(finalized))
        assert.strictEqual(logs.length, 1)
        assert.include(logs[0]!.message, "hook_0")
      }))

    it.effect("a handler within its timeout answers normally", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("Stop", { timeout: "5 seconds" }, () => Effect.as(Effect.sleep("4 seconds"), Hooks.block("late")))
        ))
        const fiber = yield* Effect.forkChild(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        yield* TestClock.adjust("4 seconds")
        assert.deepStrictEqual(yield* Fiber.join(fiber), { decision: "block", reason: "late" })
      }))

    it.effect("interrupting dispatch interrupts the handler and runs its finalizer", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const finalized = yield* Ref.make(0)
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.ensuring(Ref.update(finalized, (n) => n + 1))
            ))
        ))
        const pre = fixture("PreToolUse")
        const fiber = yield* Effect.forkChild(withLogs(bound.dispatch("hook_0", pre.input, pre.tool_use_id)))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.hasInterrupts(exit))
        assert.strictEqual(yield* Ref.get(finalized), 1)
      }))

    it.effect("interrupting dispatch is not turned into a failure, and not logged", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("Stop", () => Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never)))
        ))
        const { exit, logs } = yield* withLogs(Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(bound.dispatch("hook_0", fixture("Stop").input, undefined))
          yield* Deferred.await(started)
          yield* Fiber.interrupt(fiber)
          return yield* Fiber.await(fiber)
        }))
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) {
          assert.isTrue(Exit.isFailure(exit.value))
          if (Exit.isFailure(exit.value)) {
            assert.isTrue(exit.value.cause.reasons.every((r) => r._tag === "Interrupt"))
          }
        }
        assert.strictEqual(logs.length, 0)
      }))
  })

  describe("failing closed (guards)", () => {
    class Boom extends Schema.TaggedError<Boom>()("Boom", { detail: Schema.String }) {}

    /** Binds a layer with a `report` that keeps what it is given. */
    const bindReporting = <E>(layer: Layer.Layer<Hooks.Hooks, E>) =>
      Effect.gen(function*() {
        const reports: Array<HandlerFailure.HandlerFailed> = []
        const bound = yield* Effect.map(Effect.provide(currentHooks, layer), (hooks) =>
          Hooks.bind(hooks, (event) => {
            reports.push(event)
          }))
        return { bound, reports }
      })

    const pre = fixture("PreToolUse")
    const denial = (reasonPart: string) => (output: Record<string, unknown>) => {
      const specific = output.hookSpecificOutput as Record<string, unknown>
      assert.strictEqual(specific.hookEventName, "PreToolUse")
      assert.strictEqual(specific.permissionDecision, "deny")
      assert.include(String(specific.permissionDecisionReason), reasonPart)
    }

    const failures: ReadonlyArray<{
      readonly name: string
      readonly handler: () => Effect.Effect<HookEvents.HookOutput<"PreToolUse">, Boom>
      readonly failure: HandlerFailure.FailureKind
      readonly text: string
    }> = [
      { name: "fails", handler: () => Effect.fail(new Boom({ detail: "kaput" })), failure: "failed", text: "kaput" },
      { name: "dies", handler: () => Effect.die(new Error("bug in the guard")), failure: "died", text: "bug in the guard" },
      {
        name: "throws",
        handler: () => {
          throw new Error("thrown by the guard")
        },
        failure: "died",
        text: "thrown by the guard"
      },
      { name: "interrupts itself", handler: () => Effect.interrupt, failure: "interrupted", text: "was interrupted" }
    ]

    for (const { name, handler, failure, text } of failures) {
      it.effect(`a PreToolUse guard that ${name}: a deny carrying the reason, logged, reported once`, () =>
        Effect.gen(function*() {
          const { bound, reports } = yield* bindReporting(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, handler)))
          const { exit, logs } = yield* withLogs(bound.dispatch("hook_0", pre.input, pre.tool_use_id, "req-7"))
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) denial(text)(exit.value)
          assert.strictEqual(logs.length, 1)
          assert.strictEqual(logs[0]!.level, "Warn")
          assert.include(logs[0]!.message, "PreToolUse hook (hook_0) failed")
          assert.include(logs[0]!.message, "the tool call was refused")
          assert.isTrue(logs[0]!.hasCause)
          assert.strictEqual(reports.length, 1)
          const report = reports[0]!
          assert.strictEqual(report.type, "handler_failed")
          assert.strictEqual(report.handler, "hook")
          assert.strictEqual(report.hookEvent, "PreToolUse")
          assert.strictEqual(report.callbackId, "hook_0")
          assert.strictEqual(report.toolName, "Bash")
          assert.strictEqual(report.toolUseId, pre.tool_use_id)
          assert.strictEqual(report.requestId, "req-7")
          assert.strictEqual(report.failure, failure)
          assert.strictEqual(report.outcome, "denied")
          assert.include(report.message, text)
          assert.isTrue(ClaudeError.isClaudeError(report.error))
          assert.isTrue(report.cause.reasons.length > 0)
        }))
    }

    it.effect("a PreToolUse guard past its timeout: a deny at the deadline, the handler interrupted, reported as timed_out", () =>
      Effect.gen(function*() {
        const finalized = yield* Ref.make(false)
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("PreToolUse", { timeout: "5 seconds" }, () => Effect.never.pipe(Effect.ensuring(Ref.set(finalized, true))))
        ))
        // The CLI is told to wait 5 s more than the library, so the library's answer comes first.
        assert.deepStrictEqual(bound.initialize.PreToolUse, [
          { matcher: null, hookCallbackIds: ["hook_0"], timeout: 10, onFailure: "block" }
        ])
        const fiber = yield* Effect.forkChild(withLogs(bound.dispatch("hook_0", pre.input, pre.tool_use_id)))
        yield* TestClock.adjust("4999 millis")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        const { exit, logs } = yield* Fiber.join(fiber)
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) denial("5000")(exit.value)
        assert.isTrue(yield* Ref.get(finalized))
        assert.strictEqual(logs.length, 1)
        assert.strictEqual(reports.length, 1)
        assert.strictEqual(reports[0]!.failure, "timed_out")
        assert.strictEqual(reports[0]!.outcome, "denied")
        assert.strictEqual(reports[0]!.error.reason._tag, "ControlTimeout")
      }))

    it.effect("a guard without a timeout still has one: 60 s (the CLI is told 65 s)", () =>
      Effect.gen(function*() {
        const { bound, reports } = yield* bindReporting(Hooks.layer(Hooks.on("PreToolUse", () => Effect.never)))
        const fiber = yield* Effect.forkChild(bound.dispatch("hook_0", pre.input, pre.tool_use_id))
        yield* TestClock.adjust("59 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        denial("60000")(yield* Fiber.join(fiber))
        assert.strictEqual(reports[0]!.failure, "timed_out")
      }).pipe(Effect.provide(Logger.layer([]))))

    it.effect("an invalid answer and an invalid input of a guard are refused too", () =>
      Effect.gen(function*() {
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("PreToolUse", () =>
            Effect.succeed({ hookSpecificOutput: { permissionDecision: "maybe" } } as unknown as HookEvents.HookOutput<"PreToolUse">))
        ))
        denial("invalid answer")(yield* bound.dispatch("hook_0", pre.input, pre.tool_use_id))
        const { tool_name: _dropped, ...withoutToolName } = pre.input
        denial("Invalid PreToolUse hook input")(yield* bound.dispatch("hook_0", withoutToolName, pre.tool_use_id))
        assert.deepStrictEqual(reports.map((r) => [r.failure, r.outcome]), [
          ["invalid_answer", "denied"],
          ["invalid_input", "denied"]
        ])
      }).pipe(Effect.provide(Logger.layer([]))))

    it.effect("PermissionRequest answers a deny decision; UserPromptSubmit blocks the prompt", () =>
      Effect.gen(function*() {
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("PermissionRequest", () => Effect.die("permission guard broke")),
          Hooks.on("UserPromptSubmit", () => Effect.fail(new Boom({ detail: "prompt guard broke" })))
        ))
        const permissionRequest = { ...pre.input, hook_event_name: "PermissionRequest" }
        const permission = yield* bound.dispatch("hook_0", permissionRequest, undefined)
        const decision = (permission.hookSpecificOutput as { decision: { behavior: string; message: string } }).decision
        assert.strictEqual(decision.behavior, "deny")
        assert.include(decision.message, "permission guard broke")
        const ups = fixture("UserPromptSubmit")
        const prompt = yield* bound.dispatch("hook_1", ups.input, ups.tool_use_id)
        assert.strictEqual(prompt.decision, "block")
        assert.include(String(prompt.reason), "prompt guard broke")
        assert.deepStrictEqual(reports.map((r) => [r.hookEvent, r.outcome]), [
          ["PermissionRequest", "denied"],
          ["UserPromptSubmit", "denied"]
        ])
      }).pipe(Effect.provide(Logger.layer([]))))

    it.effect("onFailure: \"continue\" opts a guard out: the error answer, reported as continued, no onFailure sent", () =>
      Effect.gen(function*() {
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("PreToolUse", { onFailure: "continue" }, () => Effect.fail(new Boom({ detail: "let it through" })))
        ))
        assert.deepStrictEqual(bound.initialize.PreToolUse, [{ matcher: null, hookCallbackIds: ["hook_0"] }])
        const { exit } = yield* withLogs(bound.dispatch("hook_0", pre.input, pre.tool_use_id))
        assert.include(failureOf(exit).message, "let it through")
        assert.strictEqual(reports.length, 1)
        assert.strictEqual(reports[0]!.outcome, "continued")
        assert.include(reports[0]!.message, "goes on")
      }))

    it.effect("a failure of an event that does not guard keeps the error answer, and is reported as continued", () =>
      Effect.gen(function*() {
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("Stop", { onFailure: "block" }, () => Effect.fail(new Boom({ detail: "stop broke" })))
        ))
        assert.deepStrictEqual(bound.initialize.Stop, [{ matcher: null, hookCallbackIds: ["hook_0"] }])
        const { exit } = yield* withLogs(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        assert.include(failureOf(exit).message, "stop broke")
        assert.deepStrictEqual(reports.map((r) => [r.hookEvent, r.failure, r.outcome]), [["Stop", "failed", "continued"]])
      }))

    it.effect("a report that throws changes nothing: the deny is still answered", () =>
      Effect.gen(function*() {
        const hooks = yield* Effect.provide(currentHooks, Hooks.layer(Hooks.on("PreToolUse", () => Effect.die("broken"))))
        const bound = Hooks.bind(hooks, () => {
          throw new Error("the reporter is broken too")
        })
        const { exit, logs } = yield* withLogs(bound.dispatch("hook_0", pre.input, pre.tool_use_id))
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) denial("broken")(exit.value)
        assert.isTrue(logs.some((l) => l.message.includes("reporter threw")))
      }))

    it.effect("interrupting dispatch (control_cancel_request) is not reported", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const { bound, reports } = yield* bindReporting(Hooks.layer(
          Hooks.on("PreToolUse", () => Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never)))
        ))
        const fiber = yield* Effect.forkChild(bound.dispatch("hook_0", pre.input, pre.tool_use_id))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
        assert.strictEqual(reports.length, 0)
      }))

    it.effect("Hooks.refusal: the refusal of each guard event; none for other events", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(Hooks.refusal("PreSkillShellCommand", "r"), {
          hookSpecificOutput: { hookEventName: "PreSkillShellCommand", permissionDecision: "deny", permissionDecisionReason: "r" }
        })
        assert.deepStrictEqual(Hooks.refusal("UserPromptExpansion", "r"), { decision: "block", reason: "r" })
        assert.isUndefined(Hooks.refusal("Stop", "r"))
        assert.isUndefined(Hooks.refusal("PostToolUse", "r"))
      }))
  })

  describe("on the wire: the session's answer to a failing guard (FakeCli)", () => {
    const pre = fixture("PreToolUse")
    const kinds: ReadonlyArray<{
      readonly name: string
      readonly options: HookOptions
      readonly handler: (
        started: Deferred.Deferred<void>
      ) => Effect.Effect<HookEvents.HookOutput<"PreToolUse">, ClaudeError.ClaudeError>
      readonly reason: string
    }> = [
      { name: "fails", options: {}, handler: () => Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: "policy down" }))), reason: "policy down" },
      { name: "dies", options: {}, handler: () => Effect.die(new Error("a defect")), reason: "a defect" },
      {
        name: "throws",
        options: {},
        handler: () => {
          throw new Error("thrown")
        },
        reason: "thrown"
      },
      {
        name: "times out",
        options: { timeout: "2 seconds" },
        handler: (started) => Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never)),
        reason: "did not answer within 2000 ms"
      }
    ]
    for (const { name, options, handler, reason } of kinds) {
      it.effect(`a PreToolUse guard that ${name}: the CLI gets a success answer with a deny; initialize carried onFailure: block`, () =>
        Effect.gen(function*() {
          const started = yield* Deferred.make<void>()
          const seen = yield* Deferred.make<readonly [Record<string, unknown>, HookEvents.HookOutput<"PreToolUse">]>()
          const cli = FakeCli.layer((cli) =>
            Effect.gen(function*() {
              const initialize = yield* FakeCli.answerInitialize(cli)
              const answer = yield* FakeCli.callHook(cli, "PreToolUse", pre.input, { toolUseId: pre.tool_use_id })
              yield* Deferred.succeed(seen, [initialize, answer])
              return yield* Effect.never
            })
          )
          const [initialize, answer] = yield* Effect.gen(function*() {
            yield* Claude.open()
            if (options.timeout !== undefined) {
              yield* Deferred.await(started)
              yield* TestClock.adjust("2 seconds")
            }
            return yield* Deferred.await(seen)
          }).pipe(
            Effect.provide([cli, Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash", ...options }, () => handler(started)))]),
            Effect.provide(Logger.layer([]))
          )
          const hooks = (initialize.request as { hooks: Record<string, ReadonlyArray<Record<string, unknown>>> }).hooks
          assert.strictEqual(hooks.PreToolUse![0]!.onFailure, "block")
          // A success answer (an error answer would have failed callHook with ControlRejected).
          assert.strictEqual(answer.hookSpecificOutput?.permissionDecision, "deny")
          assert.include(String(answer.hookSpecificOutput?.permissionDecisionReason), reason)
        }))
    }
  })

  describe("a scope and a span per call", () => {
    it.effect("a finalizer a handler adds runs when the call ends, not when the layer's scope closes", () =>
      Effect.gen(function*() {
        const finalized: Array<string> = []
        const layerScope = yield* Scope.make()
        const layer = Hooks.layer(Hooks.on("Stop", () =>
          Effect.as(Effect.addFinalizer(() => Effect.sync(() => finalized.push("call"))), Hooks.allow())))
        // Built as a session's layers are: in a scope that stays open while the program runs.
        const hooks = Context.get(yield* Layer.build(layer).pipe(Scope.provide(layerScope)), Hooks.Hooks)
        const bound = Hooks.bind(hooks)
        // The caller runs the call in a scope of its own (as the session's dispatcher does).
        yield* Effect.scoped(bound.dispatch("hook_0", fixture("Stop").input, undefined))
        assert.deepStrictEqual(finalized, ["call"])
        yield* bound.dispatch("hook_0", fixture("Stop").input, undefined).pipe(Effect.scoped)
        assert.deepStrictEqual(finalized, ["call", "call"])
        yield* Scope.close(layerScope, Exit.void)
        assert.deepStrictEqual(finalized, ["call", "call"])
      }))

    // Stop has no deadline; a guard has one (its handler runs in a fiber of its own, `answerBy`).
    for (const event of ["Stop", "PreToolUse"] as const) {
      it.effect(`a handler runs under the caller's span, not the span its layer was built in (${event})`, () =>
        Effect.gen(function*() {
          const spans: Array<string> = []
          const layer = Hooks.layer(Hooks.on(event, () =>
            Effect.gen(function*() {
              let span: Tracer.AnySpan | undefined = yield* Effect.currentSpan
              while (span !== undefined) {
                spans.push(span._tag === "Span" ? span.name : "external")
                span = span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined
              }
              return Hooks.allow()
            })))
          const hooks = yield* Effect.provide(currentHooks, layer).pipe(Effect.withSpan("layer-build"))
          const bound = Hooks.bind(hooks)
          assert.strictEqual(bound.initialize[event]![0]!.timeout !== undefined, event === "PreToolUse")
          yield* bound.dispatch("hook_0", fixture(event).input, undefined).pipe(Effect.withSpan("the-turn"))
          assert.deepStrictEqual(spans, ["Hooks.dispatch", "the-turn"])
        }))
    }
  })

  describe("one schema per wire object", () => {
    it("the event schemas are the protocol's", () => {
      assert.strictEqual(HookEvents.PreToolUseInput, Protocol.PreToolUseInput)
      assert.strictEqual(HookEvents.PermissionRequestSpecificOutput, Protocol.PermissionRequestSpecificOutput)
      assert.strictEqual(HookEvents.HookOutputBase, Protocol.HookOutputBase)
      assert.strictEqual(HookEvents.events.Stop.input, Protocol.StopInput)
    })

    it.effect("every answer the Hooks service writes decodes with the protocol's HookOutput", () =>
      Effect.gen(function*() {
        const bound = yield* bindLayer(Hooks.layer(
          Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allowWith({ command: "ls" }, "fine"))),
          Hooks.on("PreToolUse", () => Effect.die("broken")),
          Hooks.on("Stop", () => Effect.succeed({ ...Hooks.async(10), systemMessage: "s" }))
        ))
        const decode = Schema.decodeUnknownSync(Protocol.HookOutput)
        const pre = fixture("PreToolUse")
        for (const [id, input] of [["hook_0", pre.input], ["hook_1", pre.input], ["hook_2", fixture("Stop").input]] as const) {
          const answer = yield* bound.dispatch(id, input, undefined).pipe(Effect.provide(Logger.layer([])))
          assert.deepStrictEqual(decode(answer), answer)
        }
      }))
  })

  describe("requirements", () => {
    it.effect("a handler uses a service provided to its layer, not to the caller", () =>
      Effect.gen(function*() {
        const layer = Hooks.layer(
          Hooks.on("UserPromptSubmit", (input) =>
            Effect.gen(function*() {
              const greeter = yield* Greeter
              return Hooks.addContext("UserPromptSubmit", greeter.greet(input.prompt))
            }))
        ).pipe(Layer.provide(Greeter.layer))
        const bound = yield* bindLayer(layer)
        const ups = fixture("UserPromptSubmit")
        // dispatch runs here, where no Greeter is provided
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", ups.input, ups.tool_use_id), {
          hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "hello Run echo hi then false" }
        })
      }))

    it.effect("the keyed form carries requirements too", () =>
      Effect.gen(function*() {
        const layer = Hooks.layer({
          Stop: [{
            timeout: "1 minute",
            handler: () => Effect.map(Effect.service(Greeter), (g) => Hooks.block(g.greet("stop")))
          }]
        })
        const bound = yield* bindLayer(Layer.provide(layer, Greeter.layer))
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", fixture("Stop").input, undefined), {
          decision: "block",
          reason: "hello stop"
        })
      }))
  })

  describe("composition", () => {
    const recorder = (fired: Array<string>, name: string) =>
      Hooks.on("Stop", () =>
        Effect.sync(() => {
          fired.push(name)
          return Hooks.allow()
        }))

    it.effect("stacked Effect.provide calls keep both sets of registrations, and both fire", () =>
      Effect.gen(function*() {
        const fired: Array<string> = []
        const user = Hooks.layer(recorder(fired, "user"))
        const library = Hooks.layer(
          recorder(fired, "library"),
          Hooks.on("PreToolUse", () => Effect.succeed(Hooks.deny("library says no")))
        )
        const hooks = yield* currentHooks.pipe(Effect.provide(library), Effect.provide(user))
        assert.strictEqual(hooks.registrations.length, 3)
        const bound = Hooks.bind(hooks)
        assert.deepStrictEqual(bound.initialize, {
          Stop: [
            { matcher: null, hookCallbackIds: ["hook_0"] },
            { matcher: null, hookCallbackIds: ["hook_1"] }
          ],
          PreToolUse: [{ matcher: null, hookCallbackIds: ["hook_2"], timeout: 65, onFailure: "block" }]
        })
        const stop = fixture("Stop")
        yield* bound.dispatch("hook_0", stop.input, undefined)
        yield* bound.dispatch("hook_1", stop.input, undefined)
        assert.deepStrictEqual(fired, ["user", "library"])
      }))

    it.effect("stacked layers each keep their own requirements", () =>
      Effect.gen(function*() {
        class Counter extends Context.Service<Counter, { readonly name: string }>()("test/Counter") {}
        const a = Hooks.layer(Hooks.on("Stop", () => Effect.map(Effect.service(Greeter), (g) => Hooks.block(g.greet("a")))))
        const b = Hooks.layer(Hooks.on("Stop", () => Effect.map(Effect.service(Counter), (c) => Hooks.block(c.name))))
        const hooks = yield* currentHooks.pipe(
          Effect.provide(Layer.provide(a, Greeter.layer)),
          Effect.provide(Layer.provide(b, Layer.succeed(Counter, { name: "counter b" })))
        )
        const bound = Hooks.bind(hooks)
        const stop = fixture("Stop")
        assert.deepStrictEqual(yield* bound.dispatch("hook_0", stop.input, undefined), {
          decision: "block",
          reason: "counter b"
        })
        assert.deepStrictEqual(yield* bound.dispatch("hook_1", stop.input, undefined), {
          decision: "block",
          reason: "hello a"
        })
      }))

    it.effect("Layer.provideMerge and Hooks.mergeLayers accumulate", () =>
      Effect.gen(function*() {
        const fired: Array<string> = []
        const a = Hooks.layer(recorder(fired, "a"))
        const b = Hooks.layer(recorder(fired, "b"))
        const c = Hooks.layer(recorder(fired, "c"))
        const viaProvideMerge = yield* Effect.provide(currentHooks, Layer.provideMerge(b, a))
        assert.strictEqual(viaProvideMerge.registrations.length, 2)
        const viaMergeLayers = yield* Effect.provide(currentHooks, Hooks.mergeLayers(a, b, c))
        assert.strictEqual(viaMergeLayers.registrations.length, 3)
        const bound = Hooks.bind(viaMergeLayers)
        for (const id of ["hook_0", "hook_1", "hook_2"]) yield* bound.dispatch(id, fixture("Stop").input, undefined)
        assert.deepStrictEqual(fired, ["a", "b", "c"])
      }))

    it.effect("Layer.mergeAll keeps only one Hooks layer (documented: use Hooks.mergeLayers)", () =>
      Effect.gen(function*() {
        const fired: Array<string> = []
        const merged = yield* Effect.provide(
          currentHooks,
          Layer.mergeAll(Hooks.layer(recorder(fired, "a")), Hooks.layer(recorder(fired, "b")))
        )
        assert.strictEqual(merged.registrations.length, 1)
      }))

    it.effect("Hooks.merge concatenates service values", () =>
      Effect.gen(function*() {
        const fired: Array<string> = []
        const a = yield* Effect.provide(currentHooks, Hooks.layer(recorder(fired, "a")))
        const b = yield* Effect.provide(currentHooks, Hooks.layer(recorder(fired, "b")))
        const bound = Hooks.bind(Hooks.merge(b, a))
        yield* bound.dispatch("hook_0", fixture("Stop").input, undefined)
        yield* bound.dispatch("hook_1", fixture("Stop").input, undefined)
        assert.deepStrictEqual(fired, ["b", "a"])
      }))
  })

  describe("constructors", () => {
    it("build the documented wire answers", () => {
      assert.deepStrictEqual(Hooks.allow(), {})
      assert.deepStrictEqual(Hooks.block("r"), { decision: "block", reason: "r" })
      assert.deepStrictEqual(Hooks.stop("s"), { continue: false, stopReason: "s" })
      assert.deepStrictEqual(Hooks.deny("d"), {
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "d" }
      })
      assert.deepStrictEqual(Hooks.allowWith(), {
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" }
      })
      assert.deepStrictEqual(Hooks.ask("why"), {
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "why" }
      })
      assert.deepStrictEqual(Hooks.addContext("SessionStart", "c"), {
        hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "c" }
      })
    })
  })
})
