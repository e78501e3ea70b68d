/**
 * A CLI that echoes no uuid (2.1.0, 2.1.200) is written one message at a time (it merges the
 * messages queued during a turn into one turn with one result). What that wait must not do:
 * hang a handler the CLI waits for (a `send` from it fails at once; on a CLI that echoes, it is
 * written; from a fiber the handler left behind, it waits), outlast a turn's `turnTimeout`, or
 * let a message through while one the library gave up on still waits on the CLI unstarted (that
 * one is interrupted when it starts, and nothing is written until its result). Found by two
 * reviews of the change that made the wait.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Scheduler from "effect/Scheduler"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"

const SESSION = "f6769afd-6744-4bd6-9ec7-b6b7d6e0965e"
type Line = Record<string, unknown>

/** A line as a CLI that echoes nothing writes it. */
const unechoed = (line: Line): Line => {
  const { user_message_uuid: _u, user_message_uuids: _us, ...rest } = line
  return rest
}

const settle = Effect.gen(function*() {
  for (let i = 0; i < 200; i++) yield* Effect.yieldNow
})

const reasonOf = <A, E>(exit: Exit.Exit<A, E>) => {
  if (Exit.isSuccess(exit)) return undefined
  const error = exit.cause.reasons.find(Cause.isFailReason)?.error
  return ClaudeError.isClaudeError(error) ? error.reason : undefined
}

