/**
 * A resumed (or continued) session: a turn written under the uuid of a message of the earlier
 * process never ended. CLI 2.1.332 drops such a message and says so with a bare
 * `command_lifecycle` `completed` (no `queued`, no `started`, no result); `run` waited forever
 * (found by a reviewing helper; failing before). It now fails with `TurnCancelled` naming the
 * uuid already in the session (`test/DroppedMessages.test.ts` covers the rule on the fake CLI).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const U = "12345678-1234-4234-8234-123456789abc"

describe("a turn under a uuid the resumed session has seen (real CLI)", { timeout: 60_000 }, () => {
  for (const how of ["resume", "continueConversation"] as const) {
    it.live(`${how}: run fails with TurnCancelled, and the session goes on`, () =>
      Effect.gen(function*() {
        const { options } = yield* live((request) => FakeModel.text(`answer to ${FakeModel.lastUserText(request)}`))
        const sessionId = yield* Effect.scoped(Effect.gen(function*() {
          const first = yield* Claude.open(options)
          return (yield* first.run({ text: "one", uuid: U })).session_id
        }))
        const session = yield* Claude.open({
          ...options,
          ...(how === "resume" ? { resume: sessionId } : { continueConversation: true }),
          interruptTimeout: "1 second"
        })
        const outcome = yield* session.run({ text: "two", uuid: U }).pipe(Effect.exit, Effect.timeoutOption("15 seconds"))
        if (Option.isNone(outcome)) return assert.fail("session.run never ended")
        const error = outcome.value._tag === "Failure" ? Cause.findErrorOption(outcome.value.cause) : Option.none()
        assert.isTrue(Option.isSome(error), `run did not fail with a typed error: ${String(outcome.value)}`)
        assert.strictEqual(Option.getOrThrow(error).reason._tag, "TurnCancelled")
        assert.include(Option.getOrThrow(error).message, "already in the session")
        const next = yield* session.run("three")
        assert.strictEqual(next.result, "answer to three")
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
  }
})
