/**
 * The session entity (`ClaudeSessionEntity`), where a reviewing helper found it wanting; each test
 * failed before its fix:
 * - bad stored data: a recorded outcome the entity could not read was a defect, which Effect
 *   Cluster answers by restarting the entity and replaying the call, forever; a ledger the store
 *   could not read made the entity's build die, retried forever, every call waiting; a damaged
 *   ledger line was skipped, so the turn it recorded as finished ran again (a line cut short by
 *   a crash mid-append, whose caller was never answered, is still left out, wherever it stands);
 * - a CLI that died stayed the session's CLI: every later turn failed with `ProcessExited` until
 *   the session idled out;
 * - a first turn whose CLI never started left the session to be resumed, though it never existed.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as TestRunner from "effect/cluster/TestRunner"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as ClaudeSessionEntity from "../src/ClaudeSessionEntity.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"
import { planResume } from "../src/internal/resumePlan.ts"
import * as SessionStoreWiring from "../src/internal/sessionStoreWiring.ts"
import { makeTempDir } from "./support/tempDir.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`
const ledgerKey = { projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }

/** The ClaudeError reason's tag of an exit, "success", or what else it ended with. */
const tagOf = <A>(exit: Exit.Exit<A, unknown>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const fail = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (fail === undefined) return `no typed failure: ${exit.cause.reasons.map((r) => r._tag).join(",")}`
  const error = (fail as unknown as { readonly error: unknown }).error
  return ClaudeError.isClaudeError(error) ? error.reason._tag : String(error)
}

/** The session id a fake CLI process runs: `--resume=` or `--session-id`. */
const sessionOf = (args: ReadonlyArray<string>) => {
  const resume = args.find((a) => a.startsWith("--resume="))
  return { resumed: resume !== undefined, id: resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]! }
}

/** A fake CLI that answers every prompt; `crash` makes it die. Counts its launches and user lines. */
const counting = () => {
  const state = { userLines: 0, launches: [] as Array<string> }
  const transport = FakeCli.layer((cli) => {
    const session = sessionOf(cli.spec.args)
    state.launches.push(session.resumed ? "resume" : "new")
    return FakeCli.conversation({
      sessionId: session.id,
      onUser: (text, _index, cli, message) =>
        text === "crash"
          ? Effect.andThen(cli.stderr("killed\n"), Effect.fail("crashed"))
          : Effect.andThen(
            Effect.sync(() => state.userLines++),
            Effect.forEach(
              FakeCli.textTurn({ sessionId: session.id, text: `echo ${text}`, userMessageUuid: String(message.uuid) }),
              (line) => cli.emit(line),
              { discard: true }
            )
          )
    })(cli)
  })
  return { state, transport }
}

const on = (transport: Layer.Layer<Transport>, store: SessionStore.SessionStore["Service"]) =>
  ClaudeSessionEntity.layer().pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provide(transport),
    Layer.provide(Layer.succeed(SessionStore.SessionStore, store))
  )

/** `Run(uuid(n))` forked, then 5 minutes of the TestClock: its exit, or undefined while it still waits. */
const runWithin5Minutes = (n: number, prompt: string) =>
  Effect.gen(function*() {
    yield* TestClock.adjust(1)
    const session = (yield* ClaudeSessionEntity.client)(S1)
    const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(n), prompt })), { startImmediately: true })
    for (let i = 0; i < 30; i++) yield* TestClock.adjust("10 seconds")
    const exit = running.pollUnsafe()
    return exit === undefined ? undefined : Exit.isSuccess(exit) ? exit.value : "the fork failed"
  })

