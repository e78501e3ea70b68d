/**
 * A turn's `verbatim` that is no boolean (from JavaScript, a config read as text: `"true"`) was
 * taken as not verbatim: the turn went without `client_composed`, so the CLI read its `@path`
 * mentions and ran its slash command, which the program meant to prevent, with no word (found by
 * a review). It is `InvalidInput` now, nothing written.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Protocol from "../src/Protocol.ts"
import { clientComposedCli } from "./support/clientComposed.ts"

describe("a user turn's verbatim", () => {
  it.effect("\"true\" (no boolean) is InvalidInput, no user line written", () =>
    Effect.gen(function*() {
      const { seen, transport } = clientComposedCli()
      const input = { text: "Summarize @notes.txt", verbatim: "true" } as unknown as Protocol.UserTurnInput
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({})
        return yield* Effect.flip(session.run(input))
      })).pipe(Effect.provide(transport))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.deepStrictEqual(seen, [])
    }))

  it.effect("true and false still go as asked", () =>
    Effect.gen(function*() {
      const { seen, transport } = clientComposedCli()
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ verbatimPrompts: true })
        yield* session.run({ text: "one", verbatim: true })
        yield* session.run({ text: "two", verbatim: false })
        yield* session.run("three")
      })).pipe(Effect.provide(transport))
      assert.deepStrictEqual(seen, [true, undefined, true])
    }))
})
