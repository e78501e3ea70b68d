/**
 * An answer with an optional key set to `undefined` (`permissionDecisionReason: reason` where
 * `reason` is `undefined`: what TypeScript without `exactOptionalPropertyTypes` allows). JSON
 * leaves such a key out, and the library's own check says so, but the answer's schema refused
 * it: a `PreToolUse` guard's allow went out as a deny, a `UserPromptSubmit` hook's context
 * blocked the user's prompt, a `PostToolUse` hook's context was lost, and an elicitation's
 * accept was sent as cancel. The key is read as absent now, as the CLI would.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Elicitation from "../src/Elicitation.ts"
import * as Hooks from "../src/Hooks.ts"

const base = { session_id: "s", transcript_path: "t", cwd: "/" }
const bash = { ...base, tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "toolu_1" }
// What a program compiled without `exactOptionalPropertyTypes` may pass.
const none = undefined as unknown as string

describe("an answer's key set to undefined is read as absent", () => {
  it.effect("hooks: a guard's allow stays an allow, a prompt's context does not block it, a context is kept", () =>
    Effect.gen(function*() {
      const bound = Hooks.bind(
        yield* Hooks.register(
          Hooks.on("PreToolUse", () =>
            Effect.succeed({
              hookSpecificOutput: { permissionDecision: "allow" as const, permissionDecisionReason: none, updatedInput: { command: "ls -l" } }
            })),
          Hooks.on("UserPromptSubmit", () =>
            Effect.succeed({ hookSpecificOutput: { additionalContext: "ctx", sessionTitle: none } })),
          Hooks.on("PostToolUse", () =>
            Effect.succeed({ systemMessage: none, ...Hooks.addContext("PostToolUse", "ctx") }))
        )
      )
      assert.deepStrictEqual(yield* bound.dispatch("hook_0", { ...bash, hook_event_name: "PreToolUse" }, "toolu_1"), {
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls -l" } }
      })
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_1", { ...base, hook_event_name: "UserPromptSubmit", prompt: "hi" }, "u"),
        { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx" } }
      )
      assert.deepStrictEqual(
        yield* bound.dispatch("hook_2", { ...bash, hook_event_name: "PostToolUse", tool_response: {} }, "toolu_1"),
        { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "ctx" } }
      )
    }).pipe(Effect.provide(Logger.layer([]))))

  it.effect("elicitation: an accept without content (a url elicitation) stays an accept", () =>
    Effect.gen(function*() {
      const service = yield* Elicitation.fromHandler(() =>
        Effect.succeed({ action: "accept", content: undefined as unknown as Record<string, string> })
      )
      const answer = yield* Elicitation.bind(service).respond({
        subtype: "elicitation",
        mcp_server_name: "auth",
        message: "Sign in",
        mode: "url",
        url: "https://example.com/sign-in"
      })
      assert.deepStrictEqual(answer, { action: "accept" })
    }).pipe(Effect.provide(Logger.layer([]))))
})
