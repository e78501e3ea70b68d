/**
 * Tracing, found by a reviewing helper (each test failed before its fix):
 * - a failed turn's result text (an API key the CLI echoed there included) was in the exits of
 *   the turn's and the session's spans, which exporters record as exception and status, with
 *   `TraceContent` off; now the text is left out there (`internal/spanExits.ts`) and the secret
 *   out of the error itself;
 * - the span of a `send` turn stayed open after the CLI died mid-turn (with its model request
 *   and tool use) and ended "successful" only at the close; it now ends failed with the reason,
 *   a clean exit (code 0) of a CLI whose input was still open too;
 * - the spans of `Turn.finalText` and of control requests, and the program's error itself (its
 *   copy of the result), still held the text or the secret (found by a second review);
 * - after a turn whose `result` could not be read, the next turn's `claude.turn.tool_calls`
 *   counted the broken turn's tool uses and a `send` turn got no span of its own;
 * - a subagent's `chat` span named its own model but said the session's model was requested.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Tracing from "../src/Tracing.ts"
import * as Turn from "../src/Turn.ts"
import { makeSecrets } from "./support/secrets.ts"
import { collectSpans, metricSnapshots, named, only, parentName } from "./support/spans.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

/** What an OpenTelemetry exporter records of a span's exit (as `@effect/opentelemetry` does). */
const recorded = (span: Tracer.NativeSpan): Array<string> =>
  span.status._tag === "Ended" && span.status.exit._tag === "Failure"
    ? Cause.prettyErrors(span.status.exit.cause).flatMap((error) => [error.message, error.stack ?? ""])
    : []

const statusOf = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? span.status.exit._tag : "open"

