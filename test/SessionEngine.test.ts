/**
 * Issue 13, defects 2–8: the session engine's reader, control channel, deadlines, handler scopes
 * and spans, how `events` ends, per-turn usage, and the reason of a dead CLI. Each test was run
 * against the engine before the fix (commit 1d0b9fe) and failed there. They run on `FakeCli`
 * scripts shaped as the real CLI 2.1.332 writes; the close deadline on a real process is
 * test/SessionEngineLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
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
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Replay from "../src/testing/Replay.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

type Line = Record<string, unknown>

const requestOf = (message: Line) => message.request as Line
const responseOf = (message: Line) => message.response as Line

/** The reason of a failed exit (fails the test when the exit is a success or not a typed failure). */
const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure, got a success")
  const error = Cause.findErrorOption(exit.cause)
  if (Option.isNone(error)) return assert.fail(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return error.value.reason
}

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, cli.emit, { discard: true })

/** Lets every fiber that can run do so (no clock involved). */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

const canUseTool = (requestId: unknown, toolUseId?: string): Line => ({
  type: "control_request",
  request_id: requestId,
  request: {
    subtype: "can_use_tool",
    tool_name: "Bash",
    input: { command: "ls" },
    ...(toolUseId === undefined ? {} : { tool_use_id: toolUseId })
  }
})

/**
 * A CLI whose first turn starts (its `system/init` and `message_start`, echoing the message's
 * uuid) and then never ends: it writes nothing more and answers no control request. `started`
 * is done once the turn's first lines are written; `handle` gets the script's handle.
 */
const stalledCli = (started: Deferred.Deferred<void>, handle?: Deferred.Deferred<FakeCli.FakeCliHandle>) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      if (handle !== undefined) yield* Deferred.succeed(handle, cli)
      yield* FakeCli.answerInitialize(cli)
      const user = yield* cli.nextMatching((m) => m.type === "user")
      const uuid = typeof user.uuid === "string" ? user.uuid : undefined
      const lines = FakeCli.textTurn({ sessionId: SESSION, text: "never finished", userMessageUuid: uuid })
      yield* cli.emit(lines[0])
      yield* cli.emit(lines[1])
      yield* Deferred.succeed(started, undefined)
      return yield* Effect.never
    })
  )

describe("issue 13, defect 2: a control_cancel_request never blocks the reader", () => {
  it.effect("cancelling a handler whose clean-up takes 2 s delays neither the next event nor the next answer (TestClock)", () =>
    Effect.gen(function*() {
      const handlerStarted = yield* Deferred.make<void>()
      const cleanedUp = yield* Deferred.make<void>()
      const answered = yield* Deferred.make<Line>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.emit(canUseTool("slow", "toolu_slow"))
          yield* Deferred.await(handlerStarted)
          yield* cli.emit({ type: "control_cancel_request", request_id: "slow" })
          yield* cli.emit({ type: "system", subtype: "status", status: "requesting", session_id: SESSION, uuid: "after-cancel" })
          yield* cli.emit(canUseTool("next", "toolu_next"))
          yield* Deferred.succeed(answered, yield* cli.nextMatching((m) => m.type === "control_response"))
          return yield* Effect.never
        })
      )
      // The clean-up sleeps 2 s on the test clock, which nobody moves: it cannot end during the test.
      const permissions = Permissions.layer((request) =>
        request.tool_use_id === "toolu_slow"
          ? Deferred.succeed(handlerStarted, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Effect.andThen(Effect.sleep("2 seconds"), Deferred.succeed(cleanedUp, undefined)))
          )
          : Effect.succeed(Permissions.allow())
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const seen = yield* Deferred.make<void>()
        yield* session.events.pipe(
          Stream.filter((e) => e.type === "system" && e.uuid === "after-cancel"),
          Stream.runHead,
          Effect.andThen(Deferred.succeed(seen, undefined)),
          Effect.forkScoped({ startImmediately: true })
        )
        // Both come while the cancelled handler's clean-up is still running: had the reader waited
        // for it, neither would ever come (and the test would time out).
        const answer = yield* Deferred.await(answered)
        yield* Deferred.await(seen)
        assert.isFalse(yield* Deferred.isDone(cleanedUp), "the clean-up ended: the clock moved")
        assert.strictEqual(responseOf(answer).request_id, "next")
        assert.strictEqual((responseOf(answer).response as Line).behavior, "allow")
        // The clean-up does run to its end once its 2 s pass (and the session can then close).
        yield* TestClock.adjust("2 seconds")
        yield* Deferred.await(cleanedUp)
      }).pipe(Effect.provide(Layer.merge(layer, permissions)))
    }))
})

