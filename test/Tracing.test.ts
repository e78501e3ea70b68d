/**
 * Traces and metrics against FakeCli: the tree of a turn with a Bash tool (a PreToolUse hook and a
 * permission decision under it), an MCP tool (the in-process call under it) and its model
 * requests; the GenAI attributes; content only with `Tracing.TraceContent`, secrets never; turns
 * of `send`; the per-turn metrics.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Tracer from "effect/Tracer"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import * as Tracing from "../src/Tracing.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { attributeTexts, chain, collectSpans, metricSnapshots, named, only, parentName } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const PROMPT = "List the files, then echo hi"

const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 5, cache_read_input_tokens: 7 }

const assistant = (id: string, content: ReadonlyArray<Record<string, unknown>>, uuid: string) =>
  assistantLine(SESSION, id, content, { usage, userMessageUuid: uuid })

const toolResult = (toolUseId: string, content: string, isError = false) => toolResultLine(SESSION, toolUseId, content, isError)

const streamEvent = (event: Record<string, unknown>, index: number) => ({
  type: "stream_event",
  event,
  parent_tool_use_id: null,
  session_id: SESSION,
  uuid: `se-${index}`
})

/** The turn's `system/init`, announcing the tools it uses (as the real CLI's lists them all). */
const init = (uuid: string) => ({
  ...FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0],
  tools: ["Bash", "Read", "mcp__byre__echo"]
})

/**
 * A CLI that answers each user turn as the real CLI would with a Bash tool and an MCP tool: it
 * asks the PreToolUse hook and the permission of the Bash use (with its tool_use_id), calls the
 * MCP tool (without the CLI's `_meta` id), and writes a failed third tool use.
 */
const toolTurnCli = (secret: string) =>
  FakeCli.layer((cli) =>
    Effect.gen(function*() {
      yield* FakeCli.answerInitialize(cli, { account: { email: "someone@example.com" } })
      while (true) {
        const user = yield* cli.nextMatching((m) => m.type === "user")
        const uuid = String(user.uuid)
        yield* cli.emit(init(uuid))
        yield* cli.emit(streamEvent({ type: "message_start", message: assistant("msg_1", [], uuid).message }, 1))
        yield* cli.emit(assistant("msg_1", [{ type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: `echo ${secret}` } }], uuid))
        yield* cli.emit(streamEvent({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 33 } }, 2))
        yield* FakeCli.callHook(cli, "PreToolUse", { tool_name: "Bash", tool_input: { command: `echo ${secret}` }, tool_use_id: "toolu_bash" })
        yield* FakeCli.askPermission(cli, "Bash", { command: `echo ${secret}` }, { toolUseId: "toolu_bash" })
        yield* cli.emit(toolResult("toolu_bash", `printed ${secret}`))
        yield* cli.emit(assistant("msg_2", [{ type: "tool_use", id: "toolu_mcp", name: "mcp__byre__echo", input: { text: "hi" } }], uuid))
        yield* FakeCli.callMcpTool(cli, "byre", "echo", { text: "hi" })
        yield* cli.emit(toolResult("toolu_mcp", "echo: hi"))
        yield* cli.emit(assistant("msg_3", [{ type: "tool_use", id: "toolu_bad", name: "Read", input: { file_path: "nope" } }], uuid))
        yield* cli.emit(toolResult("toolu_bad", "no such file", true))
        yield* cli.emit(assistant("msg_4", [{ type: "text", text: "All done." }], uuid))
        yield* cli.emit({
          ...FakeCli.result({ sessionId: SESSION, text: "All done.", totalCostUsd: 0.25, numTurns: 4 }),
          user_message_uuid: uuid,
          user_message_uuids: [uuid]
        })
      }
    })
  )

const byre = McpServers.layer(McpServers.server("byre", {
  tools: [McpServers.tool({
    name: "echo",
    description: "Echo the text.",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(`echo: ${text}`)
  })]
}))

const handlers = Layer.mergeAll(
  byre,
  Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(Hooks.allow()))),
  Permissions.layer(() => Effect.succeed(Permissions.allow()))
)