describe("tracing", () => {
  for (const content of [false, true]) {
    it.live(`a failed turn's text is ${content ? "in" : "not in"} the exits of the turn's and the session's spans, its secret never (TraceContent ${content ? "on" : "off"})`, () =>
      Effect.gen(function*() {
        const secrets = makeSecrets()
        const collected = collectSpans()
        const exits: Array<Exit.Exit<unknown, ClaudeError.ClaudeError>> = []
        yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), closeGrace: "1 second" })
          // The same failure read from the turn's events (no session's error in between).
          exits.push(yield* Effect.exit(Turn.finalText(session.turn({ text: "first" }))))
          // The session's scope closes with the turn's failure.
          const run = yield* Effect.exit(session.run("go"))
          exits.push(run)
          return yield* run
        }))).pipe(
          Effect.provide(FakeCli.layer(FakeCli.conversation({
            sessionId: SESSION,
            onUser: (_text, _index, cli, message) =>
              cli.emit({
                ...FakeCli.result({ sessionId: SESSION }),
                is_error: true,
                result: `I could not finish: the config holds ANTHROPIC_API_KEY=${secrets.apiKey}`,
                user_message_uuid: message.uuid,
                user_message_uuids: [message.uuid]
              })
          }))),
          Effect.provideService(Tracing.TraceContent, content),
          collected.provide,
          Effect.provide(Logger.layer([]))
        )
        // The program's errors: the text as the CLI wrote it (the secret out), the result too.
        assert.strictEqual(exits.length, 2)
        for (const exit of exits) {
          assert.strictEqual(exit._tag, "Failure")
          const error = exit._tag === "Failure" ? Cause.findErrorOption(exit.cause) : undefined
          const shown = error !== undefined && error._tag === "Some" ? error.value : undefined
          assert.include(String(shown?.message), "I could not finish")
          assert.notInclude(JSON.stringify(shown), secrets.apiKey)
          assert.notInclude(Util.inspect(shown, { depth: 10 }), secrets.apiKey)
        }
        // The turn `run` ran (the other's stream was ended by `finalText` at its result).
        const spans = [named(collected.spans, "claude.turn")[1]!, only(collected.spans, "claude.session"), only(collected.spans, "Turn.finalText")]
        for (const span of spans) {
          const texts = recorded(span).join("\n")
          assert.strictEqual(statusOf(span), "Failure", span.name)
          assert.include(texts, content ? "The turn failed" : "TurnFailed", span.name)
          assert.notInclude(texts, secrets.apiKey, span.name)
          if (content) assert.include(texts, "I could not finish", span.name)
          else assert.notInclude(texts, "I could not finish", span.name)
        }
      }))
  }

  it.live("a structured output the Schema refuses: the error's copies of the value and the result hold no secret", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const Answer = Schema.Struct({ n: Schema.Number })
      const error = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), outputFormat: Answer, closeGrace: "1 second" })
        return yield* Effect.flip(session.run("go"))
      })).pipe(
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            cli.emit({
              ...FakeCli.result({ sessionId: SESSION }),
              result: `here: ${secrets.apiKey}`,
              structured_output: { n: `not a number but ${secrets.apiKey}` },
              user_message_uuid: message.uuid,
              user_message_uuids: [message.uuid]
            })
        }))),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(error.reason._tag, "StructuredOutputInvalid")
      assert.notInclude(JSON.stringify(error), secrets.apiKey)
    }))

  it.live("Claude.query's span leaves a failed turn's text out too (TraceContent off), and is the turn's parent", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const exit = yield* Effect.exit(Claude.query("go", { closeGrace: "1 second" })).pipe(
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            cli.emit({
              ...FakeCli.result({ sessionId: SESSION }),
              is_error: true,
              result: "I could not finish: the model said something private",
              user_message_uuid: message.uuid,
              user_message_uuids: [message.uuid]
            })
        }))),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(exit._tag, "Failure")
      const query = only(collected.spans, "Claude.query")
      assert.strictEqual(statusOf(query), "Failure")
      assert.include(recorded(query).join("\n"), "TurnFailed")
      assert.notInclude(recorded(query).join("\n"), "private")
      assert.strictEqual(parentName(only(collected.spans, "Claude.open")), "Claude.query")
    }))

  it.live("a control request's span leaves the CLI's error text out (TraceContent off)", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const exit = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ closeGrace: "1 second" })
        return yield* Effect.exit(session.setModel("haiku"))
      })).pipe(
        Effect.provide(FakeCli.layer((cli) =>
          Effect.gen(function*() {
            yield* FakeCli.answerInitialize(cli)
            const request = yield* cli.nextMatching((m) => m.type === "control_request")
            yield* cli.emit(FakeCli.failure(request, "PRIVATE: the user's settings say no"))
            return yield* Effect.never
          })
        )),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(exit._tag, "Failure")
      const span = only(collected.spans, "claude.control_request set_model")
      assert.strictEqual(statusOf(span), "Failure")
      assert.include(recorded(span).join("\n"), "ControlRejected")
      assert.notInclude(recorded(span).join("\n"), "PRIVATE")
      assert.strictEqual(span.attributes.get("claude.error.reason"), "ControlRejected")
    }))

  for (const code of [1, 0]) {
    it.live(`a send turn's spans end, failed with the reason, once the CLI exited mid-turn (code ${code})`, () =>
      Effect.gen(function*() {
        const collected = collectSpans()
        let openOnceExited: Array<string> = []
        yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
          const session = yield* Claude.open({ closeGrace: "1 second" })
          yield* session.send("go")
          yield* session.exit
          yield* Effect.sleep("200 millis")
          openOnceExited = collected.spans.filter((span) => span.status._tag !== "Ended").map((span) => span.name)
        }))).pipe(
          Effect.provide(FakeCli.layer((cli) =>
            Effect.gen(function*() {
              yield* FakeCli.answerInitialize(cli)
              const uuid = String((yield* cli.nextMatching((m) => m.type === "user")).uuid)
              yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
              yield* cli.emit(
                assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }], {
                  userMessageUuid: uuid
                })
              )
              return code
            })
          )),
          collected.provide,
          Effect.provide(Logger.layer([]))
        )
        const turn = only(collected.spans, "claude.turn")
        assert.deepStrictEqual(openOnceExited.filter((name) => name !== "claude.session" && name !== "Claude.open"), [])
        assert.deepStrictEqual(
          { status: statusOf(turn), reason: turn.attributes.get("claude.error.reason") },
          { status: "Failure", reason: "ProcessExited" }
        )
      }))
  }

  const brokenResultCli = FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (_text, index, cli, message) =>
      Effect.gen(function*() {
        const uuid = String(message.uuid)
        const result = { ...FakeCli.result({ sessionId: SESSION, text: "done" }), user_message_uuid: uuid, user_message_uuids: [uuid] }
        yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
        if (index === 0) {
          yield* cli.emit(assistantLine(SESSION, "msg_a", [{ type: "tool_use", id: "toolu_a", name: "Bash", input: { command: "ls" } }], { userMessageUuid: uuid }))
          yield* cli.emit(toolResultLine(SESSION, "toolu_a", "file.txt"))
          yield* cli.emit(assistantLine(SESSION, "msg_b", [{ type: "text", text: "done" }], { userMessageUuid: uuid }))
          yield* cli.emit({ ...result, duration_ms: "not a number" })
        } else {
          yield* cli.emit(assistantLine(SESSION, "msg_c", [{ type: "text", text: "done" }], { userMessageUuid: uuid }))
          yield* cli.emit(result)
        }
      })
  }))

  it.effect("after a turn whose result could not be read, the next turn's tool_calls counts its own tool uses only", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const snapshots = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        assert.strictEqual((yield* Effect.exit(session.run("one")))._tag, "Failure")
        yield* session.run("two")
        return yield* metricSnapshots("claude.turn.tool_calls")
      }).pipe(Effect.scoped, Effect.provide(brokenResultCli), collected.provide, Effect.provide(Logger.layer([])))
      assert.deepStrictEqual(
        snapshots.map((s) => ({ count: (s.state as { count: number }).count, sum: (s.state as { sum: number }).sum })),
        [{ count: 1, sum: 0 }]
      )
    }))

  it.effect("after a turn whose result could not be read, the next send turn gets a span of its own", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const results = yield* session.events.pipe(
          Stream.filter((event) => event.type === "result"),
          Stream.take(1),
          Stream.runDrain,
          Effect.forkScoped({ startImmediately: true })
        )
        yield* session.send("one")
        yield* session.send("two")
        yield* Fiber.join(results)
      }).pipe(Effect.scoped, Effect.provide(brokenResultCli), collected.provide, Effect.provide(Logger.layer([])))
      const turns = named(collected.spans, "claude.turn")
      const chatC = named(collected.spans, "chat").find((span) => span.attributes.get("gen_ai.response.id") === "msg_c")!
      assert.strictEqual(turns.length, 2)
      assert.strictEqual(parentName(chatC), "claude.turn")
      assert.isFalse(chatC.parent._tag === "Some" && chatC.parent.value === turns[0], "under the broken turn's span")
      assert.deepStrictEqual(
        { status: statusOf(turns[0]!), reason: turns[0]!.attributes.get("claude.error.reason") },
        { status: "Failure", reason: "ProtocolViolation" }
      )
    }))

  it.effect("a subagent's chat span says the model it ran on was requested, as its name says", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const sub = (line: ReturnType<typeof assistantLine>) => ({
        ...line,
        parent_tool_use_id: "toolu_task",
        message: { ...line.message, model: "claude-haiku-fake" }
      })
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("delegate")
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            Effect.gen(function*() {
              const uuid = String(message.uuid)
              yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
              yield* cli.emit(assistantLine(SESSION, "msg_main", [{ type: "tool_use", id: "toolu_task", name: "Task", input: {} }], { userMessageUuid: uuid }))
              yield* cli.emit(sub(assistantLine(SESSION, "msg_sub", [{ type: "text", text: "sub done" }], { userMessageUuid: uuid })))
              yield* cli.emit(toolResultLine(SESSION, "toolu_task", "sub done"))
              yield* cli.emit(assistantLine(SESSION, "msg_main_2", [{ type: "text", text: "done" }], { userMessageUuid: uuid }))
              yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION, text: "done" }), user_message_uuids: [uuid] })
            })
        }))),
        collected.provide
      )
      const chat = named(collected.spans, "chat").find((span) => span.attributes.get("gen_ai.response.id") === "msg_sub")!
      assert.deepStrictEqual({
        name: chat.name,
        requestModel: chat.attributes.get("gen_ai.request.model"),
        responseModel: chat.attributes.get("gen_ai.response.model")
      }, { name: "chat claude-haiku-fake", requestModel: "claude-haiku-fake", responseModel: "claude-haiku-fake" })
    }))
})
