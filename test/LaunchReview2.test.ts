/**
 * Launch options, found by a reviewing helper (each test failed before its fix): a `systemPrompt`
 * given as a list (the official SDK's form with a cache boundary) passed the checks and reached
 * the CLI as nothing, the CLI's own prompt used instead; and `settings.attribution` with a key set
 * to `undefined` cancelled the library's `""` for it, so the CLI's co-author trailer came back;
 * and a `fallbackModel` equal to `model` (which the official SDK refuses) was taken.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

describe("launch options", () => {
  it.effect("a systemPrompt given as a list is InvalidInput naming it, and nothing is spawned", () =>
    Effect.gen(function*() {
      let spawned = false
      const exit = yield* Effect.scoped(Claude.open({ systemPrompt: ["Be terse.", "Answer in French."] as unknown as string })).pipe(
        Effect.provide(FakeCli.layer((cli) => {
          spawned = true
          return FakeCli.conversation({})(cli)
        })),
        Effect.flip
      )
      assert.strictEqual(exit.reason._tag, "InvalidInput")
      assert.include(exit.message, "systemPrompt must be a string or a preset")
      assert.isFalse(spawned)
    }))

  it("settings.attribution with a key set to undefined keeps the library's \"\" for it", () => {
    const settingsOf = (attribution: Record<string, unknown>) => {
      const { args } = Launch.buildCommand(
        { settings: { attribution: attribution as { commit?: string; pr?: string } } },
        { mcpServers: [], permissionPromptTool: false }
      )
      return JSON.parse(args[args.indexOf("--settings") + 1]!) as { attribution: unknown }
    }
    assert.deepStrictEqual(settingsOf({ commit: undefined, pr: "PR by a bot" }).attribution, { commit: "", pr: "PR by a bot" })
    assert.deepStrictEqual(settingsOf({ commit: "Signed: X" }).attribution, { commit: "Signed: X", pr: "" })
  })
})

describe("launch options: the fallback model", () => {
  it.effect("a fallbackModel equal to model is InvalidInput naming both, as the official SDK refuses it", () =>
    Effect.gen(function*() {
      let spawned = false
      const error = yield* Effect.scoped(Claude.open({ model: "sonnet", fallbackModel: "sonnet" })).pipe(
        Effect.provide(FakeCli.layer((cli) => {
          spawned = true
          return FakeCli.conversation({})(cli)
        })),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, `fallbackModel must differ from model (both are "sonnet")`)
      assert.isFalse(spawned)
      // A different fallback, or a list of them, is taken.
      yield* Launch.validate({ model: "sonnet", fallbackModel: "haiku" })
      yield* Launch.validate({ model: "sonnet", fallbackModel: "haiku,opus" })
    }))
})
