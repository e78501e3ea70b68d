/** A failed exit's reason, and the warnings an effect logged (tests of both tiers). */
import { assert } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import type * as ClaudeError from "../../src/ClaudeError.ts"

export const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

/** The message of the `InvalidInput` that `effect` fails with (asserted so). */
export const invalidMessage = <A, R>(effect: Effect.Effect<A, ClaudeError.ClaudeError, R>): Effect.Effect<string, A, R> =>
  effect.pipe(
    Effect.flip,
    Effect.map((error) => {
      assert.strictEqual(error.reason._tag, "InvalidInput")
      return error.message
    })
  )

/** The ClaudeError reason's tag and description of a failed exit, else "success". */
export const outcomeOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error as
    | { readonly reason?: { readonly _tag: string; readonly description?: string } }
    | undefined
  return error?.reason === undefined
    ? Cause.pretty(exit.cause).split("\n")[0]!
    : `${error.reason._tag}: ${error.reason.description?.split("\n")[0]}`
}

/** Runs `effect` and returns its exit and the warnings it logged. */
export const withWarnings = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make((options) => {
      if (options.logLevel === "Warn") {
        warnings.push(Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message))
      }
    })
    const exit = yield* Effect.exit(effect.pipe(Effect.provide(Logger.layer([logger]))))
    return { exit, warnings }
  })
