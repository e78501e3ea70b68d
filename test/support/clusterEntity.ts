/**
 * What the tests of the cluster entity (`ClaudeSessionEntity` under a `TestRunner`) share: the
 * ids of a session and of its turns, the entity's layer over a fake CLI and a store, the real pause
 * and TestClock steps that let the runner's fibers go on, and the fake CLIs several of them script
 * alike. Starts nothing: the CLIs are `FakeCli`s.
 */
import * as TestRunner from "effect/cluster/TestRunner"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import { TestClock } from "effect/testing"
import type * as Claude from "../../src/Claude.ts"
import * as ClaudeSessionEntity from "../../src/ClaudeSessionEntity.ts"
import * as SessionStoreWiring from "../../src/internal/sessionStoreWiring.ts"
import * as FakeCli from "../../src/testing/FakeCli.ts"
import * as SessionStore from "../../src/SessionStore.ts"
import type { Transport } from "../../src/Transport.ts"
import { launchedSession } from "./resumedSessions.ts"
import { makeTempDir } from "./tempDir.ts"

/** The session the tests ask. */
export const S1 = "11111111-1111-4111-8111-111111111111"

/** The n-th turn's uuid. */
export const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

/** A real pause (5 ms): the runner's fibers that wait on real time go on meanwhile. */
export const realSleep = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

/** At most `steps` times, until `done()`: a {@link realSleep}, then `by` of the TestClock. */
export const advance = (steps: number, by: Duration.Input, done: () => boolean = () => false) =>
  Effect.gen(function*() {
    for (let i = 0; i < steps && !done(); i++) {
      yield* realSleep
      yield* TestClock.adjust(by)
    }
  })

/** The entity on `transport` over `store` (a fresh memory store by default), under a test runner. */
export const entityOn = (
  transport: Layer.Layer<Transport>,
  store: SessionStore.SessionStore["Service"] = Effect.runSync(SessionStore.makeMemory),
  options: ClaudeSessionEntity.Options = {}
) =>
  ClaudeSessionEntity.layer(options).pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provide(transport),
    Layer.provide(Layer.succeed(SessionStore.SessionStore, store))
  )

/**
 * The entity's client of {@link S1}, after the TestClock's first tick and a `Run` of turn 1
 * ("first") whose caller stopped waiting (its fiber interrupted, as by a timeout or a cancelled
 * request) once the turn's CLI was there (`spawned()`) and a little more.
 */
export const abandonedRun = (spawned: () => boolean) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(1)
    const session = (yield* ClaudeSessionEntity.client)(S1)
    const first = yield* Effect.forkChild(session.Run({ uuid: uuid(1), prompt: "first" }), { startImmediately: true })
    for (let i = 0; i < 200 && !spawned(); i++) yield* realSleep
    for (let i = 0; i < 10; i++) yield* realSleep
    yield* Effect.forkChild(Fiber.interrupt(first), { startImmediately: true })
    return session
  })

/**
 * A fake CLI that answers each prompt `echo: <prompt>`, the first prompt of the first CLI only
 * once `gate` is open (any later one at once); it keeps each launch's arguments and the subtype of
 * each control request, and answers the requests with an empty success (`cancel_async_message`:
 * not cancelled, the turn already running).
 */
export const gatedEchoCli = () => {
  const gate = Effect.runSync(Deferred.make<void>())
  const controls: Array<string> = []
  const spawned: Array<ReadonlyArray<string>> = []
  const transport = FakeCli.layer((cli) => {
    const sessionId = launchedSession(cli.spec)!
    spawned.push(cli.spec.args)
    return FakeCli.conversation({
      sessionId,
      onControl: (request, cli) => {
        const body = request.request as Record<string, unknown>
        controls.push(String(body.subtype))
        return cli.emit(FakeCli.success(
          request,
          body.subtype === "cancel_async_message" ? { cancelled: false, message_uuid: body.message_uuid } : {}
        ))
      },
      onUser: (text, index, cli, message) =>
        Effect.forkChild(Effect.gen(function*() {
          if (spawned.length === 1 && index === 0) yield* Deferred.await(gate)
          for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: String(message.uuid) })) {
            yield* cli.emit(line)
          }
        }))
    })(cli)
  })
  return { gate, controls, spawned, transport }
}

/**
 * Session options (`sessionStore` as given) in a fresh directory for the entity of a test of
 * mirrored sessions, where the CLI keeps their transcripts, and the path of {@link S1}'s.
 */
export const mirroredSession = <S extends Claude.SessionOptions["sessionStore"]>(prefix: string, sessionStore: S) =>
  Effect.gen(function*() {
    const dir = yield* makeTempDir(prefix)
    const sessionOptions = { cwd: dir, env: { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }, sessionStore }
    const where = SessionStoreWiring.locate(sessionOptions.env, dir)
    const filePath = Path.join(where.projectsDir, where.projectKey, `${S1}.jsonl`)
    return { dir, sessionOptions, where, filePath }
  })

/**
 * A fake CLI that mirrors each turn to the transcript `filePath` (a `transcript_mirror` frame: the
 * prompt, its answer `answerUuid(prompt, index)`, then `extra(prompt)`) and answers it
 * `echo: <prompt>`, its assistant line with the answer's uuid (the transcript entry's, as the real
 * CLI writes it); it keeps each launch's arguments.
 */
export const mirroringCli = (
  filePath: string,
  answerUuid: (text: string, index: number) => string,
  extra: (text: string) => ReadonlyArray<Record<string, unknown>> = () => []
) => {
  const launches: Array<ReadonlyArray<string>> = []
  const transport = FakeCli.layer((cli) => {
    const sessionId = launchedSession(cli.spec)!
    launches.push(cli.spec.args)
    return FakeCli.conversation({
      sessionId,
      onUser: (text, index, cli, message) =>
        Effect.gen(function*() {
          const userUuid = String(message.uuid)
          const answer = answerUuid(text, index)
          yield* cli.emit({
            type: "transcript_mirror",
            filePath,
            entries: [
              { type: "user", uuid: userUuid, message: { role: "user", content: text } },
              { type: "assistant", uuid: answer, parentUuid: userUuid, message: { role: "assistant", content: "ok" } },
              ...extra(text)
            ]
          })
          for (const line of FakeCli.textTurn({ sessionId, text: `echo: ${text}`, userMessageUuid: userUuid })) {
            yield* cli.emit(line.type === "assistant" ? { ...line, uuid: answer } : line)
          }
        })
    })(cli)
  })
  return { launches, transport }
}
