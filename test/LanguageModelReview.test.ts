/**
 * `effect/ai` on Claude Code, where a reviewing helper found it wanting (each test failed before
 * its fix): a toolkit call's arguments were reported in the JSON form the CLI sends (`null` for
 * an absent optional field, an ISO string for a Date), which `effect/ai` checks against the
 * parameters' encoded form, so a turn whose tool ran and answered failed whole; so did a turn in
 * which the model retried a call the tool refused. A resumed `Chat` turn that was interrupted
 * left the session it abandoned to be resumed by the next turn. With `ResponseIdTracker` in the
 * context, a turn refused with an `InvalidRequestError` was run a second time by `effect/ai`'s
 * fallback. And a failed `generateText` was labelled `streamText`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as ResponseIdTracker from "effect/ai/ResponseIdTracker"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import type { Transport } from "../src/Transport.ts"
import { argValue } from "./support/resumedSessions.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"
const cliWith = (script: (cli: FakeCli.FakeCliHandle) => Effect.Effect<void, unknown>) =>
  FakeCli.layer(FakeCli.conversation({ sessionId, onUser: (_text, _index, cli) => script(cli) }))
const modelOn = (transport: Layer.Layer<Transport>) => ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))

/** The CLI's tool_use of toolkit tool `name`, its tools/call (with the CLI's _meta id), and its tool_result. */
const toolkitCall = (cli: FakeCli.FakeCliHandle, name: string, id: string, rpcId: number, args: unknown) =>
  Effect.gen(function*() {
    yield* cli.emit(
      assistantLine(sessionId, `msg_${id}`, [{ type: "tool_use", id, name: `mcp__toolkit__${name}`, input: args }], {
        stopReason: "tool_use"
      })
    )
    const answer = (yield* cli.request({
      subtype: "mcp_message",
      server_name: "toolkit",
      message: { jsonrpc: "2.0", id: rpcId, method: "tools/call", params: { name, arguments: args, _meta: { "claudecode/toolUseId": id } } }
    })) as {
      readonly response?: {
        readonly mcp_response?: { readonly result?: { readonly isError?: boolean; readonly content?: ReadonlyArray<{ readonly text?: string }> } }
      }
    }
    const result = answer.response?.mcp_response?.result
    yield* cli.emit(toolResultLine(sessionId, id, result?.content?.[0]?.text ?? "", result?.isError === true))
  })

const Remind = Tool.make("Remind", {
  parameters: Schema.Struct({ note: Schema.optional(Schema.String), at: Schema.Date }),
  success: Schema.String
})
const Reminders = Toolkit.make(Remind)
const RemindersHandlers = Reminders.toLayer({ Remind: ({ at, note }) => Effect.succeed(`${note ?? "-"} at ${at.toISOString()}`) })

const GetWeather = Tool.make("GetWeather", {
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Finite })
})
const Weather = Toolkit.make(GetWeather)
const WeatherHandlers = Weather.toLayer({ GetWeather: ({ city }) => Effect.succeed({ celsius: city.length }) })

