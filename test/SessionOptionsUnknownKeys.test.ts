/**
 * A session option the library does not know (a misspelling from JavaScript or a config file:
 * `disalowedTools`, or the SDK's spelling `additionalDirectories` for `addDirs`) was ignored
 * without a word, so a restriction the program meant did not hold: the tools it meant to deny ran.
 * It is `InvalidInput` now, naming the key (and the option it is near), before anything starts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { invalidMessage } from "./support/outcomes.ts"

const launched: Array<ReadonlyArray<string>> = []
const cli = FakeCli.layer((cli) => {
  launched.push(cli.spec.args)
  return FakeCli.conversation({})(cli)
})

const openWith = (options: Record<string, unknown>) =>
  Effect.scoped(Claude.open(options as Claude.SessionOptions)).pipe(Effect.provide(cli))

describe("unknown session options", () => {
  it.effect("a misspelt restriction is InvalidInput naming it and the option meant; no CLI starts", () =>
    Effect.gen(function*() {
      launched.length = 0
      const message = yield* invalidMessage(openWith({ disalowedTools: ["Bash"] }))
      assert.include(message, "\"disalowedTools\"")
      assert.include(message, "disallowedTools")
      assert.lengthOf(launched, 0)
    }))

  it.effect("the SDK's name for an option of another name is refused too", () =>
    Effect.gen(function*() {
      const message = yield* invalidMessage(openWith({ additionalDirectories: ["/srv/data"] }))
      assert.include(message, "\"additionalDirectories\"")
      assert.include(message, "here it is addDirs")
    }))

  it.effect("every known option, even undefined, is taken", () =>
    Effect.gen(function*() {
      yield* openWith({ disallowedTools: ["Bash"], addDirs: undefined, maxLineBytes: 1024 * 1024, transcript: undefined })
    }))
})
