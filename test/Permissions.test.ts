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
import { TestClock } from "effect/testing"
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Permissions from "../src/Permissions.ts"
import { CanUseToolRequest, PermissionUpdate } from "../src/Permissions.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
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
const bindLayer = <E>(layer: Layer.Layer<Permissions.Permissions, E>, report?: HandlerFailure.Report) =>
  Effect.map(Effect.provide(Effect.service(Permissions.Permissions), layer), (service) => Permissions.bind(service, report))

/** A `report` that keeps what it is given. */
const reporter = () => {
  const reports: Array<HandlerFailure.HandlerFailed> = []
  return { reports, report: (event: HandlerFailure.HandlerFailed) => void reports.push(event) }
}

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

    it.effect("a request that does not match is denied (invalid_input), the handler is not called", () =>
      Effect.gen(function*() {
        let called = false
        const { reports, report } = reporter()
        const permissions = yield* bindLayer(Permissions.layer(() => {
          called = true
          return Effect.succeed(Permissions.allow())
        }), report)
        const { tool_use_id: _id, ...missing } = j2First
        for (const bad of [missing, { ...j2First, input: "touch" }, { ...j2First, subtype: "hook_callback" }, null]) {
          const answer = yield* permissions.decide(bad)
          assert.strictEqual(answer.behavior, "deny")
          assert.include(String(answer.message), "Invalid can_use_tool request")
        }
        assert.isFalse(called)
        assert.deepStrictEqual(reports.map((r) => [r.failure, r.outcome]), Array(4).fill(["invalid_input", "denied"]))
        assert.strictEqual(reports[0]!.toolName, "Bash")
        assert.isUndefined(reports[0]!.toolUseId)
      }).pipe(Effect.provide(Logger.layer([]))))
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

    it.effect("an invalid answer is a denial (invalid_answer)", () =>
      Effect.gen(function*() {
        const { reports, report } = reporter()
        const permissions = yield* bindLayer(constant({ behavior: "maybe" } as unknown as PermissionResult), report)
        const answer = yield* permissions.decide(j2First)
        assert.strictEqual(answer.behavior, "deny")
        assert.include(String(answer.message), "gave an invalid answer")
        assert.deepStrictEqual(reports.map((r) => [r.failure, r.outcome]), [["invalid_answer", "denied"]])
      }).pipe(Effect.provide(Logger.layer([]))))
  })

  describe("service", () => {
    it.effect("absent unless provided (the session adds --permission-prompt-tool stdio only when present)", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* Effect.serviceOption(Permissions.Permissions)))
        const present = yield* Effect.serviceOption(Permissions.Permissions).pipe(
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

    const failures: ReadonlyArray<{
      readonly name: string
      readonly layer: Layer.Layer<Permissions.Permissions, ClaudeError.ClaudeError>
      readonly failure: HandlerFailure.FailureKind
      readonly text: string
    }> = [
      { name: "fails", layer: Permissions.layer(() => Effect.fail("policy store unreachable")), failure: "failed", text: "policy store unreachable" },
      { name: "dies", layer: Permissions.layer(() => Effect.die(new Error("bug in the policy"))), failure: "died", text: "died: bug in the policy" },
      {
        name: "throws",
        layer: Permissions.layer(() => {
          throw new Error("thrown by the policy")
        }),
        failure: "died",
        text: "thrown by the policy"
      },
      { name: "interrupts itself", layer: Permissions.layer(() => Effect.interrupt), failure: "interrupted", text: "was interrupted" },
      {
        name: "fails with a ClaudeError",
        layer: Permissions.layer(() => Effect.fail(ClaudeError.make(new ClaudeError.SessionClosed({ operation: "ask" })))),
        failure: "failed",
        text: "ask"
      },
      {
        name: "is hand-built and dies",
        layer: Layer.succeed(Permissions.Permissions, Permissions.Permissions.of({ decide: () => Effect.die("oops") })),
        failure: "died",
        text: "oops"
      }
    ]

    for (const { name, layer, failure, text } of failures) {
      it.effect(`a handler that ${name}: the tool call is denied with the reason, logged once, reported once`, () =>
        Effect.gen(function*() {
          const { reports, report } = reporter()
          const permissions = yield* bindLayer(layer, report)
          const { exit, logs } = yield* logsOf(permissions.decide(c6, "req-3"))
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) {
            assert.strictEqual(exit.value.behavior, "deny")
            assert.include(String(exit.value.message), "so the tool call was denied")
            assert.include(String(exit.value.message), text)
            assert.isUndefined(exit.value.interrupt)
          }
          assert.strictEqual(logs.length, 1)
          assert.strictEqual(logs[0]!.level, "Warn")
          assert.include(logs[0]!.message, "Bash")
          assert.include(logs[0]!.message, String(c6.tool_use_id))
          assert.strictEqual(reports.length, 1)
          const reported = reports[0]!
          assert.strictEqual(reported.type, "handler_failed")
          assert.strictEqual(reported.handler, "can_use_tool")
          assert.isUndefined(reported.hookEvent)
          assert.strictEqual(reported.toolName, "Bash")
          assert.strictEqual(reported.toolUseId, c6.tool_use_id)
          assert.strictEqual(reported.requestId, "req-3")
          assert.strictEqual(reported.failure, failure)
          assert.strictEqual(reported.outcome, "denied")
          assert.include(reported.message, text)
        }))
    }

    it.effect("a handler past the layer's timeout is interrupted and the tool call denied (timed_out)", () =>
      Effect.gen(function*() {
        const finalized = yield* Ref.make(false)
        const { reports, report } = reporter()
        const permissions = yield* bindLayer(
          Permissions.layer(() => Effect.never.pipe(Effect.ensuring(Ref.set(finalized, true))), { timeout: "10 seconds" }),
          report
        )
        const fiber = yield* Effect.forkChild(permissions.decide(c6))
        yield* TestClock.adjust("9999 millis")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        const answer = yield* Fiber.join(fiber)
        assert.strictEqual(answer.behavior, "deny")
        assert.include(String(answer.message), "10000")
        assert.isTrue(yield* Ref.get(finalized))
        assert.deepStrictEqual(reports.map((r) => [r.failure, r.outcome]), [["timed_out", "denied"]])
        assert.strictEqual(reports[0]!.error.reason._tag, "ControlTimeout")
      }).pipe(Effect.provide(Logger.layer([]))))

    it.effect("a handler within the layer's timeout answers normally; decide itself fails with ControlTimeout past it", () =>
      Effect.gen(function*() {
        const service = yield* Permissions.fromHandler(
          () => Effect.as(Effect.sleep("2 seconds"), Permissions.allow()),
          { timeout: "3 seconds" }
        )
        const fiber = yield* Effect.forkChild(service.decide(c6 as CanUseToolRequest))
        yield* TestClock.adjust("2 seconds")
        assert.strictEqual((yield* Fiber.join(fiber)).behavior, "allow")
        const slow = yield* Permissions.fromHandler(() => Effect.never, { timeout: "3 seconds" })
        const late = yield* Effect.forkChild(Effect.flip(slow.decide(c6 as CanUseToolRequest)))
        yield* TestClock.adjust("3 seconds")
        assert.strictEqual((yield* Fiber.join(late)).reason._tag, "ControlTimeout")
      }))

    it.effect("a report that throws changes nothing: the denial is still answered", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(Permissions.layer(() => Effect.die("broken")), () => {
          throw new Error("the reporter is broken too")
        })
        const { exit, logs } = yield* logsOf(permissions.decide(c6))
        assert.isTrue(Exit.isSuccess(exit) && exit.value.behavior === "deny")
        assert.isTrue(logs.some((l) => l.message.includes("reporter threw")))
      }))

    it.effect("interrupting decide (control_cancel_request) runs the handler's finalizer", () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const finalized = yield* Ref.make(false)
        const { reports, report } = reporter()
        const permissions = yield* bindLayer(Permissions.layer(() =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.ensuring(Ref.set(finalized, true))
          )
        ), report)
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
        assert.strictEqual(reports.length, 0)
      }))

    it.effect("a finalizer the handler adds runs when the call ends, not when the layer's scope closes", () =>
      Effect.gen(function*() {
        const finalized: Array<string> = []
        const layerScope = yield* Scope.make()
        const layer = Permissions.layer(() =>
          Effect.as(Effect.addFinalizer(() => Effect.sync(() => finalized.push("call"))), Permissions.allow())
        )
        const service = Context.get(yield* Layer.build(layer).pipe(Scope.provide(layerScope)), Permissions.Permissions)
        const permissions = Permissions.bind(service)
        yield* Effect.scoped(permissions.decide(c6))
        assert.deepStrictEqual(finalized, ["call"])
        yield* Scope.close(layerScope, Exit.void)
        assert.deepStrictEqual(finalized, ["call"])
      }))

    it.effect("the handler runs under the caller's span, not the span its layer was built in", () =>
      Effect.gen(function*() {
        const spans: Array<string> = []
        const layer = Permissions.layer(() =>
          Effect.gen(function*() {
            let span: Tracer.AnySpan | undefined = yield* Effect.currentSpan
            while (span !== undefined) {
              spans.push(span._tag === "Span" ? span.name : "external")
              span = span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined
            }
            return Permissions.allow()
          })
        )
        const service = yield* Effect.provide(Effect.service(Permissions.Permissions), layer).pipe(Effect.withSpan("layer-build"))
        yield* Permissions.bind(service).decide(c6).pipe(Effect.withSpan("the-turn"))
        assert.deepStrictEqual(spans, ["Permissions.decide", "the-turn"])
      }))
  })

  describe("on the wire: the session's answer to a failing handler (FakeCli)", () => {
    const kinds: ReadonlyArray<{
      readonly name: string
      readonly layer: (started: Deferred.Deferred<void>) => Layer.Layer<Permissions.Permissions, ClaudeError.ClaudeError>
      readonly late: boolean
      readonly reason: string
    }> = [
      { name: "fails", layer: () => Permissions.layer(() => Effect.fail("policy down")), late: false, reason: "policy down" },
      { name: "dies", layer: () => Permissions.layer(() => Effect.die(new Error("a defect"))), late: false, reason: "a defect" },
      {
        name: "throws",
        layer: () =>
          Permissions.layer(() => {
            throw new Error("thrown")
          }),
        late: false,
        reason: "thrown"
      },
      {
        name: "times out",
        layer: (started) =>
          Permissions.layer(() => Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never)), {
            timeout: "2 seconds"
          }),
        late: true,
        reason: "No answer to can_use_tool within 2000 ms"
      }
    ]
    for (const { name, layer, late, reason } of kinds) {
      it.effect(`a handler that ${name}: the CLI gets a success answer with a deny`, () =>
        Effect.gen(function*() {
          const started = yield* Deferred.make<void>()
          const seen = yield* Deferred.make<Record<string, unknown>>()
          const cli = FakeCli.layer((cli) =>
            Effect.gen(function*() {
              yield* FakeCli.answerInitialize(cli)
              yield* cli.emit({ type: "control_request", request_id: "p1", request: c6 })
              yield* Deferred.succeed(seen, yield* cli.nextMatching((m) => m.type === "control_response"))
              return yield* Effect.never
            })
          )
          const answer = yield* Effect.gen(function*() {
            yield* Claude.open()
            if (late) {
              yield* Deferred.await(started)
              yield* TestClock.adjust("2 seconds")
            }
            return yield* Deferred.await(seen)
          }).pipe(Effect.provide([cli, layer(started)]), Effect.provide(Logger.layer([])))
          const response = answer.response as Record<string, unknown>
          assert.strictEqual(response.subtype, "success")
          assert.strictEqual(response.request_id, "p1")
          const body = response.response as Record<string, unknown>
          assert.strictEqual(body.behavior, "deny")
          assert.include(String(body.message), "so the tool call was denied")
          assert.include(String(body.message), reason)
        }))
    }
  })

  describe("one schema per wire object", () => {
    it("the service's schemas are the protocol's", () => {
      assert.strictEqual(Permissions.CanUseToolRequest, Protocol.CanUseToolRequest)
      assert.strictEqual(Permissions.PermissionUpdate, Protocol.PermissionUpdate)
      assert.strictEqual(Permissions.PermissionResult, Protocol.PermissionResult)
      assert.strictEqual(Permissions.PermissionRuleValue, Protocol.PermissionRuleValue)
    })

    it.effect("the answer is written by the protocol's schema: unknown keys dropped, toolUseID and decisionClassification kept", () =>
      Effect.gen(function*() {
        const permissions = yield* bindLayer(constant({
          behavior: "deny",
          message: "no",
          toolUseID: c6.tool_use_id,
          decisionClassification: "user_reject",
          notAField: 1
        } as PermissionResult))
        assert.strictEqual(
          JSON.stringify(yield* permissions.decide(c6)),
          `{"behavior":"deny","message":"no","toolUseID":"${c6.tool_use_id}","decisionClassification":"user_reject"}`
        )
      }))

    it.effect("a request is decoded by the protocol's schema: one the control channel accepts reaches the handler", () =>
      Effect.gen(function*() {
        const line = { type: "control_request", request_id: "r1", request: j2First }
        const decoded = Protocol.decodeMessage(line)
        assert.strictEqual(decoded._tag, "Success")
        const seen: Array<CanUseToolRequest> = []
        const permissions = yield* bindLayer(Permissions.layer((request) =>
          Effect.sync(() => (seen.push(request), Permissions.allow()))
        ))
        yield* permissions.decide(j2First)
        assert.strictEqual(seen.length, 1)
        // And one both reject: an update whose destination is not a string.
        const bad = {
          ...j2First,
          permission_suggestions: [{ type: "setMode", mode: "plan", destination: 7 }]
        }
        assert.strictEqual(Protocol.decodeMessage({ ...line, request: bad })._tag, "Failure")
        assert.strictEqual((yield* permissions.decide(bad).pipe(Effect.provide(Logger.layer([])))).behavior, "deny")
        assert.strictEqual(seen.length, 1)
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
