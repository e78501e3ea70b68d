/**
 * The session entity with session options no CLI is launched with (found by a reviewing helper;
 * failing before): with `sessionStore`, the entity located the session's transcript from the
 * options' `cwd` and `env` before `Claude.open` checked them, and a `cwd` or `HOME` that is no
 * string threw there. That defect made the cluster restart the entity and replay the call without
 * end (`Run` never answered), and a `Send` waited forever. The turn is now answered with the
 * `InvalidInput` that `Claude.open` gives, naming the option. The same for a program callback
 * of the entity's (`prepare`, `session`, `projectKey`) that dies (throws, `Effect.die`): `Run`
 * was replayed without end and `Send` waited forever; each is now answered `InvalidInput` naming
 * the callback and its defect.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import type * as Claude from "../src/Claude.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

const entity = (options: ClaudeSessionEntity.Options) =>
  ClaudeSessionEntity.layer(options).pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provide(FakeCli.layer(FakeCli.conversation({ sessionId: S1 }))),
    Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
  )
const on = (session: Claude.SessionOptions) => entity({ session: () => session })

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

/** The answers of a `Run`, a `Send` and a `Turn` stream, each of a new turn from uuid `from` on. */
const answersFrom = (from: number) =>
  Effect.gen(function*() {
    const client = (yield* ClaudeSessionEntity.client)(S1)
    return [
      failureOf(yield* within1Minute(client.Run({ uuid: uuid(from), prompt: "x" }))),
      failureOf(yield* within1Minute(client.Send({ uuid: uuid(from + 1), prompt: "x" }))),
      failureOf(yield* within1Minute(Stream.runCollect(client.Turn({ uuid: uuid(from + 2), prompt: "x" }))))
    ]
  })

const broken = (message: string): never => {
  throw new Error(message)
}

/**
 * The program's callbacks that die (found by a reviewer; failing before): a defect made the
 * cluster restart the entity and replay `Run` without end, and `Send` waited forever. Each call
 * is answered `InvalidInput` naming the callback and its defect, every time (a callback that
 * dies is deterministic more often than not).
 */
const dyingCallbacks: ReadonlyArray<readonly [string, ClaudeSessionEntity.Options, string, string]> = [
  ["a prepare that dies", { prepare: () => Effect.die(new Error("prepare broke")) }, "prepare", "prepare broke"],
  ["a prepare that throws", { prepare: () => broken("prepare threw") }, "prepare", "prepare threw"],
  ["a session options callback that throws", { session: () => broken("options broke") }, "session", "options broke"],
  ["a projectKey that throws", { projectKey: () => broken("key broke") }, "projectKey", "key broke"]
]

describe("the session entity with a program callback that dies", () => {
  it.effect("a prepare that dies: Run and Send are answered, not replayed or left waiting", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const client = (yield* ClaudeSessionEntity.client)(S1)
      assert.notStrictEqual(failureOf(yield* within1Minute(client.Run({ uuid: uuid(1), prompt: "x" }))), "still waiting")
      assert.notStrictEqual(failureOf(yield* within1Minute(client.Send({ uuid: uuid(2), prompt: "x" }))), "still waiting")
    }).pipe(Effect.provide(ClaudeSessionEntity.layer({ prepare: () => Effect.die(new Error("prepare broke")) }).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(FakeCli.layer(FakeCli.conversation({ sessionId: S1 }))),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
    ))))

  for (const [what, options, named, defect] of dyingCallbacks) {
    it.effect(`${what}: Run, Send and Turn are answered InvalidInput naming it, each new turn again`, () =>
      Effect.gen(function*() {
        yield* TestClock.adjust(1)
        for (const answer of [...yield* answersFrom(1), ...yield* answersFrom(4)]) {
          assert.match(answer, /^InvalidInput: /)
          assert.include(answer, `${named} callback died`)
          assert.include(answer, defect)
        }
      }).pipe(Effect.provide(entity(options))))
  }

  it.effect("a session options callback that throws: SetPermissionMode, which reads it, is answered InvalidInput", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const client = (yield* ClaudeSessionEntity.client)(S1)
      const answer = failureOf(yield* within1Minute(client.SetPermissionMode({ mode: "bypassPermissions" })))
      assert.match(answer, /^InvalidInput: .*session callback died.*options broke/)
    }).pipe(Effect.provide(entity({ session: () => broken("options broke") }))))

  it.effect("the failure is the turn's recorded outcome: asked again, it is answered without calling prepare", () => {
    let prepared = 0
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const client = (yield* ClaudeSessionEntity.client)(S1)
      const first = failureOf(yield* within1Minute(client.Run({ uuid: uuid(1), prompt: "x" })))
      assert.match(first, /^InvalidInput: .*prepare broke/)
      assert.strictEqual(prepared, 1)
      assert.strictEqual(failureOf(yield* within1Minute(client.Run({ uuid: uuid(1), prompt: "x" }))), first)
      assert.strictEqual(prepared, 1)
    }).pipe(Effect.provide(entity({
      prepare: () => Effect.suspend(() => (prepared++, Effect.die(new Error("prepare broke"))))
    })))
  })

  it.effect("a prepare that died once does not poison the session: the next turns run", () => {
    let calls = 0
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const client = (yield* ClaudeSessionEntity.client)(S1)
      const first = failureOf(yield* within1Minute(client.Run({ uuid: uuid(1), prompt: "x" })))
      assert.match(first, /^InvalidInput: .*prepare broke/)
      // Awaited as they are: a turn that runs needs no TestClock.
      const run = yield* Effect.exit(client.Run({ uuid: uuid(2), prompt: "two" }))
      assert.isTrue(Exit.isSuccess(run) && run.value.text === "echo: two", failureOf(run))
      assert.strictEqual(failureOf(yield* Effect.exit(client.Send({ uuid: uuid(3), prompt: "three" }))), "success")
    }).pipe(Effect.provide(entity({
      prepare: () => calls++ === 0 ? Effect.die(new Error("prepare broke")) : Effect.succeed({})
    })))
  })

  it.effect("the session's secrets are out of the defect's text", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(1)
      for (const answer of yield* answersFrom(1)) {
        assert.match(answer, /^InvalidInput: .*prepare callback died/)
        assert.notInclude(answer, "sk-ant-fake-secret-0123456789")
        assert.include(answer, "[redacted]")
      }
    }).pipe(Effect.provide(entity({
      session: () => ({ env: { ANTHROPIC_API_KEY: "sk-ant-fake-secret-0123456789" } }),
      prepare: () => Effect.die(new Error("refused key sk-ant-fake-secret-0123456789"))
    }))))

  it.effect("the session's secrets are out of the defect's text, with options no command can be built of", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust(1)
      for (const answer of yield* answersFrom(1)) {
        assert.match(answer, /^InvalidInput: .*prepare callback died/)
        assert.notInclude(answer, "sk-ant-fake-secret-9876543210")
        assert.include(answer, "[redacted]")
      }
    }).pipe(Effect.provide(entity({
      // A JSON schema JSON cannot write: the CLI's command cannot be built of these options.
      session: () => ({ apiKey: Redacted.make("sk-ant-fake-secret-9876543210"), jsonSchema: { big: 1n } as never }),
      prepare: () => Effect.die(new Error("refused key sk-ant-fake-secret-9876543210"))
    }))))
})

