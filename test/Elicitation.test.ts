/**
 * Elicitation and host dialogs as services: the CLI's `elicitation` and `request_user_dialog`
 * control requests, played by a FakeCli against a real session, answered by the `Elicitation` and
 * `UserDialogs` layers (or with the error answer when there is none).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Elicitation from "../src/Elicitation.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import type * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as UserDialogs from "../src/UserDialogs.ts"
import { fromCli } from "./support/fakeCliHost.ts"

type Response = Protocol.ControlResponse["response"]

const success = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  return assert.fail(`expected a success, got ${String(exit.cause)}`)
}

const answerOf = (response: Response): unknown =>
  response.subtype === "success" ? response.response : assert.fail(`expected a success answer, got ${JSON.stringify(response)}`)

/** A real-looking `elicitation` request (the fields CLI 2.1.332 sends for a form). */
const formRequest = {
  subtype: "elicitation",
  mcp_server_name: "deploy",
  message: "Where to deploy?",
  mode: "form",
  requested_schema: {
    type: "object",
    properties: {
      environment: { type: "string", enum: ["staging", "production"] },
      replicas: { type: "integer", minimum: 1, maximum: 5 },
      confirm: { type: "boolean" },
      note: { type: "string", maxLength: 10 }
    },
    required: ["environment", "confirm"]
  },
  property_order: ["environment", "replicas", "confirm", "note"]
}

const reporter = () => {
  const reports: Array<HandlerFailure.HandlerFailed> = []
  return { reports, report: (event: HandlerFailure.HandlerFailed) => void reports.push(event) }
}

const bindElicitation = (layer: Layer.Layer<Elicitation.Elicitation, ClaudeError.ClaudeError>, report?: HandlerFailure.Report) =>
  Effect.map(Effect.provide(Effect.service(Elicitation.Elicitation), layer), (service) => Elicitation.bind(service, report))

const bindDialogs = <E>(layer: Layer.Layer<UserDialogs.UserDialogs, E>, report?: HandlerFailure.Report) =>
  Effect.map(Effect.provide(Effect.service(UserDialogs.UserDialogs), layer), (service) => UserDialogs.bind(service, report))

