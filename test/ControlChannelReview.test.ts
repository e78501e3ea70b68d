/**
 * The control channel, found by a reviewing helper (each test failed before its fix):
 * - a timed-out request failed only once its cancel line was drained: with stdin's pipe full
 *   (a CLI that stopped reading) the caller waited past its deadline, until the CLI read again;
 * - a CLI request whose subtype is the name of an `Object.prototype` member (`constructor`,
 *   `toString`) found that member as its handler: no answer (the CLI waited for ever) or a wrong
 *   one, where every unknown subtype gets `unsupported_request`;
 * - a control request made after the CLI exited by itself, before the read loop had seen its
 *   stdout end, failed with `SessionClosed (send)`, not with the CLI's `ProcessExited`;
 * - `setMcpServers` with a bad `timeout` refused the call but served its in-process servers
 *   already, their names taken for the rest of the session;
 * - a request still pending when the program ended the input or closed the scope failed with
 *   the CLI's clean exit (`ProcessExited`, code 0), as if the CLI had died by itself, where the
 *   program's own end of the session is `SessionClosed`.
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
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Transport } from "../src/Transport.ts"
import { reasonOf } from "./support/outcomes.ts"

/**
 * A CLI that answers `initialize`, reads the next control request, then stops reading stdin:
 * each later line is handed over (the Transport contract) and its writer then waits,
 * interruptibly, for a drain that never comes.
 */
const cliThatStopsReading = Layer.succeed(Transport, {
  open: () =>
    Effect.gen(function*() {
      const stdout = yield* Queue.unbounded<Uint8Array, never>()
      let full = false
      return {
        pid: undefined,
        incoming: Stream.fromQueue(stdout),
        stderr: Stream.empty,
        send: (line: string) =>
          Effect.suspend(() => {
            const message = JSON.parse(line) as { type: string; request_id?: string; request?: { subtype?: string } }
            if (full) return Effect.interruptible(Effect.never)
            if (message.type === "control_request" && message.request?.subtype === "initialize") {
              const answer = {
                type: "control_response",
                response: { subtype: "success", request_id: message.request_id, response: FakeCli.initializeResponse }
              }
              Queue.offerUnsafe(stdout, new TextEncoder().encode(JSON.stringify(answer) + "\n"))
            } else if (message.type === "control_request") {
              full = true
            }
            return Effect.void
          }),
        endInput: Effect.void,
        exit: Effect.never
      }
    })
})

const echo = (name: string) =>
  McpServers.server(name, {
    tools: [McpServers.tool({
      name: "echo",
      description: "Echo.",
      input: Schema.Struct({ text: Schema.String }),
      handler: (input) => Effect.succeed(`echo: ${input.text}`)
    })]
  })

