/**
 * Names the CLI cannot use, found by a reviewing helper on CLI 2.1.332 (each test failed before):
 *
 * - `skills` names the official SDK refuses before the spawn (its skill-name check, in
 *   `core.mjs`): on the real CLI, `"*"`, `" alpha"`, `"/alpha"` or `"alpha:*"` in
 *   `initialize.skills` hid every skill from the model, without a word.
 * - `permissionPromptToolName` that names no MCP tool (`"Read"`): the session opened, then the CLI
 *   exited with code 1 at the first permission prompt ("MCP tool Read (passed via
 *   --permission-prompt-tool) not found"), mid-turn; `"stdio"` without a `Permissions` layer: every
 *   prompt answered "Unsupported control request subtype", so every tool that asks was denied.
 *
 * Each is `InvalidInput` at open now, naming the value and why, and nothing is spawned.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

/** Opens a session with `options`: the `InvalidInput` message, or undefined when it opened; and whether a CLI was spawned. */
const openWith = (options: Claude.SessionOptions) =>
  Effect.gen(function*() {
    let spawned = false
    const exit = yield* Effect.exit(Effect.scoped(Claude.open(options)).pipe(
      Effect.provide(FakeCli.layer((cli) => {
        spawned = true
        return FakeCli.conversation({})(cli)
      }))
    ))
    if (exit._tag === "Success") return { message: undefined, spawned }
    const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    const failure = (error as { readonly error: ClaudeError.ClaudeError } | undefined)?.error
    assert.strictEqual(failure?.reason._tag, "InvalidInput", String(exit.cause))
    return { message: failure!.message, spawned }
  })

describe("skill names the CLI cannot match", () => {
  const refused: ReadonlyArray<readonly [string, string]> = [
    ["*", "skills: \"all\""],
    [" alpha", "whitespace"],
    ["alpha ", "whitespace"],
    ["/alpha", "'/'"],
    ["alpha:*", "wildcard"],
    ["plugin__*", "wildcard"],
    ["al pha *", "wildcard"],
    ["al(pha)", "parentheses"],
    ["a,b", "commas"],
    ["tab\there", "control characters"],
    ["back\\\\slash", "backslashes"],
    ["trailing\\", "backslash"],
    ["lone\uD800surrogate", "surrogate"]
  ]
  for (const [name, says] of refused) {
    it.effect(`${JSON.stringify(name)}: InvalidInput naming it (${says}), nothing spawned`, () =>
      Effect.gen(function*() {
        const { message, spawned } = yield* openWith({ skills: ["pdf", name] })
        assert.isDefined(message, "the session opened")
        assert.include(message!, JSON.stringify(name))
        assert.include(message!, says)
        assert.isFalse(spawned)
      }))
  }

  it.effect("names the CLI matches open: a skill, a plugin's skill, one with a dash, a dot or one backslash", () =>
    Effect.gen(function*() {
      const { message } = yield* openWith({ skills: ["pdf", "my-plugin:review", "data.v2", "odd\\name", "ünïcode"] })
      assert.isUndefined(message, message)
    }))
})

describe("permissionPromptToolName the CLI cannot use", () => {
  it.effect("a built-in tool's name: InvalidInput (it must name an MCP tool), nothing spawned", () =>
    Effect.gen(function*() {
      const { message, spawned } = yield* openWith({ permissionPromptToolName: "Read" })
      assert.isDefined(message, "the session opened")
      assert.include(message!, "mcp__")
      assert.isFalse(spawned)
    }))

  it.effect("\"stdio\" without a Permissions layer: InvalidInput naming the layer", () =>
    Effect.gen(function*() {
      const { message, spawned } = yield* openWith({ permissionPromptToolName: "stdio" })
      assert.isDefined(message, "the session opened")
      assert.include(message!, "Permissions")
      assert.isFalse(spawned)
    }))

  it.effect("an MCP tool's name opens; so does any name when CLAUDE_AGENT_SDK_MCP_NO_PREFIX leaves in-process tools unprefixed", () =>
    Effect.gen(function*() {
      assert.isUndefined((yield* openWith({ permissionPromptToolName: "mcp__approver__ask" })).message)
      assert.isUndefined((yield* openWith({ permissionPromptToolName: "ask", env: { CLAUDE_AGENT_SDK_MCP_NO_PREFIX: "1" } })).message)
    }))
})
