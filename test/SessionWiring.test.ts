/**
 * What the session itself does with the services' and transports' pieces: a failed guard reaches
 * `events`, an over-cap result fails its turn, stderr is on the session, operations after close
 * name themselves, a bypass with a permission handler is refused, an unsupported CLI is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import type * as HandlerFailure from "../src/HandlerFailure.ts"
import type * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { capturedRequest } from "./support/protocolTranscripts.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const reasonOf = <A>(exit: Exit.Exit<A, ClaudeError.ClaudeError>): ClaudeError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "expected a failure")
  const failure = (exit as Exit.Failure<A, ClaudeError.ClaudeError>).cause.reasons.find((r) => r._tag === "Fail")
  assert.isDefined(failure, "expected a typed failure")
  return (failure as unknown as { error: ClaudeError.ClaudeError }).error.reason
}

const preToolUse = capturedRequest("c2-hooks-all-events", "hook_callback", (r) => r.callback_id === "hook_PreToolUse")

describe("the session's wiring", () => {
  it.effect("a PreToolUse guard that throws: the CLI gets a deny, and handler_failed reaches session.events", () =>
    Effect.gen(function*() {
      const answered = yield* Deferred.make<Record<string, unknown>>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const initialize = yield* FakeCli.answerInitialize(cli)
          const hooks = (initialize.request as { hooks: Record<string, ReadonlyArray<{ hookCallbackIds: ReadonlyArray<string> }>> }).hooks
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.emit({
            type: "control_request",
            request_id: "h1",
            request: { ...preToolUse, callback_id: hooks.PreToolUse![0]!.hookCallbackIds[0] }
          })
          yield* Deferred.succeed(answered, yield* cli.nextMatching((m) => m.type === "control_response"))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const failed = yield* session.events.pipe(
          Stream.filter((event): event is HandlerFailure.HandlerFailed => event.type === "handler_failed"),
          Stream.runHead,
          Effect.forkChild({ startImmediately: true })
        )
        yield* session.send("go")
        const answer = (yield* Deferred.await(answered)).response as { subtype: string; response: Record<string, unknown> }
        assert.strictEqual(answer.subtype, "success")
        const output = answer.response.hookSpecificOutput as Record<string, unknown>
        assert.strictEqual(output.permissionDecision, "deny")
        const head = yield* Fiber.join(failed)
        assert.isTrue(Option.isSome(head), "no handler_failed event")
        const event = (head as Option.Some<HandlerFailure.HandlerFailed>).value
        assert.strictEqual(event.handler, "hook")
        assert.strictEqual(event.hookEvent, "PreToolUse")
        assert.strictEqual(event.toolName, "Bash")
        assert.strictEqual(event.outcome, "denied")
        assert.strictEqual(event.requestId, "h1")
      }).pipe(
        Effect.provide(Layer.merge(
          cli,
          Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, (): Effect.Effect<HookEvents.HookOutput<"PreToolUse">> => {
            throw new Error("policy engine down")
          }))
        )),
        Effect.provide(Logger.layer([]))
      )
    }))

  it.effect("a result over the line cap fails its turn with a ProtocolViolation, reported with its type", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 4096 })
      const exit = yield* session.turn("x").pipe(Stream.runCollect, Effect.exit)
      const reason = reasonOf(exit)
      assert.strictEqual(reason._tag, "ProtocolViolation")
      assert.include((reason as ClaudeError.ProtocolViolation).description, "over the cap")
      // The session goes on.
      const next = yield* session.run("y")
      assert.strictEqual(next.result, "echo: y")
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, index, cli, message) =>
        Effect.gen(function*() {
          const lines = FakeCli.textTurn({
            sessionId: SESSION,
            text: index === 0 ? "z".repeat(10_000) : `echo: ${text}`,
            userMessageUuid: message.uuid as string
          })
          for (const line of lines) {
            // The first turn's assistant line is over the cap too; its result certainly is.
            yield* cli.emit(line)
          }
        })
    })))))

  it.effect("session.stderr carries the CLI's stderr lines while it runs", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const lines = yield* session.stderr.pipe(Stream.take(2), Stream.runCollect)
      assert.deepStrictEqual(lines, ["warming up", "ready"])
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* cli.stderr("warming up\nready\n")
        return yield* Effect.never
      })
    ))))

  it.effect("run, turn and send after the session's input ended fail with SessionClosed naming the operation", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      yield* session.endInput
      const run = reasonOf(yield* Effect.exit(session.run("late")))
      const turn = reasonOf(yield* Effect.exit(Stream.runDrain(session.turn("late"))))
      const send = reasonOf(yield* Effect.exit(session.send("late")))
      assert.deepStrictEqual(
        [run, turn, send].map((r) => r._tag === "SessionClosed" ? r.operation : r._tag),
        ["run", "turn", "send"]
      )
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION })))))

  it.effect("bypassPermissions with a Permissions layer is InvalidInput from open; nothing is spawned", () =>
    Effect.gen(function*() {
      let spawned = false
      const cli = FakeCli.layer(() => Effect.sync(() => spawned = true).pipe(Effect.andThen(Effect.never)))
      const exit = yield* Claude.open({ permissionMode: "bypassPermissions" }).pipe(
        Effect.exit,
        Effect.provide(Layer.merge(cli, Permissions.layer(() => Effect.succeed(Permissions.allow()))))
      )
      assert.strictEqual(reasonOf(exit)._tag, "InvalidInput")
      assert.isFalse(spawned)
    }))

  it.effect("a CLI below the supported range: its turns fail with UnsupportedCliVersion naming both versions", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const version = reasonOf(yield* Effect.exit(session.cliVersion))
      assert.strictEqual(version._tag, "UnsupportedCliVersion")
      assert.include(version.message, "2.0.76")
      assert.include(version.message, "2.1.0")
      const run = reasonOf(yield* Effect.exit(session.run("hello")))
      assert.strictEqual(run._tag, "UnsupportedCliVersion")
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli, { claude_code_version: "2.0.76" })
        return yield* Effect.never
      })
    )), Effect.provide(Logger.layer([]))))

  it.effect("a CLI below the range with cliVersionPolicy warn: the version is exposed and turns run", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ cliVersionPolicy: { onUnsupported: "warn" } })
      assert.strictEqual(yield* session.cliVersion, "2.0.76")
      assert.strictEqual((yield* session.run("hello")).result, "echo: hello")
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      FakeCli.answerInitialize(cli, { claude_code_version: "2.0.76" }).pipe(
        Effect.andThen(FakeCli.conversation({ sessionId: SESSION })(cli))
      )
    )), Effect.provide(Logger.layer([]))))

  it.effect("a user message the CLI folds into its automatic turn ends with that turn's result (kind automatic)", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open()
      const result = yield* session.run("while the agent reports")
      assert.strictEqual(result.result, "folded")
      assert.strictEqual(result.turn.kind, "automatic")
    }).pipe(Effect.provide(FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const user = yield* cli.nextMatching((m) => m.type === "user")
        const uuid = user.uuid as string
        const [init, start, ...rest] = FakeCli.textTurn({ sessionId: SESSION, text: "folded" })
        // The automatic turn starts (its init names no user message), then takes the message in.
        yield* cli.emit(init)
        yield* cli.emit({ ...start, user_message_uuid: uuid, user_message_uuids: [uuid] })
        for (const line of rest.slice(0, -1)) yield* cli.emit(line)
        yield* cli.emit({
          ...rest.at(-1)!,
          origin: { kind: "task-notification" },
          user_message_uuid: uuid,
          user_message_uuids: [uuid]
        })
        return yield* Effect.never
      })
    ))))

  it.effect("after a turn times out, the next turn is written only once the timed-out one is over on the CLI", () => {
    const release = Deferred.makeUnsafe<void>()
    return Effect.gen(function*() {
      const written: Array<string> = []
      const session = yield* Claude.open({
        turnTimeout: "5 seconds",
        transcript: {
          record: (direction, message) => {
            const m = message as { type: string; request?: { subtype?: string } }
            if (direction === "send") written.push(m.type === "control_request" ? m.request!.subtype! : m.type)
            else if (m.type === "result") written.push("recv result")
          }
        }
      })
      const slow = yield* Effect.forkChild(Effect.exit(session.run("slow")))
      yield* TestClock.adjust("5 seconds")
      const timedOut = reasonOf(yield* Fiber.join(slow))
      assert.strictEqual(timedOut._tag, "TurnTimedOut")
      const pending = yield* Effect.forkChild(session.run("next"))
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      // The CLI has not ended the slow turn yet: nothing more is written.
      assert.deepStrictEqual(written.filter((w) => w !== "initialize"), ["user", "interrupt"])
      yield* Deferred.succeed(release, undefined)
      const next = yield* Fiber.join(pending)
      assert.strictEqual(next.result, "echo: next")
      // The slow turn's interrupt and aborted result come before the next user line.
      assert.deepStrictEqual(written.filter((w) => w !== "initialize"), [
        "user",
        "interrupt",
        "recv result",
        "user",
        "recv result"
      ])
    }).pipe(Effect.provide(FakeCli.layer(FakeCli.conversation({
      sessionId: SESSION,
      onUser: (text, index, cli, message) =>
        Effect.gen(function*() {
          const uuid = message.uuid as string
          if (index === 0) {
            const [init] = FakeCli.textTurn({ sessionId: SESSION, text, userMessageUuid: uuid })
            yield* cli.emit(init)
            const interrupt = yield* cli.nextMatching((m) => m.type === "control_request")
            yield* cli.emit(FakeCli.success(interrupt, { still_queued: [] }))
            yield* Deferred.await(release)
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, subtype: "error_during_execution", terminalReason: "aborted_streaming" }),
              user_message_uuid: uuid,
              user_message_uuids: [uuid]
            })
          } else {
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `echo: ${text}`, userMessageUuid: uuid })) {
              yield* cli.emit(line)
            }
          }
        })
    }))))
  })
})