describe("ClaudeCodeLanguageModel: found by a review", () => {
  it.effect("a toolkit call with arguments in the JSON form tools/list advertises (null optional, ISO date) does not fail generateText", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* toolkitCall(cli, "Remind", "toolu_1", 1, { note: null, at: "2025-01-01T10:00:00.000Z" })
          for (const line of FakeCli.textTurn({ sessionId, text: "Reminder set." })) yield* cli.emit(line)
        })
      )
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Remind me", toolkit: Reminders }).pipe(
          Effect.provide(modelOn(transport)),
          Effect.provide(RemindersHandlers)
        )
      )
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
      if (Exit.isFailure(exit)) return
      assert.strictEqual(exit.value.text, "Reminder set.")
      // The parameters as the tool reads them: a Date, the absent note undefined.
      assert.deepStrictEqual(
        exit.value.toolCalls.map((call) => {
          const params = call.params as { readonly at: Date; readonly note?: string }
          return [call.name, params.at.toISOString(), params.note]
        }),
        [["Remind", "2025-01-01T10:00:00.000Z", undefined]]
      )
      assert.deepStrictEqual(exit.value.toolResults.map((r) => [r.isFailure, r.result]), [[false, "- at 2025-01-01T10:00:00.000Z"]])
    }))

  it.effect("the same in streamText: the tool-call part's params are the parameters' encoded form", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* toolkitCall(cli, "Remind", "toolu_1", 1, { note: "tea", at: "2025-01-01T10:00:00.000Z" })
          for (const line of FakeCli.textTurn({ sessionId, text: "Reminder set." })) yield* cli.emit(line)
        })
      )
      const parts = yield* LanguageModel.streamText({ prompt: "Remind me", toolkit: Reminders }).pipe(
        Stream.runCollect,
        Effect.provide(modelOn(transport)),
        Effect.provide(RemindersHandlers)
      )
      const calls = parts.flatMap((part) => part.type === "tool-call" ? [part.params] : [])
      assert.deepStrictEqual(calls, [{ note: "tea", at: new Date("2025-01-01T10:00:00.000Z") }])
    }))

  it.effect("a toolkit call whose arguments the tool refused (the model then retried) does not fail generateText; it is left out", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) =>
        Effect.gen(function*() {
          yield* toolkitCall(cli, "GetWeather", "toolu_bad", 1, { town: "Paris" })
          yield* toolkitCall(cli, "GetWeather", "toolu_ok", 2, { city: "Paris" })
          for (const line of FakeCli.textTurn({ sessionId, text: "5 degrees." })) yield* cli.emit(line)
        })
      )
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Weather?", toolkit: Weather }).pipe(
          Effect.provide(modelOn(transport)),
          Effect.provide(WeatherHandlers)
        )
      )
      assert.isTrue(Exit.isSuccess(exit), `generateText failed: ${String(exit)}`)
      if (Exit.isFailure(exit)) return
      assert.strictEqual(exit.value.text, "5 degrees.")
      assert.deepStrictEqual(exit.value.toolCalls.map((call) => [call.id, call.params]), [["toolu_ok", { city: "Paris" }]])
      assert.deepStrictEqual(exit.value.toolResults.map((r) => [r.id, r.result]), [["toolu_ok", { celsius: 5 }]])
    }))

  it.effect("after a resumed turn was interrupted, the Chat's next turn does not resume the session holding the abandoned turn", () =>
    Effect.gen(function*() {
      // A CLI that keeps each session's user messages across launches, as its transcript does.
      const sessions = new Map<string, Array<string>>()
      const answered: Array<{ readonly session: string; readonly seen: ReadonlyArray<string> }> = []
      let fresh = 0
      const started = yield* Deferred.make<void>()
      const transport = FakeCli.layer((cli) => {
        const sid = argValue(cli.spec, "--resume") ?? `session-${++fresh}`
        if (!sessions.has(sid)) sessions.set(sid, [])
        return FakeCli.conversation({
          sessionId: sid,
          onControl: (request, cli) =>
            Effect.gen(function*() {
              yield* cli.emit(FakeCli.success(request, {}))
              if ((request.request as { readonly subtype?: string }).subtype === "interrupt") {
                yield* cli.emit(FakeCli.result({ sessionId: sid, subtype: "error_during_execution", terminalReason: "aborted_streaming" }))
              }
            }),
          onUser: (text, _index, cli) =>
            Effect.gen(function*() {
              sessions.get(sid)!.push(text)
              if (text.includes("HANG")) {
                yield* cli.emit(FakeCli.textTurn({ sessionId: sid, text: "" })[0])
                yield* Deferred.succeed(started, undefined)
                return
              }
              answered.push({ session: sid, seen: [...sessions.get(sid)!] })
              for (const line of FakeCli.textTurn({ sessionId: sid, text: "ok" })) yield* cli.emit(line)
            })
        })(cli)
      })
      yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "A1" })
        yield* chat.generateText({ prompt: "A2" })
        const fiber = yield* Effect.forkChild(chat.generateText({ prompt: "A3 HANG (abandoned)" }))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        yield* chat.generateText({ prompt: "A4" })
        assert.strictEqual((yield* Ref.get(chat.history)).content.filter((m) => m.role === "user").length, 3)
      }).pipe(Effect.provide(ClaudeCodeLanguageModel.layer({ conversation: "resume" }).pipe(Layer.provide(transport))))
      // A2 resumed A1's session; A4 did not resume the session A3 was abandoned in.
      assert.deepStrictEqual(answered.map((a) => a.session), ["session-1", "session-1", "session-2"])
      assert.isFalse(answered.at(-1)!.seen.some((text) => text.includes("HANG")), JSON.stringify(answered.at(-1)))
    }))

  it.effect("with a ResponseIdTracker in the context, a Chat turn that failed with an API 400 runs the agent's turn once, not twice", () =>
    Effect.gen(function*() {
      const users: Array<string> = []
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId,
        onUser: (text, _index, cli) =>
          Effect.gen(function*() {
            users.push(text)
            if (!text.includes("Deploy")) {
              for (const line of FakeCli.textTurn({ sessionId, text: "ok" })) yield* cli.emit(line)
              return
            }
            // The agent works (a Bash call), then the API refuses a request: a 400 result.
            yield* cli.emit(FakeCli.textTurn({ sessionId, text: "" })[0])
            yield* cli.emit(
              assistantLine(sessionId, "msg_b", [{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "./deploy.sh" } }], {
                stopReason: "tool_use"
              })
            )
            yield* cli.emit(toolResultLine(sessionId, "toolu_b", "deployed"))
            yield* cli.emit({
              ...FakeCli.result({ sessionId, text: "API Error: 400 invalid_request_error", terminalReason: "api_error" }),
              is_error: true,
              api_error_status: 400
            })
          })
      }))
      const exit = yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "Hello" })
        return yield* Effect.exit(chat.generateText({ prompt: "Deploy" }))
      }).pipe(
        Effect.provideServiceEffect(ResponseIdTracker.ResponseIdTracker, ResponseIdTracker.make),
        Effect.provide(modelOn(transport))
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(users.filter((text) => text.includes("Deploy")).length, 1, "the failed turn ran twice")
    }))

  it.effect("a failed generateText's AiError names generateText as its method, a failed streamText streamText", () =>
    Effect.gen(function*() {
      const transport = cliWith((cli) => cli.emit(FakeCli.result({ sessionId, subtype: "error_max_turns", terminalReason: "max_turns" })))
      const methodOf = (exit: Exit.Exit<unknown, unknown>) => {
        const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
        const error = (failure as { readonly error?: { readonly module?: string; readonly method?: string } } | undefined)?.error
        return [error?.module, error?.method]
      }
      const generated = yield* Effect.exit(LanguageModel.generateText({ prompt: "Go" }).pipe(Effect.provide(modelOn(transport))))
      assert.deepStrictEqual(methodOf(generated), ["ClaudeCodeLanguageModel", "generateText"])
      const streamed = yield* Effect.exit(
        LanguageModel.streamText({ prompt: "Go" }).pipe(Stream.runDrain, Effect.provide(modelOn(transport)))
      )
      assert.deepStrictEqual(methodOf(streamed), ["ClaudeCodeLanguageModel", "streamText"])
    }))
})
