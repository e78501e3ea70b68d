/**
 * CLI 2.1.332 asks a `Bash` hook about a `Monitor` command too, with `tool_name: "Bash"` (the
 * handler cannot tell it apart), and there ignores an allow and its `updatedInput`: a guard's
 * rewrite (`Hooks.allowWith`) of such a call was dropped and the original command ran
 * (`test/HookBashRewriteMonitorLive.test.ts` records the CLI's side). The session knows the tool
 * the model called (its `tool_use`, read before the hook's request): a rewrite of a call the hook
 * was asked about under another tool's name is refused, the call denied. The same rewrite of a
 * real `Bash` call goes out as it was.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import type * as HookEvents from "../src/HookEvents.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** A guard that rewrites every Bash command to a harmless one. */
const sanitizing = Hooks.layer(
  Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
    Effect.succeed(Hooks.allowWith({ ...(input.tool_input as Record<string, unknown>), command: "echo sanitized" })))
)

/** The answer the CLI gets to a `Bash` hook call about the model's `tool` call of `rm victim.txt`. */
const answerFor = (tool: string) =>
  Effect.gen(function*() {
    let answer: HookEvents.HookOutput<"PreToolUse"> | undefined
    yield* Effect.gen(function*() {
      const session = yield* Claude.open({})
      yield* session.run("clean up")
    }).pipe(
      Effect.scoped,
      Effect.provide(sanitizing),
      Effect.provide(FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const user = yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(assistantLine(SESSION, "msg_1", [
            { type: "tool_use", id: "toolu_1", name: tool, input: { command: "rm victim.txt" } }
          ], { stopReason: "tool_use" }))
          answer = yield* FakeCli.callHook(cli, "PreToolUse", {
            hook_event_name: "PreToolUse",
            session_id: SESSION,
            transcript_path: "t.jsonl",
            cwd: ".",
            permission_mode: "default",
            tool_name: "Bash",
            tool_input: { command: "rm victim.txt" },
            tool_use_id: "toolu_1"
          })
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "done", userMessageUuid: user.uuid as string })) {
            yield* cli.emit(line)
          }
          yield* Effect.never
        })
      ))
    )
    return answer!
  })

describe("a PreToolUse guard's rewrite of a call it was asked about under another tool's name", () => {
  it.effect("Monitor asked as Bash: the rewrite is refused, the call denied", () =>
    Effect.gen(function*() {
      const answer = yield* answerFor("Monitor")
      const specific = answer.hookSpecificOutput as Record<string, unknown> | undefined
      assert.strictEqual(specific?.permissionDecision, "deny")
      assert.include(String(specific?.permissionDecisionReason), "Monitor")
      assert.isUndefined(specific?.updatedInput)
    }))

  it.effect("a real Bash call: the rewrite goes out as it was", () =>
    Effect.gen(function*() {
      const answer = yield* answerFor("Bash")
      const specific = answer.hookSpecificOutput as Record<string, unknown> | undefined
      assert.strictEqual(specific?.permissionDecision, "allow")
      assert.deepStrictEqual(specific?.updatedInput, { command: "echo sanitized" })
    }))
})
