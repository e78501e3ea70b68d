/**
 * `ClaudeCodeLanguageModel` and a tool's `toModelOutput`: the response's `tool-result` part carries
 * the model output beside the typed result (as `effect/ai` providers give it), and a history's
 * tool result with a model output is sent to the CLI as that output, never as the result it
 * replaces (a `Chat`'s next turn on a fresh session).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { assistantLine, toolResultLine } from "./support/toolLines.ts"
import { Users, UsersHandlers } from "./support/aiTools.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

/** A fake CLI that keeps each turn's prompt text and plays it with `play`, then answers `text`. */
const recordingTurns = (
  text: string,
  play: (index: number, cli: FakeCli.FakeCliHandle) => Effect.Effect<void, unknown> = () => Effect.void
) => {
  const turns: Array<string> = []
  const transport = FakeCli.layer(FakeCli.conversation({
    sessionId,
    onUser: (prompt, index, cli) =>
      Effect.gen(function*() {
        turns.push(prompt)
        yield* play(index, cli)
        for (const line of FakeCli.textTurn({ sessionId, text })) yield* cli.emit(line)
      })
  }))
  return { turns, transport }
}

describe("ClaudeCodeLanguageModel: toModelOutput", () => {
  it.effect("the tool-result part carries the model output; the next fresh turn sends it, not the result", () =>
    Effect.gen(function*() {
      const { transport, turns } = recordingTurns("Found.", (index, cli) =>
        Effect.gen(function*() {
          if (index === 0) {
            const id = "toolu_1"
            const args = { id: "7" }
            yield* cli.emit(assistantLine(sessionId, "msg_1", [{ type: "tool_use", id, name: "mcp__toolkit__Lookup", input: args }], { stopReason: "tool_use" }))
            const answer = (yield* cli.request({
              subtype: "mcp_message",
              server_name: "toolkit",
              message: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "Lookup", arguments: args, _meta: { "claudecode/toolUseId": id } } }
            })) as { readonly response?: { readonly mcp_response?: { readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }> } } } }
            yield* cli.emit(toolResultLine(sessionId, id, answer.response?.mcp_response?.result?.content?.[0]?.text ?? "", false))
          }
        }))
      const model = ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))
      const first = yield* LanguageModel.generateText({ prompt: "Look up 7", toolkit: Users }).pipe(
        Effect.provide(model),
        Effect.provide(UsersHandlers)
      )
      const [result] = first.toolResults
      assert.deepStrictEqual(result!.result, { name: "ada-7", apiToken: "secret-token-123" })
      assert.deepStrictEqual(result!.modelOutput?.map((part) => part.type === "text" ? part.text : part.type), ["User ada-7"])

      const history = Prompt.concat(Prompt.make("Look up 7"), Prompt.fromResponseParts(first.content))
      yield* LanguageModel.generateText({ prompt: Prompt.concat(history, Prompt.make("Who was it?")), toolkit: Users }).pipe(
        Effect.provide(model),
        Effect.provide(UsersHandlers)
      )
      assert.strictEqual(turns.length, 2)
      assert.include(turns[1]!, "User ada-7")
      assert.notInclude(turns[1]!, "secret-token-123")
    }))

  it.effect("a history's tool result with a model output (from any provider) is sent as that output", () =>
    Effect.gen(function*() {
      const { transport, turns } = recordingTurns("ok")
      const prompt = Prompt.fromMessages([
        Prompt.userMessage({ content: [Prompt.textPart({ text: "Look up 7" })] }),
        Prompt.assistantMessage({ content: [Prompt.toolCallPart({ id: "c1", name: "Lookup", params: { id: "7" }, providerExecuted: false })] }),
        Prompt.toolMessage({
          content: [Prompt.toolResultPart({
            id: "c1",
            name: "Lookup",
            isFailure: false,
            result: { name: "ada-7", apiToken: "secret-token-123" },
            modelOutput: [Prompt.textPart({ text: "User ada-7" })],
            providerExecuted: false
          })]
        }),
        Prompt.userMessage({ content: [Prompt.textPart({ text: "Who was it?" })] })
      ])
      yield* LanguageModel.generateText({ prompt }).pipe(Effect.provide(ClaudeCodeLanguageModel.layer().pipe(Layer.provide(transport))))
      assert.include(turns[0]!, "User ada-7")
      assert.notInclude(turns[0]!, "secret-token-123")
    }))
})
