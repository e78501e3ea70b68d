/**
 * A `Permissions` answer may carry `toolUseID` (the official SDK's `PermissionResult` has it, and
 * sets it to the request's own). CLI 2.1.332 reads it on an answer whose request it no longer
 * waits for (an "orphaned" answer): it runs the unresolved tool call of that id with the answer.
 * The library sent a handler's `toolUseID` naming another call as given, so an answer meant for
 * one call could be taken for another. An answer whose `toolUseID` is not the request's is now
 * refused (the call denied, reported as an `invalid_answer`); the request's own goes out.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import * as Permissions from "../src/Permissions.ts"

const request = { subtype: "can_use_tool", tool_name: "Bash", input: { command: "rm -rf build" }, tool_use_id: "toolu_1" }

const decide = (answer: Permissions.PermissionResult) =>
  Effect.gen(function*() {
    const reports: Array<HandlerFailure.HandlerFailed> = []
    const service = yield* Permissions.fromHandler(() => Effect.succeed(answer))
    const wire = yield* Permissions.bind(service, (event) => void reports.push(event)).decide(request)
    return { wire, reports }
  }).pipe(Effect.provide(Logger.layer([])))

describe("a Permissions answer's toolUseID", () => {
  it.effect("naming another tool call is refused: the call denied, reported", () =>
    Effect.gen(function*() {
      const { reports, wire } = yield* decide({ behavior: "allow", toolUseID: "toolu_2" })
      assert.strictEqual(wire.behavior, "deny", JSON.stringify(wire))
      assert.isUndefined(wire.toolUseID)
      assert.strictEqual(reports[0]?.failure, "invalid_answer")
    }))

  it.effect("naming another tool call in a deny is refused too (the deny's own text replaced)", () =>
    Effect.gen(function*() {
      const { wire } = yield* decide({ behavior: "deny", message: "no", toolUseID: "toolu_2" })
      assert.strictEqual(wire.behavior, "deny")
      assert.isUndefined(wire.toolUseID)
    }))

  it.effect("the request's own goes out", () =>
    Effect.gen(function*() {
      const { wire } = yield* decide({ behavior: "allow", toolUseID: "toolu_1" })
      assert.strictEqual(wire.behavior, "allow")
      assert.strictEqual(wire.toolUseID, "toolu_1")
    }))
})