describe("Elicitation", () => {
  it.effect("accept: the content, decoded by the requested schema, is the answer; the handler saw the request as sent", () =>
    Effect.gen(function*() {
      const seen: Array<Elicitation.ElicitationRequest> = []
      const { exit } = yield* fromCli((cli) => cli.request(formRequest)).pipe(
        Effect.provide(Elicitation.layer((request) =>
          Effect.sync(() => {
            seen.push(request)
            return Elicitation.accept({ environment: "staging", replicas: 2, confirm: true })
          })
        ))
      )
      assert.deepStrictEqual(answerOf(success(exit)), {
        action: "accept",
        content: { environment: "staging", replicas: 2, confirm: true }
      })
      assert.strictEqual(seen[0]?.mcp_server_name, "deploy")
      assert.deepStrictEqual(seen[0]?.property_order, ["environment", "replicas", "confirm", "note"])
    }))

  it.effect("decline and cancel are answered as such", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) =>
        Effect.all([cli.request(formRequest), cli.request({ ...formRequest, mcp_server_name: "other" })])
      ).pipe(Effect.provide(Elicitation.layer((request) =>
        Effect.succeed(request.mcp_server_name === "deploy" ? Elicitation.decline() : Elicitation.cancel())
      )))
      const [declined, cancelled] = success(exit)
      assert.deepStrictEqual(answerOf(declined!), { action: "decline" })
      assert.deepStrictEqual(answerOf(cancelled!), { action: "cancel" })
    }))

  it.effect("a url elicitation is accepted without content", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) =>
        cli.request({ subtype: "elicitation", mcp_server_name: "auth", message: "Sign in", mode: "url", url: "https://example.com/login", elicitation_id: "e1" })
      ).pipe(Effect.provide(Elicitation.layer(() => Effect.succeed(Elicitation.accept()))))
      assert.deepStrictEqual(answerOf(success(exit)), { action: "accept" })
    }))

  for (
    const [name, content, expected] of [
      ["a required field missing", { environment: "staging" }, "confirm"],
      ["a value outside the enum", { environment: "moon", confirm: true }, "environment"],
      ["an integer out of range", { environment: "staging", confirm: true, replicas: 9 }, "replicas"],
      ["a string too long", { environment: "staging", confirm: true, note: "far too long" }, "note"],
      ["a key the schema does not name", { environment: "staging", confirm: true, extra: "x" }, "extra"]
    ] as const
  ) {
    it.effect(`accept with content that breaks the schema (${name}) is sent as decline, with the reason reported`, () =>
      Effect.gen(function*() {
        const { exit } = yield* fromCli((cli) => cli.request(formRequest)).pipe(
          Effect.provide(Elicitation.layer(() => Effect.succeed(Elicitation.accept(content))))
        )
        assert.deepStrictEqual(answerOf(success(exit)), { action: "decline" })

        const { reports, report } = reporter()
        const bound = yield* bindElicitation(Elicitation.layer(() => Effect.succeed(Elicitation.accept(content))), report)
        const body = yield* bound.respond(formRequest, "req-1").pipe(Effect.provide(Logger.layer([])))
        assert.deepStrictEqual(body, { action: "decline" })
        assert.strictEqual(reports.length, 1)
        assert.strictEqual(reports[0]?.handler, "elicitation")
        assert.strictEqual(reports[0]?.failure, "invalid_answer")
        assert.strictEqual(reports[0]?.outcome, "declined")
        assert.strictEqual(reports[0]?.requestId, "req-1")
        assert.include(reports[0]?.message, "breaks the schema deploy asked for")
        assert.include(reports[0]?.message, expected)
      }))
  }

  it.effect("a url elicitation accepted with content is declined (none was asked for)", () =>
    Effect.gen(function*() {
      const { reports, report } = reporter()
      const bound = yield* bindElicitation(Elicitation.layer(() => Effect.succeed(Elicitation.accept({ token: "x" }))), report)
      const body = yield* bound.respond({ subtype: "elicitation", mcp_server_name: "auth", message: "m", mode: "url" })
        .pipe(Effect.provide(Logger.layer([])))
      assert.deepStrictEqual(body, { action: "decline" })
      assert.include(reports[0]?.message, "asked for no content")
    }))

  it.effect("a failing handler cancels (never accepts), reported as failed", () =>
    Effect.gen(function*() {
      const failing = Elicitation.layer(() => Effect.fail("the form service is down"))
      const { exit } = yield* fromCli((cli) => cli.request(formRequest)).pipe(Effect.provide(failing))
      assert.deepStrictEqual(answerOf(success(exit)), { action: "cancel" })

      const { reports, report } = reporter()
      const bound = yield* bindElicitation(failing, report)
      assert.deepStrictEqual(yield* bound.respond(formRequest).pipe(Effect.provide(Logger.layer([]))), { action: "cancel" })
      assert.strictEqual(reports[0]?.failure, "failed")
      assert.strictEqual(reports[0]?.outcome, "cancelled")
      assert.include(reports[0]?.message, "the form service is down")
    }))

  it.effect("the session publishes the failure on session.events (handler elicitation, outcome cancelled)", () =>
    Effect.gen(function*() {
      const go = yield* Deferred.make<void>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* Deferred.await(go)
          yield* cli.request(formRequest)
          return yield* Effect.never
        })
      )
      const event = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const failed = yield* session.events.pipe(
          Stream.filter((event): event is HandlerFailure.HandlerFailed => event.type === "handler_failed"),
          Stream.runHead,
          Effect.forkChild({ startImmediately: true })
        )
        yield* Deferred.succeed(go, undefined)
        return yield* Fiber.join(failed)
      }).pipe(
        Effect.scoped,
        Effect.provide(cli),
        Effect.provide(Elicitation.layer(() => Effect.fail("the form service is down"))),
        Effect.provide(Logger.layer([]))
      )
      assert.isTrue(Option.isSome(event), "no handler_failed event")
      if (Option.isNone(event)) return
      assert.strictEqual(event.value.handler, "elicitation")
      assert.strictEqual(event.value.outcome, "cancelled")
      assert.strictEqual(event.value.requestId, "fake-cli-request-1")
      assert.include(event.value.message, "the form service is down")
    }))

  it.effect("a dying handler, an invalid answer, an invalid request and a timeout each cancel, reported", () =>
    Effect.gen(function*() {
      const { reports, report } = reporter()
      const quiet = Effect.provide(Logger.layer([]))
      const died = yield* bindElicitation(Elicitation.layer(() => Effect.die(new Error("boom"))), report)
      assert.deepStrictEqual(yield* died.respond(formRequest).pipe(quiet), { action: "cancel" })
      const wrong = yield* bindElicitation(
        Elicitation.layer(() => Effect.succeed({ action: "maybe" } as unknown as Elicitation.ElicitationResult)),
        report
      )
      assert.deepStrictEqual(yield* wrong.respond(formRequest).pipe(quiet), { action: "cancel" })
      const fine = yield* bindElicitation(Elicitation.layer(() => Effect.succeed(Elicitation.accept())), report)
      assert.deepStrictEqual(yield* fine.respond({ subtype: "elicitation", message: 1 }).pipe(quiet), { action: "cancel" })
      const slow = yield* bindElicitation(Elicitation.layer(() => Effect.never, { timeout: "10 millis" }), report)
      const waiting = yield* Effect.forkChild(slow.respond(formRequest).pipe(quiet))
      yield* TestClock.adjust("10 millis")
      assert.deepStrictEqual(yield* Fiber.join(waiting), { action: "cancel" })
      assert.deepStrictEqual(reports.map((r) => [r.failure, r.outcome]), [
        ["died", "cancelled"],
        ["invalid_answer", "cancelled"],
        ["invalid_input", "cancelled"],
        ["timed_out", "cancelled"]
      ])
    }))

  it.effect("a control_cancel_request interrupts the handler (its finalizer runs) and nothing is answered", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const { exit, received } = yield* fromCli((cli) => cli.request(formRequest, { timeout: "50 millis" })).pipe(
        Effect.provide(Elicitation.layer(() => Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))))
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error) && error.value.reason._tag === "ControlTimeout")
      yield* Deferred.await(interrupted)
      assert.isFalse(received.some((m) => m.type === "control_response"))
    }))

  it.effect("no Elicitation layer: the request gets the error answer (unsupported_request)", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => cli.request(formRequest))
      const response = success(exit)
      assert.strictEqual(response.subtype, "error")
      if (response.subtype !== "error") return
      assert.strictEqual(response.error, "Unsupported control request subtype: elicitation")
      assert.strictEqual(response.error_code, "unsupported_request")
    }))

  it.effect("contentSchema decodes what MCP forms hold: number bounds, multi-select arrays, oneOf titles", () =>
    Effect.gen(function*() {
      const request = {
        mcp_server_name: "s",
        requested_schema: {
          type: "object",
          properties: {
            ratio: { type: "number", minimum: 0, maximum: 1 },
            tags: { type: "array", items: { enum: ["a", "b"] }, minItems: 1 },
            size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] }
          }
        }
      }
      assert.deepStrictEqual(yield* Elicitation.decodeContent(request, { ratio: 0.5, tags: ["a"], size: "l" }), {
        ratio: 0.5,
        tags: ["a"],
        size: "l"
      })
      for (const bad of [{ ratio: 2 }, { tags: [] }, { tags: ["c"] }, { size: "m" }, { ratio: "0.5" }]) {
        const exit = yield* Effect.exit(Elicitation.decodeContent(request, bad))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(bad))
        const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
        assert.isTrue(Option.isSome(error) && error.value.reason._tag === "InvalidInput")
      }
    }))
})

