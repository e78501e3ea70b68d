/**
 * `session.exit` waits for the CLI to exit, also when the CLI closed its stdout and exited more
 * than `closeGrace` later (the session's reason is then `StdoutClosed`). Before, nothing watched
 * the process after that grace, and `session.exit` waited until the session's scope closed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

describe("session.exit after the CLI closed its stdout early", () => {
  it.live("session.exit resolves once the CLI exits, 300 ms after closeGrace ran out", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "200 millis" })
      // The CLI closes stdout at once and exits 500 ms later (code 0); 2 s is ample.
      const exit = yield* Effect.exit(session.exit.pipe(Effect.timeout("2 seconds")))
      assert.isTrue(
        Exit.isSuccess(exit),
        `session.exit did not resolve within 2 s of a CLI that exited after 500 ms: ${
          Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n")[0] : ""
        }`
      )
      if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.code, 0)
    }).pipe(
      Effect.scoped,
      Effect.provide(FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.closeStdout
          yield* Effect.sleep("500 millis")
          return 0
        })
      ))
    ), 10_000)
})
