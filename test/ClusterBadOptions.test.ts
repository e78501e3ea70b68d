/**
 * The session entity with session options no CLI is launched with (found by a reviewing helper;
 * failing before): with `sessionStore`, the entity located the session's transcript from the
 * options' `cwd` and `env` before `Claude.open` checked them, and a `cwd` or `HOME` that is no
 * string threw there. That defect made the cluster restart the entity and replay the call without
 * end (`Run` never answered), and a `Send` waited forever. The turn is now answered with the
 * `InvalidInput` that `Claude.open` gives, naming the option.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import type * as Claude from "../src/Claude.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

const on = (session: Claude.SessionOptions) =>
  ClaudeSessionEntity.layer({ session: () => session }).pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provide(FakeCli.layer(FakeCli.conversation({ sessionId: S1 }))),
    Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
  )

/** The call forked, then a minute of the TestClock: its exit, or undefined while it still waits. */
const within1Minute = <A, E>(call: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const running = yield* Effect.forkChild(Effect.exit(call), { startImmediately: true })
    for (let i = 0; i < 60 && running.pollUnsafe() === undefined; i++) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
      yield* TestClock.adjust("1 second")
    }
    const exit = running.pollUnsafe()
    return exit === undefined || Exit.isFailure(exit) ? undefined : exit.value
  })

/** The ClaudeError's reason and text of an exit. */
const failureOf = <A>(exit: Exit.Exit<A, unknown> | undefined): string => {
  if (exit === undefined) return "still waiting"
  if (Exit.isSuccess(exit)) return "success"
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return `no typed failure: ${Cause.pretty(exit.cause)}`
  const value = error.value as { readonly reason?: { readonly _tag: string }; readonly message?: string }
  return `${value.reason?._tag}: ${value.message}`
}

const badOptions: ReadonlyArray<readonly [string, string, Claude.SessionOptions]> = [
  ["a cwd that is no string", "cwd", { cwd: 42 as unknown as string, sessionStore: true }],
  ["an env HOME that is no string", "HOME", { env: { HOME: 5 as unknown as string }, sessionStore: true }]
]

describe("the session entity with session options no CLI is launched with", () => {
  for (const [what, named, session] of badOptions) {
    it.effect(`${what}, mirrored to the store: Run and Send are answered InvalidInput naming it, not replayed or left waiting`, () =>
      Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const client = (yield* ClaudeSessionEntity.client)(S1)
        const run = failureOf(yield* within1Minute(client.Run({ uuid: uuid(1), prompt: "hello" })))
        const send = failureOf(yield* within1Minute(client.Send({ uuid: uuid(2), prompt: "hello" })))
        for (const answer of [run, send]) {
          assert.match(answer, /^InvalidInput: /)
          assert.include(answer, named)
        }
      }).pipe(Effect.provide(on(session))))
  }
})
