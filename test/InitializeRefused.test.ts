/**
 * A CLI that refuses `initialize`. Without hooks the session goes on, and the turn says why. With
 * hooks it must not: `initialize` is what registers them, and a turn would run tools no guard saw
 * (README, "Guards fail closed"). The session then ends with the refusal, and every turn fails
 * with it (a real CLI gets no user line: its turns wait for `initialize`'s answer).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"
import { asProcess } from "./support/fakeCliHost.ts"

const SESSION = "initialize-refused"

/** A CLI that refuses `initialize`, then answers every turn with a success; `users` counts them. */
const refusing = (users: { count: number }) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      const initialize = yield* cli.nextMatching((m) => m.type === "control_request")
      yield* cli.emit(FakeCli.failure(initialize, "Invalid agents"))
      while (true) {
        yield* cli.nextMatching((m) => m.type === "user")
        users.count++
        yield* cli.emit(FakeCli.result({ sessionId: SESSION }))
      }
    })
  )


const runOnce = <R>(transport: Layer.Layer<Transport>, extra: Layer.Layer<R, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    const session = yield* Claude.open()
    return yield* session.run("Edit the file")
  }).pipe(Effect.scoped, Effect.provide([transport, extra]), Effect.exit)

describe("a CLI that refuses initialize", () => {
  it.effect("with hooks, the turn fails with the refusal: no turn runs without its guards", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const hooks = Hooks.layer(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.deny("no"))))
      const exit = yield* runOnce(asProcess(refusing(users)), hooks)
      assert.isTrue(Exit.isFailure(exit), "the turn ran, with hooks the CLI never registered")
      assert.strictEqual(users.count, 0, "the CLI got the user line")
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
      assert.isTrue(ClaudeError.isClaudeError(error), String(exit))
      const reason = (error as ClaudeError.ClaudeError).reason
      assert.strictEqual(reason._tag, "ControlRejected")
      assert.strictEqual((reason as ClaudeError.ControlRejected).subtype, "initialize")
      assert.strictEqual((reason as ClaudeError.ControlRejected).error, "Invalid agents")
    }))

  it.effect("without hooks, the session goes on", () =>
    Effect.gen(function*() {
      const users = { count: 0 }
      const exit = yield* runOnce(refusing(users), Hooks.layer())
      assert.isTrue(Exit.isSuccess(exit), String(exit))
      assert.strictEqual(users.count, 1)
    }))
})
