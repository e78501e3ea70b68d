/**
 * On the real CLI 2.1.332, a matcher written as a glob, as permission rules are
 * (`mcp__*__delete`: "the delete tool of any server"), is a regular expression to the CLI, where
 * `_*` is any number of `_`: it matches no tool of any server, so the guard never ran and the tool
 * did (found by a reviewing helper). Such a matcher is `InvalidInput` when the layer is built now
 * (`HookMatcherGlob.test.ts`); the regular expression it means guards the tool.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

/** How often the guard with `matcher` and the tool `mcp__byre__delete` ran, the model calling it once. */
const runs = (matcher: string) =>
  Effect.gen(function*() {
    let deleted = 0
    let guarded = 0
    const remove = McpServers.tool({
      name: "delete",
      description: "Delete the given item.",
      input: Schema.Struct({ item: Schema.String }),
      handler: () => Effect.sync(() => `deleted ${++deleted}`)
    })
    const { options } = yield* live([FakeModel.toolUse("mcp__byre__delete", { item: "all" }), FakeModel.text("done")])
    const session = yield* Claude.open(options).pipe(
      Effect.provide(McpServers.layer(McpServers.server("byre", { alwaysLoad: true, tools: [remove] }))),
      Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher }, () =>
        Effect.sync(() => {
          guarded++
          return Hooks.deny("no deleting")
        }))))
    )
    yield* session.turn("go").pipe(Stream.runDrain)
    return { deleted, guarded }
  }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([])))

describe("a glob matcher (real CLI)", { timeout: 60_000 }, () => {
  it.live("mcp__*__delete is refused when the layer is built (the CLI would guard nothing with it)", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(runs("mcp__*__delete"))
      // Before: built, and the guard never ran while the tool did ({ deleted: 1, guarded: 0 }).
      assert.isTrue(exit._tag === "Failure", `built: ${JSON.stringify(exit._tag === "Success" ? exit.value : undefined)}`)
    }))

  it.live("the regular expression it means (mcp__.*__delete) guards the tool", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* runs("mcp__.*__delete"), { deleted: 0, guarded: 1 })
    }))
})
