/**
 * The session entity on a store that stops answering (a connection lost without a reset): the
 * turn ledger's read and its `turn_started` append were not bounded, so `Run` waited forever, and
 * every later call of the session with it (the ledger's read holds a lock). Each is now bounded and
 * the call answered `StoreFailed`, the turn not run; a store that answers again serves the next call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

const tagOf = <A>(exit: Exit.Exit<A, unknown>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (fail === undefined) return `no typed failure: ${exit.cause.reasons.map((r) => r._tag).join(",")}`
  const error = (fail as unknown as { readonly error: unknown }).error
  return ClaudeError.isClaudeError(error) ? error.reason._tag : String(error)
}

const answering = () => {
  const state = { userLines: 0 }
  const transport = FakeCli.layer((cli) => {
    const id = cli.spec.args[cli.spec.args.indexOf("--session-id") + 1] ?? S1
    return FakeCli.conversation({
      sessionId: id,
      onUser: (text, _index, cli, message) =>
        Effect.andThen(
          Effect.sync(() => state.userLines++),
          Effect.forEach(
            FakeCli.textTurn({ sessionId: id, text: `echo ${text}`, userMessageUuid: String(message.uuid) }),
            (line) => cli.emit(line),
            { discard: true }
          )
        )
    })(cli)
  })
  return { state, transport }
}

/** The Run's own exit, out of its fiber's. */
const inner = <A, E>(exit: Exit.Exit<Exit.Exit<A, E>>): Exit.Exit<A, E | string> =>
  Exit.isSuccess(exit) ? exit.value : Exit.fail("the fork failed")

/** `Run(uuid(n))` forked, then 5 minutes of the TestClock: its exit, or undefined while it still waits. */
const runWithin5Minutes = (n: number) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(1)
    const session = (yield* ClaudeSessionEntity.client)(S1)
    const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(n), prompt: `p${n}` })), {
      startImmediately: true
    })
    for (let i = 0; i < 30; i++) yield* TestClock.adjust("10 seconds")
    return running.pollUnsafe()
  })

const on = (transport: ReturnType<typeof answering>["transport"], store: SessionStore.SessionStore["Service"]) =>
  ClaudeSessionEntity.layer().pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provide(transport),
    Layer.provide(Layer.succeed(SessionStore.SessionStore, store))
  )

describe("the session entity on a store that stops answering its ledger", () => {
  it.effect("a ledger read that never answers: Run is StoreFailed, not a call that never ends; the next call reads it again", () => {
    const { state, transport } = answering()
    const memory = Effect.runSync(SessionStore.makeMemory)
    let hung = true
    const store = SessionStore.SessionStore.of({
      ...memory,
      load: (key) =>
        key.subpath === "cluster/turns" && hung ? Stream.never : memory.load(key)
    })
    return Effect.gen(function*() {
      const exit = yield* runWithin5Minutes(1)
      assert.isDefined(exit, "Run still waiting after 5 minutes")
      assert.strictEqual(tagOf(inner(exit!)), "StoreFailed")
      assert.strictEqual(state.userLines, 0)
      hung = false
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(tagOf(yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "p2" }))), "success")
    }).pipe(Effect.provide(on(transport, store)))
  })

  it.effect("a turn_started append that never answers: Run is StoreFailed, the turn not run; asked again, it runs once", () => {
    const { state, transport } = answering()
    const memory = Effect.runSync(SessionStore.makeMemory)
    let hung = true
    const store = SessionStore.SessionStore.of({
      ...memory,
      append: (key, entries) =>
        key.subpath === "cluster/turns" && hung && entries.some((e) => e.type === "turn_started")
          ? Effect.never
          : memory.append(key, entries)
    })
    return Effect.gen(function*() {
      const exit = yield* runWithin5Minutes(1)
      assert.isDefined(exit, "Run still waiting after 5 minutes")
      assert.strictEqual(tagOf(inner(exit!)), "StoreFailed")
      assert.strictEqual(state.userLines, 0)
      hung = false
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(tagOf(yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "p1" }))), "success")
      assert.strictEqual(state.userLines, 1)
    }).pipe(Effect.provide(on(transport, store)))
  })
})