describe("issue 13, defect 3: every control request gets exactly one answer", () => {
  it.live("a request that breaks its schema gets one error answer; an unknown subtype gets unsupported_request", () =>
    Effect.gen(function*() {
      const allAnswered = yield* Deferred.make<void>()
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      const ids: ReadonlyArray<unknown> = ["no-tool-use-id", 42, "unknown-subtype", "valid"]
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(handle, cli)
          yield* FakeCli.answerInitialize(cli)
          // A can_use_tool without tool_use_id (as a later CLI might send), one whose request_id
          // is not a string, a subtype the library does not know, and a valid one.
          yield* cli.emit(canUseTool("no-tool-use-id"))
          yield* cli.emit(canUseTool(42, "toolu_42"))
          yield* cli.emit({ type: "control_request", request_id: "unknown-subtype", request: { subtype: "brand_new" } })
          yield* cli.emit(canUseTool("valid", "toolu_valid"))
          const seen = new Set<unknown>()
          while (ids.some((id) => !seen.has(id))) {
            const answer = yield* cli.nextMatching((m) => m.type === "control_response")
            seen.add(responseOf(answer).request_id)
          }
          yield* Deferred.succeed(allAnswered, undefined)
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        yield* Claude.open()
        // Bounded, so that a request left unanswered fails the test instead of hanging it.
        yield* Deferred.await(allAnswered).pipe(Effect.timeoutOption("2 seconds"))
        // Time for a second (wrong) answer to any of them to be written.
        yield* Effect.sleep("100 millis")
        const answers = (yield* Deferred.await(handle)).received
          .filter((m) => m.type === "control_response")
          .map(responseOf)
        const to = (id: unknown) => answers.filter((a) => a.request_id === id)
        for (const id of ids) assert.strictEqual(to(id).length, 1, `answers to ${String(id)}`)
        assert.strictEqual(to("no-tool-use-id")[0]!.subtype, "error")
        assert.include(String(to("no-tool-use-id")[0]!.error), "tool_use_id")
        assert.strictEqual(to(42)[0]!.subtype, "error")
        assert.strictEqual(to("unknown-subtype")[0]!.subtype, "error")
        assert.strictEqual(to("unknown-subtype")[0]!.error_code, "unsupported_request")
        assert.strictEqual(to("unknown-subtype")[0]!.error, "Unsupported control request subtype: brand_new")
        assert.strictEqual(to("valid")[0]!.subtype, "success")
      }).pipe(Effect.provide(Layer.merge(layer, Permissions.layer(() => Effect.succeed(Permissions.allow())))))
    }))
})

