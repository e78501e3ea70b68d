/**
 * `applyFlagSettings({ effortLevel })` with a value that is no effort level ("minimal", "hi"):
 * CLI 2.1.332 acknowledges it and drops it (its `get_settings` shows no `effortLevel`, the next
 * request keeps the earlier effort), so the program believed the effort changed (shown on the
 * real CLI by a reviewing helper; `updateSettings` with such a value is refused by the CLI,
 * `invalid_effort_level`). It is `InvalidInput` now, nothing sent, as the launch option `effort`;
 * a level, `null` (clears it) and `undefined` (not written: no change) are sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { answering } from "./support/answeringCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): string =>
  Exit.isSuccess(exit)
    ? "success"
    : Option.match(Cause.findErrorOption(exit.cause), {
      onNone: () => assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`),
      onSome: (error) => error.reason._tag
    })

describe("applyFlagSettings: effortLevel", () => {
  it.effect("a value that is no effort level is InvalidInput, nothing sent; a level, null and undefined are sent", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const reasons = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const reasons: Array<string> = []
        for (const effortLevel of ["minimal", "hi", 3, "", "max", "low", null, undefined]) {
          reasons.push(reasonOf(yield* Effect.exit(session.applyFlagSettings({ effortLevel, model: "haiku" }))))
        }
        return reasons
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      assert.deepStrictEqual(reasons, [
        "InvalidInput",
        "InvalidInput",
        "InvalidInput",
        "InvalidInput",
        "success",
        "success",
        "success",
        "success"
      ])
      assert.deepStrictEqual(
        received.map((r) => (r.settings as Record<string, unknown>).effortLevel),
        ["max", "low", null, undefined]
      )
    }))
})
