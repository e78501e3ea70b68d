/**
 * An empty `apiKey` (`Redacted.make(process.env.KEY ?? "")`, a `Config.redacted` of a variable set
 * to nothing) became `ANTHROPIC_API_KEY=""`, which the CLI takes as no key: it sent none and used
 * whatever other credential it found (the user's login under `~/.claude`), billing another
 * account than the one the program named, without a word. It is `InvalidInput` before the spawn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Launch from "../src/Launch.ts"

const problemOf = (options: Launch.LaunchOptions) =>
  Effect.map(Effect.exit(Launch.validate(options)), (exit) => {
    if (Exit.isSuccess(exit)) return undefined
    const error = Cause.findErrorOption(exit.cause)
    return Option.isSome(error) ? error.value.reason : undefined
  })

describe("Launch.validate: apiKey", () => {
  it.effect("an empty or blank apiKey is InvalidInput, without its value", () =>
    Effect.gen(function*() {
      for (const key of ["", "   ", "\n"]) {
        const reason = yield* problemOf({ apiKey: Redacted.make(key) })
        assert.strictEqual(reason?._tag, "InvalidInput", JSON.stringify(key))
        if (reason?._tag === "InvalidInput") assert.include(reason.description, "apiKey")
      }
    }))

  it.effect("a Redacted that holds no string is InvalidInput", () =>
    Effect.gen(function*() {
      const reason = yield* problemOf({ apiKey: Redacted.make(42) as unknown as Redacted.Redacted<string> })
      assert.strictEqual(reason?._tag, "InvalidInput")
    }))

  it.effect("a key is taken, and reaches the environment as it is", () =>
    Effect.gen(function*() {
      const apiKey = Redacted.make("sk-ant-key")
      assert.isUndefined(yield* problemOf({ apiKey }))
      assert.strictEqual(Launch.commandEnv({ apiKey }).ANTHROPIC_API_KEY, apiKey)
    }))
})
