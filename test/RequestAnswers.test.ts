/**
 * `session.request` with the caller's Schema gives what the Schema decodes to (a class instance,
 * its own keys), and a version policy whose range is not two versions is `InvalidInput` at open,
 * never a defect of the session (with `warn` too). Before, the answer was a plain object with the
 * wire's keys merged in, and a bad range threw inside the version check (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { asProcess } from "./support/fakeCliHost.ts"

class Pong extends Schema.Class<Pong>("Pong")({ count: Schema.Number }) {
  get doubled() {
    return this.count * 2
  }
}

const cli = (answer: unknown) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli)
      return yield* FakeCli.conversation({ onControl: (request, cli) => cli.emit(FakeCli.success(request, answer)) })(cli)
    })
  )

describe("session.request decoding", () => {
  it.effect("request(body, SchemaClass) returns an instance of the class (its type says so)", () =>
    Effect.gen(function*() {
      const pong = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        return yield* session.request({ subtype: "ping" }, Pong)
      })).pipe(Effect.provide(cli({ count: 2 })), Effect.provide(Logger.layer([])))
      assert.strictEqual(pong.count, 2)
      assert.instanceOf(pong, Pong)
      assert.strictEqual(pong.doubled, 4)
    }))

  it.effect("request(body, schema with a renamed key) gives the decoded shape, not the wire key too", () =>
    Effect.gen(function*() {
      const Renamed = Schema.Struct({ taskId: Schema.String }).pipe(Schema.encodeKeys({ taskId: "task_id" }))
      const value = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open()
        return yield* session.request({ subtype: "ping" }, Renamed)
      })).pipe(Effect.provide(cli({ task_id: "t1" })), Effect.provide(Logger.layer([])))
      assert.deepStrictEqual(value as unknown, { taskId: "t1" })
    }))
})

describe("cliVersionPolicy.range", () => {
  it.effect("a range that is not two versions is InvalidInput at open, not a defect of the session", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({
          cliVersionPolicy: { onUnsupported: "warn", range: { floor: "2.1", below: "2.2" } }
        })
        return yield* session.cliVersion
      })).pipe(Effect.provide(cli({})), Effect.provide(Logger.layer([])), Effect.exit)
      assert.isTrue(Exit.isFailure(exit), "expected a failure")
      if (Exit.isFailure(exit)) {
        assert.isFalse(Cause.hasDies(exit.cause), `a defect: ${Cause.pretty(exit.cause)}`)
      }
    }))

  it.effect("with a process CLI, run fails typed (not a defect) under a range that is not two versions", () =>
    Effect.gen(function*() {
      // The fake CLI given a process id, as the real one has: turns wait for the version check.
      const withPid = asProcess(cli({}))
      const exit = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ cliVersionPolicy: { range: { floor: "2.1", below: "2.2" } } })
        return yield* session.run("hi")
      })).pipe(Effect.provide(withPid), Effect.provide(Logger.layer([])), Effect.exit)
      assert.isTrue(Exit.isFailure(exit), "expected a failure")
      if (Exit.isFailure(exit)) {
        assert.isFalse(Cause.hasDies(exit.cause), `a defect: ${Cause.pretty(exit.cause).split("\n")[0]}`)
      }
    }))
})