describe("the session entity on bad stored data", () => {
  it.effect("a finished turn whose recorded outcome cannot be read is answered StoreFailed, not run again, not a defect", () => {
    const { state, transport } = counting()
    const memory = Effect.runSync(SessionStore.makeMemory)
    return Effect.gen(function*() {
      yield* memory.append(ledgerKey, [
        { type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1), cli: uuid(1) },
        { type: "turn_finished", uuid: `${uuid(1)}:finished`, turn: uuid(1), outcome: { _tag: "Success", value: { text: 1 } } }
      ])
      const exit = yield* runWithin5Minutes(1, "one")
      assert.strictEqual(state.userLines, 0, "the finished turn ran again")
      assert.isDefined(exit, "Run still waiting after 5 minutes")
      assert.strictEqual(typeof exit === "string" ? exit : tagOf(exit!), "StoreFailed")
    }).pipe(Effect.provide(on(transport, memory)))
  })

  it.effect("a ledger the store cannot read answers each call StoreFailed (not a call that never ends); a later call reads it again", () => {
    const { state, transport } = counting()
    const memory = Effect.runSync(SessionStore.makeMemory)
    let broken = true
    const store = SessionStore.SessionStore.of({
      ...memory,
      load: (key) =>
        key.subpath === "cluster/turns" && broken
          ? Stream.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "sqlite", operation: "load", description: "row 3 is not JSON" })))
          : memory.load(key)
    })
    return Effect.gen(function*() {
      const exit = yield* runWithin5Minutes(1, "one")
      assert.isDefined(exit, "Run still waiting after 5 minutes")
      assert.strictEqual(typeof exit === "string" ? exit : tagOf(exit!), "StoreFailed")
      assert.strictEqual(state.userLines, 0)
      broken = false
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(tagOf(yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "two" }))), "success")
    }).pipe(Effect.provide(on(transport, store)))
  })

  it.effect("a damaged line in a directory store's ledger is StoreFailed: the turn it recorded as finished is not run again", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-ledger-")
      const store = yield* SessionStore.makeDirectory(Path.join(dir, "config")).pipe(
        Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
      )
      const { state, transport } = counting()
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        assert.strictEqual((yield* session.Run({ uuid: uuid(1), prompt: "one" })).attempt, 1)
        yield* session.Run({ uuid: uuid(2), prompt: "two" })
      }).pipe(Effect.provide(on(transport, store)))
      const file = Path.join(dir, "config", "projects", "cluster", S1, "cluster", "turns.jsonl")
      const lines = Fs.readFileSync(file, "utf8").split("\n")
      // Damaged where it stands (not a write cut short, which is left out: see below).
      const at = lines.findIndex((line) => line.includes("turn_finished"))
      lines[at] = lines[at]!.replace(`"turn_finished"`, `"turn_finished"}`)
      Fs.writeFileSync(file, lines.join("\n"))
      const exit = yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        return yield* Effect.exit((yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "one" }))
      }).pipe(Effect.provide(on(transport, store)))
      assert.deepStrictEqual({ userLines: state.userLines, answer: tagOf(exit) }, { userLines: 2, answer: "StoreFailed" })
    }).pipe(Effect.scoped))

  it.effect("a ledger line cut short by a crash, then appended after, is left out at every later read", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-ledger-cut-")
      const store = yield* SessionStore.makeDirectory(Path.join(dir, "config")).pipe(
        Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer))
      )
      const { state, transport } = counting()
      const runOnNewEntity = (n: number) =>
        Effect.gen(function*() {
          yield* TestClock.adjust(1)
          return yield* Effect.exit((yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(n), prompt: `p${n}` }))
        }).pipe(Effect.provide(on(transport, store)))
      assert.strictEqual(tagOf(yield* runOnNewEntity(1)), "success")
      // The runner died mid-append: its last line stops halfway, with no newline.
      const file = Path.join(dir, "config", "projects", "cluster", S1, "cluster", "turns.jsonl")
      Fs.appendFileSync(file, `{"type":"turn_started","uuid":"x`)
      assert.strictEqual(tagOf(yield* runOnNewEntity(2)), "success")
      assert.strictEqual(tagOf(yield* runOnNewEntity(3)), "success", "the cut line, now amid the ledger, failed its read")
      assert.strictEqual(state.userLines, 3)
    }).pipe(Effect.scoped))

  it.effect("a ledger whose last line is wrong where it stands (not cut short) is StoreFailed", () =>
    Effect.gen(function*() {
      const memory = Effect.runSync(SessionStore.makeMemory)
      const { state, transport } = counting()
      const store = SessionStore.SessionStore.of({
        ...memory,
        load: (key) =>
          key.subpath === "cluster/turns"
            ? Stream.concat(memory.load(key), Stream.make(SessionStore.parseLine(`{"type":"turn_finished"}}`, 2)))
            : memory.load(key)
      })
      yield* memory.append(ledgerKey, [{ type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1), cli: uuid(1) }])
      const exit = yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        return yield* Effect.exit((yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "one" }))
      }).pipe(Effect.provide(on(transport, store)))
      assert.strictEqual(tagOf(exit), "StoreFailed")
      assert.strictEqual(state.userLines, 0)
    }))

  it.effect("a ledger whose last line was cut (an append that never finished) is read without it", () =>
    Effect.gen(function*() {
      const memory = Effect.runSync(SessionStore.makeMemory)
      const { state, transport } = counting()
      const store = SessionStore.SessionStore.of({
        ...memory,
        load: (key) =>
          key.subpath === "cluster/turns"
            ? Stream.concat(memory.load(key), Stream.make(SessionStore.parseLine(`{"type":"turn_fin`, 3)))
            : memory.load(key)
      })
      yield* memory.append(ledgerKey, [
        { type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1), cli: uuid(1) }
      ])
      const exit = yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        return yield* Effect.exit((yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(2), prompt: "two" }))
      }).pipe(Effect.provide(on(transport, store)))
      assert.strictEqual(tagOf(exit), "success")
      assert.strictEqual(state.userLines, 1)
    }))
})

