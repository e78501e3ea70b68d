/**
 * A matcher the CLI reads as exact tool names can name no tool though it looks as if it meant
 * some: `"mcp__byre"` (meant for every tool of server `byre`, which are `mcp__byre__<tool>`)
 * guarded nothing, silently, on the real CLI (found by a reviewing helper). Such a matcher is
 * now `InvalidInput` when the hooks' layer is built, naming the regular expression that does it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Hooks from "../src/Hooks.ts"

const built = (matcher: string) =>
  Effect.exit(Effect.scoped(Layer.build(Hooks.layer(Hooks.on("PreToolUse", { matcher }, () => Effect.succeed(Hooks.deny("no")))))))

describe("hook matchers", () => {
  it.effect("a matcher naming an MCP server alone is refused, saying how to match its tools", () =>
    Effect.gen(function*() {
      for (const matcher of ["mcp__byre", "Bash|mcp__byre", "mcp__byre_tools"]) {
        const exit = yield* built(matcher)
        assert.isTrue(Exit.isFailure(exit), matcher)
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
        const message = error?._tag === "Fail" ? String((error.error as { message?: unknown }).message) : ""
        assert.include(message, `which is no tool`, matcher)
        assert.include(message, `__.*"`, matcher)
      }
    }))

  it.effect("matchers that name tools, or are regular expressions, build", () =>
    Effect.gen(function*() {
      for (const matcher of ["Bash", "Bash|Edit", "mcp__byre__echo", "mcp__byre__.*", "^mcp__byre__", "mcp__byre__echo|Bash", "*"]) {
        assert.isTrue(Exit.isSuccess(yield* built(matcher)), matcher)
      }
    }))
})
