/**
 * `ClaudeCodeLanguageModel` on the in-memory CLI (`FakeCli`): how a prompt becomes a session and a
 * turn, and how the turn's messages become `effect/ai` response parts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AiError from "effect/ai/AiError"
import * as Chat from "effect/ai/Chat"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Model from "effect/ai/Model"
import * as Prompt from "effect/ai/Prompt"
import * as Tool from "effect/ai/Tool"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { argValue, interleave, resumed, sessionPerLaunch } from "./support/resumedSessions.ts"
import type { LaunchSpec } from "../src/Transport.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

/** A CLI that answers every turn with `reply`, recording each launch and user message. */
const recordingCli = (
  reply: (text: string, index: number, cli: FakeCli.FakeCliHandle, message: Record<string, unknown>) => Effect.Effect<void, unknown>
) => {
  const launches: Array<LaunchSpec> = []
  const handles: Array<FakeCli.FakeCliHandle> = []
  const users: Array<string> = []
  let turns = 0
  const transport = FakeCli.layer((cli) => {
    launches.push(cli.spec)
    handles.push(cli)
    return FakeCli.conversation({
      sessionId,
      onUser: (text, _index, cli, message) => {
        users.push(text)
        return reply(text, turns++, cli, message)
      }
    })(cli)
  })
  /** The `initialize` request of launch `index`. */
  const initialize = (index: number): Record<string, unknown> | undefined => {
    const line = handles[index]?.received.find((message) =>
      message.type === "control_request" && (message.request as { subtype?: unknown }).subtype === "initialize"
    )
    return line?.request as Record<string, unknown> | undefined
  }
  return { launches, users, transport, initialize }
}

const emitAll = (cli: FakeCli.FakeCliHandle, lines: ReadonlyArray<unknown>) =>
  Effect.forEach(lines, (line) => cli.emit(line), { discard: true })

const textReply = (text: (prompt: string, index: number) => string, chunks = 1) =>
(prompt: string, index: number, cli: FakeCli.FakeCliHandle) =>
  emitAll(cli, FakeCli.textTurn({ sessionId, text: text(prompt, index), chunks, totalCostUsd: 0.002 * (index + 1) }))

const modelOn = <E, R>(transport: Layer.Layer<import("../src/Transport.ts").Transport, E, R>, options?: ClaudeCodeLanguageModel.Options) =>
  ClaudeCodeLanguageModel.layer(options).pipe(Layer.provide(transport))

// A toolkit with one tool of ours and Claude Code's Bash.
const GetWeather = Tool.make("GetWeather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Finite })
})
const Weather = Toolkit.make(GetWeather, ClaudeCodeLanguageModel.Bash)
const WeatherHandlers = Weather.toLayer({ GetWeather: ({ city }) => Effect.succeed({ celsius: city.length }) })

const assistantToolUse = (id: string, name: string, input: unknown) =>
  assistantLine(sessionId, `msg_${id}`, [{ type: "tool_use", id, name, input }], { stopReason: "tool_use" })

const userToolResult = (id: string, content: string, isError = false) => toolResultLine(sessionId, id, content, isError)

/** The CLI's stdout line for `--resume` of a session it does not have (testdata g4-resume-unknown). */
const noConversationResult = (sessionId: string) => ({
  type: "result",
  subtype: "error_during_execution",
  duration_ms: 0,
  duration_api_ms: 0,
  is_error: true,
  num_turns: 0,
  stop_reason: null,
  session_id: sessionId,
  total_cost_usd: 0,
  usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  modelUsage: {},
  permission_denials: [],
  uuid: "18e6b8bf-717e-45f9-81e7-a96d8c0a6db5",
  errors: [`No conversation found with session ID: ${sessionId}`]
})