describe("one message at a time, to a CLI that echoes no uuid", () => {
  for (const echoes of [false, true]) {
    it.effect(`a send from a permission handler the CLI waits for ${echoes ? "is written (the CLI echoes)" : "fails at once, and the CLI gets its answer"}`, () =>
      Effect.gen(function*() {
        const answer = yield* Deferred.make<Line>()
        const users: Array<string> = []
        let session: Claude.Session | undefined
        const sent: Array<Exit.Exit<string, ClaudeError.ClaudeError>> = []
        const layer = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            const a = yield* cli.nextMatching((m) => m.type === "user")
            const lines = FakeCli.textTurn({ sessionId: SESSION, text: "A", userMessageUuid: echoes ? String(a.uuid) : undefined })
            yield* cli.emit(lines[0]!)
            yield* cli.emit({
              type: "control_request",
              request_id: "p1",
              request: { subtype: "can_use_tool", tool_name: "Bash", input: {}, tool_use_id: "toolu_p1" }
            })
            // The answer, and (from the handler, on a CLI that echoes) its message before it.
            while (true) {
              const message = yield* cli.next
              if (message.type === "user") users.push(String((message.message as Line).content))
              if (message.type === "control_response") {
                yield* Deferred.succeed(answer, message.response as Line)
                break
              }
            }
            for (const line of lines.slice(1)) yield* cli.emit(line)
            return yield* Effect.never
          })
        )
        const permissions = Permissions.layer(() =>
          Effect.gen(function*() {
            sent.push(yield* Effect.exit(session!.send("a note from the handler")))
            return Permissions.allow()
          })
        )
        yield* Effect.gen(function*() {
          session = yield* Claude.open()
          const a = yield* session.run("A").pipe(Effect.forkChild)
          const answered = yield* Deferred.await(answer)
          assert.strictEqual((answered.response as Line | undefined)?.behavior, "allow", "the CLI got its answer")
          if (echoes) {
            assert.isTrue(Exit.isSuccess(sent[0]!))
            assert.deepStrictEqual(users, ["a note from the handler"])
          } else {
            assert.strictEqual(reasonOf(sent[0]!)?._tag, "InvalidInput")
            assert.include(reasonOf(sent[0]!)?.message ?? "", "would wait for the turn that waits for the handler")
            assert.deepStrictEqual(users, [])
          }
          assert.strictEqual((yield* Fiber.join(a)).result, "A")
        }).pipe(Effect.provide(Layer.merge(layer, permissions)), Effect.provide(Logger.layer([])))
      }))
  }

  it.live("a send waiting to be written fails with SessionClosed at endInput, not when the running turn ends", () =>
    Effect.gen(function*() {
      // A CLI busy with X that says nothing, and goes on after its input ends (as the real CLI
      // finishes its turn first). FakeCli stops its script at EOF: this one has no script.
      const layer = Layer.succeed(Transport, Transport.of({
        open: () =>
          Effect.succeed({
            pid: undefined,
            incoming: Stream.never,
            stderr: Stream.empty,
            send: () => Effect.void,
            endInput: Effect.void,
            exit: Effect.never
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "50 millis" })
        yield* session.send("X")
        const y = yield* session.send("Y").pipe(Effect.forkChild)
        yield* settle
        assert.isUndefined(y.pollUnsafe(), "Y waits while X runs")
        yield* session.endInput
        yield* settle
        const exit = y.pollUnsafe()
        assert.isDefined(exit, "Y still waits after endInput")
        assert.strictEqual(reasonOf(exit!)?._tag, "SessionClosed")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a run waiting behind a send that never ends fails with TurnTimedOut at its turnTimeout, and is never written", () =>
    Effect.gen(function*() {
      const users: Array<string> = []
      const layer = FakeCli.layer(FakeCli.conversation({
        onUser: (text) => Effect.sync(() => users.push(text)).pipe(Effect.andThen(text === "X" ? Effect.never : Effect.void))
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ turnTimeout: "3 seconds", interruptTimeout: "1 second" })
        yield* session.send("X")
        const y = yield* session.run("Y").pipe(Effect.exit, Effect.forkChild)
        yield* settle
        yield* TestClock.adjust("3 seconds")
        yield* settle
        const exit = yield* Fiber.join(y)
        assert.strictEqual(reasonOf(exit)?._tag, "TurnTimedOut")
        assert.deepStrictEqual(users, ["X"])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a turn given up on before the CLI started it is interrupted when it starts, and nothing is written until its result", () =>
    Effect.gen(function*() {
      const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
      const seen: Array<string> = []
      const startB = yield* Deferred.make<void>()
      const text = (m: Line) => String((m.message as Line).content)
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli, { claude_code_version: undefined })
          seen.push(text(yield* cli.nextMatching((m) => m.type === "user")))
          // B is slow to start, and cannot be withdrawn (no cancel_async_message on 2.1.0).
          const cancel = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.failure(cancel, "Unsupported control request subtype: cancel_async_message"))
          // Whatever is written before B starts would be queued behind it (and merged).
          const early = yield* Effect.raceFirst(
            Effect.map(cli.nextMatching((m) => m.type === "user"), (m) => [`${text(m)} (before B started)`]),
            Effect.as(Deferred.await(startB), [])
          )
          seen.push(...early)
          yield* Deferred.await(startB)
          const b = FakeCli.textTurn({ sessionId: SESSION, text: "reply to B", totalCostUsd: 0.001 }).map(unechoed)
          yield* cli.emit(b[0]!)
          // B runs: the library interrupts it (not C, which must not be written yet).
          const next = yield* cli.nextMatching((m) => m.type === "user" || m.type === "control_request")
          seen.push(next.type === "user" ? `${text(next)} (while B ran)` : String((next.request as Line).subtype))
          if (next.type === "control_request") yield* cli.emit(FakeCli.success(next, {}))
          yield* cli.emit(unechoed(FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" })))
          seen.push(text(yield* cli.nextMatching((m) => m.type === "user")))
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "reply to C", totalCostUsd: 0.002 }).map(unechoed)) {
            yield* cli.emit(line)
          }
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ turnTimeout: "3 seconds", interruptTimeout: "1 second" })
        const b = yield* session.run({ text: "B", uuid: B }).pipe(Effect.exit, Effect.forkChild)
        yield* settle
        yield* TestClock.adjust("3 seconds")
        yield* settle
        yield* TestClock.adjust("2 seconds")
        yield* settle
        assert.strictEqual(reasonOf(yield* Fiber.join(b))?._tag, "TurnTimedOut")
        const c = yield* session.run("C").pipe(Effect.forkChild)
        yield* settle
        yield* Deferred.succeed(startB, undefined)
        assert.strictEqual((yield* Fiber.join(c)).result, "reply to C")
        assert.deepStrictEqual(seen, ["B", "interrupt", "C"])
      }).pipe(Effect.provide(layer), Effect.provide(Logger.layer([])))
    }))

  it.live("a send from a fiber a handler forked, made after the handler answered, waits for the turn (it is not the handler)", () =>
    Effect.gen(function*() {
      const answered = yield* Deferred.make<void>()
      const later = yield* Deferred.make<Exit.Exit<string, ClaudeError.ClaudeError>>()
      const users: Array<string> = []
      let session: Claude.Session | undefined
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli, { claude_code_version: undefined })
          const a = yield* cli.nextMatching((m) => m.type === "user")
          users.push(String((a.message as Line).content))
          const lines = FakeCli.textTurn({ sessionId: SESSION, text: "A" })
          yield* cli.emit(lines[0]!)
          yield* cli.emit({
            type: "control_request",
            request_id: "p1",
            request: { subtype: "can_use_tool", tool_name: "Bash", input: {}, tool_use_id: "toolu_p1" }
          })
          yield* cli.nextMatching((m) => m.type === "control_response")
          yield* Deferred.succeed(answered, undefined)
          // The forked send runs now, while A still runs: it waits for A's result.
          yield* Effect.sleep("50 millis")
          for (const line of lines.slice(1)) yield* cli.emit(line)
          const b = yield* cli.nextMatching((m) => m.type === "user")
          users.push(String((b.message as Line).content))
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "B" })) yield* cli.emit(line)
          return yield* Effect.never
        })
      )
      const permissions = Permissions.layer(() =>
        Effect.gen(function*() {
          // Scheduled for after the answer, in a fiber that outlives the handler.
          yield* Effect.forkDetach(
            Deferred.await(answered).pipe(
              Effect.andThen(Effect.exit(session!.send("follow-up"))),
              Effect.flatMap((exit) => Deferred.succeed(later, exit))
            )
          )
          return Permissions.allow()
        })
      )
      yield* Effect.gen(function*() {
        session = yield* Claude.open()
        assert.strictEqual((yield* session.run("A")).result, "A")
        const exit = yield* Deferred.await(later)
        assert.isTrue(Exit.isSuccess(exit), `the follow-up failed: ${reasonOf(exit)?.message}`)
        yield* Effect.sleep("20 millis")
        assert.deepStrictEqual(users, ["A", "follow-up"])
      }).pipe(Effect.provide(Layer.merge(layer, permissions)), Effect.provide(Logger.layer([])))
    }), { timeout: 10_000 })

  // A writer that yields between its check and its wait (Effect yields a fiber every few
  // operations; here every 3) must still be woken by the result read meanwhile.
  it.live("a send behind another is written once the first ends, however the fiber yields", () =>
    Effect.gen(function*() {
      const hung: Array<number> = []
      for (let k = 0; k < 6; k++) {
        const go = yield* Deferred.make<void>()
        const layer = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli, { claude_code_version: undefined })
            yield* cli.nextMatching((m) => m.type === "user")
            yield* Deferred.await(go)
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "X" }).map(unechoed)) yield* cli.emit(line)
            const y = yield* Effect.exit(cli.nextMatching((m) => m.type === "user"))
            if (y._tag === "Success") {
              for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "Y" }).map(unechoed)) yield* cli.emit(line)
            }
            while ((yield* Effect.exit(cli.next))._tag === "Success") {}
            return 0
          })
        )
        const written = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open()
          yield* session.send("X")
          const y = yield* session.send("Y").pipe(
            Effect.provideService(Scheduler.MaxOpsBeforeYield, 3),
            Effect.forkChild({ startImmediately: true })
          )
          for (let i = 0; i < k; i++) yield* Effect.yieldNow
          yield* Deferred.succeed(go, undefined)
          return yield* Fiber.join(y).pipe(Effect.timeoutOption("300 millis"))
        })).pipe(Effect.provide(layer), Effect.provide(Logger.layer([])))
        if (Option.isNone(written)) hung.push(k)
      }
      assert.deepStrictEqual(hung, [], "sends that never got written")
    }), { timeout: 60000 })
})
