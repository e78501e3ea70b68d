import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const error = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(error, "expected a typed failure")
  return (error as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

const requestOf = (message: Record<string, unknown>) => message.request as Record<string, unknown>

/**
 * A CLI whose first turn streams until it is interrupted (`streaming` is done once it streams,
 * `interrupted` once the interrupt was answered), then ends aborted; later turns answer `next`.
 */
const interruptibleFirstTurn = (streaming: Deferred.Deferred<void>, interrupted: Deferred.Deferred<void>) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, index, cli) =>
      index === 0
        ? Effect.gen(function*() {
          const [init, start] = FakeCli.textTurn({ sessionId: SESSION, text })
          yield* cli.emit(init)
          yield* cli.emit(start)
          yield* Deferred.succeed(streaming, undefined)
          let interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          // Interrupted before the library read system/init: it first tries to withdraw the turn.
          if (requestOf(interrupt).subtype === "cancel_async_message") {
            yield* cli.emit(FakeCli.success(interrupt, { cancelled: false }))
            interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
          }
          assert.strictEqual(requestOf(interrupt).subtype, "interrupt")
          yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
          yield* Deferred.succeed(interrupted, undefined)
          yield* cli.emit(FakeCli.result({
            sessionId: SESSION,
            subtype: "error_during_execution",
            terminalReason: "aborted_streaming"
          }))
        })
        : Effect.forEach(FakeCli.textTurn({ sessionId: SESSION, text: "next", totalCostUsd: 0.002 }), cli.emit)
  }))

