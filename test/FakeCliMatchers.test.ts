/**
 * `FakeCli.callHook` picks the callback whose matcher matches the tool as CLI 2.1.332 reads it
 * (its binary): names separated by `|` or `,` compared exactly, a former name naming its tool
 * (`Task` naming `Agent`, as `HookEvents.MatchedTools` says); any other matcher an unanchored
 * regular expression, tried on the tool's former names too. Before, it anchored every matcher as
 * a regular expression, so a test on the fake saw neither (found by an audit); then it knew
 * `Task` alone of the former names, and tried a regular expression on the current name only
 * (found by a second review).
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

  it.effect("every former tool name the CLI knows names its tool (KillShell, Brief, …), not Task alone", () =>
    Effect.gen(function*() {
      const found = yield* Effect.forEach(
        [["KillShell", "TaskStop"], ["KillBash", "TaskStop"], ["Brief", "SendUserMessage"], ["ListMcpResources", "ListMcpResourcesTool"]] as const,
        ([matcher, toolName]) => fires(matcher, toolName)
      )
      assert.deepStrictEqual(found.map((f) => f.seen), [["TaskStop"], ["TaskStop"], ["SendUserMessage"], ["ListMcpResourcesTool"]])
    }))

  it.effect("a regular expression is tried on the tool's former names too, as the CLI does (`^Task$` fires for Agent)", () =>
    Effect.gen(function*() {
      const { seen, failure } = yield* fires("^Task$", "Agent")
      assert.deepStrictEqual({ seen, failure }, { seen: ["Agent"], failure: undefined })
      // And not for a tool none of whose names it matches.
      const other = yield* fires("^Task$", "Bash")
      assert.deepStrictEqual(other.seen, [])
    }))
})
