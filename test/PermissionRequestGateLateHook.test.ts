/**
 * `PermissionRequestGate`: a hook that answers after the `Permissions` handler's wait ended (one
 * hook denied at once) must be counted with the answers before it. The handler's wait dropped
 * the tool call's record, so a later hook's allow started a fresh one, was held for hooks that
 * had answered long before, and went out as "no decision" only at its own deadline (up to 600 s)
 * (found by the read of the day's change). It is answered at once now: the deny, as the call's
 * other hook decided.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import type * as Hooks from "../src/Hooks.ts"
import { PermissionRequestGate } from "../src/internal/permissionRequestGate.ts"

const registration = (timeout: number): Hooks.Registration =>
  ({ event: "PermissionRequest", matcher: "Bash", timeout, handler: () => Effect.succeed({}) }) as unknown as Hooks.Registration

const decision = (behavior: "allow" | "deny") => ({
  hookSpecificOutput: {
    hookEventName: "PermissionRequest",
    decision: behavior === "allow" ? { behavior } : { behavior, message: "no" }
  }
})

describe("PermissionRequestGate: a hook answering after the handler's wait", () => {
  it.effect("its allow is answered at once with the other hook's deny, not held until its deadline", () =>
    Effect.gen(function*() {
      const gate = new PermissionRequestGate([registration(600), registration(600)], (r) =>
        Duration.seconds((r as unknown as { timeout: number }).timeout))
      const input = { hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: { command: "rm x" } }
      const request = { tool_name: "Bash", tool_use_id: "toolu_1", input: { command: "rm x" } }
      const waiting = yield* Effect.forkChild(gate.decidedBeforeHandler(request))
      yield* Effect.yieldNow
      // hook_0 denies at once: the handler's wait ends with it.
      yield* gate.hook("hook_0", "toolu_1", input, Effect.succeed(decision("deny")))
      const handlerAnswer = yield* Fiber.join(waiting)
      assert.include(JSON.stringify(handlerAnswer), "deny")
      // hook_1 allows later: answered at once, with the deny.
      const late = yield* Effect.forkChild(gate.hook("hook_1", "toolu_1", input, Effect.succeed(decision("allow"))))
      yield* TestClock.adjust("1 second")
      const answer = late.pollUnsafe()
      assert.isDefined(answer, "the late allow is held (until its deadline)")
      assert.include(JSON.stringify(answer), "deny")
    }))
})