describe("issue 13, defect 4: deadlines compose", () => {
  it.effect("interruptTimeout bounds the whole interrupt when the CLI never answers it (TestClock)", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "5 seconds", controlTimeout: "1 hour" })
        const turn = yield* session.turn("hang").pipe(Stream.runDrain, Effect.forkChild)
        yield* Deferred.await(started)
        yield* settle
        const interrupting = yield* Effect.forkChild(Fiber.interrupt(turn))
        yield* settle
        yield* TestClock.adjust("4 seconds")
        yield* settle
        assert.isUndefined(interrupting.pollUnsafe(), "the interrupt ended before interruptTimeout")
        yield* TestClock.adjust("2 seconds")
        yield* settle
        assert.isDefined(interrupting.pollUnsafe(), "the interrupt outlived interruptTimeout")
      }).pipe(Effect.provide(stalledCli(started)))
    }))

  it.live("a turn waiting for the turn lock can be interrupted, and is never written", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ interruptTimeout: "100 millis" })
        yield* session.turn("first").pipe(Stream.runDrain, Effect.forkScoped)
        yield* Deferred.await(started)
        const waiting = yield* session.run("second").pipe(Effect.forkChild)
        yield* Effect.sleep("50 millis")
        assert.isUndefined(waiting.pollUnsafe())
        const interrupted = yield* Fiber.interrupt(waiting).pipe(Effect.timeoutOption("2 seconds"))
        assert.isTrue(Option.isSome(interrupted), "interrupting a turn that waits for the lock did not return")
        const users = (yield* Deferred.await(handle)).received.filter((m) => m.type === "user")
        assert.strictEqual(users.length, 1)
      }).pipe(Effect.provide(stalledCli(started, handle)))
    }))

  it.effect("a control request that times out is cancelled on the wire (TestClock)", () =>
    Effect.gen(function*() {
      const handle = yield* Deferred.make<FakeCli.FakeCliHandle>()
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* Deferred.succeed(handle, cli)
          yield* FakeCli.answerInitialize(cli)
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const fiber = yield* session.setModel("slow", { timeout: "5 seconds" }).pipe(Effect.exit, Effect.forkChild)
        yield* settle
        yield* TestClock.adjust("6 seconds")
        assert.strictEqual(reasonOf(yield* Fiber.join(fiber))._tag, "ControlTimeout")
        yield* settle
        const received = (yield* Deferred.await(handle)).received
        const setModel = received.find((m) => m.type === "control_request" && requestOf(m).subtype === "set_model")
        assert.isDefined(setModel)
        const cancels = received.filter((m) => m.type === "control_cancel_request")
        assert.deepStrictEqual(cancels.map((m) => m.request_id), [setModel!.request_id])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("stallTimeout fails the turn at stallTimeout, even when the CLI then ignores the interrupt (TestClock)", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ stallTimeout: "30 seconds", interruptTimeout: "10 seconds" })
        const fiber = yield* session.turn("hang").pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
        yield* Deferred.await(started)
        yield* settle
        yield* TestClock.adjust("29 seconds")
        yield* settle
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1500 millis")
        yield* settle
        const exit = fiber.pollUnsafe()
        assert.isDefined(exit, "the stalled turn did not fail at stallTimeout")
        const reason = reasonOf(yield* Fiber.join(fiber)) as ClaudeError.Stalled
        assert.strictEqual(reason._tag, "Stalled")
        assert.isAtLeast(reason.idleMillis, 30_000)
      }).pipe(Effect.provide(stalledCli(started)))
    }))

})