describe("the control channel", () => {
  it.live("a request that times out while stdin's pipe is full fails at its deadline, not once its cancel drained", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "100 millis" })
      // The version is told: a timed-out request is cancelled on the wire.
      yield* session.cliVersion
      const exit = yield* session.mcpStatus({ timeout: "200 millis" }).pipe(Effect.exit, Effect.timeoutOption("3 seconds"))
      assert.isTrue(Option.isSome(exit), "mcpStatus({ timeout: 200 ms }) had not ended 3 s later")
      if (Option.isSome(exit)) assert.strictEqual(reasonOf(exit.value)._tag, "ControlTimeout")
    }).pipe(Effect.scoped, Effect.provide(cliThatStopsReading)))

  for (const subtype of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
    it.effect(`a CLI request with subtype ${subtype} is answered unsupported_request, as any unknown subtype`, () =>
      Effect.gen(function*() {
        const answers = yield* Deferred.make<ReadonlyArray<Exit.Exit<unknown, ClaudeError.ClaudeError>>>()
        const layer = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            const odd = yield* Effect.exit(cli.request({ subtype }))
            const plain = yield* Effect.exit(cli.request({ subtype: "brand_new_subtype" }))
            yield* Deferred.succeed(answers, [odd, plain])
            return yield* Effect.never
          })
        )
        yield* Effect.gen(function*() {
          yield* Claude.open()
          const [odd, plain] = yield* Deferred.await(answers)
          const body = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError> | undefined) => {
            if (exit === undefined || Exit.isFailure(exit)) return assert.fail(`no answer: ${exit === undefined ? "" : Cause.pretty(exit.cause)}`)
            const value = exit.value as Record<string, unknown>
            return { subtype: value.subtype, error: value.error, error_code: value.error_code }
          }
          assert.deepStrictEqual(body(plain), {
            subtype: "error",
            error: "Unsupported control request subtype: brand_new_subtype",
            error_code: "unsupported_request"
          })
          assert.deepStrictEqual(body(odd), {
            subtype: "error",
            error: `Unsupported control request subtype: ${subtype}`,
            error_code: "unsupported_request"
          })
        }).pipe(Effect.provide(layer))
      }))
  }

  it.live("a control request made as the CLI exits by itself fails with its ProcessExited, at once or after the exit", () =>
    Effect.gen(function*() {
      const exitsBy7 = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* cli.stderr("fatal: went away\n")
          return 7
        })
      )
      for (const wait of [(_: Claude.Session) => Effect.void, (session: Claude.Session) => Effect.asVoid(session.exit)]) {
        yield* Effect.gen(function*() {
          const session = yield* Claude.open({ closeGrace: "1 second" })
          yield* Effect.ignore(session.initializeResult)
          yield* wait(session)
          const reason = reasonOf(yield* Effect.exit(session.setModel("haiku")))
          assert.strictEqual(reason._tag, "ProcessExited", `got ${reason._tag}: ${reason.message}`)
          assert.strictEqual((reason as ClaudeError.ProcessExited).exitCode, 7)
        }).pipe(Effect.scoped, Effect.provide(exitsBy7))
      }
    }))

  it.effect("setMcpServers with a bad timeout is InvalidInput and serves nothing: the corrected call goes through", () =>
    Effect.gen(function*() {
      const served = yield* Deferred.make<boolean>()
      const go = yield* Deferred.make<void>()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          yield* Deferred.await(go)
          // The CLI was never told of "late": the session does not serve it.
          const call = yield* Effect.exit(FakeCli.callMcpTool(cli, "late", "echo", { text: "x" }))
          yield* Deferred.succeed(served, Exit.isSuccess(call))
          const request = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(request, { added: ["late"], removed: [], errors: {} }))
          return yield* Effect.never
        })
      )
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const bad = reasonOf(yield* Effect.exit(session.setMcpServers({}, { inProcess: [echo("late")], timeout: 0 })))
        assert.strictEqual(bad._tag, "InvalidInput")
        assert.include(bad.message, "timeout must be a positive duration")
        yield* Deferred.succeed(go, undefined)
        assert.isFalse(yield* Deferred.await(served), "a call refused as InvalidInput left its server served")
        const retry = yield* Effect.exit(session.setMcpServers({}, { inProcess: [echo("late")] }))
        assert.isTrue(Exit.isSuccess(retry), `the corrected call failed: ${Exit.isFailure(retry) ? reasonOf(retry).message : ""}`)
      }).pipe(Effect.provide(cli), Effect.provide(Logger.layer([])))
    }))

  /** A CLI that answers initialize, reads one control request, never answers it, and exits 0 at stdin EOF. */
  const silentCli = (requested: Deferred.Deferred<void>) =>
    FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        yield* cli.nextMatching((m) => m.type === "control_request")
        yield* Deferred.succeed(requested, undefined)
        yield* Effect.ignore(Effect.forever(cli.next))
        return 0
      })
    )

  for (const how of ["endInput", "the scope's close"] as const) {
    it.effect(`a request pending at ${how} fails with SessionClosed, not the CLI's clean exit`, () =>
      Effect.gen(function*() {
        const requested = yield* Deferred.make<void>()
        yield* Effect.gen(function*() {
          const scope = yield* Scope.make()
          const session = yield* Claude.open({ controlTimeout: "1 hour" }).pipe(Scope.provide(scope))
          const fiber = yield* Effect.forkChild(Effect.exit(session.mcpStatus()))
          yield* Deferred.await(requested)
          if (how === "endInput") yield* session.endInput
          else yield* Scope.close(scope, Exit.void)
          const reason = reasonOf(yield* Fiber.join(fiber))
          assert.strictEqual(reason._tag, "SessionClosed", `got ${reason._tag}: ${reason.message}`)
          yield* Scope.close(scope, Exit.void)
        }).pipe(Effect.provide(silentCli(requested)))
      }))
  }
})
