/**
 * A session with a `Permissions` layer refuses every switch to `bypassPermissions` (in that mode
 * the CLI never asks the layer, `modeGuard.ts`), yet an answer to `can_use_tool` carrying
 * `updatedPermissions: [{ type: "setMode", mode: "bypassPermissions" }]` (a handler that takes
 * the CLI's `permission_suggestions` as they come, as ExitPlanMode offers them) went out as is:
 * the same switch, past the session's refusal. Such an answer is now refused (the call denied,
 * reported as an `invalid_answer`); a setMode to a mode that asks still goes out.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Admin, AdminHandlers } from "./support/aiTools.ts"
import { modeAnswer } from "./support/answeringCli.ts"

const canUseTool = (mode: string) => ({
  subtype: "can_use_tool",
  tool_name: "ExitPlanMode",
  input: { plan: "do it" },
  tool_use_id: "toolu_1",
  permission_suggestions: [{ type: "setMode", mode, destination: "session" }]
})

/** Accepts the CLI's suggestions as they come. */
const takesSuggestions = Permissions.layer((request) =>
  Effect.succeed(Permissions.allow({ updatedPermissions: request.permission_suggestions ?? [] })))

const adminServer = McpServers.layer(McpServers.toolkit("admin", Admin)).pipe(Layer.provide(AdminHandlers))

const answerTo = (mode: string, served: Layer.Layer<never> = Layer.empty) =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<unknown>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const answer = yield* cli.request(canUseTool(mode))
        yield* Deferred.succeed(done, (answer as { readonly response?: unknown }).response)
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open({ extraArgs: ["--allow-dangerously-skip-permissions"] })
      return yield* Deferred.await(done)
    }).pipe(Effect.scoped, Effect.provide([cli, takesSuggestions, served]), Effect.provide(Logger.layer([])))
  }) as Effect.Effect<{ readonly behavior?: string; readonly updatedPermissions?: unknown; readonly message?: string }>

describe("a can_use_tool answer's setMode", () => {
  it.live("to bypassPermissions, in a session with a Permissions layer, is refused: the call denied", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo("bypassPermissions")
      assert.strictEqual(answer.behavior, "deny", JSON.stringify(answer))
      assert.include(answer.message ?? "", "bypassPermissions")
    }))

  it.live("to auto, while the session serves a tool that needs approval, is refused: the call denied", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo("auto", adminServer)
      assert.strictEqual(answer.behavior, "deny", JSON.stringify(answer))
      assert.include(answer.message ?? "", "mcp__admin__DeleteRepo")
    }))

  it.live("a refused one is reported as an invalid answer", () =>
    Effect.gen(function*() {
      const go = yield* Deferred.make<void>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* Deferred.await(go)
          yield* cli.request(canUseTool("bypassPermissions"))
          return yield* Effect.never
        })
      )
      const event = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        const failed = yield* session.events.pipe(
          Stream.filter((event): event is HandlerFailure.HandlerFailed => event.type === "handler_failed"),
          Stream.runHead,
          Effect.forkChild({ startImmediately: true })
        )
        yield* Deferred.succeed(go, undefined)
        return yield* Fiber.join(failed)
      }).pipe(Effect.scoped, Effect.provide([cli, takesSuggestions]), Effect.provide(Logger.layer([])))
      assert.isTrue(Option.isSome(event), "no handler_failed event")
      if (Option.isNone(event)) return
      assert.strictEqual(event.value.handler, "can_use_tool")
      assert.strictEqual(event.value.failure, "invalid_answer")
      assert.strictEqual(event.value.outcome, "denied")
    }))

  it.live("one to auto that went out counts: setMcpServers serving a tool that needs approval is then refused", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const answered = yield* Deferred.make<unknown>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const answer = yield* cli.request(canUseTool("auto"))
          yield* Deferred.succeed(answered, (answer as { readonly response?: unknown }).response)
          while (true) {
            const request = yield* cli.nextMatching((m) => m.type === "control_request")
            const body = request.request as Record<string, unknown>
            received.push(body)
            yield* cli.emit(FakeCli.success(request, modeAnswer(body)))
          }
        })
      )
      const [answer, admin] = yield* Effect.gen(function*() {
        const session = yield* Claude.open({})
        const answer = yield* Deferred.await(answered)
        const admin = yield* Effect.exit(session.setMcpServers({}, { inProcess: [McpServers.toolkit("admin", Admin)] }))
        return [answer, admin] as const
      }).pipe(
        Effect.scoped,
        Effect.provide([cli, takesSuggestions, AdminHandlers]),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual((answer as { readonly behavior?: string }).behavior, "allow")
      assert.isTrue(Exit.isFailure(admin), "setMcpServers went through")
      assert.deepStrictEqual(received.map((r) => r.subtype), [])
    }))

  it.live("to a mode that asks goes out as the handler gave it", () =>
    Effect.gen(function*() {
      const answer = yield* answerTo("acceptEdits")
      assert.strictEqual(answer.behavior, "allow", JSON.stringify(answer))
      assert.deepStrictEqual(answer.updatedPermissions, [{ type: "setMode", mode: "acceptEdits", destination: "session" }])
    }))
})