describe("issue 13, defect 5: a scope and a span per handler call", () => {
  /** The names of the spans from the current one up to the root. */
  const spanChain = Effect.gen(function*() {
    const chain: Array<string> = []
    let span: Tracer.AnySpan | undefined = yield* Effect.orElseSucceed(Effect.currentSpan, () => undefined)
    while (span !== undefined) {
      chain.push(span._tag === "Span" ? span.name : "external")
      span = span._tag === "Span" ? Option.getOrUndefined(span.parent) : undefined
    }
    return chain
  })

  /**
   * A CLI whose turn, before its result, sends `request` and waits for the answer (as the real
   * CLI does with a Stop hook, a tool permission or an MCP tool call); `answered` gets it.
   */
  const turnWithRequest = (request: Line, answered: Deferred.Deferred<Line>) =>
    FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        while (true) {
          const user = yield* cli.nextMatching((m) => m.type === "user")
          const lines = FakeCli.textTurn({ sessionId: SESSION, text: "Hello.", userMessageUuid: String(user.uuid) })
          yield* emitAll(cli, lines.slice(0, -1))
          yield* cli.emit(request)
          yield* Deferred.succeed(answered, yield* cli.nextMatching((m) => m.type === "control_response"))
          yield* cli.emit(lines.at(-1))
        }
      })
    )

  const stopInput = {
    session_id: SESSION,
    transcript_path: `/srv/home/.claude/projects/fake/${SESSION}.jsonl`,
    cwd: "/fake",
    permission_mode: "bypassPermissions",
    hook_event_name: "Stop",
    stop_hook_active: false,
    last_assistant_message: "Hello."
  }

  /**
   * Runs a turn during which the CLI sends `request`, served by the handler that `layer` builds
   * around `call` (which adds a finalizer and records its span chain).
   */
  const checkHandler = <ROut>(
    request: Line,
    layer: (call: Effect.Effect<void, never, Scope.Scope>) => Layer.Layer<ROut, ClaudeError.ClaudeError, Scope.Scope>
  ) =>
    Effect.gen(function*() {
      const finalized: Array<string> = []
      const spans: Array<ReadonlyArray<string>> = []
      const answered = yield* Deferred.make<Line>()
      const call = Effect.gen(function*() {
        yield* Effect.addFinalizer(() => Effect.sync(() => finalized.push("call")))
        spans.push(yield* spanChain)
      })
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const result = yield* session.run("hi").pipe(Effect.withSpan("the-program"))
        assert.strictEqual(result.result, "Hello.")
        const answer = responseOf(yield* Deferred.await(answered))
        assert.strictEqual(answer.subtype, "success")
        // The call's scope closed with the call, not with the session (still open here).
        assert.deepStrictEqual(finalized, ["call"])
        assert.strictEqual(spans.length, 1)
        const chain = spans[0]!
        assert.include(chain, "claude.turn", `the handler's spans: ${chain.join(" < ")}`)
        assert.include(chain, "the-program")
        assert.notInclude(chain, "Claude.open", `the handler's spans: ${chain.join(" < ")}`)
      }).pipe(Effect.provide(Layer.merge(turnWithRequest(request, answered), layer(call))))
    })

  it.effect("a hook handler's finalizer runs when its call ends; its span is a child of the turn's, not of Claude.open's", () =>
    checkHandler(
      {
        type: "control_request",
        request_id: "call-1",
        request: { subtype: "hook_callback", callback_id: "hook_0", input: stopInput, tool_use_id: "t1" }
      },
      (call) => Hooks.layer(Hooks.on("Stop", () => Effect.as(call, Hooks.allow())))
    ))

  it.effect("a permission handler's finalizer runs when its call ends; its span is a child of the turn's", () =>
    checkHandler(canUseTool("call-1", "toolu_1"), (call) => Permissions.layer(() => Effect.as(call, Permissions.allow()))))

  it.effect("an MCP tool handler's finalizer runs when its call ends; its span is a child of the turn's", () =>
    checkHandler(
      {
        type: "control_request",
        request_id: "call-1",
        request: {
          subtype: "mcp_message",
          server_name: "byre",
          message: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }
        }
      },
      (call) =>
        McpServers.layer(McpServers.server("byre", {
          tools: [McpServers.tool({
            name: "echo",
            description: "Echo the given text back.",
            input: Schema.Struct({ text: Schema.String }),
            handler: ({ text }) => Effect.as(call, `echo: ${text}`)
          })]
        }))
    ))
})

