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
import * as FakeCli from "../src/testing/FakeCli.ts"
import { planResume } from "../src/internal/resumePlan.ts"
import * as SessionStoreWiring from "../src/internal/sessionStoreWiring.ts"
import * as SessionStore from "../src/SessionStore.ts"
import { makeTempDir } from "./support/tempDir.ts"

const S1 = "11111111-1111-4111-8111-111111111111"
const S2 = "22222222-2222-4222-8222-222222222222"
const S3 = "33333333-3333-4333-8333-333333333333"
const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`

/**
 * The fake CLI's world: each process knows its session from `--session-id` or `--resume=`, and
 * sees the session's earlier prompts only when resumed (its "transcript", kept here). The answer to
 * the n-th prompt of a transcript is the assistant message `<session>-assistant-<n>`, and
 * `--resume-session-at` with it resumes the transcript cut after that prompt. Counts the
 * processes, the live ones, and the user lines they read.
 */
const makeWorld = () => {
  const transcripts = new Map<string, Array<string>>()
  const spawns: Array<{ readonly sessionId: string; readonly resumed: boolean; readonly model: string | undefined }> = []
  const gates = new Map<string, Deferred.Deferred<void>>()
  const state = { live: 0, peak: 0, userLines: 0 }
  // Each process's `--resume-session-at`, in spawn order.
  const resumedAt: Array<string | undefined> = []
  const transport = FakeCli.layer((cli) =>
    Effect.gen(function*() {
      const args = cli.spec.args
      const resume = args.find((a) => a.startsWith("--resume="))
      const sessionId = resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]!
      const modelArg = args.find((a) => a.startsWith("--model"))
      const model = modelArg === undefined
        ? undefined
        : modelArg.includes("=") ? modelArg.split("=")[1] : args[args.indexOf(modelArg) + 1]
      spawns.push({ sessionId, resumed: resume !== undefined, model })
      // A resumed session has its transcript (cut at `--resume-session-at`); a new one starts empty.
      const at = args.indexOf("--resume-session-at")
      const kept = at === -1 ? undefined : Number(args[at + 1]!.slice(`${sessionId}-assistant-`.length))
      const history = resume !== undefined ? (transcripts.get(sessionId) ?? []).slice(0, kept) : []
      resumedAt.push(at === -1 ? undefined : args[at + 1])
      transcripts.set(sessionId, history)
      state.live++
      state.peak = Math.max(state.peak, state.live)
      return yield* FakeCli.conversation({
        sessionId,
        onControl: (request, cli) => {
          const body = request.request as Record<string, unknown>
          return cli.emit(FakeCli.success(request, body.subtype === "set_model" ? { model: body.model } : {}))
        },
        onUser: (text, _index, cli, message) =>
          Effect.gen(function*() {
            state.userLines++
            const gate = gates.get(text)
            if (gate !== undefined) yield* Deferred.await(gate)
            const reply = `echo: ${text} (after ${history.length} turns)`
            history.push(text)
            for (
              const line of FakeCli.textTurn({
                sessionId,
                text: reply,
                userMessageUuid: typeof message.uuid === "string" ? message.uuid : undefined
              })
            ) yield* cli.emit(line.type === "assistant" ? { ...line, uuid: `${sessionId}-assistant-${history.length}` } : line)
          })
      })(cli).pipe(Effect.ensuring(Effect.sync(() => state.live--)))
    })
  )
  return { transcripts, spawns, gates, state, transport, resumedAt }
}

const cluster = (world: ReturnType<typeof makeWorld>, options: ClaudeSessionEntity.Options = {}) => {
  const memory = Effect.runSync(SessionStore.makeMemory)
  const store = { store: memory, layer: Layer.succeed(SessionStore.SessionStore, memory) }
  return {
    store,
    layer: ClaudeSessionEntity.layer(options).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(world.transport),
      Layer.provide(store.layer)
    )
  }
}

const reasonOf = <A>(exit: Exit.Exit<A, unknown>): string => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const failure = (exit as Exit.Failure<A, unknown>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(failure, "expected a typed failure")
  const error = (failure as unknown as { error: unknown }).error
  assert.isTrue(ClaudeError.isClaudeError(error), `expected a ClaudeError, got ${String(error)}`)
  return (error as ClaudeError.ClaudeError).reason._tag
}

describe("planResume", () => {
  const user = (uuid: string, parentUuid: string | null) => ({ type: "user", uuid, parentUuid })
  const assistant = (uuid: string, parentUuid: string) => ({ type: "assistant", uuid, parentUuid })
  it("no abandoned attempt in the transcript: whole", () => {
    assert.strictEqual(planResume([user("u1", null), assistant("a1", "u1")], new Set(["x"]), ["a1"], true), "whole")
  })
  it("a lost turn after finished ones: at the last finished turn's end", () => {
    const transcript = [user("u1", null), assistant("a1", "u1"), user("lost", "a1"), assistant("partial", "lost")]
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), ["a1"], true), { at: "a1" })
    // No end of the ledger in the transcript: the assistant message before the lost prompt.
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), ["elsewhere"], true), { at: "a1" })
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), [], true), { at: "a1" })
  })
  it("a lost first turn: fresh, unless a turn finished", () => {
    assert.strictEqual(planResume([user("lost", null)], new Set(["lost"]), [], false), "fresh")
    assert.strictEqual(planResume([user("lost", null)], new Set(["lost"]), [], true), "whole")
  })
  it("after a fresh start the transcript holds two roots: resumed at the new conversation's end, never the lost root", () => {
    const transcript = [user("lost", null), user("n1", null), assistant("a1", "n1")]
    assert.deepStrictEqual(planResume(transcript, new Set(["lost"]), ["a1"], true), { at: "a1" })
  })
  it("the latest finished turn's end the transcript holds, not a point before the first abandoned prompt (finished turns after it kept)", () => {
    const transcript = [
      user("u1", null), assistant("a1", "u1"),
      user("l2", "a1"), // abandoned: lost, then run again at a1
      user("t2b", "a1"), assistant("a2", "t2b"),
      user("t3", "a2"), assistant("a3", "t3"),
      user("t4lost", "a3")
    ]
    // The last end ("a4") did not reach this copy: the latest one it holds is a3.
    assert.deepStrictEqual(planResume(transcript, new Set(["l2", "t4lost"]), ["a1", "a2", "a3", "a4"], true), { at: "a3" })
  })
  it("an end whose conversation carries an abandoned attempt is passed over for an earlier clean one", () => {
    const transcript = [
      user("u1", null), assistant("a1", "u1"),
      user("t1", "a1"), assistant("partial", "t1"), // an attempt interrupted on a CLI that stayed open
      user("u2", "partial"), assistant("a2", "u2") // a turn that finished on top of it
    ]
    assert.deepStrictEqual(planResume(transcript, new Set(["t1"]), ["a1", "a2"], true), { at: "a1" })
  })
  it("an unreadable transcript: the ledger's end, else whole after a finished turn, else fresh", () => {
    assert.deepStrictEqual(planResume(undefined, new Set(["lost"]), ["a0", "a1"], true), { at: "a1" })
    assert.strictEqual(planResume(undefined, new Set(["lost"]), [], true), "whole")
    assert.strictEqual(planResume(undefined, new Set(["lost"]), [], false), "fresh")
  })
})

describe("ClaudeSessionEntity", () => {
  it.effect("runs turns on a session addressed by its id, and streams a turn's events", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* session.Run({ uuid: uuid(1), prompt: "hello" })
      assert.strictEqual(first.text, "echo: hello (after 0 turns)")
      assert.strictEqual(first.sessionId, S1)
      assert.strictEqual(first.attempt, 1)
      assert.strictEqual(first.isError, false)
      const events = yield* Stream.runCollect(session.Turn({ uuid: uuid(2), prompt: "again" }))
      const types = events.map((e) => e.type)
      assert.include(types, "assistant")
      assert.strictEqual(types.at(-2), "result")
      const outcome = ClaudeSessionEntity.outcomeOfEvent(events.at(-1)!)
      assert.strictEqual(outcome?.text, "echo: again (after 1 turns)")
      const status = yield* session.Status()
      assert.isTrue(status.live)
      assert.strictEqual(status.opened, 1)
      assert.strictEqual(status.turns, 2)
      assert.deepStrictEqual(world.spawns, [{ sessionId: S1, resumed: false, model: undefined }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a turn is keyed by its uuid: the same uuid again is answered with the recorded outcome, run once", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const first = yield* session.Run({ uuid: uuid(1), prompt: "once" })
      const again = yield* session.Run({ uuid: uuid(1), prompt: "once" })
      assert.deepStrictEqual(again, first)
      // The streaming form with the same uuid streams the recorded outcome only.
      const events = yield* Stream.runCollect(session.Turn({ uuid: uuid(1), prompt: "once" }))
      assert.deepStrictEqual(events.map((e) => e.type), ["turn_outcome"])
      assert.strictEqual(world.state.userLines, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a finished turn in the store's ledger is answered from it, even by a fresh entity (another runner)", () => {
    const world = makeWorld()
    const { layer, store } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const first = yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "kept" })
      // The ledger is in the store, where another runner reads it.
      const ledger = yield* Stream.runCollect(
        store.store.load({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" })
      )
      assert.deepStrictEqual(ledger.map((e) => e.type), ["turn_started", "turn_finished"])
      // A second cluster (a new runner) on the same store: the turn is not run again.
      const world2 = makeWorld()
      const other = ClaudeSessionEntity.layer().pipe(
        Layer.provideMerge(Layer.fresh(TestRunner.layer)),
        Layer.provide(world2.transport),
        Layer.provide(store.layer)
      )
      const again = yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        return yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(1), prompt: "kept" })
      }).pipe(Effect.provide(other))
      assert.strictEqual(again.text, first.text)
      assert.strictEqual(world2.state.userLines, 0)
      assert.strictEqual(world2.spawns.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a turn accepted by a lost runner (no outcome recorded) runs again as attempt 2 on a resumed session", () => {
    const world = makeWorld()
    const { layer, store } = cluster(world)
    return Effect.gen(function*() {
      // What a runner killed mid-turn leaves: one finished turn, one accepted turn with no outcome.
      const key = { projectKey: "cluster", sessionId: S1 }
      world.transcripts.set(S1, ["earlier"])
      yield* store.store.append({ ...key, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1) },
        { type: "turn_finished", uuid: `${uuid(1)}:finished`, turn: uuid(1), outcome: { _tag: "Success", value: {} } },
        { type: "turn_started", uuid: `${uuid(2)}:started:1`, turn: uuid(2) }
      ])
      yield* TestClock.adjust(1)
      const outcome = yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(2), prompt: "lost" })
      assert.strictEqual(outcome.attempt, 2)
      assert.strictEqual(outcome.text, "echo: lost (after 1 turns)")
      assert.deepStrictEqual(world.spawns, [{ sessionId: S1, resumed: true, model: undefined }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a turn run again resumes the CLI at the last finished turn's end: the lost attempt's prompt is not in the history", () => {
    const world = makeWorld()
    const { layer, store } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "first" })
      yield* session.Run({ uuid: uuid(2), prompt: "second" })
      // The ledger recorded where each finished turn ended in the transcript.
      const entries = yield* Stream.runCollect(
        store.store.load({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" })
      )
      assert.deepStrictEqual(
        entries.filter((e) => e.type === "turn_finished").map((e) => e.at),
        [`${S1}-assistant-1`, `${S1}-assistant-2`]
      )
      // A runner that died mid-turn: its CLI wrote the third prompt to the transcript, the
      // ledger has the turn accepted with no outcome.
      yield* store.store.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(3)}:started:1`, turn: uuid(3) }
      ])
      world.transcripts.get(S1)!.push("third")
      // Another runner (a new entity on the same store, its own sharding) runs it again.
      const world2 = makeWorld()
      world2.transcripts.set(S1, world.transcripts.get(S1)!)
      const other = ClaudeSessionEntity.layer().pipe(
        Layer.provideMerge(Layer.fresh(TestRunner.layer)),
        Layer.provide(world2.transport),
        Layer.provide(store.layer)
      )
      const outcome = yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        return yield* (yield* ClaudeSessionEntity.client)(S1).Run({ uuid: uuid(3), prompt: "third" })
      }).pipe(Effect.provide(other))
      assert.strictEqual(outcome.attempt, 2)
      // The model saw "first" and "second" only, not the lost "third" before the new one.
      assert.strictEqual(outcome.text, "echo: third (after 2 turns)")
      assert.deepStrictEqual(world2.resumedAt, [`${S1}-assistant-2`])
    }).pipe(Effect.provide(layer))
  })

  it.effect("with a readable transcript, a turn run again resumes at the assistant message before the lost prompt; a lost first turn starts anew, its local file removed", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-entity-rerun-")
      const sessionOptions = { cwd: dir, env: { CLAUDE_CONFIG_DIR: Path.join(dir, "config") } }
      const where = SessionStoreWiring.locate(sessionOptions.env, dir)
      Fs.mkdirSync(Path.join(where.projectsDir, where.projectKey), { recursive: true })
      const line = (entry: Record<string, unknown>) => JSON.stringify(entry)
      // S1: one finished turn (its answer in two assistant messages, a subagent's between), then
      // the lost attempt's prompt (keyed by the turn's uuid) and a partial answer.
      Fs.writeFileSync(
        Path.join(where.projectsDir, where.projectKey, `${S1}.jsonl`),
        [
          line({ type: "user", uuid: uuid(1), parentUuid: null }),
          line({ type: "assistant", uuid: "a-1", parentUuid: uuid(1) }),
          line({ type: "assistant", uuid: "a-side", parentUuid: "a-1", isSidechain: true }),
          line({ type: "user", uuid: "tool-result", parentUuid: "a-1" }),
          line({ type: "assistant", uuid: "a-2", parentUuid: "tool-result" }),
          line({ type: "user", uuid: uuid(2), parentUuid: "a-2" }),
          line({ type: "assistant", uuid: "partial", parentUuid: uuid(2) }),
          "not json"
        ].join("\n")
      )
      // S2: its first turn was lost, nothing before its prompt.
      Fs.writeFileSync(
        Path.join(where.projectsDir, where.projectKey, `${S2}.jsonl`),
        line({ type: "user", uuid: uuid(3), parentUuid: null })
      )
      const world = makeWorld()
      const { layer, store } = cluster(world, { session: () => sessionOptions })
      yield* store.store.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1) },
        { type: "turn_finished", uuid: `${uuid(1)}:finished`, turn: uuid(1), outcome: { _tag: "Success", value: {} } },
        { type: "turn_started", uuid: `${uuid(2)}:started:1`, turn: uuid(2) }
      ])
      yield* store.store.append({ projectKey: "cluster", sessionId: S2, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(3)}:started:1`, turn: uuid(3) }
      ])
      yield* Effect.gen(function*() {
        yield* TestClock.adjust(1)
        const client = yield* ClaudeSessionEntity.client
        assert.strictEqual((yield* client(S1).Run({ uuid: uuid(2), prompt: "lost" })).attempt, 2)
        assert.strictEqual((yield* client(S2).Run({ uuid: uuid(3), prompt: "lost first" })).attempt, 2)
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(world.resumedAt, ["a-2", undefined])
      assert.deepStrictEqual(world.spawns.map((spawn) => spawn.resumed), [true, false])
      // The lost first attempt's transcript is gone from this CLI's config directory (the CLI
      // refuses a new session whose id has a file).
      assert.isFalse(Fs.existsSync(Path.join(where.projectsDir, where.projectKey, `${S2}.jsonl`)))
    }).pipe(Effect.scoped))

  it.effect("a session with no lost turn resumes at the transcript's end (no --resume-session-at)", () => {
    const world = makeWorld()
    const { layer } = cluster(world, { idleTimeToLive: "1 minute" })
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      yield* TestClock.adjust("2 minutes")
      const next = yield* session.Run({ uuid: uuid(2), prompt: "two" })
      assert.strictEqual(next.text, "echo: two (after 1 turns)")
      assert.deepStrictEqual(world.resumedAt, [undefined, undefined])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a first turn lost with its runner runs again on a new session under its id: its lost prompt is never seen twice", () => {
    const world = makeWorld()
    const { layer, store } = cluster(world)
    return Effect.gen(function*() {
      yield* store.store.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(1)}:started:1`, turn: uuid(1) }
      ])
      yield* TestClock.adjust(1)
      world.transcripts.set(S1, ["lost first"])
      const session = (yield* ClaudeSessionEntity.client)(S1)
      const outcome = yield* session.Run({ uuid: uuid(1), prompt: "lost first" })
      assert.strictEqual(outcome.attempt, 2)
      assert.strictEqual(outcome.text, "echo: lost first (after 0 turns)")
      assert.deepStrictEqual(world.spawns, [{ sessionId: S1, resumed: false, model: undefined }])
      // Reopened later, it resumes at the end of that turn (the transcript may still hold the lost root).
      yield* session.Close()
      const next = yield* session.Run({ uuid: uuid(2), prompt: "next" })
      assert.strictEqual(next.text, "echo: next (after 1 turns)")
      assert.deepStrictEqual(world.resumedAt, [undefined, `${S1}-assistant-1`])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a turn run again while its CLI is still open here reopens the CLI at the last finished turn's end: the abandoned attempt leaves the conversation", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "first" })
      // The second turn's caller goes away before its result: nothing is recorded.
      const gate = yield* Deferred.make<void>()
      world.gates.set("again", gate)
      const reading = yield* Effect.forkChild(Stream.runCollect(session.Turn({ uuid: uuid(2), prompt: "again" })), {
        startImmediately: true
      })
      yield* TestClock.adjust(10)
      yield* Effect.forkChild(Fiber.interrupt(reading), { startImmediately: true })
      yield* TestClock.adjust("15 seconds") // the interrupt's wait for the CLI (interruptTimeout) runs out
      world.gates.delete("again")
      yield* Deferred.succeed(gate, undefined)
      yield* TestClock.adjust(10)
      // The same uuid again: attempt 2, on a CLI reopened without the abandoned attempt.
      const again = yield* session.Run({ uuid: uuid(2), prompt: "again" })
      assert.strictEqual(again.attempt, 2)
      assert.strictEqual(again.text, "echo: again (after 1 turns)")
      assert.deepStrictEqual(world.spawns.map((spawn) => spawn.resumed), [false, true])
      assert.deepStrictEqual(world.resumedAt, [undefined, `${S1}-assistant-1`])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a new turn after an attempt its caller abandoned runs on a reopened CLI too: the model never sees the abandoned prompt", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "first" })
      const gate = yield* Deferred.make<void>()
      world.gates.set("abandoned", gate)
      const reading = yield* Effect.forkChild(Stream.runCollect(session.Turn({ uuid: uuid(2), prompt: "abandoned" })), {
        startImmediately: true
      })
      yield* TestClock.adjust(10)
      yield* Effect.forkChild(Fiber.interrupt(reading), { startImmediately: true })
      yield* TestClock.adjust("15 seconds")
      world.gates.delete("abandoned")
      yield* Deferred.succeed(gate, undefined)
      yield* TestClock.adjust(10)
      // Another turn, its first attempt: not on the CLI that holds the abandoned one (before, it
      // ran there, and a later resume dropped it from the conversation with that attempt).
      const next = yield* session.Run({ uuid: uuid(3), prompt: "next" })
      assert.strictEqual(next.attempt, 1)
      assert.strictEqual(next.text, "echo: next (after 1 turns)")
      assert.deepStrictEqual(world.resumedAt, [undefined, `${S1}-assistant-1`])
    }).pipe(Effect.provide(layer))
  })

  it.effect("with lostTurns: fail, such a turn is answered TurnLost, once, and never run", () => {
    const world = makeWorld()
    const { layer, store } = cluster(world, { lostTurns: "fail" })
    return Effect.gen(function*() {
      yield* store.store.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
        { type: "turn_started", uuid: `${uuid(2)}:started:1`, turn: uuid(2) }
      ])
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(reasonOf(yield* Effect.exit(session.Run({ uuid: uuid(2), prompt: "lost" }))), "TurnLost")
      assert.strictEqual(world.state.userLines, 0)
      // The next turn starts the session anew: the lost first turn's prompt (which its CLI may
      // have written) is not part of the conversation.
      world.transcripts.set(S1, ["lost"])
      const next = yield* session.Run({ uuid: uuid(3), prompt: "next" })
      assert.strictEqual(next.attempt, 1)
      assert.strictEqual(next.text, "echo: next (after 0 turns)")
      assert.isFalse(world.spawns[0]!.resumed)
    }).pipe(Effect.provide(layer))
  })

  it.effect("the CLI is closed after idleTimeToLive and resumed (with its model) when the next message arrives", () => {
    const world = makeWorld()
    const { layer } = cluster(world, { idleTimeToLive: "1 minute" })
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      assert.strictEqual(yield* session.SetModel({ model: "claude-fake-2" }), "claude-fake-2")
      assert.isTrue((yield* session.Status()).live)
      yield* TestClock.adjust("2 minutes")
      const idle = yield* session.Status()
      assert.isFalse(idle.live)
      assert.strictEqual(world.state.live, 0)
      const two = yield* session.Run({ uuid: uuid(2), prompt: "two" })
      assert.strictEqual(two.text, "echo: two (after 1 turns)")
      assert.deepStrictEqual(world.spawns, [
        { sessionId: S1, resumed: false, model: undefined },
        { sessionId: S1, resumed: true, model: "claude-fake-2" }
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("Close ends the CLI; the next turn resumes it", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      yield* session.Run({ uuid: uuid(1), prompt: "one" })
      yield* session.Close()
      yield* TestClock.adjust(1)
      assert.isFalse((yield* session.Status()).live)
      assert.strictEqual(world.state.live, 0)
      yield* session.Run({ uuid: uuid(2), prompt: "two" })
      assert.deepStrictEqual(world.spawns.map((s) => s.resumed), [false, true])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a runner never has more live CLIs than maxLiveSessions: a new session waits for a slot, then takes an idle one's", () => {
    const world = makeWorld()
    const { layer } = cluster(world, { maxLiveSessions: 2, idleTimeToLive: "1 minute" })
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const gate = yield* Deferred.make<void>()
      world.gates.set("hold", gate)
      const client = yield* ClaudeSessionEntity.client
      const running = yield* Effect.forEach(
        [S1, S2, S3],
        (id, i) => Effect.forkChild(client(id).Run({ uuid: uuid(i + 1), prompt: "hold" }), { startImmediately: true })
      )
      yield* TestClock.adjust(10)
      assert.strictEqual(world.spawns.length, 2, "the third session waits")
      assert.strictEqual(world.state.live, 2)
      const live = yield* ClaudeSessionEntity.LiveSessions
      assert.strictEqual(yield* live.live, 2)
      yield* Deferred.succeed(gate, undefined)
      yield* TestClock.adjust(10)
      // The first two answered: the third closed the CLI idle longest and took its slot, long
      // before that CLI's idleTimeToLive.
      const outcomes = yield* Effect.forEach(running, Fiber.join)
      assert.deepStrictEqual(outcomes.map((o) => o.text), [0, 1, 2].map(() => "echo: hold (after 0 turns)"))
      assert.strictEqual(world.spawns.length, 3)
      assert.strictEqual(world.state.peak, 2)
      assert.strictEqual(yield* live.peak, 2)
    }).pipe(Effect.provide(layer))
  })

  /**
   * A CLI that mirrors its transcript (`transcript_mirror` frames before each result, as the real
   * CLI writes them), and a memory store whose appends to the main transcript wait at `gate` or
   * fail while `failing` is set: what a runner's store is while the runner acknowledges a turn.
   */
  const mirroring = (dir: string, storeOptions: { readonly materialize?: boolean } = {}) => {
    const sessionOptions = { cwd: dir, env: { CLAUDE_CONFIG_DIR: Path.join(dir, "config") }, sessionStore: storeOptions }
    const where = SessionStoreWiring.locate(sessionOptions.env, dir)
    const memory = Effect.runSync(SessionStore.makeMemory)
    const control = {
      gate: undefined as Deferred.Deferred<void> | undefined, failing: false, ledgerFailing: false, ledgerHanging: false, userLines: 0
    }
    const store: SessionStore.SessionStore["Service"] = {
      ...memory,
      append: (key, entries) =>
        key.subpath !== undefined
          ? control.ledgerHanging && entries.some((entry) => entry.type === "turn_finished")
            ? Effect.never
            : control.ledgerFailing && entries.some((entry) => entry.type === "turn_finished")
            ? Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "memory", operation: "append", description: "ledger down" })))
            : memory.append(key, entries)
          : Effect.gen(function*() {
            if (control.gate !== undefined) yield* Deferred.await(control.gate)
            if (control.failing) {
              return yield* Effect.fail(ClaudeError.make(new ClaudeError.StoreFailed({ store: "memory", operation: "append", description: "disk full" })))
            }
            return yield* memory.append(key, entries)
          })
    }
    // The uuids of the session's local transcript file as each CLI process found it at its start.
    const atSpawn: Array<ReadonlyArray<string> | undefined> = []
    const transport = FakeCli.layer((cli) => {
      const args = cli.spec.args
      const resume = args.find((a) => a.startsWith("--resume="))
      const sessionId = resume !== undefined ? resume.slice("--resume=".length) : args[args.indexOf("--session-id") + 1]!
      const filePath = Path.join(where.projectsDir, where.projectKey, `${sessionId}.jsonl`)
      atSpawn.push(
        Fs.existsSync(filePath)
          ? Fs.readFileSync(filePath, "utf8").split("\n").filter((line) => line !== "").map((line) => String(JSON.parse(line).uuid))
          : undefined
      )
      return FakeCli.conversation({
        sessionId,
        onUser: (text, index, cli, message) =>
          Effect.gen(function*() {
            control.userLines++
            const userUuid = String(message.uuid)
            yield* cli.emit({
              type: "transcript_mirror",
              filePath,
              entries: [
                { type: "user", uuid: userUuid, message: { role: "user", content: text } },
                { type: "assistant", uuid: `answer-${index}`, parentUuid: userUuid, message: { role: "assistant", content: "ok" } }
              ]
            })
            for (const line of FakeCli.textTurn({ sessionId, text: "ok", userMessageUuid: userUuid })) {
              // "fail": the turn ends with a failed result (the CLI's error_max_turns).
              yield* cli.emit(
                text === "fail" && line.type === "result"
                  ? { ...line, subtype: "error_max_turns", is_error: true, result: undefined }
                  : line.type === "assistant"
                  ? { ...line, uuid: `answer-${index}` } // the transcript entry's uuid, as the real CLI writes it
                  : line
              )
            }
          })
      })(cli)
    })
    const layer = ClaudeSessionEntity.layer({ session: () => sessionOptions }).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provide(transport),
      Layer.provide(Layer.succeed(SessionStore.SessionStore, store))
    )
    const saved = Effect.map(
      Effect.exit(Stream.runCollect(memory.load({ projectKey: where.projectKey, sessionId: S1 }))),
      (exit) => Exit.isSuccess(exit) ? exit.value.map((entry) => String(entry.uuid)) : []
    )
    // Opens the gate whatever happened, so that a failed assertion does not leave the close waiting.
    const release = Effect.suspend(() => control.gate === undefined ? Effect.void : Deferred.succeed(control.gate, undefined))
    return { layer, control, saved, release, atSpawn, store, filePath: Path.join(where.projectsDir, where.projectKey, `${S1}.jsonl`) }
  }

  /**
   * Runs `body` on the entity over a {@link mirroring} world in a fresh directory, after the test
   * clock's first tick; the store's gate is opened on the way out, whatever happened.
   */
  const mirrored = <A, E, R>(
    prefix: string,
    body: (world: ReturnType<typeof mirroring>) => Effect.Effect<A, E, R>,
    storeOptions: { readonly materialize?: boolean } = {}
  ) =>
    Effect.gen(function*() {
      const world = mirroring(yield* makeTempDir(prefix), storeOptions)
      return yield* Effect.andThen(TestClock.adjust(1), body(world)).pipe(
        Effect.ensuring(world.release),
        Effect.provide(world.layer)
      )
    }).pipe(Effect.scoped)

  it.effect("a turn is answered only once its transcript is in the store: Run, Turn and Send's Run wait for the mirror's flush", () =>
    mirrored("ecc-entity-flush-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.gate = yield* Deferred.make<void>()
        const running = yield* Effect.forkChild(session.Run({ uuid: uuid(1), prompt: "one" }), { startImmediately: true })
        yield* TestClock.adjust(10)
        // The CLI answered, but its transcript has not reached the store: no answer yet.
        assert.isUndefined(running.pollUnsafe(), "Run answered before the turn's transcript was in the store")
        assert.deepStrictEqual(yield* world.saved, [])
        yield* Deferred.succeed(world.control.gate, undefined)
        const outcome = yield* Fiber.join(running)
        assert.strictEqual(outcome.text, "ok")
        assert.deepStrictEqual(yield* world.saved, [uuid(1), "answer-0"])

        // The streaming form: the outcome event comes after the flush.
        world.control.gate = yield* Deferred.make<void>()
        const streamed = yield* Effect.forkChild(Stream.runCollect(session.Turn({ uuid: uuid(2), prompt: "two" })), { startImmediately: true })
        yield* TestClock.adjust(10)
        assert.isUndefined(streamed.pollUnsafe(), "Turn ended before the turn's transcript was in the store")
        yield* Deferred.succeed(world.control.gate, undefined)
        const events = yield* Fiber.join(streamed)
        assert.strictEqual(ClaudeSessionEntity.outcomeOfEvent(events.at(-1)!)?.text, "ok")
        assert.deepStrictEqual(yield* world.saved, [uuid(1), "answer-0", uuid(2), "answer-1"])

        // Send answers once the turn is written; a Run with its uuid answers once it is stored.
        world.control.gate = yield* Deferred.make<void>()
        assert.strictEqual(yield* session.Send({ uuid: uuid(3), prompt: "three" }), uuid(3))
        const joined = yield* Effect.forkChild(session.Run({ uuid: uuid(3), prompt: "three" }), { startImmediately: true })
        yield* TestClock.adjust(10)
        assert.isUndefined(joined.pollUnsafe(), "Send's turn answered before its transcript was in the store")
        yield* Deferred.succeed(world.control.gate, undefined)
        const sent = yield* Fiber.join(joined)
        assert.strictEqual(sent.text, "ok")
        assert.strictEqual(sent.attempt, 1, "the sent turn ran to its end once")
        assert.deepStrictEqual((yield* world.saved).slice(4), [uuid(3), "answer-2"])
      })))

  it.effect("resuming a mirrored session, the store's copy replaces the runner's local transcript: its entries the store lacks are appended first, an abandoned attempt's are not", () =>
    mirrored("ecc-entity-stale-", (world) =>
      Effect.gen(function*() {
        // A turn a runner lost (accepted, no outcome), whose attempt will be in the local file only.
        yield* world.store.append({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }, [
          { type: "turn_started", uuid: `${uuid(5)}:started:1`, turn: uuid(5), cli: uuid(5) }
        ])
        const session = (yield* ClaudeSessionEntity.client)(S1)
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        yield* session.Close()
        // The local file: the lost attempt, and an entry a flush never landed.
        Fs.mkdirSync(Path.dirname(world.filePath), { recursive: true })
        Fs.writeFileSync(world.filePath, [
          JSON.stringify({ type: "user", uuid: uuid(1) }),
          JSON.stringify({ type: "assistant", uuid: "answer-0", parentUuid: uuid(1) }),
          JSON.stringify({ type: "attachment", uuid: "unsaved", parentUuid: "answer-0" }),
          JSON.stringify({ type: "summary", summary: "kept too", leafUuid: "unsaved" }),
          JSON.stringify({ type: "user", uuid: uuid(5), parentUuid: "unsaved" }),
          JSON.stringify({ type: "assistant", uuid: "partial", parentUuid: uuid(5) })
        ].join("\n") + "\n")
        yield* session.Run({ uuid: uuid(2), prompt: "two" })
        // The CLI resumed the store's copy, repaired with the unsaved entry; the abandoned attempt stays out.
        // ("undefined": the summary line, which has no uuid, kept too.)
        assert.deepStrictEqual(world.atSpawn, [undefined, [uuid(1), "answer-0", "unsaved", "undefined"]])
      })))

  it.effect("with materialize: false the runner's local transcript is left to the CLI (nothing writes it back)", () =>
    mirrored("ecc-entity-nomaterialize-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        yield* session.Run({ uuid: uuid(1), prompt: "one" })
        yield* session.Close()
        Fs.mkdirSync(Path.dirname(world.filePath), { recursive: true })
        Fs.writeFileSync(world.filePath, JSON.stringify({ type: "user", uuid: uuid(1) }) + "\n")
        yield* session.Run({ uuid: uuid(2), prompt: "two" })
        assert.deepStrictEqual(world.atSpawn, [undefined, [uuid(1)]])
      }), { materialize: false }))

  it.effect("a Turn whose caller stops reading at the result, while the transcript is being stored, is still recorded: the same uuid again is answered, not run again", () =>
    mirrored("ecc-entity-cutoff-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.gate = yield* Deferred.make<void>()
        const reading = yield* Effect.forkChild(
          Stream.runCollect(Stream.takeUntil(session.Turn({ uuid: uuid(1), prompt: "one" }), (e) => e.type === "result")),
          { startImmediately: true }
        )
        yield* TestClock.adjust(10)
        yield* Deferred.succeed(world.control.gate, undefined)
        yield* Fiber.join(reading)
        const again = yield* session.Run({ uuid: uuid(1), prompt: "one" })
        assert.strictEqual(again.attempt, 1)
        assert.strictEqual(world.control.userLines, 1, "the turn ran once")
      })))

  it.effect("a turn that fails after its result is answered once its transcript is stored, and its end recorded only then", () =>
    mirrored("ecc-entity-failed-result-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.gate = yield* Deferred.make<void>()
        const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "fail" })), { startImmediately: true })
        yield* TestClock.adjust(10)
        assert.isUndefined(running.pollUnsafe(), "a failed turn answered before its transcript was in the store")
        yield* Deferred.succeed(world.control.gate, undefined)
        assert.strictEqual(reasonOf(yield* Fiber.join(running)), "LimitReached")
        const ledger = yield* Stream.runCollect(world.store.load({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }))
        assert.deepStrictEqual(ledger.filter((e) => e.type === "turn_finished").map((e) => e.at), ["answer-0"])
        // Not stored: the turn fails as it did, and no end is recorded (the store may not hold it).
        world.control.failing = true
        const failed = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(2), prompt: "fail" })), { startImmediately: true })
        for (let i = 0; i < 30; i++) yield* TestClock.adjust("100 millis")
        assert.strictEqual(reasonOf(yield* Fiber.join(failed)), "LimitReached")
        const after = yield* Stream.runCollect(world.store.load({ projectKey: "cluster", sessionId: S1, subpath: "cluster/turns" }))
        assert.deepStrictEqual(after.filter((e) => e.type === "turn_finished").map((e) => e.at ?? null), ["answer-0", null])
        world.control.failing = false
      })))

  it.effect("a turn whose transcript cannot be saved fails with StoreFailed (recorded as its outcome), never a success", () =>
    mirrored("ecc-entity-flush-fail-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.failing = true
        const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" })), { startImmediately: true })
        // The mirror's retries (200 ms, 800 ms) at the turn's end, then flushStore's own.
        for (let i = 0; i < 30; i++) yield* TestClock.adjust("100 millis")
        const exit = yield* Fiber.join(running)
        assert.strictEqual(reasonOf(exit), "StoreFailed")
        // Answered from the ledger the same way again.
        world.control.failing = false
        assert.strictEqual(reasonOf(yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))), "StoreFailed")
      })))

  it.effect("an outcome the ledger does not take (after 3 tries) is answered StoreFailed, never a success another runner would not know of", () =>
    mirrored("ecc-entity-ledger-down-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.ledgerFailing = true
        const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" })), { startImmediately: true })
        for (let i = 0; i < 20; i++) yield* TestClock.adjust("100 millis")
        assert.strictEqual(reasonOf(yield* Fiber.join(running)), "StoreFailed")
        world.control.ledgerFailing = false
        // Asked again, this entity gives the same answer: the turn is not run a second time.
        assert.strictEqual(reasonOf(yield* Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" }))), "StoreFailed")
        assert.strictEqual(world.control.userLines, 1)
      })))

  it.effect("a ledger that never answers: the outcome is StoreFailed once its tries time out (10 s each), never a hang", () =>
    mirrored("ecc-entity-ledger-hangs-", (world) =>
      Effect.gen(function*() {
        const session = (yield* ClaudeSessionEntity.client)(S1)
        world.control.ledgerHanging = true
        const running = yield* Effect.forkChild(Effect.exit(session.Run({ uuid: uuid(1), prompt: "one" })), { startImmediately: true })
        for (let i = 0; i < 40; i++) yield* TestClock.adjust("1 second")
        assert.strictEqual(reasonOf(yield* Fiber.join(running)), "StoreFailed")
        world.control.ledgerHanging = false
      })))

  it.effect("a uuid that is not a UUID is InvalidInput, and nothing is run", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(reasonOf(yield* Effect.exit(session.Run({ uuid: "nope", prompt: "x" }))), "InvalidInput")
      assert.strictEqual(world.spawns.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a sent turn that outlasts the Send call runs on to its end, once (not cut off when Send answers)", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const gate = yield* Deferred.make<void>()
      world.gates.set("slow", gate)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(yield* session.Send({ uuid: uuid(1), prompt: "slow" }), uuid(1))
      yield* TestClock.adjust(10)
      yield* Deferred.succeed(gate, undefined)
      const outcome = yield* session.Run({ uuid: uuid(1), prompt: "slow" })
      assert.strictEqual(outcome.attempt, 1)
      assert.strictEqual(outcome.text, "echo: slow (after 0 turns)")
      assert.strictEqual(world.state.userLines, 1)
    }).pipe(Effect.provide(layer))
  })

  it.effect("Send returns the uuid once the turn is written; a Run with that uuid answers its outcome", () => {
    const world = makeWorld()
    const { layer } = cluster(world)
    return Effect.gen(function*() {
      yield* TestClock.adjust(1)
      const session = (yield* ClaudeSessionEntity.client)(S1)
      assert.strictEqual(yield* session.Send({ uuid: uuid(1), prompt: "fire" }), uuid(1))
      const outcome = yield* session.Run({ uuid: uuid(1), prompt: "fire" })
      assert.strictEqual(outcome.text, "echo: fire (after 0 turns)")
      assert.strictEqual(world.state.userLines, 1)
    }).pipe(Effect.provide(layer))
  })
})