describe("Session against the in-memory fake CLI", () => {
  it.effect("a turn streams its events and ends with its result; sessionId comes from system/init", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const events = yield* session.turn("hello").pipe(Stream.runCollect)
      const types = events.map((e) => e.type)
      assert.strictEqual(types[0], "system")
      assert.include(types, "stream_event")
      assert.include(types, "assistant")
      assert.strictEqual(types.at(-1), "result")
      const result = events.at(-1) as Claude.TurnResult
      assert.strictEqual(result.result, "echo: hello")
      assert.strictEqual(yield* session.sessionId, SESSION)
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("initialize is written first, before the first user turn, carrying the hook registrations", () =>
    Effect.gen(function*() {
      const seen = yield* Deferred.make<ReadonlyArray<Record<string, unknown>>>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const first = yield* cli.next
          const second = yield* cli.next
          yield* Deferred.succeed(seen, [first, second])
          yield* cli.emit(FakeCli.success(first, {}))
          for (const line of FakeCli.textTurn({ sessionId: SESSION, text: "hi" })) yield* cli.emit(line)
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("go")
        const [first, second] = yield* Deferred.await(seen)
        assert.strictEqual(first!.type, "control_request")
        assert.strictEqual(requestOf(first!).subtype, "initialize")
        assert.deepStrictEqual(requestOf(first!).hooks, {})
        assert.strictEqual(second!.type, "user")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("each result carries its own turn's cost, not the process's running total", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const first = yield* session.run("one")
      const second = yield* session.run("two")
      const third = yield* session.run("three")
      assert.closeTo(first.turn.costUsd, 0.001, 1e-12)
      assert.closeTo(second.turn.costUsd, 0.001, 1e-12)
      assert.closeTo(third.total_cost_usd ?? 0, 0.003, 1e-12)
      assert.closeTo(third.turn.costUsd, 0.001, 1e-12)
      assert.closeTo(third.turn.modelUsage["claude-fake-1"]!.costUSD!, 0.001, 1e-12)
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("concurrent control requests resolve to their own answers, answered out of order", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const a = yield* cli.nextMatching((m) => m.type === "control_request")
          const b = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(b, { model: `resolved-${requestOf(b).model}` }))
          yield* cli.emit(FakeCli.success(a, { model: `resolved-${requestOf(a).model}` }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.initializeResult
        const [a, b] = yield* Effect.all([session.setModel("alpha"), session.setModel("beta")], { concurrency: 2 })
        assert.strictEqual(a, "resolved-alpha")
        assert.strictEqual(b, "resolved-beta")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("an unanswered request times out with a typed error (TestClock)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ controlTimeout: "30 seconds" })
      const fiber = yield* session.mcpStatus().pipe(Effect.exit, Effect.forkChild)
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("2 seconds")
      const reason = reasonOf(yield* Fiber.join(fiber))
      assert.strictEqual(reason._tag, "ControlTimeout")
      assert.strictEqual((reason as ClaudeError.ControlTimeout).subtype, "mcp_status")
    }).pipe(Effect.provide(FakeCli.layer((cli) => FakeCli.answerInitialize(cli).pipe(Effect.andThen(Effect.never))))))

  it.effect("a per-call timeout overrides the session's controlTimeout (TestClock)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ controlTimeout: "1 hour" })
      const fiber = yield* session.setModel("slow", { timeout: "5 seconds" }).pipe(Effect.exit, Effect.forkChild)
      yield* TestClock.adjust("6 seconds")
      const reason = reasonOf(yield* Fiber.join(fiber)) as ClaudeError.ControlTimeout
      assert.strictEqual(reason._tag, "ControlTimeout")
      assert.strictEqual(reason.timeoutMillis, 5000)
    }).pipe(Effect.provide(FakeCli.layer((cli) => FakeCli.answerInitialize(cli).pipe(Effect.andThen(Effect.never))))))

  it.effect("an error answer becomes ControlRejected with the CLI's text and error_code", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const reason = reasonOf(yield* Effect.exit(session.setPermissionMode("default")))
      assert.strictEqual(reason._tag, "ControlRejected")
      assert.strictEqual((reason as ClaudeError.ControlRejected).error, "Cannot set permission mode")
      assert.strictEqual((reason as ClaudeError.ControlRejected).errorCode, "invalid_mode")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      onControl: (request, cli) => cli.emit(FakeCli.failure(request, "Cannot set permission mode", "invalid_mode"))
    })))))

  it.effect("the CLI dying fails pending requests at once with its exit code and stderr", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ controlTimeout: "1 hour" })
      const reason = reasonOf(yield* Effect.exit(session.mcpStatus()))
      assert.strictEqual(reason._tag, "ProcessExited")
      assert.strictEqual((reason as ClaudeError.ProcessExited).exitCode, 2)
      assert.include((reason as ClaudeError.ProcessExited).stderrTail, "fatal: gone")
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* cli.nextMatching((m) => m.type === "control_request")
        yield* cli.stderr("fatal: gone\n")
        return 2
      })
    ))))

  it.effect("a caller interrupted while waiting sends control_cancel_request for its request", () =>
    Effect.gen(function*() {
      const cancelled = yield* Deferred.make<string>()
      const requested = yield* Deferred.make<string>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* Deferred.succeed(requested, String(request.request_id))
          const cancel = yield* cli.nextMatching((m) => m.type === "control_cancel_request")
          yield* Deferred.succeed(cancelled, String(cancel.request_id))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const fiber = yield* Effect.forkChild(session.contextUsage())
        const id = yield* Deferred.await(requested)
        yield* Fiber.interrupt(fiber)
        assert.strictEqual(yield* Deferred.await(cancelled), id)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a failing or dying permission handler answers a deny (fails closed), and the next request still works", () =>
    Effect.gen(function*() {
      const answers = yield* Deferred.make<ReadonlyArray<Record<string, unknown>>>()
      const canUseTool = (id: string, tool: string) => ({
        type: "control_request",
        request_id: id,
        request: { subtype: "can_use_tool", tool_name: tool, input: {}, tool_use_id: `toolu_${id}` }
      })
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const got: Array<Record<string, unknown>> = []
          for (const [id, tool] of [["r1", "mcp__test__fail"], ["r2", "mcp__test__die"], ["r3", "Bash"]] as const) {
            yield* cli.emit(canUseTool(id, tool))
            got.push(yield* cli.nextMatching((m) => m.type === "control_response"))
          }
          yield* cli.emit({ type: "control_request", request_id: "r4", request: { subtype: "brand_new" } })
          got.push(yield* cli.nextMatching((m) => m.type === "control_response"))
          yield* Deferred.succeed(answers, got)
          return yield* Effect.never
        })
      )
      const permissions = Permissions.layer((request) =>
        request.tool_name === "mcp__test__fail"
          ? Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: "no Fail tool" })))
          : request.tool_name === "mcp__test__die"
          ? Effect.die(new Error("boom"))
          : Effect.succeed(Permissions.allow())
      )
      yield* Effect.gen(function*() {
        yield* Claude.open()
        const [fail, die, ok, unknown] = (yield* Deferred.await(answers)).map((m) => m.response as Record<string, unknown>)
        for (const [answer, reason] of [[fail, "no Fail tool"], [die, "boom"]] as const) {
          assert.strictEqual(answer!.subtype, "success")
          const body = answer!.response as Record<string, unknown>
          assert.strictEqual(body.behavior, "deny")
          assert.include(String(body.message), reason)
        }
        assert.strictEqual(ok!.subtype, "success")
        assert.strictEqual((ok!.response as Record<string, unknown>).behavior, "allow")
        assert.strictEqual(unknown!.subtype, "error")
        assert.include(String(unknown!.error), "brand_new")
      }).pipe(Effect.provide(Layer.merge(layer, permissions)))
    }))

  it.effect("control_cancel_request interrupts a handler that would run forever; no answer is written", () =>
    Effect.gen(function*() {
      const finalized = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const outcome = yield* Deferred.make<ReadonlyArray<Record<string, unknown>>>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit({
            type: "control_request",
            request_id: "slow",
            request: { subtype: "can_use_tool", tool_name: "Bash", input: {}, tool_use_id: "toolu_slow" }
          })
          yield* Deferred.await(started)
          yield* cli.emit({ type: "control_cancel_request", request_id: "slow" })
          yield* Deferred.await(finalized)
          // A later request proves the session lives on and shows what was written meanwhile.
          yield* cli.emit({ type: "control_request", request_id: "after", request: { subtype: "nope" } })
          yield* cli.nextMatching((m) => m.type === "control_response")
          yield* Deferred.succeed(outcome, cli.received.filter((m) => m.type === "control_response"))
          return yield* Effect.never
        })
      )
      const permissions = Permissions.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(finalized, undefined))
        )
      )
      yield* Effect.gen(function*() {
        yield* Claude.open()
        const responses = yield* Deferred.await(outcome)
        assert.deepStrictEqual(responses.map((r) => (r.response as Record<string, unknown>).request_id), ["after"])
      }).pipe(Effect.provide(Layer.merge(layer, permissions)))
    }))

  it.effect("a control request is answered while nobody reads events", () =>
    Effect.gen(function*() {
      const answered = yield* Deferred.make<Record<string, unknown>>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          // A flood of events that nobody consumes, then a request.
          for (let i = 0; i < 5000; i++) {
            yield* cli.emit({ type: "system", subtype: "status", status: "requesting", session_id: SESSION, uuid: `u${i}` })
          }
          yield* cli.emit({
            type: "control_request",
            request_id: "p1",
            request: { subtype: "can_use_tool", tool_name: "Bash", input: {}, tool_use_id: "toolu_p1" }
          })
          yield* Deferred.succeed(answered, yield* cli.nextMatching((m) => m.type === "control_response"))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        // A subscriber that never reads.
        yield* session.events.pipe(Stream.take(1), Stream.runDrain, Effect.andThen(Effect.never), Effect.forkChild)
        const answer = yield* Deferred.await(answered)
        assert.strictEqual((answer.response as Record<string, unknown>).subtype, "success")
      }).pipe(Effect.provide(Layer.merge(layer, Permissions.layer(() => Effect.succeed(Permissions.allow())))))
    }))

  it.effect("a pull of session.events still waiting when its subscription's scope closes is interrupted, not left hanging", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const scope = yield* Scope.make()
      const pull = yield* Scope.provide(Stream.toPull(session.events), scope)
      const waiting = yield* Effect.forkChild(pull)
      yield* Effect.yieldNow
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(waiting)
      assert.isTrue(Exit.hasInterrupts(exit), String(exit))
      // The session goes on, and a new reader gets the next turn's events.
      const next = yield* session.events.pipe(Stream.takeUntil((e) => e.type === "result"), Stream.runCollect, Effect.forkChild)
      yield* Effect.yieldNow
      yield* session.run("again")
      assert.strictEqual((yield* Fiber.join(next)).at(-1)?.type, "result")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("interrupting the consumer of a turn sends interrupt, waits for its result, and the next turn works", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const streaming = yield* Deferred.make<void>()
      const layer = interruptibleFirstTurn(streaming, interrupted)
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const fiber = yield* session.turn("first").pipe(Stream.runDrain, Effect.forkChild)
        yield* Deferred.await(streaming)
        yield* Fiber.interrupt(fiber)
        // Fiber.interrupt returns after the turn's finalizer: the interrupt was answered by then.
        assert.isTrue(yield* Deferred.isDone(interrupted))
        const next = yield* session.run("again")
        assert.strictEqual(next.result, "next")
        assert.strictEqual(next.subtype, "success")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("session.interrupt interrupts the running turn explicitly: its stream ends with the aborted result", () =>
    Effect.gen(function*() {
      const streaming = yield* Deferred.make<void>()
      const layer = interruptibleFirstTurn(streaming, yield* Deferred.make<void>())
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const fiber = yield* session.turn("first").pipe(Stream.runCollect, Effect.forkChild)
        yield* Deferred.await(streaming)
        yield* session.interrupt
        const events = yield* Fiber.join(fiber)
        const last = events.at(-1) as Claude.TurnResult
        assert.strictEqual(last.type, "result")
        assert.strictEqual(last.terminal_reason, "aborted_streaming")
        assert.strictEqual((yield* session.run("again")).result, "next")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a user turn the CLI would refuse is a typed InvalidInput, and nothing is written", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const badImage = yield* Effect.exit(session.send({ text: "x", images: [{ mediaType: "image/bmp" as "image/png", data: "AAAA" }] }))
      assert.strictEqual(reasonOf(badImage)._tag, "InvalidInput")
      const badData = yield* Effect.exit(session.send({ text: "x", images: [{ mediaType: "image/png", data: "not base64!" }] }))
      assert.include((reasonOf(badData) as ClaudeError.InvalidInput).description, "base64")
      const badUuid = yield* Effect.exit(session.send({ text: "x", uuid: "nope" }))
      assert.strictEqual(reasonOf(badUuid)._tag, "InvalidInput")
      const ok = yield* session.run({ text: "with image", images: [{ mediaType: "image/png", data: "iVBORw0KGgo=" }] })
      assert.strictEqual(ok.result, "echo: with image")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("a user turn under the uuid of a turn that has not ended is a typed InvalidInput, and nothing is written", () => {
    const uuid = "6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f"
    const users: Array<unknown> = []
    const seen = Deferred.makeUnsafe<void>()
    return Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "50 millis" })
      yield* session.send({ text: "first", uuid })
      const again = yield* Effect.exit(session.send({ text: "second", uuid }))
      assert.strictEqual(reasonOf(again)._tag, "InvalidInput")
      assert.include((reasonOf(again) as ClaudeError.InvalidInput).description, uuid)
      const other = yield* session.send({ text: "third" })
      assert.notStrictEqual(other, uuid)
      yield* Deferred.await(seen)
      assert.deepStrictEqual(users.map((m) => (m as { message: { content: unknown } }).message.content), ["first", "third"])
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        // The first turn never ends: it stays open. Its init echoes its uuid, as CLI 2.1.332 does
        // (a CLI that echoes none gets no second message while a turn of the session is open).
        users.push(yield* cli.nextMatching((m) => m.type === "user"))
        yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "x", userMessageUuid: uuid })[0])
        users.push(yield* cli.nextMatching((m) => m.type === "user"))
        yield* Deferred.succeed(seen, undefined)
        return yield* Effect.never
      })
    )))
  })

  it.effect("the CLI exiting mid-turn fails the turn at once with its exit code and stderr tail", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const exit = yield* session.turn("crash").pipe(Stream.runDrain, Effect.exit)
      const reason = reasonOf(exit) as ClaudeError.ProcessExited
      assert.strictEqual(reason._tag, "ProcessExited")
      assert.strictEqual(reason.exitCode, 3)
      assert.include(reason.stderrTail, "simulated crash")
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* cli.nextMatching((m) => m.type === "user")
        yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "x" })[0])
        yield* cli.stderr("fatal: simulated crash\n")
        return 3
      })
    ))))

  it.effect("garbage lines are skipped, an over-cap line is a protocol problem, and the session goes on", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 1000 })
      const events = yield* session.turn("x").pipe(Stream.runCollect)
      const problems = events.filter((e): e is Claude.ProtocolProblem => e.type === "protocol_problem")
      assert.strictEqual(problems.length, 2)
      assert.include(problems[0]!.error.description, "over the cap")
      assert.include(problems[1]!.error.line, "\"oops\":true")
      assert.strictEqual(problems[1]!.messageType, "assistant")
      assert.strictEqual(events.at(-1)!.type, "result")
      assert.strictEqual((yield* session.run("y")).result, "y2")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli) =>
        Effect.gen(function*() {
          const lines = FakeCli.textTurn({ sessionId: SESSION, text: `${text}2` })
          yield* cli.emitRaw("this is not json\n{\"truncated\":\n")
          yield* cli.emit(lines[0])
          yield* cli.emit({ type: "assistant", message: { content: [{ type: "text", text: "z".repeat(5000) }] } })
          yield* cli.emit({ type: "assistant", oops: true })
          for (const line of lines.slice(1)) yield* cli.emit(line)
        })
    })))))

  it.effect("a result that breaks its schema ends the turn with a typed error, never a hang", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const exit = yield* session.turn("x").pipe(Stream.runDrain, Effect.exit)
      const reason = reasonOf(exit) as ClaudeError.ProtocolViolation
      assert.strictEqual(reason._tag, "ProtocolViolation")
      assert.include(reason.line, "\"num_turns\":\"many\"")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli) =>
        Effect.gen(function*() {
          const lines = FakeCli.textTurn({ sessionId: SESSION, text })
          for (const line of lines.slice(0, -1)) yield* cli.emit(line)
          yield* cli.emit({ ...lines.at(-1)!, num_turns: "many" })
        })
    })))))

  it.effect("the stall watchdog fails a turn when the CLI writes nothing for the configured time (TestClock)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ stallTimeout: "30 seconds", interruptTimeout: "5 seconds" })
      const fiber = yield* session.turn("hang").pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("2 seconds")
      // The stalled turn is then interrupted on the CLI, which waits at most interruptTimeout.
      for (let i = 0; i < 30 && fiber.pollUnsafe() === undefined; i++) {
        yield* TestClock.adjust("1 second")
        yield* Effect.sleep(0).pipe(TestClock.withLive)
      }
      const reason = reasonOf(yield* Fiber.join(fiber)) as ClaudeError.Stalled
      assert.strictEqual(reason._tag, "Stalled")
      assert.isAtLeast(reason.idleMillis, 30_000)
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, _index, cli) => cli.emit(FakeCli.textTurn({ sessionId: SESSION, text })[0])
    })))))

  it.effect("send after the session closed is a typed error; nothing is written after EOF", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      yield* session.run("one")
      yield* session.endInput
      const reason = reasonOf(yield* Effect.exit(session.send("late")))
      assert.strictEqual(reason._tag, "SessionClosed")
      const status = yield* session.exit
      assert.strictEqual(status.code, 0)
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("a control_response with an unknown request_id is dropped", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const model = yield* session.setModel("haiku")
      assert.strictEqual(model, "claude-haiku-fake")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      onControl: (request, cli) =>
        Effect.gen(function*() {
          yield* cli.emit({ type: "control_response", response: { subtype: "success", request_id: "nobody", response: {} } })
          yield* cli.emit(FakeCli.success(request, { model: "claude-haiku-fake" }))
        })
    })))))

  it.effect("a generic request decodes its answer with the caller's schema", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const answer = yield* session.request({ subtype: "future_thing", x: 1 }, Schema.Struct({ ok: Schema.Boolean }))
      assert.isTrue(answer.ok)
      const bad = yield* Effect.exit(session.request({ subtype: "future_thing" }, Schema.Struct({ ok: Schema.String })))
      assert.strictEqual(reasonOf(bad)._tag, "ProtocolViolation")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      onControl: (request, cli) => cli.emit(FakeCli.success(request, { ok: true }))
    })))))

  it.effect("a transcript recorder that is a class instance is called as its method, both ways", () =>
    Effect.gen(function*() {
      class ClassRecorder implements Claude.Recorder {
        readonly lines: Array<string> = []
        record(direction: "send" | "recv", message: unknown) {
          this.lines.push(`${direction} ${(message as { type: string }).type}`)
        }
      }
      const recorder = new ClassRecorder()
      const session = yield* Claude.open({ transcript: recorder })
      yield* session.run("hello")
      assert.deepStrictEqual(recorder.lines.filter((line) => line.startsWith("send")), [
        "send control_request",
        "send user"
      ])
      assert.include(recorder.lines, "recv result")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))
})

