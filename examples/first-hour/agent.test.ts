// Testing a program offline: FakeCli.replying is a CLI that answers every turn with your text.
import { assert, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../../src/Claude.ts"
import { FakeCli } from "../../src/testing/index.ts"

const shout = (prompt: string) => Claude.query(prompt).pipe(Effect.map((result) => result.result?.toUpperCase()))

it.effect("shouts the answer", () =>
  Effect.gen(function*() {
    const answer = yield* shout("hi").pipe(Effect.provide(FakeCli.replying(() => "hello")))
    assert.strictEqual(answer, "HELLO")
  }))
