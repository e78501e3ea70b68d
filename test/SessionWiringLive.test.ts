/**
 * The session's wiring over a real process (live tier: test/fixtures/fake-claude.mjs); the rest
 * is in test/SessionWiring.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Path from "node:path"
import { processLayer } from "./support/live.ts"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const failure = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(failure, "expected a typed failure")
  return (failure as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

describe("the session's wiring over a process", () => {
  it.live("a real process below the range (fake-claude.mjs saying 2.0.76): UnsupportedCliVersion, and no user line reaches it", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const session = yield* Claude.open({
        executable: Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs"),
        env: { FAKE_CLAUDE_VERSION: "2.0.76" },
        transcript: { record: (direction, message) => written.push(`${direction} ${(message as { type: string }).type}`) }
      })
      const run = reasonOf(yield* Effect.exit(session.run("hello")))
      assert.strictEqual(run._tag, "UnsupportedCliVersion")
      assert.include(run.message, "2.0.76")
      assert.include(run.message, ">=2.1.0 <2.2.0")
      assert.notInclude(written, "send user")
      assert.include(written, "send control_request")
    }).pipe(Effect.scoped, Effect.provide(processLayer), Effect.provide(Logger.layer([]))))

})
