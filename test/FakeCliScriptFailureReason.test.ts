import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

// A script that fails (an expectation of the test not met) exits 1 with its failure on stderr:
// the session's `ProcessExited` carries it in `stderrTail`, so the test says why.
describe("FakeCli: a script that fails", () => {
  it.effect("reports its failure in the exit status's stderr tail", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          return yield* Effect.fail(new Error("script: expected the prompt 'bye'"))
        })
      )
      const exit = yield* Effect.exit(
        Effect.scoped(Effect.flatMap(Claude.open(), (session) => session.run("hello"))).pipe(Effect.provide(layer))
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      assert.instanceOf(error, ClaudeError.ClaudeError)
      const reason = (error as ClaudeError.ClaudeError).reason
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.strictEqual(reason.exitCode, 1)
      assert.include(reason.stderrTail, "script: expected the prompt 'bye'")
    }))

  it.effect("a script that dies reports its defect too", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          return yield* Effect.die(new Error("script: no such fixture"))
        })
      )
      const exit = yield* Effect.exit(
        Effect.scoped(Effect.flatMap(Claude.open(), (session) => session.run("hello"))).pipe(Effect.provide(layer))
      )
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      const reason = (error as ClaudeError.ClaudeError).reason
      assert.strictEqual(reason._tag, "ProcessExited")
      if (reason._tag !== "ProcessExited") return
      assert.include(reason.stderrTail, "script: no such fixture")
    }))
})
