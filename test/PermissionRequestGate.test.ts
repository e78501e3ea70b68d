/**
 * CLI 2.1.332 asks a tool call's permission twice at once, the `can_use_tool` request (the
 * session's `Permissions`) and the `PermissionRequest` hooks, and takes the first answer: a quick
 * allow from the handler beat a guard's deny (or a failing guard's refusal), and the tool ran
 * (found by a reviewing helper on the real CLI, `PermissionRequestGuardLive.test.ts`). The
 * handler's answer now waits for the hooks the CLI calls for that tool; a deny of any is the
 * answer too. These drive the fake CLI in the order the real one used: `can_use_tool` first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const canUseTool = (toolName: string) => ({
  subtype: "can_use_tool",
  tool_name: toolName,
  input: { command: "rm victim.txt" },
  tool_use_id: "toolu_1"
})

const permissionRequest = (toolName: string) => ({
  tool_name: toolName,
  tool_input: { command: "rm victim.txt" },
  tool_use_id: "toolu_1",
  permission_suggestions: []
})

/**
 * A session with `hooks` and an allowing Permissions handler; the fake CLI sends `can_use_tool`,
 * then (unless `hook` is false) the PermissionRequest hook, and hands back the permission answer.
 */
const permissionAnswer = (
  hooks: Layer.Layer<Hooks.Hooks, ClaudeError.ClaudeError>,
  hook = true,
  afterAsking: Effect.Effect<void> = Effect.void,
  call: { readonly request: Record<string, unknown>; readonly hookInput: Record<string, unknown> } = {
    request: canUseTool("Bash"),
    hookInput: permissionRequest("Bash")
  }
) =>
  Effect.gen(function*() {
    const answer = yield* Deferred.make<unknown, ClaudeError.ClaudeError>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const asked = yield* Effect.forkChild(cli.request(call.request, { timeout: "1 hour" }))
        yield* Effect.yieldNow
        if (hook) {
          // Every PermissionRequest callback the session registered, as the CLI calls each.
          const initialize = cli.received.find((m) => m.type === "control_request") as { request: { hooks?: Record<string, ReadonlyArray<{ hookCallbackIds: ReadonlyArray<string> }>> } }
          const ids = (initialize.request.hooks?.PermissionRequest ?? []).flatMap((matcher) => matcher.hookCallbackIds)
          yield* Effect.forEach(ids, (callbackId) =>
            Effect.ignore(FakeCli.callHook(cli, "PermissionRequest", call.hookInput, { callbackId })), { concurrency: "unbounded", discard: true })
        }
        yield* Deferred.completeWith(answer, Fiber.join(asked))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open()
      yield* afterAsking
      return (yield* Deferred.await(answer)) as { readonly response?: { readonly behavior?: string; readonly message?: string } }
    }).pipe(
      Effect.scoped,
      Effect.provide([cli, hooks, Permissions.layer(() => Effect.succeed(Permissions.allow()))]),
      Effect.provide(Logger.layer([]))
    )
  })

const denied = { hookSpecificOutput: { decision: { behavior: "deny" as const, message: "never" } } }

describe("a PermissionRequest guard beside a Permissions handler", () => {
  it.effect("the guard's deny is the can_use_tool answer too, though can_use_tool came first", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, () =>
        Effect.succeed({ hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }))))
      assert.deepStrictEqual([answer.response?.behavior, answer.response?.message], ["deny", "no rm"])
    }))

  it.effect("a guard that dies refuses it on both answers", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(Hooks.layer(Hooks.on("PermissionRequest", () => Effect.die(new Error("guard crashed")))))
      assert.strictEqual(answer.response?.behavior, "deny")
      assert.include(String(answer.response?.message), "guard crashed")
    }))

  it.effect("a guard with no opinion leaves it to the handler", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(Hooks.layer(Hooks.on("PermissionRequest", () => Effect.succeed({}))))
      assert.strictEqual(answer.response?.behavior, "allow")
    }))

  it.effect("a hook whose matcher does not match the tool is not waited for", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(
        Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Edit" }, () => Effect.succeed(denied))),
        false
      )
      assert.strictEqual(answer.response?.behavior, "allow")
    }))

  it.effect("a hook the CLI never calls is waited for within its deadline, then the handler decides", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(
        Hooks.layer(Hooks.on("PermissionRequest", { timeout: "5 seconds" }, () => Effect.succeed(denied))),
        false,
        Effect.gen(function*() {
          for (let i = 0; i < 100; i++) yield* Effect.yieldNow
          yield* TestClock.adjust("7 seconds")
        })
      )
      assert.strictEqual(answer.response?.behavior, "allow")
    }))

  it.effect("a slow guard with no deadline of the library's (onFailure continue) is waited for as long as the CLI waits (600 s)", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(
        Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash", onFailure: "continue" }, () =>
          Effect.as(Effect.sleep("90 seconds"), { hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm (slow reviewer)" } } }))),
        true,
        Effect.gen(function*() {
          for (let i = 0; i < 100; i++) yield* Effect.yieldNow
          yield* TestClock.adjust("95 seconds")
        })
      )
      assert.deepStrictEqual([answer.response?.behavior, answer.response?.message], ["deny", "no rm (slow reviewer)"])
    }))

  it.effect("with two guards, the deny of either is the answer, whichever answers first", () =>
    Effect.gen(function*() {
      const answer = yield* permissionAnswer(Hooks.layer(
        Hooks.on("PermissionRequest", () => Effect.succeed({})),
        Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.succeed({ hookSpecificOutput: { decision: { behavior: "deny" as const, message: "second says no" } } }))
      ))
      assert.deepStrictEqual([answer.response?.behavior, answer.response?.message], ["deny", "second says no"])
    }))

  it.effect("a Monitor command waits for the Bash guard the CLI calls for it", () =>
    Effect.gen(function*() {
      // CLI 2.1.332 calls a `Bash` hook for a `Monitor` call with a command too (its binary's
      // `yEe`), with `tool_name: "Bash"`: a slow guard's deny was beaten by the handler's allow,
      // and the command ran (`PermissionRequestGuardLive.test.ts`).
      const answer = yield* permissionAnswer(
        Hooks.layer(Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.delay(Effect.succeed(denied), "1 second"))),
        true,
        Effect.gen(function*() {
          for (let i = 0; i < 100; i++) yield* Effect.yieldNow
          yield* TestClock.adjust("2 seconds")
        }),
        {
          request: {
            subtype: "can_use_tool",
            tool_name: "Monitor",
            input: { command: "rm victim.txt", description: "watch", timeout_ms: 10_000 },
            tool_use_id: "toolu_1"
          },
          hookInput: {
            tool_name: "Bash",
            tool_input: { command: "rm victim.txt", description: "watch" },
            tool_use_id: "toolu_1",
            permission_suggestions: []
          }
        }
      )
      assert.deepStrictEqual([answer.response?.behavior, answer.response?.message], ["deny", "never"])
    }))
})