const dialogRequest = {
  subtype: "request_user_dialog",
  dialog_kind: "refusal_fallback_prompt",
  payload: { model: "claude-fallback" },
  tool_use_id: "toolu_1"
}

describe("UserDialogs", () => {
  it.effect("the layer's kinds are announced in initialize (supportedDialogKinds); a dialog is answered completed", () =>
    Effect.gen(function*() {
      const seen: Array<UserDialogs.UserDialogRequest> = []
      const { exit, received } = yield* fromCli((cli) => cli.request(dialogRequest)).pipe(
        Effect.provide(UserDialogs.layer(["refusal_fallback_prompt"], (request) =>
          Effect.sync(() => {
            seen.push(request)
            return UserDialogs.completed("retry_fallback")
          })))
      )
      assert.deepStrictEqual(answerOf(success(exit)), { behavior: "completed", result: "retry_fallback" })
      assert.deepStrictEqual(seen[0]?.payload, { model: "claude-fallback" })
      const initialize = received.find((m) => (m.request as { subtype?: unknown } | undefined)?.subtype === "initialize")
      assert.deepStrictEqual((initialize?.request as Record<string, unknown>).supportedDialogKinds, ["refusal_fallback_prompt"])
    }))

  it.effect("without a UserDialogs layer nothing is announced, and a dialog gets the error answer", () =>
    Effect.gen(function*() {
      const { exit, received } = yield* fromCli((cli) => cli.request(dialogRequest))
      const response = success(exit)
      assert.strictEqual(response.subtype, "error")
      if (response.subtype === "error") assert.strictEqual(response.error_code, "unsupported_request")
      const initialize = received.find((m) => (m.request as { subtype?: unknown } | undefined)?.subtype === "initialize")
      assert.isFalse("supportedDialogKinds" in (initialize?.request as Record<string, unknown>))
    }))

  it.effect("a kind the host did not declare gets an error answer (which the CLI discards), never cancelled", () =>
    Effect.gen(function*() {
      const { exit } = yield* fromCli((cli) => cli.request({ ...dialogRequest, dialog_kind: "something_new" })).pipe(
        Effect.provide(UserDialogs.layer(["refusal_fallback_prompt"], () => Effect.succeed(UserDialogs.completed(1))))
      )
      const response = success(exit)
      assert.strictEqual(response.subtype, "error")
      if (response.subtype === "error") assert.include(response.error, "something_new, which this host did not declare")
    }))

  it.effect("a failing handler cancels the dialog (the CLI applies its default), reported", () =>
    Effect.gen(function*() {
      const failing = UserDialogs.layer(["refusal_fallback_prompt"], () => Effect.fail("no screen"))
      const { exit } = yield* fromCli((cli) => cli.request(dialogRequest)).pipe(Effect.provide(failing))
      assert.deepStrictEqual(answerOf(success(exit)), { behavior: "cancelled" })
      const { reports, report } = reporter()
      const bound = yield* bindDialogs(failing, report)
      assert.deepStrictEqual(yield* bound.show(dialogRequest, "r9").pipe(Effect.provide(Logger.layer([]))), {
        behavior: "cancelled"
      })
      assert.strictEqual(reports[0]?.handler, "request_user_dialog")
      assert.strictEqual(reports[0]?.outcome, "cancelled")
      assert.strictEqual(reports[0]?.toolUseId, "toolu_1")
      assert.include(reports[0]?.message, "no screen")
    }))

  it.effect("a control_cancel_request (the CLI withdrew the dialog) interrupts the handler; nothing is answered", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const { exit, received } = yield* fromCli((cli) => cli.request(dialogRequest, { timeout: "50 millis" })).pipe(
        Effect.provide(UserDialogs.layer(
          ["refusal_fallback_prompt"],
          () => Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
        ))
      )
      assert.isTrue(Exit.isFailure(exit))
      yield* Deferred.await(interrupted)
      assert.isFalse(received.some((m) => m.type === "control_response"))
    }))

  it.effect("invalid kinds: the layer fails with InvalidInput, before any CLI starts", () =>
    Effect.gen(function*() {
      for (const kinds of [[""], ["a", "a"], [" "]]) {
        const exit = yield* Effect.exit(
          Effect.provide(Effect.service(UserDialogs.UserDialogs), UserDialogs.layer(kinds, () => Effect.succeed(UserDialogs.cancelled())))
        )
        const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
        assert.isTrue(Option.isSome(error) && error.value.reason._tag === "InvalidInput", JSON.stringify(kinds))
        if (Option.isSome(error)) assert.include(error.value.message, "Invalid UserDialogs kinds")
      }
    }))
})
