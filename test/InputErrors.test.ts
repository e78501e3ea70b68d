/**
 * Errors that name the real problem (issue 14, point 5): an empty prompt. An executable that
 * cannot be run, a working directory that cannot be used and a CLI started through an interpreter
 * are in test/InputErrorsLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import { userTurnProblem } from "../src/internal/userTurn.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

describe("an empty prompt", () => {
  it("userTurnProblem refuses empty and whitespace-only text, with images too", () => {
    assert.strictEqual(
      userTurnProblem({ text: "" }),
      "a user turn needs text that is not empty or only whitespace (got an empty string)"
    )
    assert.strictEqual(
      userTurnProblem({ text: " \n\t " }),
      "a user turn needs text that is not empty or only whitespace (got 4 whitespace characters)"
    )
    assert.strictEqual(
      userTurnProblem({ text: "", images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] }),
      "a user turn needs text that is not empty or only whitespace (got an empty string)"
    )
    assert.isUndefined(userTurnProblem({ text: " hi " }))
  })

  it.effect("run, turn and send refuse it with InvalidInput; nothing is written to the CLI", () =>
    Effect.gen(function*() {
      let userLines = 0
      const session = yield* Claude.open().pipe(
        Effect.provide(FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            while (true) {
              const message = yield* cli.next
              if (message.type === "user") userLines++
            }
          })
        ))
      )
      const failures = [
        reasonOf(yield* Effect.exit(session.run(""))),
        reasonOf(yield* Effect.exit(session.run("   "))),
        reasonOf(yield* Effect.exit(session.send("\n"))),
        reasonOf(yield* Effect.exit(session.run({ text: " ", uuid: "6f1c3a52-4f7e-4a4e-9d1b-2f0e6c1d8a90" })))
      ]
      for (const reason of failures) {
        assert.strictEqual(reason._tag, "InvalidInput")
        assert.match(reason.message, /^a user turn needs text that is not empty or only whitespace \(got .+\)$/)
      }
      yield* Effect.yieldNow
      assert.strictEqual(userLines, 0)
    }))
})

