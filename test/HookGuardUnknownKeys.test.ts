/**
 * A guard's answer with a key its event's answer does not have: the library's schema dropped the
 * key and wrote the rest, so a `PreToolUse` guard answering `{ permissionDecision: "deny" }` (the
 * decision outside `hookSpecificOutput`), or PermissionRequest's `decision` on PreToolUse, went
 * out as `{}` or a bare `hookEventName`, which CLI 2.1.332 reads as no opinion: the tool ran.
 * A guard's answer is read with its unknown keys refused now: an invalid answer, so the guard's
 * refusal. Other events keep the rest of their answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Hooks from "../src/Hooks.ts"

const input = {
  session_id: "s",
  transcript_path: "t",
  cwd: "/",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf build" },
  tool_use_id: "toolu_1"
}

const isDeny = (answer: Record<string, unknown>): boolean =>
  (answer.hookSpecificOutput as { permissionDecision?: unknown } | undefined)?.permissionDecision === "deny"

describe("a guard's answer with a key its event does not have", () => {
  it.effect("PreToolUse: a decision outside hookSpecificOutput, or another event's, is refused, not sent as no opinion", () =>
    Effect.gen(function*() {
      const answers: ReadonlyArray<unknown> = [
        { permissionDecision: "deny", permissionDecisionReason: "no rm" },
        { hookSpecificOutput: { decision: { behavior: "deny", message: "no rm" } } },
        { hookSpecificOutput: { permissionDecision: "allow", permisionDecisionReason: "typo" } }
      ]
      const bound = Hooks.bind(
        yield* Hooks.register(...answers.map((answer) => Hooks.on("PreToolUse", () => Effect.succeed(answer as Hooks.HookOutput))))
      )
      for (const [i] of answers.entries()) {
        const answer = yield* bound.dispatch(`hook_${i}`, input, "toolu_1")
        assert.isTrue(isDeny(answer), `answer ${i}: ${JSON.stringify(answer)}`)
        assert.include(JSON.stringify(answer), "invalid answer")
      }
    }).pipe(Effect.provide(Logger.layer([]))))

  it.effect("a guard's answer of known keys is sent as it is; another event's unknown key is dropped, the rest kept", () =>
    Effect.gen(function*() {
      const bound = Hooks.bind(
        yield* Hooks.register(
          Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allowWith({ command: "rm -rf build/tmp" }, "narrowed"))),
          Hooks.on("PostToolUse", () =>
            Effect.succeed({ ...Hooks.addContext("PostToolUse", "ctx"), extra: 1 } as Hooks.HookOutput<"PostToolUse">))
        )
      )
      assert.deepStrictEqual(yield* bound.dispatch("hook_0", input, "toolu_1"), {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: "narrowed",
          updatedInput: { command: "rm -rf build/tmp" }
        }
      })
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_1", { ...input, hook_event_name: "PostToolUse", tool_response: {} }, "toolu_1"),
        { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ctx" } }
      )
    }).pipe(Effect.provide(Logger.layer([]))))
})