describe("ClaudeCodeLanguageModel", () => {
  it.effect("generateText: the system message as the system prompt, the text, finish reason, usage and cost", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply((prompt) => `you said: ${prompt}`))
      const response = yield* LanguageModel.generateText({
        prompt: Prompt.make([
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hello" }
        ])
      }).pipe(Effect.provide(modelOn(cli.transport)))
      assert.strictEqual(response.text, "you said: Hello")
      assert.strictEqual(response.finishReason, "stop")
      assert.strictEqual(response.usage.inputTokens.uncached, 10)
      assert.strictEqual(response.usage.outputTokens.total, 5)
      const finish = response.content.find((part) => part.type === "finish")!
      const metadata = finish.metadata[ClaudeCodeLanguageModel.metadataKey] as Record<string, unknown>
      assert.strictEqual(metadata.costUsd, 0.002)
      assert.strictEqual(metadata.sessionId, sessionId)
      assert.strictEqual(cli.initialize(0)?.systemPrompt, "Be brief.")
      assert.include(cli.launches[0]!.args, "--include-partial-messages")
      assert.deepStrictEqual(cli.users, ["Hello"])
    }))

  it.effect("a user message's image goes as an image block before the text", () =>
    Effect.gen(function*() {
      const messages: Array<Record<string, unknown>> = []
      const cli = recordingCli((_text, _index, cli, message) =>
        Effect.andThen(
          Effect.sync(() => messages.push(message)),
          emitAll(cli, FakeCli.textTurn({ sessionId, text: "A red dot." }))
        )
      )
      const response = yield* LanguageModel.generateText({
        prompt: Prompt.make([{
          role: "user",
          content: [
            { type: "file", mediaType: "image/png", data: new Uint8Array([137, 80, 78, 71]) },
            { type: "text", text: "What is this?" }
          ]
        }])
      }).pipe(Effect.provide(modelOn(cli.transport)))
      assert.strictEqual(response.text, "A red dot.")
      assert.deepStrictEqual((messages[0]!.message as { readonly content: unknown }).content, [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw==" } },
        { type: "text", text: "What is this?" }
      ])
    }))

  it.effect("streamText: text deltas as the CLI streams them, then the finish part", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply(() => "one two three", 3))
      const parts = yield* LanguageModel.streamText({ prompt: "Count" }).pipe(
        Stream.runCollect,
        Effect.provide(modelOn(cli.transport))
      )
      const types = parts.map((part) => part.type)
      const deltas = parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : [])
      assert.deepStrictEqual(deltas.join(""), "one two three")
      assert.isAtLeast(deltas.length, 3)
      assert.isBelow(types.indexOf("text-delta"), types.indexOf("finish"))
      assert.strictEqual(types.at(-1), "finish")
    }))

  it.effect("streamText: thinking as reasoning deltas, then the text; subagent lines left out", () =>
    Effect.gen(function*() {
      const streamEvent = (event: Record<string, unknown>, i: number, parent: string | null = null) => ({
        type: "stream_event",
        event,
        parent_tool_use_id: parent,
        session_id: sessionId,
        uuid: `think-${i}`
      })
      const usage = { input_tokens: 1, output_tokens: 1 }
      const thinkingMessage = { id: "msg_think", type: "message", role: "assistant", model: "claude-fake-1", stop_reason: null, stop_sequence: null, usage }
      const cli = recordingCli((_text, _index, cli) =>
        emitAll(cli, [
          streamEvent({ type: "message_start", message: { ...thinkingMessage, content: [] } }, 0),
          streamEvent({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }, 1),
          streamEvent({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me " } }, 2),
          streamEvent({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "think." } }, 3),
          streamEvent({ type: "content_block_stop", index: 0 }, 4),
          // As the CLI writes each block of a message once it is complete.
          {
            type: "assistant",
            message: { ...thinkingMessage, content: [{ type: "thinking", thinking: "Let me think.", signature: "" }] },
            parent_tool_use_id: null,
            session_id: sessionId,
            uuid: "think-assistant"
          },
          // A subagent's text is not the answer.
          streamEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, 5, "toolu_task"),
          streamEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "sub" } }, 6, "toolu_task"),
          ...FakeCli.textTurn({ sessionId, text: "Done." })
        ])
      )
      const parts = yield* LanguageModel.streamText({ prompt: "Think" }).pipe(
        Stream.runCollect,
        Effect.provide(modelOn(cli.transport))
      )
      const reasoning = parts.flatMap((part) => part.type === "reasoning-delta" ? [part.delta] : [])
      assert.deepStrictEqual(reasoning, ["Let me ", "think."])
      const types = parts.map((part) => part.type)
      assert.isBelow(types.indexOf("reasoning-end"), types.indexOf("text-start"))
      assert.strictEqual(parts.flatMap((part) => part.type === "text-delta" ? [part.delta] : []).join(""), "Done.")
      const response = yield* LanguageModel.generateText({ prompt: "Think" }).pipe(Effect.provide(modelOn(cli.transport)))
      assert.strictEqual(response.reasoningText, "Let me think.")
      assert.strictEqual(response.text, "Done.")
    }))

  it.effect("a toolkit tool runs in process; its call and result, and Bash's, come back as provider-executed parts", () =>
    Effect.gen(function*() {
      const cli = recordingCli((_text, _index, cli) =>
        Effect.gen(function*() {
          yield* cli.emit(assistantToolUse("toolu_w", "mcp__toolkit__GetWeather", { city: "Paris" }))
          const answer = yield* cli.request({
            subtype: "mcp_message",
            server_name: "toolkit",
            message: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "GetWeather", arguments: { city: "Paris" }, _meta: { "claudecode/toolUseId": "toolu_w" } }
            }
          })
          yield* cli.emit(userToolResult("toolu_w", JSON.stringify(answer)))
          yield* cli.emit(assistantToolUse("toolu_b", "Bash", { command: "echo hi" }))
          yield* cli.emit(userToolResult("toolu_b", "hi"))
          yield* cli.emit(assistantToolUse("toolu_r", "Read", { file_path: "x" }))
          yield* cli.emit(userToolResult("toolu_r", "contents"))
          yield* emitAll(cli, FakeCli.textTurn({ sessionId, text: "Sunny." }))
        })
      )
      const response = yield* LanguageModel.generateText({ prompt: "Weather?", toolkit: Weather }).pipe(
        Effect.provide(modelOn(cli.transport)),
        Effect.provide(WeatherHandlers)
      )
      assert.deepStrictEqual(
        response.toolCalls.map((call) => [call.name, call.params, call.providerExecuted]),
        [["GetWeather", { city: "Paris" }, true], ["Bash", { command: "echo hi" }, true]]
      )
      assert.deepStrictEqual(
        response.toolResults.map((result) => [result.name, result.result, result.isFailure]),
        [["GetWeather", { celsius: 5 }, false], ["Bash", "hi", false]]
      )
      assert.strictEqual(response.text, "Sunny.")
      // The toolkit's tools are allowed without a prompt.
      assert.include(argValue(cli.launches[0]!, "--allowedTools"), "mcp__toolkit__GetWeather")
      assert.include(argValue(cli.launches[0]!, "--mcp-config"), "\"toolkit\"")
    }))

  it.effect("generateObject: the Schema's JSON Schema as structured output, the value decoded", () =>
    Effect.gen(function*() {
      const Person = Schema.Struct({ name: Schema.String, age: Schema.Int })
      const cli = recordingCli((_text, _index, cli) =>
        emitAll(cli, [
          ...FakeCli.textTurn({ sessionId, text: "Here it is." }).slice(0, -1),
          FakeCli.result({ sessionId, structuredOutput: { name: "Ada", age: 36 } })
        ])
      )
      const response = yield* LanguageModel.generateObject({ prompt: "Who?", schema: Person }).pipe(
        Effect.provide(modelOn(cli.transport))
      )
      assert.deepStrictEqual(response.value, { name: "Ada", age: 36 })
      assert.include(argValue(cli.launches[0]!, "--json-schema"), "\"age\"")
    }))

  it.effect("a failed turn is an AiError whose reason has the ClaudeError as its cause", () =>
    Effect.gen(function*() {
      const cli = recordingCli((_text, _index, cli) =>
        cli.emit(FakeCli.result({ sessionId, subtype: "error_max_turns", terminalReason: "max_turns" }))
      )
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Go" }).pipe(Effect.provide(modelOn(cli.transport)))
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
      const aiError = (error as { readonly error: unknown } | undefined)?.error
      assert.isTrue(AiError.isAiError(aiError))
      const cause = ((aiError as AiError.AiError).reason as { readonly cause?: unknown }).cause
      assert.isTrue(ClaudeError.isClaudeError(cause))
      assert.strictEqual((cause as ClaudeError.ClaudeError).reason._tag, "LimitReached")
    }))

  it.effect("model: the layer with the model set, and the provider's and model's names", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply(() => "hi"))
      const names = yield* Effect.gen(function*() {
        yield* LanguageModel.generateText({ prompt: "Hello" })
        return [yield* Model.ProviderName, yield* Model.ModelName]
      }).pipe(Effect.provide(ClaudeCodeLanguageModel.model("opus").pipe(Layer.provide(cli.transport))))
      assert.deepStrictEqual(names, ["claude-code", "opus"])
      assert.strictEqual(argValue(cli.launches[0]!, "--model"), "opus")
    }))

  it("fromClaudeError: the AiError reason by what went wrong, the ClaudeError as its cause", () => {
    const api = (status: number | null) =>
      ClaudeError.make(new ClaudeError.ApiError({ result: {}, status, errorType: null, description: "boom" }))
    const limit = (name: string) => ClaudeError.make(new ClaudeError.LimitReached({ result: {}, limit: name }))
    const cases: ReadonlyArray<readonly [ClaudeError.ClaudeError, string]> = [
      [api(429), "RateLimitError"],
      [api(401), "AuthenticationError"],
      [api(529), "InternalProviderError"],
      [api(400), "InvalidRequestError"],
      [ClaudeError.make(new ClaudeError.NotAuthenticated({ result: {}, description: "Not logged in" })), "AuthenticationError"],
      [ClaudeError.make(new ClaudeError.InvalidInput({ description: "empty prompt" })), "InvalidRequestError"],
      [ClaudeError.make(new ClaudeError.Stalled({ idleMillis: 5 })), "UnknownError"],
      // No status: the CLI could not reach the API (retryable, as the ApiError says).
      [api(null), "NetworkError"],
      [ClaudeError.make(new ClaudeError.Refused({ result: {}, description: "flagged" })), "ContentPolicyError"],
      // The program's budget is spent: no retry helps until it is raised.
      [limit("error_max_budget_usd"), "QuotaExhaustedError"],
      [limit("budget_exhausted"), "QuotaExhaustedError"],
      // The model kept breaking the schema.
      [limit("error_max_structured_output_retries"), "StructuredOutputError"],
      [limit("error_max_turns"), "UnknownError"]
    ]
    for (const [error, tag] of cases) {
      const aiError = ClaudeCodeLanguageModel.fromClaudeError("generateText", error)
      assert.strictEqual(aiError.reason._tag, tag, error.reason._tag)
      assert.strictEqual((aiError.reason as { readonly cause?: unknown }).cause, error)
      assert.strictEqual(aiError.module, "ClaudeCodeLanguageModel")
    }
  })

  it.effect("a Chat on fresh sessions sends the earlier turns as a transcript", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply((_prompt, index) => `answer ${index + 1}`))
      yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "My name is Ada." })
        yield* chat.generateText({ prompt: "What is my name?" })
      }).pipe(Effect.provide(modelOn(cli.transport)))
      assert.lengthOf(cli.launches, 2)
      assert.strictEqual(argValue(cli.launches[1]!, "--resume"), undefined)
      assert.include(cli.users[1]!, JSON.stringify({ role: "user", content: "My name is Ada." }))
      assert.include(cli.users[1]!, JSON.stringify({ role: "assistant", content: "answer 1" }))
      assert.include(cli.users[1]!, "What is my name?")
    }))

  it.effect("a Chat with conversation: \"resume\" resumes the CLI session and sends only the new message", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply((_prompt, index) => `answer ${index + 1}`))
      yield* Effect.gen(function*() {
        const chat = yield* Chat.empty
        yield* chat.generateText({ prompt: "My name is Ada." })
        yield* chat.generateText({ prompt: "What is my name?" })
        yield* chat.generateText({ prompt: "And again?" })
      }).pipe(Effect.provide(modelOn(cli.transport, { conversation: "resume" })))
      assert.lengthOf(cli.launches, 3)
      assert.strictEqual(argValue(cli.launches[0]!, "--resume"), undefined)
      assert.strictEqual(argValue(cli.launches[1]!, "--resume"), sessionId)
      assert.strictEqual(argValue(cli.launches[2]!, "--resume"), sessionId)
      assert.deepStrictEqual(cli.users, ["My name is Ada.", "What is my name?", "And again?"])
    }))

  it.effect("two Chats sharing the model each resume their own CLI session", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      yield* interleave(Chat.empty).pipe(Effect.provide(modelOn(transport, { conversation: "resume" })))
      assert.deepStrictEqual(resumed(launches), [undefined, undefined, "session-1", "session-2"])
    }))

  it.effect("two Chats from one history each start their own session, not the other's (F6)", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      // The same message objects in both Chats' histories.
      const history = Prompt.make([
        { role: "user", content: "Hello." },
        { role: "assistant", content: [{ type: "text", text: "Hi." }] }
      ])
      yield* interleave(Chat.fromPrompt(history)).pipe(Effect.provide(modelOn(transport, { conversation: "resume" })))
      assert.deepStrictEqual(resumed(launches), [undefined, undefined, "session-1", "session-2"])
    }))

  it.effect("a Chat forked after a resumed turn does not resume the session the other branch moved on (F6)", () =>
    Effect.gen(function*() {
      const { launches, transport } = sessionPerLaunch()
      yield* Effect.gen(function*() {
        const a = yield* Chat.empty
        yield* a.generateText({ prompt: "A1" })
        const fork = yield* Chat.fromPrompt(yield* Ref.get(a.history))
        yield* a.generateText({ prompt: "A2" })
        yield* fork.generateText({ prompt: "F2" })
      }).pipe(Effect.provide(modelOn(transport, { conversation: "resume" })))
      assert.deepStrictEqual(resumed(launches), [undefined, "session-1", undefined])
    }))

  // CLI 2.1.332 writes an error result on stdout (testdata g4-resume-unknown), then the same words on
  // stderr, and exits 1; a CLI may also exit first. Either gives way to a fresh session.
  for (const [said, withResult] of [["on stderr only", false], ["in an error result, then on stderr", true]] as const) {
    it.effect(`a session the CLI no longer has (${said}) gives way to a fresh one with the whole prompt`, () =>
      Effect.gen(function*() {
        const launches: Array<LaunchSpec> = []
        const users: Array<string> = []
        const transport = FakeCli.layer((cli) =>
          Effect.gen(function*() {
            launches.push(cli.spec)
            const resumed = argValue(cli.spec, "--resume")
            if (resumed !== undefined) {
              if (withResult) yield* cli.emit(noConversationResult(resumed))
              yield* cli.stderr(`No conversation found with session ID: ${resumed}\n`)
              return 1
            }
            return yield* FakeCli.conversation({
              sessionId: `session-${launches.length}`,
              onUser: (text, _index, cli) =>
                Effect.andThen(
                  Effect.sync(() => users.push(text)),
                  emitAll(cli, FakeCli.textTurn({ sessionId: `session-${launches.length}`, text: `echo: ${text}` }))
                )
            })(cli)
          })
        )
        const second = yield* Effect.gen(function*() {
          const chat = yield* Chat.empty
          yield* chat.generateText({ prompt: "My name is Ada." })
          return yield* chat.generateText({ prompt: "What is my name?" })
        }).pipe(Effect.provide(modelOn(transport, { conversation: "resume" })))
        assert.deepStrictEqual(launches.map((spec) => argValue(spec, "--resume")), [undefined, "session-1", undefined])
        assert.include(users[1]!, JSON.stringify({ role: "user", content: "My name is Ada." }))
        assert.include(second.text, "What is my name?")
      }))
  }

  it.effect("a toolkit whose handlers are not in the context fails with ToolConfigurationError", () =>
    Effect.gen(function*() {
      const cli = recordingCli(textReply(() => "never"))
      const handlers = yield* Weather.pipe(Effect.provide(WeatherHandlers))
      const exit = yield* Effect.exit(
        LanguageModel.generateText({ prompt: "Weather?", toolkit: handlers }).pipe(Effect.provide(modelOn(cli.transport)))
      )
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
      const error = (failure as { readonly error: AiError.AiError } | undefined)?.error
      assert.strictEqual(error?.reason._tag, "ToolConfigurationError")
      assert.lengthOf(cli.launches, 0)
    }))
})
