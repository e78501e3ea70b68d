/**
 * A `Permissions` handler's allow whose `updatedPermissions` names a rule's `ruleContent` but sets
 * it to `undefined` (`ruleContent: prefixOf(command)` for a command it could not read; TypeScript
 * allows it without `exactOptionalPropertyTypes`). JSON leaves the key out, and a rule without
 * `ruleContent` is a rule for the whole tool: `Bash(rm:*)` became all of Bash, for the session or
 * in a settings file on disk. Refused instead (the call denied), in every handler's answer: a
 * `PermissionRequest` hook's decision carries the same rules. Any other optional key set to
 * `undefined` is read as absent, as JSON writes it (a deny's own message was lost to its refusal).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

/** The decision the CLI gets for a Bash call when the handler answers `answer`. */
const decided = (answer: Permissions.PermissionResult) =>
  Effect.gen(function*() {
    const result = yield* Deferred.make<Permissions.PermissionResult>()
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* Deferred.succeed(result, yield* FakeCli.askPermission(cli, "Bash", { command: "rm -rf build" }))
        return yield* Effect.never
      })
    )
    return yield* Effect.gen(function*() {
      yield* Claude.open()
      return yield* Deferred.await(result)
    }).pipe(
      Effect.scoped,
      Effect.provide([cli, Permissions.layer(() => Effect.succeed(answer))]),
      Effect.provide(Logger.layer([]))
    )
  })

const ruleUpdate = (rule: Record<string, unknown>, behavior = "allow") => ({
  type: "addRules",
  rules: [rule],
  behavior,
  destination: "session"
})

describe("Permissions: a rule whose ruleContent is undefined", () => {
  it.effect("an allow adding Bash with ruleContent: undefined is refused, not a rule for all of Bash", () =>
    Effect.gen(function*() {
      const answer = {
        behavior: "allow",
        updatedPermissions: [ruleUpdate({ toolName: "Bash", ruleContent: undefined })]
      } as unknown as Permissions.PermissionResult
      const result = yield* decided(answer)
      assert.strictEqual(result.behavior, "deny", JSON.stringify(result))
      assert.include((result as { message: string }).message, "ruleContent")
    }))

  it.effect("a rule for the whole tool, asked for without the key, is still sent", () =>
    Effect.gen(function*() {
      const result = yield* decided(Permissions.allow({
        updatedPermissions: [ruleUpdate({ toolName: "Bash" }) as Permissions.PermissionUpdate]
      }))
      assert.strictEqual(result.behavior, "allow", JSON.stringify(result))
      assert.deepStrictEqual((result as Permissions.PermissionAllow).updatedPermissions?.[0], {
        type: "addRules",
        rules: [{ toolName: "Bash" }],
        behavior: "allow",
        destination: "session"
      })
    }))

  it.effect("a rule with its ruleContent is sent as given", () =>
    Effect.gen(function*() {
      const result = yield* decided(Permissions.allow({
        updatedPermissions: [ruleUpdate({ toolName: "Bash", ruleContent: "rm:*" }) as Permissions.PermissionUpdate]
      }))
      assert.strictEqual(result.behavior, "allow", JSON.stringify(result))
      assert.deepStrictEqual((result as Permissions.PermissionAllow).updatedPermissions?.[0], {
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "rm:*" }],
        behavior: "allow",
        destination: "session"
      })
    }))

  it.effect("a PermissionRequest hook's allow adding Bash with ruleContent: undefined is its guard's deny", () =>
    Effect.gen(function*() {
      const answered = yield* Deferred.make<unknown>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const answer = yield* FakeCli.callHook(cli, "PermissionRequest", {
            tool_name: "Bash",
            tool_input: { command: "rm -rf build" },
            tool_use_id: "toolu_1",
            permission_suggestions: []
          })
          yield* Deferred.succeed(answered, answer)
          return yield* Effect.never
        })
      )
      const hook = Hooks.layer(Hooks.on("PermissionRequest", () =>
        Effect.succeed({
          hookSpecificOutput: {
            decision: { behavior: "allow", updatedPermissions: [ruleUpdate({ toolName: "Bash", ruleContent: undefined })] }
          }
        } as never)))
      const answer = yield* Effect.gen(function*() {
        yield* Claude.open()
        return yield* Deferred.await(answered)
      }).pipe(Effect.scoped, Effect.provide([cli, hook]), Effect.provide(Logger.layer([])))
      const decision = (answer as { hookSpecificOutput?: { decision?: { behavior?: string; updatedPermissions?: unknown } } })
        .hookSpecificOutput?.decision
      assert.strictEqual(decision?.behavior, "deny", JSON.stringify(answer))
      assert.isUndefined(decision?.updatedPermissions)
    }))
})

describe("Permissions: an answer with an optional key set to undefined", () => {
  it.effect("an allow with updatedInput: undefined allows, with the call's own input", () =>
    Effect.gen(function*() {
      const answer = { behavior: "allow", updatedInput: undefined } as unknown as Permissions.PermissionResult
      const result = yield* decided(answer)
      assert.strictEqual(result.behavior, "allow", JSON.stringify(result))
    }))

  it.effect("a deny with interrupt: undefined denies with its own message", () =>
    Effect.gen(function*() {
      const answer = { behavior: "deny", message: "not now", interrupt: undefined } as unknown as Permissions.PermissionResult
      const result = yield* decided(answer)
      assert.deepStrictEqual({ behavior: result.behavior, message: (result as { message?: string }).message }, {
        behavior: "deny",
        message: "not now"
      })
    }))
})
