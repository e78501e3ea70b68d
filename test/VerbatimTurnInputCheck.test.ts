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
import * as FakeCli from "../src/testing/FakeCli.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

describe("a user turn's verbatim", () => {
  it.effect("\"true\" (no boolean) is InvalidInput, no user line written", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId,
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            seen.push((message as { readonly client_composed?: unknown }).client_composed)
            for (const line of FakeCli.textTurn({ sessionId, text: "ok" })) yield* cli.emit(line)
          })
      }))
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
      const seen: Array<unknown> = []
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId,
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            seen.push((message as { readonly client_composed?: unknown }).client_composed)
            for (const line of FakeCli.textTurn({ sessionId, text: "ok" })) yield* cli.emit(line)
          })
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ verbatimPrompts: true })
        yield* session.run({ text: "one", verbatim: true })
        yield* session.run({ text: "two", verbatim: false })
        yield* session.run("three")
      })).pipe(Effect.provide(transport))
      assert.deepStrictEqual(seen, [true, undefined, true])
    }))
})
