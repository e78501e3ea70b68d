/**
 * A `PermissionRequest` hook's allow whose `updatedPermissions` switch the mode (`setMode`, as
 * the CLI suggests them) is an answer to the CLI like a `can_use_tool` answer: a switch to
 * `bypassPermissions` in a session with a `Permissions` layer went out in the hook's answer and,
 * as the hooks' decision, in the `can_use_tool` answer too, past the session's refusal of that
 * switch (`modeGuard.ts`). Such a decision is now a deny, in both answers; a setMode to a mode
 * that asks still goes out.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const suggestions = (mode: string) => [{ type: "setMode", mode, destination: "session" }]

/** Allows with the CLI's suggestions, as they come. */
const takesSuggestions = Hooks.layer(
  Hooks.on("PermissionRequest", (input) =>
    Effect.succeed({
      hookSpecificOutput: {
        decision: {
          behavior: "allow" as const,
          updatedPermissions: (input as { readonly permission_suggestions?: ReadonlyArray<Permissions.PermissionUpdate> })
            .permission_suggestions ?? []
        }
      }
    }))
)

type Decision = { readonly behavior?: string; readonly message?: string; readonly updatedPermissions?: unknown }

/** The hook's decision and the `can_use_tool` answer, the CLI asking both at once. */
const answersTo = (mode: string) =>
  Effect.gen(function*() {
    let hook: Decision | undefined
    let permission: Decision | undefined
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const asked = yield* Effect.forkChild(cli.request({
          subtype: "can_use_tool",
          tool_name: "ExitPlanMode",
          input: { plan: "do it" },
          tool_use_id: "toolu_1",
          permission_suggestions: suggestions(mode)
        }))
        const output = yield* FakeCli.callHook(cli, "PermissionRequest", {
          tool_name: "ExitPlanMode",
          tool_input: { plan: "do it" },
          tool_use_id: "toolu_1",
          permission_suggestions: suggestions(mode)
        })
        hook = (output as { readonly hookSpecificOutput?: { readonly decision?: Decision } }).hookSpecificOutput?.decision
        permission = ((yield* Fiber.join(asked)) as { readonly response?: Decision }).response
        return yield* Effect.never
      })
    )
    yield* Effect.gen(function*() {
      yield* Claude.open({})
      while (permission === undefined) yield* Effect.sleep("10 millis")
    }).pipe(
      Effect.scoped,
      Effect.provide([cli, takesSuggestions, Permissions.layer(() => Effect.succeed(Permissions.allow()))]),
      Effect.provide(Logger.layer([]))
    )
    return { hook, permission }
  })

describe("a PermissionRequest hook's allow that switches the mode", () => {
  it.live("to bypassPermissions, in a session with a Permissions layer, is a deny in both answers", () =>
    Effect.gen(function*() {
      const { hook, permission } = yield* answersTo("bypassPermissions")
      assert.strictEqual(hook?.behavior, "deny", JSON.stringify(hook))
      assert.include(hook?.message ?? "", "bypassPermissions")
      assert.strictEqual(permission?.behavior, "deny", JSON.stringify(permission))
    }))

  it.live("to a mode that asks goes out in both", () =>
    Effect.gen(function*() {
      const { hook, permission } = yield* answersTo("acceptEdits")
      assert.strictEqual(hook?.behavior, "allow", JSON.stringify(hook))
      assert.deepStrictEqual(hook?.updatedPermissions, suggestions("acceptEdits"))
      assert.strictEqual(permission?.behavior, "allow", JSON.stringify(permission))
      assert.deepStrictEqual(permission?.updatedPermissions, suggestions("acceptEdits"))
    }))

  // The gate holds a hook's allow by its tool use id; one that names none was not held, nor checked.
  it.live("a hook call that names no tool use: its allow to bypassPermissions is a deny too", () =>
    Effect.gen(function*() {
      let hook: Decision | undefined
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const initialize = yield* FakeCli.answerInitialize(cli)
          const registered = ((initialize.request as { readonly hooks: Record<string, ReadonlyArray<{ readonly hookCallbackIds: ReadonlyArray<string> }>> })
            .hooks.PermissionRequest)![0]!.hookCallbackIds[0]!
          const answer = yield* cli.request({
            subtype: "hook_callback",
            callback_id: registered,
            input: {
              hook_event_name: "PermissionRequest",
              session_id: "s",
              transcript_path: "t.jsonl",
              cwd: ".",
              tool_name: "ExitPlanMode",
              tool_input: { plan: "do it" },
              permission_suggestions: suggestions("bypassPermissions")
            }
          })
          hook = ((answer as { readonly response?: Record<string, unknown> }).response?.hookSpecificOutput as
            | { readonly decision?: Decision }
            | undefined)?.decision
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        yield* Claude.open({})
        while (hook === undefined) yield* Effect.sleep("10 millis")
      }).pipe(
        Effect.scoped,
        Effect.provide([cli, takesSuggestions, Permissions.layer(() => Effect.succeed(Permissions.allow()))]),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(hook?.behavior, "deny", JSON.stringify(hook))
    }))
})
