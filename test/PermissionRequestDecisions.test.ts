/**
 * A `PermissionRequest` hook's decision beside a `Permissions` handler (found by a reviewing
 * helper on the real CLI, `test/PermissionRequestDecisionsLive.test.ts`; failing before):
 *
 * - an allow that rewrites the input (`updatedInput`) lost to the handler's plain allow, and the
 *   original command ran: the CLI reads its hooks' answers more slowly than the `can_use_tool`
 *   answer. The `can_use_tool` answer is now the hooks' decision when they made one: the first
 *   allow with its `updatedInput` and `updatedPermissions` (a deny still wins over it);
 * - `Hooks.block(reason)` (top-level `decision: "block"`), which the CLI reads as no decision on
 *   this event, let the tool run: it is the deny it means now, on both answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import type * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const input = { command: "rm victim.txt" }

/** The `can_use_tool` answer and the hooks' answers, the CLI asking `can_use_tool` first, then each hook. */
const answers = (hooks: Layer.Layer<Hooks.Hooks, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<{ readonly permission: unknown; readonly hooks: ReadonlyArray<unknown> }, ClaudeError.ClaudeError>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const asked = yield* Effect.forkChild(cli.request({ subtype: "can_use_tool", tool_name: "Bash", input, tool_use_id: "toolu_1" }, { timeout: "1 hour" }))
        yield* Effect.yieldNow
        const initialize = cli.received.find((m) => m.type === "control_request") as { request: { hooks?: Record<string, ReadonlyArray<{ hookCallbackIds: ReadonlyArray<string> }>> } }
        const ids = (initialize.request.hooks?.PermissionRequest ?? []).flatMap((matcher) => matcher.hookCallbackIds)
        const hookAnswers = yield* Effect.forEach(ids, (callbackId) =>
          FakeCli.callHook(cli, "PermissionRequest", { tool_name: "Bash", tool_input: input, tool_use_id: "toolu_1", permission_suggestions: [] }, { callbackId }), { concurrency: "unbounded" })
        yield* Deferred.completeWith(done, Effect.map(Fiber.join(asked), (permission) => ({ permission, hooks: hookAnswers })))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open()
      return yield* Deferred.await(done)
    }).pipe(
      Effect.scoped,
      Effect.provide([cli, hooks, Permissions.layer(() => Effect.succeed(Permissions.allow()))]),
      Effect.provide(Logger.layer([]))
    )
  })

const responseOf = (answer: unknown) => (answer as { readonly response?: Record<string, unknown> }).response

const on = (answer: HookEvents.HookOutput<"PermissionRequest">) =>
  Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.succeed(answer))

describe("a PermissionRequest hook's decision is the can_use_tool answer", () => {
  it.effect("an allow with updatedInput and updatedPermissions: the handler's plain allow is not sent", () =>
    Effect.gen(function*() {
      const rule = { type: "addRules" as const, rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow" as const, destination: "session" as const }
      const { permission } = yield* answers(Hooks.layer(on({
        hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command: "touch sanitized.txt" }, updatedPermissions: [rule] } }
      })))
      assert.deepStrictEqual(responseOf(permission), {
        behavior: "allow",
        updatedInput: { command: "touch sanitized.txt" },
        updatedPermissions: [rule]
      })
    }))

  it.effect("an allow without updatedInput carries the request's input", () =>
    Effect.gen(function*() {
      const { permission } = yield* answers(Hooks.layer(on({ hookSpecificOutput: { decision: { behavior: "allow" } } })))
      assert.deepStrictEqual(responseOf(permission), { behavior: "allow", updatedInput: input })
    }))

  it.effect("a deny with interrupt keeps its interrupt", () =>
    Effect.gen(function*() {
      const { permission } = yield* answers(Hooks.layer(on({ hookSpecificOutput: { decision: { behavior: "deny", message: "no", interrupt: true } } })))
      assert.deepStrictEqual(responseOf(permission), { behavior: "deny", message: "no", interrupt: true })
    }))

  it.effect("one hook's allow and another's deny: the deny", () =>
    Effect.gen(function*() {
      const { permission } = yield* answers(Hooks.layer(
        on({ hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command: "ls" } } } }),
        on({ hookSpecificOutput: { decision: { behavior: "deny", message: "no rm" } } })
      ))
      assert.deepStrictEqual(responseOf(permission), { behavior: "deny", message: "no rm" })
    }))

  it.effect("Hooks.block(reason): a deny with the reason, on the hook's answer and on can_use_tool's", () =>
    Effect.gen(function*() {
      const { hooks, permission } = yield* answers(Hooks.layer(on(Hooks.block("no rm"))))
      assert.deepStrictEqual(responseOf(permission), { behavior: "deny", message: "no rm" })
      const hook = hooks[0] as { readonly hookSpecificOutput?: { readonly decision?: unknown } }
      assert.deepStrictEqual(hook.hookSpecificOutput?.decision, { behavior: "deny", message: "no rm" })
    }))
})
