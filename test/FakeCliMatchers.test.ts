/**
 * `FakeCli.callHook` picks the callback whose matcher matches the tool as CLI 2.1.332 reads it
 * (its binary: names separated by `|` or `,` compared exactly, with `Task` naming `Agent` as
 * `HookEvents.MatchedTools` says; any other matcher an unanchored regular expression). Before, it
 * anchored every matcher as a regular expression, so a test on the fake saw neither (found by an
 * audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { fromCli } from "./support/fakeCliHost.ts"

const fires = (matcher: string, toolName: string) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const { exit } = yield* fromCli((cli) =>
      FakeCli.callHook(cli, "PreToolUse", { tool_name: toolName, tool_input: {} })
    ).pipe(Effect.provide(Hooks.layer(
      Hooks.on("PreToolUse", { matcher }, (input) =>
        Effect.sync(() => {
          seen.push(input.tool_name)
          return {}
        }))
    )))
    return { seen, failure: Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n")[0] : undefined }
  })

describe("FakeCli.callHook reads a matcher as the CLI does", () => {
  it.effect("a `Task` matcher fires for the `Agent` tool (HookEvents.MatchedTools: Task names both)", () =>
    Effect.gen(function*() {
      const { seen, failure } = yield* fires("Task", "Agent")
      assert.deepStrictEqual({ seen, failure }, { seen: ["Agent"], failure: undefined })
    }))

  it.effect("a regular-expression matcher is unanchored, as the CLI's `new RegExp(matcher).test(name)`", () =>
    Effect.gen(function*() {
      const { seen, failure } = yield* fires("mcp__.*__write", "mcp__fs__write_file")
      assert.deepStrictEqual({ seen, failure }, { seen: ["mcp__fs__write_file"], failure: undefined })
    }))
})
