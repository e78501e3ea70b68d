/**
 * Metrics and secrets, as an audit found them wanting: `claude.tool.calls` named every tool
 * "unknown" with tracing off, and made a series of every tool name the model made up; a secret
 * inside JSON text that the library JSON-encodes again (escaped twice) stayed in span attributes;
 * a secret the CLI wrote on stderr reached the log and the `ProcessExited` error.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Tracing from "../src/Tracing.ts"
import { exitTexts, makeSecrets, occurrences, withCapturedLogs } from "./support/secrets.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { attributeTexts, collectSpans, metricSnapshots } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const usage = { input_tokens: 100, output_tokens: 20 }

const assistant = (id: string, content: ReadonlyArray<Record<string, unknown>>, uuid: string) =>
  assistantLine(SESSION, id, content, { usage, userMessageUuid: uuid })

const toolResult = (toolUseId: string, content: unknown, isError = false) => toolResultLine(SESSION, toolUseId, content, isError)

/** One turn: a Bash use whose result is `output` (an MCP-style array of text blocks), then text. */
const bashTurnCli = (output: unknown) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, {})
      while (true) {
        const user = yield* cli.nextMatching((m) => m.type === "user")
        const uuid = String(user.uuid)
        yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
        yield* cli.emit(assistant("msg_1", [{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "cat config.json" } }], uuid))
        yield* cli.emit(toolResult("toolu_bash", output))
        yield* cli.emit(assistant("msg_2", [{ type: "text", text: "Done." }], uuid))
        yield* cli.emit({
          ...FakeCli.result({ sessionId: SESSION, text: "Done.", numTurns: 2 }),
          user_message_uuid: uuid,
          user_message_uuids: [uuid]
        })
      }
    })
  )

describe("metrics and secrets", () => {
  it.effect("claude.tool.calls keeps the tool's name when the program turned tracing off", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const tools = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("go")
        return yield* metricSnapshots("claude.tool.calls")
      }).pipe(
        Effect.scoped,
        Effect.withTracerEnabled(false),
        Effect.provide(bashTurnCli("ok")),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const names = tools.map((s) => (s.attributes as Record<string, string> | undefined)?.["gen_ai.tool.name"])
      assert.deepStrictEqual(names, ["Bash"])
    }))

  it.effect("a secret inside JSON text of a tool result (a config file the tool printed) is redacted", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const secret = "pa\"ss\\word-42"
      // The tool printed a JSON file holding the secret: its text has the secret JSON-escaped.
      const printed = JSON.stringify({ password: secret })
      const spans = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ env: { DB_PASSWORD: Redacted.make(secret) } })
        yield* session.run("show the config")
        return collected.spans
      }).pipe(
        Effect.scoped,
        Effect.provide(bashTurnCli([{ type: "text", text: printed }])),
        Effect.provideService(Tracing.TraceContent, true),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const texts = attributeTexts(spans)
      const result = texts.find((t) => t.includes("gen_ai.tool.call.result"))
      assert.isDefined(result)
      // Any encoding of the secret: raw, JSON-escaped once, JSON-escaped twice.
      const once = JSON.stringify(secret).slice(1, -1)
      const twice = JSON.stringify(once).slice(1, -1)
      const leaks = texts.filter((t) => t.includes(secret) || t.includes(once) || t.includes(twice))
      assert.deepStrictEqual(leaks, [])
    }))

  it.effect("claude.tool.calls: tool names the model made up (the CLI answered 'No such tool available') do not each make a series", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const made = 300
      const transport = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli, {})
          const user = yield* cli.nextMatching((m) => m.type === "user")
          const uuid = String(user.uuid)
          // As the CLI's init lists them: the `Agent` tool under its former name, `Task`.
          yield* cli.emit({ ...FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0], tools: ["Task", "Bash"] })
          // A real tool's use that failed keeps its name.
          yield* cli.emit(assistant("msg_agent", [{ type: "tool_use", id: "toolu_agent", name: "Agent", input: {} }], uuid))
          yield* cli.emit(toolResult("toolu_agent", "The subagent failed: timeout", true))
          for (let i = 0; i < made; i++) {
            const id = `toolu_${i}`
            yield* cli.emit(assistant(`msg_${i}`, [{ type: "tool_use", id, name: `lookup_${i}`, input: {} }], uuid))
            yield* cli.emit(toolResult(id, `<tool_use_error>Error: No such tool available: lookup_${i}</tool_use_error>`, true))
          }
          yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION, text: "Done." }), user_message_uuid: uuid, user_message_uuids: [uuid] })
          yield* cli.nextMatching(() => false).pipe(Effect.ignore)
        })
      )
      const tools = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("call lookup_0 .. lookup_299")
        return yield* metricSnapshots("claude.tool.calls")
      }).pipe(Effect.scoped, Effect.provide(transport), collected.provide, Effect.provide(Logger.layer([])))
      assert.isBelow(tools.length, 50, `${tools.length} series of claude.tool.calls`)
      const names = tools.map((series) => (series.attributes as Record<string, string>)["gen_ai.tool.name"])
      assert.includeMembers(names, ["Agent", "other"])
    }))

  it.live("a secret the CLI writes on its stderr stays out of the logs and of the turn span's exit", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const logs: Array<string> = []
      const collected = collectSpans()
      const transport = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli, {})
          yield* cli.nextMatching((m) => m.type === "user")
          yield* cli.stderr(`Error: request rejected for key ${secrets.apiKey}\n`)
          return 1
        })
      )
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), closeGrace: "1 second" })
        yield* session.run("hi")
      })).pipe(withCapturedLogs(logs), Effect.provide(transport), collected.provide))
      const turn = collected.spans.find((span) => span.name === "claude.turn")
      const spanExit = turn !== undefined && turn.status._tag === "Ended" ? exitTexts(turn.status.exit) : []
      assert.isTrue(Exit.isFailure(exit))
      assert.isDefined(turn)
      const found = {
        logs: occurrences(logs, secrets.apiKey).length,
        error: occurrences(exitTexts(exit), secrets.apiKey).length,
        turnSpanExit: occurrences(spanExit, secrets.apiKey).length
      }
      assert.deepStrictEqual(found, { logs: 0, error: 0, turnSpanExit: 0 })
    }))
})