describe("issue 13, defect 6: session.events says how the session ended", () => {
  it.effect("events fails with ProcessExited when the CLI dies by itself", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "x" })[0])
          yield* cli.stderr("fatal: simulated crash\n")
          return 3
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const events = yield* session.events.pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
        yield* settle
        yield* session.send("crash")
        const reason = reasonOf(yield* Fiber.join(events)) as ClaudeError.ProcessExited
        assert.strictEqual(reason._tag, "ProcessExited")
        assert.strictEqual(reason.exitCode, 3)
        assert.include(reason.stderrTail, "simulated crash")
      }).pipe(Effect.provide(layer))
    }))

  it.effect("events fails with ReplayMismatch when the program strays from the transcript", () =>
    Effect.gen(function*() {
      const initialize = { type: "control_request", request_id: "r1", request: { subtype: "initialize", hooks: {} } }
      const lines = [
        { dir: "send" as const, msg: initialize },
        { dir: "recv" as const, msg: FakeCli.success(initialize, { commands: [], models: [] }) },
        {
          dir: "send" as const,
          msg: { type: "user", message: { role: "user", content: "recorded prompt" }, parent_tool_use_id: null, session_id: "" }
        },
        ...FakeCli.textTurn({ sessionId: SESSION, text: "recorded" }).map((msg) => ({ dir: "recv" as const, msg }))
      ]
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const events = yield* session.events.pipe(Stream.runDrain, Effect.exit, Effect.forkChild)
        yield* settle
        yield* Effect.exit(session.send("another prompt"))
        const reason = reasonOf(yield* Fiber.join(events))
        assert.strictEqual(reason._tag, "ReplayMismatch")
      }).pipe(Effect.provide(Replay.layer(lines)))
    }))

  it.effect("events ends cleanly after endInput", () =>
    Effect.gen(function*() {
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const events = yield* session.events.pipe(Stream.runCollect, Effect.exit, Effect.forkChild)
        yield* settle
        yield* session.run("one")
        yield* session.endInput
        const exit = yield* Fiber.join(events)
        assert.isTrue(Exit.isSuccess(exit), "events failed after endInput")
        assert.include(Exit.isSuccess(exit) ? exit.value.map((e) => e.type) : [], "result")
      }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))))
    }))
})

describe("issue 13, defect 7: per-turn usage", () => {
  const model = "claude-fake-1"
  const usage = (fields: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly costUSD: number
  }) => ({
    ...fields,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    contextWindow: 200000,
    maxOutputTokens: 64000,
    canonicalModel: model
  })
  /** A result whose running totals are `total`, and the turn's own figures `own` when given. */
  const resultWith = (
    uuid: string,
    text: string,
    total: { readonly inputTokens: number; readonly outputTokens: number; readonly costUSD: number },
    own?: { readonly inputTokens: number; readonly outputTokens: number; readonly costUSD: number }
  ) => {
    const lines = FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: uuid })
    const result = lines.at(-1)!
    return [
      ...lines.slice(0, -1),
      {
        ...result,
        total_cost_usd: total.costUSD,
        modelUsage: { [model]: usage(total) },
        ...(own === undefined ? {} : { model_usage_since_last_result: { [model]: usage(own) } })
      }
    ]
  }

  it.effect("after resume the turn's usage is the CLI's model_usage_since_last_result; contextWindow kept; never negative", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const uuidOf = (message: Line) => String(message.uuid)
          // 1: the first result after `--resume`: the totals include the resumed session's turns.
          const one = yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, resultWith(uuidOf(one), "one", { inputTokens: 50_000, outputTokens: 9_000, costUSD: 0.5 }, {
            inputTokens: 100,
            outputTokens: 20,
            costUSD: 0.01
          }))
          // 2: no figures of its own (an older CLI): the difference from the previous totals.
          const two = yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, resultWith(uuidOf(two), "two", { inputTokens: 50_300, outputTokens: 9_050, costUSD: 0.52 }))
          // 3: after `/clear` the totals start again, below the previous ones.
          const three = yield* cli.nextMatching((m) => m.type === "user")
          yield* emitAll(cli, resultWith(uuidOf(three), "three", { inputTokens: 40, outputTokens: 10, costUSD: 0.001 }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ resume: SESSION })
        const first = yield* session.run("one")
        assert.closeTo(first.turn.costUsd, 0.01, 1e-12)
        assert.strictEqual(first.turn.modelUsage[model]!.inputTokens, 100)
        assert.strictEqual(first.turn.modelUsage[model]!.outputTokens, 20)
        const second = yield* session.run("two")
        assert.closeTo(second.turn.costUsd, 0.02, 1e-12)
        assert.strictEqual(second.turn.modelUsage[model]!.inputTokens, 300)
        assert.strictEqual(second.turn.modelUsage[model]!.contextWindow, 200000)
        assert.strictEqual(second.turn.modelUsage[model]!.maxOutputTokens, 64000)
        const third = yield* session.run("three")
        assert.isAtLeast(third.turn.costUsd, 0)
        for (const [key, value] of Object.entries(third.turn.modelUsage[model]!)) {
          if (typeof value === "number") assert.isAtLeast(value, 0, key)
        }
        assert.strictEqual(third.turn.modelUsage[model]!.contextWindow, 200000)
      }).pipe(Effect.provide(layer))
    }))
})