describe("the session entity's CLI", () => {
  it.effect("a CLI that died is not the next turn's: the next turn opens a CLI again (resumed)", () => {
    const { state, transport } = counting()
    const memory = Effect.runSync(SessionStore.makeMemory)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(tagOf(yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))), "success")
      const crashed = yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "crash" }))
      const status = yield* session.Status()
      const next = yield* Effect.exit(session.Run({ uuid: uuid(3), prompt: "three" }))
      assert.deepStrictEqual(
        { crashed: tagOf(crashed), liveAfterCrash: status.live, next: tagOf(next), launches: state.launches },
        { crashed: "ProcessExited", liveAfterCrash: false, next: "success", launches: ["new", "resume"] }
      )
    }).pipe(Effect.provide(on(transport, memory)))
  })

  it.effect("a first turn whose CLI never started leaves no session to resume: the next turn starts it", () => {
    const created = new Set<string>()
    const launches: Array<string> = []
    let spawnFails = true
    const fake = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const session = sessionOf(cli.spec.args)
        launches.push(session.resumed ? "resume" : "new")
        if (session.resumed && !created.has(session.id)) {
          yield* cli.stderr(`No conversation found with session ID: ${session.id}\n`)
          return 1
        }
        created.add(session.id)
        return yield* FakeCli.conversation({ sessionId: session.id })(cli)
      })
    )
    const transport = Layer.effect(
      Transport,
      Effect.map(Effect.provide(Transport, fake), (inner) =>
        Transport.of({
          open: (spec) =>
            spawnFails
              ? Effect.fail(ClaudeError.make(new ClaudeError.SpawnFailed({ executable: "claude", description: "EAGAIN" })))
              : inner.open(spec)
        }))
    )
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))
      spawnFails = false
      const second = yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "two" }))
      yield* session.Close()
      const third = yield* Effect.exit(session.Run({ uuid: uuid(3), prompt: "three" }))
      assert.deepStrictEqual(
        { first: tagOf(first), second: tagOf(second), third: tagOf(third), launches },
        { first: "SpawnFailed", second: "success", third: "success", launches: ["new", "resume"] }
      )
    }).pipe(Effect.provide(on(transport, Effect.runSync(SessionStore.makeMemory))))
  })
})