/** Runs one `run` turn against the tool CLI, with `content` on or off; returns the spans. */
const runToolTurn = (options: { readonly content: boolean; readonly secret: string; readonly program?: boolean }) => {
  const collected = collectSpans()
  return Effect.gen(function*() {
    const session = yield* Claude.open({ env: { ANTHROPIC_API_KEY: options.secret } })
    const run = session.run(`${PROMPT} ${options.secret}`)
    const result = yield* options.program === true ? run.pipe(Effect.withSpan("the-program")) : run
    return { result, spans: collected.spans }
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.merge(toolTurnCli(options.secret), handlers)),
    Effect.provideService(Tracing.TraceContent, options.content),
    collected.provide,
    Effect.provide(Logger.layer([]))
  )
}

describe("Tracing: the spans of a turn", () => {
  it.effect("session > turn > model requests and tool uses; the hook and the permission under the Bash use; the MCP call under the MCP use", () =>
    Effect.gen(function*() {
      const { result, spans } = yield* runToolTurn({ content: false, secret: "sk-unit-secret-1" })
      assert.strictEqual(result.result, "All done.")
      const session = only(spans, "claude.session")
      const turn = only(spans, "claude.turn")
      assert.strictEqual(parentName(turn), "claude.session")

      const chats = named(spans, "chat")
      assert.deepStrictEqual(chats.map((s) => s.name), ["chat claude-fake-1", "chat claude-fake-1", "chat claude-fake-1", "chat claude-fake-1"])
      assert.deepStrictEqual(chats.map((s) => s.attributes.get("gen_ai.response.id")), ["msg_1", "msg_2", "msg_3", "msg_4"])
      for (const chat of chats) assert.strictEqual(parentName(chat), "claude.turn")

      const bash = only(spans, "execute_tool Bash")
      const mcp = only(spans, "execute_tool mcp__byre__echo")
      const read = only(spans, "execute_tool Read")
      for (const tool of [bash, mcp, read]) assert.strictEqual(parentName(tool), "claude.turn")

      assert.deepStrictEqual(chain(only(spans, "claude.hook PreToolUse")), [
        "claude.hook PreToolUse",
        "execute_tool Bash",
        "claude.turn",
        "claude.session",
        "Claude.open"
      ])
      assert.strictEqual(parentName(only(spans, "claude.permission Bash")), "execute_tool Bash")
      assert.strictEqual(parentName(only(spans, "claude.mcp tools/call")), "execute_tool mcp__byre__echo")
      // The library's own spans of the handlers are under the request's span.
      assert.strictEqual(parentName(only(spans, "Hooks.dispatch")), "claude.hook PreToolUse")
      assert.strictEqual(parentName(only(spans, "Permissions.decide")), "claude.permission Bash")
      // The host's initialize request is a span too.
      assert.strictEqual(only(spans, "claude.control_request initialize").attributes.get("claude.control.direction"), "host_to_cli")

      // Every span ended, the session's too (closed with the scope).
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended", `${span.name} did not end`)
      assert.strictEqual(session.attributes.get("gen_ai.conversation.id"), SESSION)
      assert.strictEqual(session.attributes.get("gen_ai.provider.name"), "anthropic")
      assert.strictEqual(session.attributes.get("gen_ai.request.model"), "claude-fake-1")
      assert.strictEqual(session.attributes.get("claude.cli.version"), "2.1.332")
      // How the session ended (FakeCli's process exits once its stdin ends).
      assert.include(["SessionClosed", "ProcessExited"], session.attributes.get("claude.session.end_reason"))
    }))

  it.effect("GenAI attributes: the turn's usage, cost and reasons; a model request's model, usage and finish reason; a tool's name and id; the decisions", () =>
    Effect.gen(function*() {
      const { spans } = yield* runToolTurn({ content: false, secret: "sk-unit-secret-2" })
      const turn = only(spans, "claude.turn")
      const attributes = Object.fromEntries(turn.attributes)
      assert.deepInclude(attributes, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.conversation.id": SESSION,
        "gen_ai.request.model": "claude-fake-1",
        // FakeCli.result: 0.25 USD makes 2500 input and 1250 output tokens.
        "gen_ai.usage.input_tokens": 2500,
        "gen_ai.usage.output_tokens": 1250,
        "claude.cost_usd": 0.25,
        "claude.result.subtype": "success",
        "claude.terminal_reason": "completed",
        "claude.turn.kind": "user",
        "claude.turn.num_turns": 4
      })
      assert.deepStrictEqual(attributes["gen_ai.response.finish_reasons"], ["end_turn"])
      assert.isUndefined(attributes["claude.error.reason"])

      const first = named(spans, "chat")[0]!
      assert.deepInclude(Object.fromEntries(first.attributes), {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-fake-1",
        "gen_ai.response.model": "claude-fake-1",
        // input_tokens counts the cached tokens too, as the GenAI conventions say.
        "gen_ai.usage.input_tokens": 112,
        "gen_ai.usage.cache_read.input_tokens": 7,
        "gen_ai.usage.cache_creation.input_tokens": 5,
        // The final output count is message_delta's.
        "gen_ai.usage.output_tokens": 33
      })
      assert.deepStrictEqual(first.attributes.get("gen_ai.response.finish_reasons"), ["tool_use"])

      const bash = only(spans, "execute_tool Bash")
      assert.deepInclude(Object.fromEntries(bash.attributes), {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": "toolu_bash"
      })
      assert.strictEqual(only(spans, "execute_tool mcp__byre__echo").attributes.get("claude.mcp.server"), "byre")
      const read = only(spans, "execute_tool Read")
      assert.strictEqual(read.attributes.get("error.type"), "tool_error")
      assert.strictEqual(read.status._tag === "Ended" && read.status.exit._tag, "Failure")

      const hook = only(spans, "claude.hook PreToolUse")
      assert.deepInclude(Object.fromEntries(hook.attributes), {
        "claude.hook.event": "PreToolUse",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": "toolu_bash",
        "claude.control.direction": "cli_to_host"
      })
      const permission = only(spans, "claude.permission Bash")
      assert.deepInclude(Object.fromEntries(permission.attributes), {
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": "toolu_bash",
        "claude.permission.behavior": "allow"
      })
      assert.deepInclude(Object.fromEntries(only(spans, "claude.mcp tools/call").attributes), {
        "claude.mcp.server": "byre",
        "gen_ai.tool.name": "echo"
      })
    }))

  it.effect("by default no content: neither the prompt, the result, a tool's input or output, nor a secret is in any attribute", () =>
    Effect.gen(function*() {
      const secret = "sk-unit-secret-3"
      const { spans } = yield* runToolTurn({ content: false, secret })
      const texts = attributeTexts(spans)
      assert.isAbove(texts.length, 50)
      for (const needle of [PROMPT, "All done.", "echo: hi", "printed", secret, "someone@example.com"]) {
        assert.deepStrictEqual(texts.filter((text) => text.includes(needle)), [], needle)
      }
      for (const span of spans) {
        for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) {
          assert.isFalse(span.attributes.has(key), `${span.name} has ${key}`)
        }
      }
    }))

  it.effect("with TraceContent: the prompt, the result and the tools' inputs and outputs are there, the secret replaced by [redacted]", () =>
    Effect.gen(function*() {
      const secret = "sk-unit-secret-4"
      const { spans } = yield* runToolTurn({ content: true, secret })
      const turn = only(spans, "claude.turn")
      const input = JSON.parse(String(turn.attributes.get("gen_ai.input.messages")))
      assert.deepStrictEqual(input, [{ role: "user", parts: [{ type: "text", content: `${PROMPT} [redacted]` }] }])
      const output = JSON.parse(String(turn.attributes.get("gen_ai.output.messages")))
      assert.deepStrictEqual(output, [{ role: "assistant", parts: [{ type: "text", content: "All done." }], finish_reason: "end_turn" }])
      const bash = only(spans, "execute_tool Bash")
      assert.deepStrictEqual(JSON.parse(String(bash.attributes.get("gen_ai.tool.call.arguments"))), { command: "echo [redacted]" })
      assert.strictEqual(bash.attributes.get("gen_ai.tool.call.result"), "printed [redacted]")
      assert.strictEqual(only(spans, "execute_tool mcp__byre__echo").attributes.get("gen_ai.tool.call.result"), "echo: hi")
      assert.deepStrictEqual(
        JSON.parse(String(only(spans, "claude.permission Bash").attributes.get("gen_ai.tool.call.arguments"))),
        { command: "echo [redacted]" }
      )
      assert.deepStrictEqual(attributeTexts(spans).filter((text) => text.includes(secret)), [])
    }))

  it.effect("a turn run under the program's span is a child of it, linked to nothing else; its handler spans still follow their tool use", () =>
    Effect.gen(function*() {
      const { spans } = yield* runToolTurn({ content: false, secret: "sk-unit-secret-5", program: true })
      const turn = only(spans, "claude.turn")
      assert.strictEqual(parentName(turn), "the-program")
      assert.deepStrictEqual(chain(only(spans, "claude.permission Bash")).slice(0, 4), [
        "claude.permission Bash",
        "execute_tool Bash",
        "claude.turn",
        "the-program"
      ])
    }))

  it.effect("a turn of `send` gets a span of its own under the session's, ended at its result, with its usage", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const spans = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const results = yield* session.events.pipe(
          Stream.takeUntil((event) => event.type === "result"),
          Stream.runDrain,
          Effect.forkScoped({ startImmediately: true })
        )
        yield* Effect.yieldNow
        yield* session.send("hello")
        yield* Fiber.join(results)
        return collected.spans
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({ sessionId: SESSION }))),
        collected.provide
      )
      const turn = only(spans, "claude.turn")
      assert.strictEqual(parentName(turn), "claude.session")
      assert.strictEqual(turn.status._tag, "Ended")
      assert.strictEqual(turn.attributes.get("claude.result.subtype"), "success")
      assert.strictEqual(turn.attributes.get("gen_ai.conversation.id"), SESSION)
      assert.strictEqual(parentName(only(spans, "chat claude-fake-1")), "claude.turn")
    }))
})