describe("issue 13, defect 8: one reason per death", () => {
  const exitsBy = (code: number) =>
    FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* cli.stderr("fatal: went away\n")
        return code
      })
    )

  for (
    const [timing, wait] of [
      ["at once", (_session: Claude.Session) => Effect.void],
      ["after the CLI's exit was seen", (session: Claude.Session) => Effect.asVoid(session.exit)],
      ["a while after the exit", (session: Claude.Session) => Effect.andThen(session.exit, Effect.sleep("50 millis"))]
    ] as const
  ) {
    it.live(`a turn sent after the CLI exited by itself fails with ProcessExited and its code (${timing})`, () =>
      Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "1 second" })
        yield* session.initializeResult.pipe(Effect.ignore)
        yield* wait(session)
        const reason = reasonOf(yield* Effect.exit(session.run("late"))) as ClaudeError.ProcessExited
        assert.strictEqual(reason._tag, "ProcessExited")
        assert.strictEqual(reason.exitCode, 7)
        assert.include(reason.stderrTail, "went away")
      }).pipe(Effect.provide(exitsBy(7))))
  }

  it.live("a CLI that closes stdout but stays alive is StdoutClosed", () =>
    Effect.gen(function*() {
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "x" })[0])
          yield* cli.closeStdout
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "300 millis" })
        const reason = reasonOf(yield* Effect.exit(session.run("x")))
        assert.strictEqual(reason._tag, "StdoutClosed")
      }).pipe(Effect.provide(layer))
    }))
})

describe("issue 20: a handler starts after the events read before its request", () => {
  it.effect("a Stop hook whose request arrives in the same read as the text before it sees that text already consumed", () =>
    Effect.gen(function*() {
      const text = "The tool answered in several pieces."
      const stopRequest = {
        type: "control_request",
        request_id: "stop-1",
        request: {
          subtype: "hook_callback",
          callback_id: "hook_0",
          input: {
            session_id: SESSION,
            transcript_path: `/srv/home/.claude/projects/fake/${SESSION}.jsonl`,
            cwd: "/fake",
            permission_mode: "bypassPermissions",
            hook_event_name: "Stop",
            stop_hook_active: false,
            last_assistant_message: text
          },
          tool_use_id: "t1"
        }
      }
      // The turn's deltas, its message_stop and the Stop hook's request in one chunk of stdout,
      // as a busy CLI writes them (one read on the host).
      const layer = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const user = yield* cli.nextMatching((m) => m.type === "user")
          const lines = FakeCli.textTurn({ sessionId: SESSION, text, chunks: 4, userMessageUuid: String(user.uuid) })
          yield* cli.emitRaw([...lines.slice(0, -1), stopRequest].map((line) => JSON.stringify(line) + "\n").join(""))
          yield* cli.nextMatching((m) => m.type === "control_response")
          yield* cli.emit(lines.at(-1))
          return yield* Effect.never
        })
      )
      // What a program printing the stream has printed, and what it had printed when the hook ran.
      let printed = ""
      let printedWhenHookRan: string | undefined
      const hooks = Hooks.layer(Hooks.on("Stop", () =>
        Effect.sync(() => {
          printedWhenHookRan = printed
          return Hooks.allow()
        })))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.events.pipe(
          Stream.runForEach((event) =>
            Effect.sync(() => {
              const e = event.type === "stream_event" ? event.event as { type?: string; delta?: { text?: string } } : undefined
              if (e?.type === "content_block_delta") printed += e.delta?.text ?? ""
            })
          ),
          Effect.forkScoped({ startImmediately: true })
        )
        yield* session.run("hi")
        assert.strictEqual(printed, text)
        assert.strictEqual(printedWhenHookRan, text, "the hook ran before the text read before its request was consumed")
      }).pipe(Effect.provide(Layer.merge(layer, hooks)))
    }))
})