describe("the session entity's first turn", () => {
  it.effect("a first turn whose CLI died before writing anything of it leaves no session to resume: the next turn starts it", () => {
    const created = new Set<string>()
    const launches: Array<string> = []
    const transport = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        const session = sessionOf(cli.spec.args)
        launches.push(session.resumed ? "resume" : "new")
        if (session.resumed && !created.has(session.id)) {
          yield* cli.stderr(`No conversation found with session ID: ${session.id}\n`)
          return 1
        }
        if (launches.length === 1) {
          // Up (initialize answered), then it dies as the prompt comes: nothing of the turn written.
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          return 1
        }
        created.add(session.id)
        return yield* FakeCli.conversation({ sessionId: session.id })(cli)
      })
    )
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))
      const second = yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "two" }))
      assert.deepStrictEqual({ first: tagOf(first), second: tagOf(second), launches }, {
        first: "ProcessExited",
        second: "success",
        launches: ["new", "new"]
      })
    }).pipe(Effect.provide(on(transport, Effect.runSync(SessionStore.makeMemory))))
  })
})

describe("the session entity's first turn, its transcript written", () => {
  it.effect("a first turn whose CLI wrote its transcript but no line of the turn, then died: the next turn starts the session anew", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-entity-local-")
      const cwd = Path.join(dir, "repo")
      Fs.mkdirSync(cwd)
      const env = { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }
      const where = SessionStoreWiring.locate(env, cwd)
      const file = Path.join(where.projectsDir, where.projectKey, `${S1}.jsonl`)
      const launches: Array<string> = []
      const transport = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const session = sessionOf(cli.spec.args)
          launches.push(session.resumed ? "resume" : "new")
          // As the CLI: a new session under an id whose transcript exists is refused.
          if (!session.resumed && Fs.existsSync(file)) {
            yield* cli.stderr(`Session ID ${session.id} is already in use.\n`)
            return 1
          }
          if (launches.length === 1) {
            // The prompt saved, then the CLI dies before writing a line of the turn.
            yield* FakeCli.answerInitialize(cli)
            yield* cli.nextMatching((m) => m.type === "user")
            Fs.mkdirSync(Path.dirname(file), { recursive: true })
            Fs.writeFileSync(file, `${JSON.stringify({ type: "user", uuid: "u1", message: { role: "user", content: "one" } })}\n`)
            return 1
          }
          return yield* FakeCli.conversation({ sessionId: session.id })(cli)
        })
      )
      const layer = ClaudeSessionEntity.layer({ session: () => ({ cwd, env }) }).pipe(
        Layer.provideMerge(TestRunner.layer),
        Layer.provide(transport),
        Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
      )
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const session = (yield* ClaudeSessionEntity.client)(S1)
        const first = yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))
        const second = yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "two" }))
        assert.deepStrictEqual({ first: tagOf(first), second: tagOf(second), launches }, {
          first: "ProcessExited",
          second: "success",
          launches: ["new", "new"]
        })
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped))
})