describe("Tracing: subagents", () => {
  it.effect("a subagent's model requests and tool uses are under its Task tool use", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const sub = (line: Record<string, unknown>) => ({ ...line, parent_tool_use_id: "toolu_task" })
      const spans = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("delegate")
        return collected.spans
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            Effect.gen(function*() {
              const uuid = String(message.uuid)
              yield* cli.emit(init(uuid))
              yield* cli.emit(assistant("msg_main", [{ type: "tool_use", id: "toolu_task", name: "Task", input: {} }], uuid))
              yield* cli.emit(sub(assistant("msg_sub", [{ type: "tool_use", id: "toolu_sub_bash", name: "Bash", input: {} }], uuid)))
              yield* cli.emit(sub(toolResult("toolu_sub_bash", "ok")))
              yield* cli.emit(sub(assistant("msg_sub_2", [{ type: "text", text: "sub done" }], uuid)))
              yield* TestClock.adjust("1 second")
              yield* cli.emit(toolResult("toolu_task", "sub done"))
              yield* TestClock.adjust("1 second")
              yield* cli.emit(assistant("msg_main_2", [{ type: "text", text: "done" }], uuid))
              yield* TestClock.adjust("1 second")
              yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION, text: "done" }), user_message_uuids: [uuid] })
            })
        }))),
        collected.provide
      )
      const byId = (id: string) => named(spans, "chat").find((span) => span.attributes.get("gen_ai.response.id") === id)!
      assert.strictEqual(parentName(byId("msg_main")), "claude.turn")
      assert.strictEqual(parentName(byId("msg_sub")), "execute_tool Task")
      assert.strictEqual(parentName(byId("msg_sub_2")), "execute_tool Task")
      assert.strictEqual(parentName(byId("msg_main_2")), "claude.turn")
      assert.strictEqual(parentName(only(spans, "execute_tool Bash")), "execute_tool Task")
      assert.strictEqual(parentName(only(spans, "execute_tool Task")), "claude.turn")
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended", `${span.name} did not end`)
      // The subagent's last request ended with its Task (at its tool_result), not at the turn's end.
      const ended = (span: (typeof spans)[number]) => span.status._tag === "Ended" ? span.status.endTime : -1n
      assert.strictEqual(ended(byId("msg_sub_2")), ended(only(spans, "execute_tool Task")))
      assert.isTrue(ended(byId("msg_sub_2")) < ended(byId("msg_main_2")))
    }))
})

