/**
 * A `hook_callback` whose callback id the library cannot read may be any guard's: with a guard
 * registered, the library answers it with `Hooks.refusalOfAnyEvent` (`UnreadableGuardRequests.test.ts`),
 * not with the error answer CLI 2.1.332 reads as "no opinion" (the tool ran). These show that
 * answer refuses on the real CLI for each guard event it can be asked for here: the tool does not
 * run, the prompt is not sent to the model, and the turn stops.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

/**
 * The model calls `mcp__byre__delete` once; the `event` hook answers every call with the refusal,
 * and a `Permissions` handler allows every tool the CLI asks about (as a program's would).
 */
const refusedBy = (event: "PreToolUse" | "PermissionRequest" | "UserPromptSubmit") =>
  Effect.gen(function*() {
    let deleted = 0
    let asked = 0
    const remove = McpServers.tool({
      name: "delete",
      description: "Delete the given item.",
      input: Schema.Struct({ item: Schema.String }),
      handler: () => Effect.sync(() => `deleted ${++deleted}`)
    })
    const { model, options } = yield* live(
      [FakeModel.toolUse("mcp__byre__delete", { item: "all" }), FakeModel.text("deleted it all")],
      { permissionMode: "default" }
    )
    const session = yield* Claude.open(options).pipe(
      Effect.provide(McpServers.layer(McpServers.server("byre", { alwaysLoad: true, tools: [remove] }))),
      Effect.provide(Permissions.layer(() => Effect.succeed(Permissions.allow()))),
      // The refusal as the handler's answer: what the library writes for an unreadable request.
      Effect.provide(Hooks.layer(Hooks.on(event, () =>
        Effect.sync(() => {
          asked++
          return Hooks.refusalOfAnyEvent("unreadable")
        }))))
    )
    const result = yield* session.run("delete everything")
    const requests = (yield* model.messageRequests).length
    return { asked, deleted, requests, answer: result.result }
  }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([])))

describe("the refusal of a guard whose event is unknown (real CLI)", { timeout: 60_000 }, () => {
  it.live("PreToolUse: the tool does not run and the turn stops (the model is not asked again)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* refusedBy("PreToolUse"), { asked: 1, deleted: 0, requests: 1, answer: "" })
    }))

  it.live("PermissionRequest: the tool does not run (the handler that allows is not even asked)", () =>
    Effect.gen(function*() {
      const outcome = yield* refusedBy("PermissionRequest")
      assert.deepStrictEqual({ asked: outcome.asked, deleted: outcome.deleted }, { asked: 1, deleted: 0 })
    }))

  it.live("UserPromptSubmit: the prompt never reaches the model", () =>
    Effect.gen(function*() {
      const outcome = yield* refusedBy("UserPromptSubmit")
      assert.deepStrictEqual({ asked: outcome.asked, deleted: outcome.deleted, requests: outcome.requests }, {
        asked: 1,
        deleted: 0,
        requests: 0
      })
    }))
})
