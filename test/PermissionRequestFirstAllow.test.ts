/**
 * CLI 2.1.332 calls a tool call's `PermissionRequest` hooks at once and takes the first decision:
 * one hook's quick allow beat a slower guard's deny, and `rm` ran, with or without a
 * `Permissions` handler, even one that denied (`PermissionRequestFirstAllowLive.test.ts`). An
 * allow is now held until the other hooks of the call have answered: a deny of any is its answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

/** A `PermissionRequest` hook call as CLI 2.1.332 sends it: the tool call's id beside the input, not in it. */
const hookCall = (callbackId: string) => ({
  subtype: "hook_callback",
  callback_id: callbackId,
  tool_use_id: "toolu_1",
  input: {
    session_id: "00000000-0000-4000-8000-000000000000",
    transcript_path: "fake-transcript.jsonl",
    cwd: ".",
    hook_event_name: "PermissionRequest",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command: "rm victim.txt" },
    permission_suggestions: []
  }
})

const allows = Hooks.on("PermissionRequest", { matcher: "Bash" }, () =>
  Effect.succeed({ hookSpecificOutput: { decision: { behavior: "allow" as const } } }))

/** The answers of the session's PermissionRequest hooks, called at once as the CLI calls them. */
const hookAnswers = (hooks: Layer.Layer<Hooks.Hooks, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    const answers = yield* Deferred.make<void>()
    let result: ReadonlyArray<unknown> = []
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const initialize = cli.received.find((m) => m.type === "control_request") as {
          request: { hooks?: Record<string, ReadonlyArray<{ hookCallbackIds: ReadonlyArray<string> }>> }
        }
        const ids = (initialize.request.hooks?.PermissionRequest ?? []).flatMap((matcher) => matcher.hookCallbackIds)
        result = yield* Effect.forEach(ids, (callbackId) =>
          Effect.map(cli.request(hookCall(callbackId)), (answer) => (answer as { readonly response?: unknown }).response), {
          concurrency: "unbounded"
        })
        yield* Deferred.succeed(answers, undefined)
        return yield* Effect.never
      })
    )
    yield* Effect.gen(function*() {
      yield* Claude.open()
      yield* Deferred.await(answers)
    }).pipe(Effect.scoped, Effect.provide([cli, hooks]), Effect.provide(Logger.layer([])))
    return result as ReadonlyArray<{ readonly hookSpecificOutput?: { readonly decision?: { readonly behavior?: string; readonly message?: string } } }>
  })

describe("a PermissionRequest hook's allow beside a slower guard", () => {
  it.live("the guard's deny is the allowing hook's answer too", () =>
    Effect.gen(function*() {
      const [first, second] = yield* hookAnswers(Hooks.layer(
        allows,
        Hooks.on("PermissionRequest", { matcher: "Bash" }, () =>
          Effect.succeed({ hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }).pipe(
            Effect.delay("200 millis")
          ))
      ))
      assert.deepStrictEqual(second?.hookSpecificOutput?.decision, { behavior: "deny", message: "no rm" })
      assert.deepStrictEqual(first?.hookSpecificOutput?.decision, { behavior: "deny", message: "no rm" })
    }))

  it.live("a failing guard's refusal is the allowing hook's answer too", () =>
    Effect.gen(function*() {
      const [first] = yield* hookAnswers(Hooks.layer(
        allows,
        Hooks.on("PermissionRequest", () => Effect.die(new Error("guard crashed")).pipe(Effect.delay("200 millis")))
      ))
      assert.strictEqual(first?.hookSpecificOutput?.decision?.behavior, "deny")
      assert.include(first?.hookSpecificOutput?.decision?.message ?? "", "guard crashed")
    }))

  it.live("with no deny, the allow goes out once the others answered", () =>
    Effect.gen(function*() {
      const [first, second] = yield* hookAnswers(Hooks.layer(
        allows,
        Hooks.on("PermissionRequest", { matcher: "Bash" }, () => Effect.succeed({}).pipe(Effect.delay("200 millis")))
      ))
      assert.deepStrictEqual(first?.hookSpecificOutput?.decision, { behavior: "allow" })
      assert.deepStrictEqual(second, {})
    }))

  it.live("an allow whose guard is still out at the allowing hook's deadline makes no decision", () =>
    Effect.gen(function*() {
      const [first] = yield* hookAnswers(Hooks.layer(
        Hooks.on("PermissionRequest", { matcher: "Bash", timeout: "300 millis" }, () =>
          Effect.succeed({ hookSpecificOutput: { decision: { behavior: "allow" as const } } })),
        Hooks.on("PermissionRequest", { matcher: "Bash", timeout: "2 seconds" }, () =>
          Effect.succeed({ hookSpecificOutput: { decision: { behavior: "deny" as const, message: "no rm" } } }).pipe(
            Effect.delay("1 second")
          ))
      ))
      assert.isUndefined(first?.hookSpecificOutput?.decision)
    }))
})