describe("Tracing: failed turns", () => {
  /** One `run` on a fake whose turn ends with `result` (its uuids added): its exit, the spans, the reason. */
  const runEndingWith = (options: Claude.SessionOptions, result: Record<string, unknown>) =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const exit = yield* Effect.scoped(Effect.flatMap(Claude.open(options), (session) => Effect.exit(session.run("go")))).pipe(
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          sessionId: SESSION,
          onUser: (_text, _index, cli, message) =>
            cli.emit({ ...result, user_message_uuid: message.uuid, user_message_uuids: [message.uuid] })
        }))),
        collected.provide
      )
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      return { exit, spans: collected.spans, reason: Option.isSome(error) ? error.value.reason._tag : "none" }
    })

  it.effect("a turn whose result is an error: the span ends failed with the library's reason, the result's subtype and terminal reason", () =>
    Effect.gen(function*() {
      const { exit, reason, spans } = yield* runEndingWith(
        {},
        FakeCli.result({ sessionId: SESSION, subtype: "error_max_turns", terminalReason: "max_turns" })
      )
      assert.isTrue(Exit.isFailure(exit))
      const turn = only(spans, "claude.turn")
      assert.deepInclude(Object.fromEntries(turn.attributes), {
        "claude.error.reason": reason,
        "claude.result.subtype": "error_max_turns",
        "claude.terminal_reason": "max_turns"
      })
      assert.notStrictEqual(reason, "none")
      assert.strictEqual(turn.status._tag === "Ended" && turn.status.exit._tag, "Failure")
    }))

  it.effect("a run whose structured output the Schema refuses: the turn's span ends failed with StructuredOutputInvalid, as the run does", () =>
    Effect.gen(function*() {
      const { reason, spans } = yield* runEndingWith(
        { outputFormat: Schema.Struct({ score: Schema.Int }) },
        { ...FakeCli.result({ sessionId: SESSION }), structured_output: { score: "high" } }
      )
      assert.strictEqual(reason, "StructuredOutputInvalid")
      const turn = only(spans, "claude.turn")
      assert.strictEqual(turn.attributes.get("claude.error.reason"), "StructuredOutputInvalid")
      assert.strictEqual(turn.status._tag === "Ended" && turn.status.exit._tag, "Failure")
    }))
})

