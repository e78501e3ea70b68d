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
import * as ClaudeError from "../src/ClaudeError.ts"
import { CanUseToolRequest, Permissions, PermissionUpdate } from "../src/Permissions.ts"
import type { PermissionResult } from "../src/Permissions.ts"
import { capturedRequest } from "./support/protocolTranscripts.ts"

/** Real `can_use_tool` requests (the `request` object) from the CLI 2.1.332 captures (`testdata/protocol/`). */
const j2First = capturedRequest("j2-permission-prompt-stdio", "can_use_tool")

const j2Fifth = capturedRequest("j2-permission-prompt-stdio", "can_use_tool", undefined, 4)

const l3 = capturedRequest("l3-cancel-can-use-tool-unanswered", "can_use_tool")

const c6 = capturedRequest("c6-callback-error-responses", "can_use_tool")

const logsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const logs: Array<{ readonly level: string; readonly message: string }> = []
    const logger = Logger.make((options) => {
      const message = Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message)
      logs.push({ level: options.logLevel, message })
    })
    const exit = yield* Effect.exit(effect.pipe(Effect.provide(Logger.layer([logger]))))
    return { exit, logs }
  })

const failureOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.ClaudeError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (reason === undefined || reason._tag !== "Fail") throw new Error("expected a Fail reason")
  return reason.error
}

/** Builds the layer and binds the service, as the session does. */
const bindLayer = <E>(layer: Layer.Layer<Permissions, E>) =>
  Effect.map(Effect.provide(Effect.service(Permissions), layer), Permissions.bind)

const constant = (result: PermissionResult) => Permissions.layer(() => Effect.succeed(result))

class Policy extends Context.Service<Policy, { readonly allowed: ReadonlyArray<string> }>()("test/Policy") {}

