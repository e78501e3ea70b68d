/**
 * A replayed program that writes a line the recording does not have, holding a secret of the
 * session (its `apiKey`, a `Redacted` value of its environment) that no `[redacted]` of the
 * recording stood for: the `ReplayMismatch` showed the line, and the secret, in clear, in the
 * error and in the session's log. The replay masks the session's secrets, as the recorder does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Claude from "../src/Claude.ts"
import * as Replay from "../src/testing/Replay.ts"
import type * as Transcript from "../src/Transcript.ts"

const KEY = "sk-ant-replay-0123456789abcdefghij"

const recording: ReadonlyArray<Transcript.Line> = [
  { dir: "send", msg: { type: "control_request", request_id: "r1", request: { subtype: "initialize" } } },
  { dir: "recv", msg: { type: "control_response", response: { subtype: "success", request_id: "r1", response: {} } } },
  { dir: "send", msg: { type: "user", message: { role: "user", content: "hello" }, parent_tool_use_id: null, session_id: "" } }
]

describe("Replay: a mismatch shows no secret of the session", () => {
  it.live("the apiKey in a prompt the recording does not have is masked", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "300 millis", apiKey: Redacted.make(KEY) })
        return yield* Effect.exit(session.run(`my key is ${KEY}`).pipe(Effect.timeout("3 seconds")))
      })).pipe(Effect.provide(Replay.layer(recording)))
      assert.isTrue(Exit.isFailure(exit))
      const text = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
      assert.include(text, "Replay mismatch")
      assert.include(text, "my key is [redacted]")
      assert.notInclude(text, KEY)
    }))
})