describe("Tracing: control requests of the host", () => {
  it.effect("each is a span under the caller's; a refused one carries the library's reason", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const { exit, spans } = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.setPermissionMode("acceptEdits")
        const exit = yield* Effect.exit(session.setModel("no-such-model").pipe(Effect.withSpan("switching")))
        return { exit, spans: collected.spans }
      }).pipe(
        Effect.scoped,
        Effect.provide(FakeCli.layer(FakeCli.conversation({
          onControl: (request, cli) => {
            const body = request.request as Record<string, unknown>
            return cli.emit(
              body.subtype === "set_model" ? FakeCli.failure(request, "unknown model") : FakeCli.success(request)
            )
          }
        }))),
        collected.provide
      )
      assert.isTrue(Exit.isFailure(exit))
      const mode = only(spans, "claude.control_request set_permission_mode")
      assert.deepInclude(Object.fromEntries(mode.attributes), {
        "claude.subtype": "set_permission_mode",
        "claude.control.direction": "host_to_cli"
      })
      assert.isFalse(mode.attributes.has("claude.error.reason"))
      const model = only(spans, "claude.control_request set_model")
      assert.strictEqual(parentName(model), "switching")
      assert.strictEqual(model.attributes.get("claude.error.reason"), "ControlRejected")
      assert.strictEqual(model.status._tag === "Ended" && model.status.exit._tag, "Failure")
    }))
})

describe("Tracing: without a tracer", () => {
  it.effect("with Effect's nativeTracer the spans a handler runs under are kept (turn, tool use), without attributes; metrics still count", () =>
    Effect.gen(function*() {
      const seen: Array<Tracer.AnySpan> = []
      const registry: Metric.MetricRegistry = new Map()
      const hook = Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () =>
        Effect.gen(function*() {
          seen.push(yield* Effect.currentSpan)
          return Hooks.allow()
        })))
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* Tracer.Tracer, Tracer.nativeTracer)
        const session = yield* Claude.open()
        const result = yield* session.run(PROMPT)
        assert.strictEqual(result.result, "All done.")
      }).pipe(
        Effect.scoped,
        Effect.provide(Layer.mergeAll(toolTurnCli("sk-native"), byre, hook, Permissions.layer(() => Effect.succeed(Permissions.allow())))),
        Effect.provideService(Metric.MetricRegistry, registry),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(seen.length, 1)
      const names = chain(seen[0]!)
      assert.deepStrictEqual(names, ["Hooks.dispatch", "claude.hook PreToolUse", "execute_tool Bash", "claude.turn", "claude.session", "Claude.open"])
      const spanAt = (depth: number) => {
        let span: Tracer.AnySpan = seen[0]!
        for (let i = 0; i < depth && span._tag === "Span"; i++) span = Option.getOrThrow(span.parent)
        assert.strictEqual(span._tag, "Span")
        return span as Tracer.Span
      }
      // With a tracer these carry gen_ai.tool.name and gen_ai.operation.name (tests above).
      assert.deepStrictEqual([...spanAt(2).attributes.keys()], [])
      assert.isFalse(spanAt(3).attributes.has("gen_ai.operation.name"))
      const turns = Metric.snapshotUnsafe(Context.make(Metric.MetricRegistry, registry)).filter((m) => m.id === "claude.turn.duration")
      assert.strictEqual(turns.length, 1)
    }))
})