describe("Permissions", () => {
  describe("requests", () => {
    it.effect("real can_use_tool requests decode (j2, l3, c6)", () =>
      Effect.gen(function*() {
        for (const raw of [j2First, j2Fifth, l3, c6]) {
          const request = yield* Schema.decodeUnknownEffect(CanUseToolRequest)(raw)
          assert.strictEqual(request.tool_name, "Bash")
          assert.strictEqual(request.display_name, "Bash")
          assert.strictEqual(request.description, "probe command")
          assert.strictEqual(request.tool_use_id, raw.tool_use_id)
          assert.strictEqual(request.blocked_path, raw.blocked_path)
          assert.deepStrictEqual(request.input, raw.input)
          assert.deepStrictEqual(
            request.permission_suggestions?.map((s) => s.type),
            ["addRules", "addDirectories", "setMode"]
          )
        }
      }))

    it.effect("the handler gets the CLI's object, fields of newer CLIs included", () =>
      Effect.gen(function*() {
        const seen: Array<CanUseToolRequest> = []
        const permissions = yield* bindLayer(Permissions.layer((request) =>
          Effect.sync(() => {
            seen.push(request)
            return Permissions.deny("no")
          })
        ))
        const raw = { ...l3, agent_id: "a1", decision_reason: "needs approval", some_new_field: [1] }
        yield* permissions.decide(raw)
        assert.strictEqual<unknown>(seen[0], raw)
        assert.strictEqual(seen[0]!.agent_id, "a1")
      }))

    it.effect("a request that does not match is InvalidInput, the handler is not called", () =>
      Effect.gen(function*() {
        let called = false
        const permissions = yield* bindLayer(Permissions.layer(() => {
          called = true
          return Effect.succeed(Permissions.allow())
        }))
        const { tool_use_id: _id, ...missing } = j2First
        for (const bad of [missing, { ...j2First, input: "touch" }, { ...j2First, subtype: "hook_callback" }, null]) {
          const error = yield* Effect.flip(permissions.decide(bad))
          assert.strictEqual(error.reason._tag, "InvalidInput")
          assert.include(error.message, "can_use_tool")
        }
        assert.isFalse(called)
      }))
  })

  describe("answers", () => {
    it("toWire writes the bodies the CLI accepted in j2", () => {
      assert.strictEqual(
        JSON.stringify(Permissions.toWire(Permissions.allow({
          updatedInput: { command: "touch changed-by-host.txt", description: "probe command" }
        }))),
        `{"behavior":"allow","updatedInput":{"command":"touch changed-by-host.txt","description":"probe command"}}`
      )
      assert.strictEqual(
        JSON.stringify(Permissions.toWire(Permissions.deny("DENY-MESSAGE-host-said-no"))),
        `{"behavior":"deny","message":"DENY-MESSAGE-host-said-no"}`
      )
      assert.strictEqual(JSON.stringify(Permissions.toWire(Permissions.allow())), `{"behavior":"allow"}`)
      assert.strictEqual(
        JSON.stringify(Permissions.toWire(Permissions.deny("deny with interrupt", { interrupt: true }))),
        `{"behavior":"deny","message":"deny with interrupt","interrupt":true}`
      )
      assert.strictEqual(
        JSON.stringify(Permissions.toWire(Permissions.allow({
          updatedInput: { command: "touch five.txt", description: "probe command" },
          updatedPermissions: [{
            type: "addRules",
            rules: [{ toolName: "Bash", ruleContent: "touch five.txt" }],
            behavior: "allow",
            destination: "session"
          }]
        }))),
        `{"behavior":"allow","updatedInput":{"command":"touch five.txt","description":"probe command"},"updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch five.txt"}],"behavior":"allow","destination":"session"}]}`
      )
    })

    it.effect("decide returns the wire body; a bare allow carries the original input", () =>
      Effect.gen(function*() {
        const allow = yield* bindLayer(constant(Permissions.allow()))
        assert.strictEqual(
          JSON.stringify(yield* allow.decide(j2First)),
          `{"behavior":"allow","updatedInput":{"command":"touch one.txt","description":"probe command"}}`
        )
        const rewrite = yield* bindLayer(Permissions.layer((request) =>
          Effect.succeed(Permissions.allow({ updatedInput: { ...request.input, command: "touch changed-by-host.txt" } }))
        ))
        assert.strictEqual(
          JSON.stringify(yield* rewrite.decide(j2First)),
          `{"behavior":"allow","updatedInput":{"command":"touch changed-by-host.txt","description":"probe command"}}`
        )
        const deny = yield* bindLayer(constant(Permissions.deny("deny with interrupt", { interrupt: true })))
        assert.strictEqual(
          JSON.stringify(yield* deny.decide(j2First)),
          `{"behavior":"deny","message":"deny with interrupt","interrupt":true}`
        )
      }))

    it.effect("a suggestion from the request can be sent back as updatedPermissions", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(Permissions.layer((request) =>
          Effect.succeed(Permissions.allow({
            updatedPermissions: (request.permission_suggestions ?? []).filter((s) => s.type === "setMode")
          }))
        ))
        assert.deepStrictEqual(yield* permissions.decide(j2Fifth), {
          behavior: "allow",
          updatedInput: j2Fifth.input,
          updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }]
        })
        yield* Schema.decodeUnknownEffect(PermissionUpdate)({ type: "setMode", mode: "plan", destination: "cliArg" })
      }))

    it.effect("an invalid answer is InvalidInput", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(constant({ behavior: "maybe" } as unknown as PermissionResult))
        const error = yield* Effect.flip(permissions.decide(j2First))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "Bash")
      }))
  })

  describe("service", () => {
    it.effect("absent unless provided (the session adds --permission-prompt-tool stdio only when present)", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* Effect.serviceOption(Permissions)))
        const present = yield* Effect.serviceOption(Permissions).pipe(
          Effect.provide(constant(Permissions.allow()))
        )
        assert.isTrue(Option.isSome(present))
      }))

    it.effect("the handler uses a service provided to its layer, not to the caller", () =>
      Effect.gen(function*() {
        const layer = Permissions.layer((request) =>
          Effect.map(Effect.service(Policy), (policy) =>
            policy.allowed.includes(request.tool_name)
              ? Permissions.allow()
              : Permissions.deny(`${request.tool_name} is not allowed`))
        )
        const bash = yield* bindLayer(Layer.provide(layer, Layer.succeed(Policy, { allowed: ["Bash"] })))
        assert.strictEqual((yield* bash.decide(l3)).behavior, "allow")
        const none = yield* bindLayer(Layer.provide(layer, Layer.succeed(Policy, { allowed: [] })))
        assert.deepStrictEqual(yield* none.decide(l3), { behavior: "deny", message: "Bash is not allowed" })
      }))

    it.effect("a failing handler is a ClaudeError, logged", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(Permissions.layer(() => Effect.fail("policy store unreachable")))
        const { exit, logs } = yield* logsOf(permissions.decide(c6))
        const error = failureOf(exit)
        assert.isTrue(ClaudeError.isClaudeError(error))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "policy store unreachable")
        assert.strictEqual(logs.length, 1)
        assert.strictEqual(logs[0]!.level, "Warn")
        assert.include(logs[0]!.message, "Bash")
        assert.include(logs[0]!.message, String(c6.tool_use_id))
      }))

    it.effect("a dying handler is a ClaudeError, logged once", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(Permissions.layer(() => Effect.die(new Error("bug"))))
        const { exit, logs } = yield* logsOf(permissions.decide(c6))
        const error = failureOf(exit)
        assert.include(error.message, "died")
        assert.include(error.message, "bug")
        assert.strictEqual(logs.length, 1)
      }))

    it.effect("a hand-built service that dies is still a ClaudeError", () =>
      Effect.gen(function*() {
        const permissions = Permissions.bind(Permissions.of({ decide: () => Effect.die("oops") }))
        const { exit, logs } = yield* logsOf(permissions.decide(c6))
        assert.strictEqual(failureOf(exit).reason._tag, "InvalidInput")
        assert.strictEqual(logs.length, 1)
      }))

    it.effect("a handler that interrupts itself is a ClaudeError", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(Permissions.layer(() => Effect.interrupt))
        const { exit } = yield* logsOf(permissions.decide(c6))
        assert.include(failureOf(exit).message, "was interrupted")
      }))

    it.effect("a handler's ClaudeError is passed through", () =>
      Effect.gen(function*() {
        const original = ClaudeError.make(new ClaudeError.SessionClosed({ operation: "ask" }))
        const permissions = yield* bindLayer(Permissions.layer(() => Effect.fail(original)))
        const { exit } = yield* logsOf(permissions.decide(c6))
        assert.strictEqual(failureOf(exit), original)
      }))

    it.effect("interrupting decide (control_cancel_request) runs the handler's finalizer", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const finalized = yield* Ref.make(false)
        const permissions = yield* bindLayer(Permissions.layer(() =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.ensuring(Ref.set(finalized, true))
          )
        ))
        const { exit, logs } = yield* logsOf(Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(permissions.decide(l3))
          yield* Deferred.await(started)
          yield* Fiber.interrupt(fiber)
          return yield* Fiber.await(fiber)
        }))
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) {
          assert.isTrue(Exit.hasInterrupts(exit.value))
          assert.isTrue(Exit.isFailure(exit.value) && exit.value.cause.reasons.every((r) => r._tag === "Interrupt"))
        }
        assert.isTrue(yield* Ref.get(finalized))
        assert.strictEqual(logs.length, 0)
      }))
  })

  it.effect("a permission update of a type a later CLI adds still reaches the handler, and is sent back as is", () =>
    Effect.gen(function*() {
      const novel = { type: "grantCapability", capability: "net", destination: "session" }
      const seen: Array<CanUseToolRequest> = []
      const service = yield* Permissions.fromHandler((r) =>
        Effect.sync(() => {
          seen.push(r)
          return Permissions.allow({ updatedPermissions: r.permission_suggestions! })
        })
      )
      const wire = yield* Permissions.bind(service).decide({
        subtype: "can_use_tool",
        tool_name: "Bash",
        input: { command: "ls" },
        tool_use_id: "toolu_9",
        permission_suggestions: [novel]
      })
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual(wire.updatedPermissions, [novel])
    }))
})