describe("handing events to consumers", () => {
  const textTurn = FakeCli.textTurn({ sessionId: SESSION, text: "hello" })

  /**
   * A transport whose stdout is two chunks read back to back, with no wait between them (as
   * when the pipe holds more than one read), once the user turn is written. It exits at stdin EOF.
   */
  const twoChunks = (first: ReadonlyArray<object>, second: ReadonlyArray<object>) =>
    Layer.succeed(Transport, {
      open: () =>
        Effect.gen(function*() {
          const userSent = yield* Deferred.make<void>()
          const inputEnded = yield* Deferred.make<void>()
          const bytes = (messages: ReadonlyArray<object>) =>
            new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join(""))
          return {
            pid: undefined,
            incoming: Stream.fromEffectDrain(Deferred.await(userSent)).pipe(
              Stream.concat(Stream.make(bytes(first))),
              Stream.concat(Stream.make(bytes(second))),
              Stream.concat(Stream.fromEffectDrain(Deferred.await(inputEnded)))
            ),
            send: (line: string) =>
              (JSON.parse(line) as { readonly type?: unknown }).type === "user"
                ? Effect.asVoid(Deferred.succeed(userSent, undefined))
                : Effect.void,
            stderr: Stream.empty,
            endInput: Effect.asVoid(Deferred.succeed(inputEnded, undefined)),
            exit: Effect.as(Deferred.await(inputEnded), { code: 0, signal: null, stderrTail: "" })
          }
        })
    })

  it.effect("a waiting consumer gets each read's events before the next read is decoded", () =>
    Effect.gen(function*() {
      // The reader records each line it decodes (`recv`); the consumer records each event it gets.
      const log: Array<string> = []
      const session = yield* Claude.open({
        transcript: { record: (direction, message) => log.push(`${direction} ${(message as { type: string }).type}`) }
      })
      yield* session.turn("hi").pipe(Stream.runForEach((event) => Effect.sync(() => log.push(`event ${event.type}`))))
      assert.deepStrictEqual(log.filter((entry) => !entry.startsWith("send")), [
        "recv system",
        "recv assistant",
        "event system",
        "event assistant",
        "recv result",
        "event result"
      ])
    }).pipe(Effect.provide(twoChunks(
      textTurn.filter((m) => m.type !== "result" && m.type !== "stream_event"),
      textTurn.filter((m) => m.type === "result")
    ))))
})