describe("Tracing: metrics", () => {
  it.effect("per turn: its duration, its tokens per model and type, its cost, its tool uses; per tool use: by name and outcome", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const snapshots = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("one")
        yield* session.run("two")
        return {
          duration: yield* metricSnapshots("claude.turn.duration"),
          tokens: yield* metricSnapshots("gen_ai.client.token.usage"),
          cost: yield* metricSnapshots("claude.turn.cost"),
          turnTools: yield* metricSnapshots("claude.turn.tool_calls"),
          tools: yield* metricSnapshots("claude.tool.calls")
        }
      }).pipe(
        Effect.scoped,
        Effect.provide(Layer.merge(toolTurnCli("sk-metrics"), handlers)),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const state = <S>(list: ReadonlyArray<{ readonly attributes: unknown; readonly state: unknown }>, attributes: Record<string, string>) => {
        const found = list.find((s) => JSON.stringify(s.attributes) === JSON.stringify(attributes))
        assert.isDefined(found, `no series ${JSON.stringify(attributes)} in ${JSON.stringify(list.map((s) => s.attributes))}`)
        return found!.state as S
      }
      type Histogram = { readonly count: number; readonly sum: number }
      type Counter = { readonly count: number }
      const turnAttributes = { "gen_ai.request.model": "claude-fake-1", "claude.turn.kind": "user" }
      const duration = state<Histogram>(snapshots.duration, { ...turnAttributes, "claude.result.subtype": "success" })
      // FakeCli.result reports duration_ms 10.
      assert.deepInclude(duration, { count: 2, sum: 20 })
      // Each turn's own cost: the CLI's running total is 0.25 after each, so the second turn cost 0.
      assert.strictEqual(state<Counter>(snapshots.cost, turnAttributes).count, 0.25)
      assert.deepInclude(state<Histogram>(snapshots.turnTools, turnAttributes), { count: 2, sum: 6 })
      const tokens = { "gen_ai.request.model": "claude-fake-1", "gen_ai.provider.name": "anthropic" }
      assert.deepInclude(state<Histogram>(snapshots.tokens, { ...tokens, "gen_ai.token.type": "input" }), { count: 2, sum: 2500 })
      assert.deepInclude(state<Histogram>(snapshots.tokens, { ...tokens, "gen_ai.token.type": "output" }), { count: 2, sum: 1250 })
      assert.strictEqual(state<Counter>(snapshots.tools, { "gen_ai.tool.name": "Bash", "claude.tool.outcome": "ok" }).count, 2)
      assert.strictEqual(state<Counter>(snapshots.tools, { "gen_ai.tool.name": "mcp__byre__echo", "claude.tool.outcome": "ok" }).count, 2)
      assert.strictEqual(state<Counter>(snapshots.tools, { "gen_ai.tool.name": "Read", "claude.tool.outcome": "error" }).count, 2)
    }))
})

describe("Tracing: content and secrets", () => {
  it.effect("a Redacted environment value and the account e-mail are secrets of the spans", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const secret = "sk-redacted-env"
      const spans = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ env: { MY_TOKEN: Redacted.make(secret) }, secretEnv: ["MY_TOKEN"] })
        yield* session.run(`say ${secret} to someone@example.com`)
        return collected.spans
      }).pipe(
        Effect.scoped,
        Effect.provide(Layer.merge(toolTurnCli("plain"), handlers)),
        Effect.provideService(Tracing.TraceContent, true),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const prompt = String(only(spans, "claude.turn").attributes.get("gen_ai.input.messages"))
      assert.include(prompt, "say [redacted] to [redacted]")
      assert.deepStrictEqual(attributeTexts(spans).filter((t) => t.includes(secret) || t.includes("someone@example.com")), [])
    }))
})