describe("the session entity's settings and joined callers", () => {
  /** Real time, for forked calls of the entity to move (its runner works between real ticks). */
  const realSleep = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

  it.effect("SetModel answered while the session's CLI is being opened is the model of that CLI's turns", () => {
    const modelAtTurn: Array<string | undefined> = []
    const fake = FakeCli.layer((cli) => {
      const args = cli.spec.args
      const at = args.findIndex((a) => a === "--model" || a.startsWith("--model="))
      let model: string | undefined = at === -1 ? undefined : args[at]!.includes("=") ? args[at]!.split("=")[1] : args[at + 1]
      const session = sessionOf(args)
      return FakeCli.conversation({
        sessionId: session.id,
        onControl: (request, cli) => {
          const body = request.request as Record<string, unknown>
          if (body.subtype === "set_model") model = String(body.model)
          return cli.emit(FakeCli.success(request, body.subtype === "set_model" ? { model: body.model } : {}))
        },
        onUser: (text, _i, cli, message) =>
          Effect.andThen(
            Effect.sync(() => modelAtTurn.push(model)),
            Effect.forEach(
              FakeCli.textTurn({ sessionId: session.id, text: `echo ${text}`, userMessageUuid: String(message.uuid) }),
              (line) => cli.emit(line),
              { discard: true }
            )
          )
      })(cli)
    })
    const spawning = Effect.runSync(Deferred.make<void>())
    let spawnRequested = 0
    const transport = Layer.effect(
      Transport,
      Effect.map(Effect.provide(Transport, fake), (inner) =>
        Transport.of({
          open: (spec) => Effect.andThen(Effect.sync(() => spawnRequested++), Effect.andThen(Deferred.await(spawning), inner.open(spec)))
        }))
    )
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* Effect.forkChild(session.Run({ uuid: uuid(1), prompt: "one" }), { startImmediately: true })
      for (let i = 0; i < 200 && spawnRequested === 0; i++) yield* realSleep
      assert.strictEqual(spawnRequested, 1, "the CLI is being started")
      const setting = yield* Effect.forkChild(session.SetModel({ model: "claude-fake-2" }), { startImmediately: true })
      for (let i = 0; i < 20; i++) yield* realSleep
      yield* Deferred.succeed(spawning, undefined)
      assert.strictEqual(yield* Fiber.join(setting), "claude-fake-2")
      yield* Fiber.join(first)
      yield* session.Run({ uuid: uuid(2), prompt: "two" })
      assert.deepStrictEqual(modelAtTurn.slice(1), ["claude-fake-2"], `models at each turn: ${JSON.stringify(modelAtTurn)}`)
    }).pipe(Effect.provide(on(transport, Effect.runSync(SessionStore.makeMemory))))
  })

  it.effect("a SetModel on a session waiting for a CLI slot (all busy) is answered at once, and its CLI is launched with it", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    const models: Array<string | undefined> = []
    const transport = FakeCli.layer((cli) => {
      const session = sessionOf(cli.spec.args)
      const args = cli.spec.args
      const at = args.findIndex((a) => a === "--model" || a.startsWith("--model="))
      models.push(at === -1 ? undefined : args[at]!.includes("=") ? args[at]!.split("=")[1] : args[at + 1])
      return FakeCli.conversation({
        sessionId: session.id,
        onUser: (text, _i, cli, message) =>
          Effect.andThen(
            text === "hold" ? Deferred.await(gate) : Effect.void,
            Effect.forEach(
              FakeCli.textTurn({ sessionId: session.id, text: `echo ${text}`, userMessageUuid: String(message.uuid) }),
              (line) => cli.emit(line),
              { discard: true }
            )
          )
      })(cli)
    })
    const layer = ClaudeSessionEntity.layer({ maxLiveSessions: 1 }).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(transport),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, Effect.runSync(SessionStore.makeMemory)))
    )
    const S2 = "22222222-2222-4222-8222-222222222222"
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const client = yield* ClaudeSessionEntity.client
      // S1 holds the one slot while its turn runs; S2's turn waits for it.
      const holding = yield* Effect.forkChild(client(S1).Run({ uuid: uuid(1), prompt: "hold" }), { startImmediately: true })
      for (let i = 0; i < 200 && models.length === 0; i++) yield* realSleep
      const waiting = yield* Effect.forkChild(client(S2).Run({ uuid: uuid(2), prompt: "two" }), { startImmediately: true })
      for (let i = 0; i < 20; i++) yield* realSleep
      const setting = yield* Effect.forkChild(client(S2).SetModel({ model: "claude-fake-2" }), { startImmediately: true })
      for (let i = 0; i < 40 && setting.pollUnsafe() === undefined; i++) yield* realSleep
      assert.isDefined(setting.pollUnsafe(), "SetModel waited for the CLI slot")
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holding)
      yield* Fiber.join(waiting)
      assert.deepStrictEqual(models, [undefined, "claude-fake-2"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a Run that joined a Turn of the same uuid is answered with a typed failure when the Turn's reader goes away", () => {
    const gate = Effect.runSync(Deferred.make<void>())
    let userLines = 0
    const transport = FakeCli.layer((cli) => {
      const session = sessionOf(cli.spec.args)
      return FakeCli.conversation({
        sessionId: session.id,
        onControl: (request, cli) => {
          const body = request.request as Record<string, unknown>
          return Effect.andThen(
            cli.emit(FakeCli.success(
              request,
              body.subtype === "cancel_async_message" ? { cancelled: false, message_uuid: body.message_uuid } : {}
            )),
            body.subtype === "interrupt" ? Deferred.succeed(gate, undefined) : Effect.void
          )
        },
        onUser: (_text, _i, cli, message) =>
          Effect.gen(function*() {
            userLines++
            for (const line of FakeCli.textTurn({ sessionId: session.id, text: "partial", userMessageUuid: String(message.uuid) })) {
              if (line.type === "assistant" || line.type === "result") break
              yield* cli.emit(line)
            }
            yield* Effect.forkChild(Effect.andThen(
              Deferred.await(gate),
              cli.emit(FakeCli.result({ sessionId: session.id, subtype: "error_during_execution", terminalReason: "aborted_streaming" }))
            ))
          })
      })(cli)
    })
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const reading = yield* Effect.forkChild(Stream.runCollect(session.Turn({ uuid: uuid(1), prompt: "long" })), { startImmediately: true })
      for (let i = 0; i < 200 && userLines === 0; i++) yield* realSleep
      const waiting = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "long" })), { startImmediately: true })
      for (let i = 0; i < 20; i++) yield* realSleep
      yield* Effect.forkChild(Fiber.interrupt(reading), { startImmediately: true })
      for (let i = 0; i < 100 && waiting.pollUnsafe() === undefined; i++) {
        yield* realSleep
        yield* TestClock.adjust("500 millis")
      }
      const exit = waiting.pollUnsafe()
      assert.isDefined(exit, "the Run is still waiting")
      assert.isTrue(Exit.isSuccess(exit!), "the Run's own fiber was not interrupted")
      assert.strictEqual(Exit.isSuccess(exit!) ? tagOf(exit.value) : "the Run's fiber failed", "TurnCancelled")
    }).pipe(Effect.provide(on(transport, Effect.runSync(SessionStore.makeMemory))))
  })
})

describe("the resume point", () => {
  it("is the conversation's leaf among the clean ends, whichever turn's outcome reached the ledger last", () => {
    const user = (uuid: string, parentUuid: string | null) => ({ type: "user", uuid, parentUuid })
    const assistant = (uuid: string, parentUuid: string) => ({ type: "assistant", uuid, parentUuid })
    const transcript = [
      user("lost", null),
      user("u1", null),
      assistant("a1", "u1"),
      user("u2", "a1"),
      assistant("a2", "u2"),
      user("u3", "a2"),
      assistant("a3", "u3")
    ]
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), ["a1", "a3", "a2"], true), { at: "a3" })
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), ["a1", "a2", "a3"], true), { at: "a3" })
  })
})

/**
 * On a store that stops answering (a connection lost without a reset): the turn ledger's read and
 * its `turn_started` append were not bounded, so `Run` waited forever, and every later call of the
 * session with it (the ledger's read holds a lock). Each is now bounded and the call answered
 * `StoreFailed`, the turn not run; a store that answers again serves the next call.
 */
describe("the session entity on a store that stops answering its ledger", () => {
  /** The memory store, its ledger's `load` or `turn_started` append never answering while `hung`. */
  const hanging = (what: "load" | "append") => {
    const memory = Effect.runSync(SessionStore.makeMemory)
    const state = { hung: true }
    const store = SessionStore.SessionStore.of({
      ...memory,
      load: (key) => what === "load" && key.subpath === "cluster/turns" && state.hung ? Stream.never : memory.load(key),
      append: (key, entries) =>
        what === "append" && key.subpath === "cluster/turns" && state.hung && entries.some((e) => e.type === "turn_started")
          ? Effect.never
          : memory.append(key, entries)
    })
    return { state, store }
  }

  it.effect.each([
    { what: "load" as const, name: "a ledger read that never answers" },
    { what: "append" as const, name: "a turn_started append that never answers" }
  ])("$name: Run is StoreFailed, the turn not run; asked again, it runs once", ({ what }) => {
    const { state, transport } = counting()
    const { state: store, store: service } = hanging(what)
    return Effect.gen(function*() {
      const exit = yield* runWithin5Minutes(1, "p1")
      assert.isDefined(exit, "Run still waiting after 5 minutes")
      assert.strictEqual(typeof exit === "string" ? exit : tagOf(exit!), "StoreFailed")
      assert.strictEqual(state.userLines, 0)
      store.hung = false
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(tagOf(yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "p1" }))), "success")
      assert.strictEqual(state.userLines, 1)
    }).pipe(Effect.provide(on(transport, service)))
  })
})
