/**
 * Traces of a real CLI session on the fake model: a turn with a Bash tool (a PreToolUse hook and a
 * permission decision on it) and an in-process MCP tool, collected by a test tracer. The tree
 * (parents, names), the GenAI attributes, no secret and (by default) no prompt text in any
 * attribute; with `Tracing.TraceContent`, the prompt is there with the secret redacted.
 */
import * as Http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Tracing from "../src/Tracing.ts"
import * as TracingExample from "../examples/tracing.ts"
import { live, processLayer } from "./support/live.ts"
import { makeSecrets } from "./support/secrets.ts"
import { attributeTexts, chain, collectSpans, named, only, parentName } from "./support/spans.ts"

const PROMPT = "Run the traced command, then echo hi with the byre tool"

/** Bash, then the MCP tool, then the answer; the CLI's side requests (no tools) get "ok". */
const script = (): FakeModel.Script => {
  let step = 0
  return (request) => {
    if (request.tools.length === 0 || JSON.stringify(request.messages.at(-1)?.content).includes("Warmup")) {
      return FakeModel.text("ok")
    }
    switch (step++) {
      case 0:
        return FakeModel.toolUse("Bash", { command: "touch traced.txt", description: "a traced command" })
      case 1:
        return FakeModel.toolUse("mcp__byre__echo", { text: "hi" })
      default:
        return FakeModel.text("All done.")
    }
  }
}

const byre = McpServers.layer(McpServers.server("byre", {
  alwaysLoad: true,
  tools: [McpServers.tool({
    name: "echo",
    description: "Echo the given text back.",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(`echo: ${text}`)
  })]
}))

const tracedSession = (content: boolean) => {
  const collected = collectSpans()
  const secret = makeSecrets().apiKey
  const decided: Array<string> = []
  return Effect.gen(function*() {
    const { options } = yield* live(script(), { permissionMode: "default" })
    const session = yield* Claude.open({ ...options, env: { ...options.env, ANTHROPIC_API_KEY: secret } })
    const result = yield* session.run(`${PROMPT} (token ${secret})`)
    return { result, spans: collected.spans, secret, decided }
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(
      byre,
      Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(Hooks.allow()))),
      Permissions.layer((request) =>
        Effect.sync(() => {
          decided.push(request.tool_name)
          return Permissions.allow()
        })
      )
    )),
    Effect.provideService(Tracing.TraceContent, content),
    collected.provide,
    Effect.provide(processLayer)
  )
}

describe("Tracing against the real CLI", { timeout: 90_000 }, () => {
  it.live("the tree: session > turn > model requests and tool uses; hook and permission under the Bash use; the MCP call under its use; GenAI attributes", () =>
    Effect.gen(function*() {
      const { decided, result, spans } = yield* tracedSession(false)
      assert.strictEqual(result.result, "All done.")
      assert.deepStrictEqual(decided, ["Bash", "mcp__byre__echo"])
      const tree = spans.map((span) => `${span.name} < ${parentName(span)}`)

      const session = only(spans, "claude.session")
      const turn = only(spans, "claude.turn")
      assert.strictEqual(parentName(turn), "claude.session", tree.join("\n"))
      assert.strictEqual(session.attributes.get("gen_ai.conversation.id"), result.session_id)
      assert.strictEqual(session.attributes.get("gen_ai.provider.name"), "anthropic")
      assert.isString(session.attributes.get("claude.cli.version"))

      const turnAttributes = Object.fromEntries(turn.attributes)
      assert.deepInclude(turnAttributes, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": result.session_id,
        "claude.result.subtype": "success",
        "claude.cost_usd": result.turn.costUsd,
        "claude.turn.kind": "user"
      })
      assert.isAbove(Number(turnAttributes["gen_ai.usage.input_tokens"]), 0)
      assert.isAbove(Number(turnAttributes["gen_ai.usage.output_tokens"]), 0)
      assert.isString(turnAttributes["gen_ai.request.model"])
      assert.deepStrictEqual(turnAttributes["gen_ai.response.finish_reasons"], [result.stop_reason])

      // One model request per answer of the script on the turn: Bash, the MCP tool, the text.
      const chats = named(spans, "chat").filter((span) => parentName(span) === "claude.turn")
      assert.strictEqual(chats.length, 3, tree.join("\n"))
      for (const chat of chats) {
        assert.strictEqual(chat.attributes.get("gen_ai.operation.name"), "chat")
        assert.isString(chat.attributes.get("gen_ai.response.model"))
        assert.isAbove(Number(chat.attributes.get("gen_ai.usage.input_tokens")), 0)
      }
      assert.deepStrictEqual(chats.map((chat) => chat.attributes.get("gen_ai.response.finish_reasons")), [
        ["tool_use"],
        ["tool_use"],
        ["end_turn"]
      ])

      const bash = only(spans, "execute_tool Bash")
      const mcp = only(spans, "execute_tool mcp__byre__echo")
      assert.strictEqual(parentName(bash), "claude.turn")
      assert.strictEqual(parentName(mcp), "claude.turn")
      assert.strictEqual(bash.attributes.get("gen_ai.tool.name"), "Bash")
      assert.match(String(bash.attributes.get("gen_ai.tool.call.id")), /^toolu_/)

      const hook = only(spans, "claude.hook PreToolUse")
      assert.deepStrictEqual(chain(hook).slice(0, 4), ["claude.hook PreToolUse", "execute_tool Bash", "claude.turn", "claude.session"])
      assert.strictEqual(hook.attributes.get("gen_ai.tool.call.id"), bash.attributes.get("gen_ai.tool.call.id"))
      const permission = only(spans, "claude.permission Bash")
      assert.strictEqual(parentName(permission), "execute_tool Bash")
      assert.strictEqual(permission.attributes.get("claude.permission.behavior"), "allow")
      assert.strictEqual(parentName(only(spans, "claude.permission mcp__byre__echo")), "execute_tool mcp__byre__echo")
      const call = only(spans, "claude.mcp tools/call")
      assert.strictEqual(parentName(call), "execute_tool mcp__byre__echo")
      assert.strictEqual(call.attributes.get("gen_ai.tool.call.id"), mcp.attributes.get("gen_ai.tool.call.id"))
      assert.strictEqual(parentName(only(spans, "McpServers.callTool")), "McpServers.handle")

      for (const span of spans) assert.strictEqual(span.status._tag, "Ended", `${span.name} did not end`)
    }))

  it.live("no secret and, by default, no prompt text, result or tool output in any attribute", () =>
    Effect.gen(function*() {
      const { secret, spans } = yield* tracedSession(false)
      const texts = attributeTexts(spans)
      for (const needle of [secret, PROMPT, "All done.", "echo: hi", "touch traced.txt"]) {
        assert.deepStrictEqual(texts.filter((text) => text.includes(needle)), [], needle)
      }
    }))

  it.live("with TraceContent: the prompt is in the turn's span (the secret redacted), tool inputs and outputs in theirs", () =>
    Effect.gen(function*() {
      const { secret, spans } = yield* tracedSession(true)
      const turn = only(spans, "claude.turn")
      assert.include(String(turn.attributes.get("gen_ai.input.messages")), `${PROMPT} (token [redacted])`)
      assert.include(String(turn.attributes.get("gen_ai.output.messages")), "All done.")
      assert.include(String(only(spans, "execute_tool Bash").attributes.get("gen_ai.tool.call.arguments")), "touch traced.txt")
      assert.include(String(only(spans, "execute_tool mcp__byre__echo").attributes.get("gen_ai.tool.call.result")), "echo: hi")
      assert.deepStrictEqual(attributeTexts(spans).filter((text) => text.includes(secret)), [])
    }))
})

/** An OTLP/HTTP collector on 127.0.0.1: the JSON bodies posted to `/v1/traces`. */
const collector = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly traces: Array<unknown>; readonly server: Http.Server }>((resume) => {
    const traces: Array<unknown> = []
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        if (request.url === "/v1/traces") traces.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { readonly port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, traces, server }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("examples/tracing.ts", { timeout: 90_000 }, () => {
  it.live("@effect/opentelemetry: the OpenTelemetry SDK's exporter gets the session's tree, with GenAI attributes", () =>
    Effect.gen(function*() {
      const spans = yield* TracingExample.inMemory(false)
      const byName = (name: string) => spans.filter((span) => span.name === name)
      assert.strictEqual(byName("claude.turn")[0]?.parent, "claude.session")
      assert.strictEqual(byName("execute_tool Bash")[0]?.parent, "claude.turn")
      assert.strictEqual(byName("execute_tool Bash")[0]?.attributes["gen_ai.tool.name"], "Bash")
      const chats = spans.filter((span) => span.name.startsWith("chat "))
      assert.strictEqual(chats.length, 2)
      assert.isAbove(Number(byName("claude.turn")[0]?.attributes["gen_ai.usage.output_tokens"]), 0)
      const tree = TracingExample.render(spans)
      assert.match(tree, /\n {2}claude\.session[^\n]*\n {4}claude\.turn[^\n]*\n {6}(chat|execute_tool)/)
    }))

  it.live("OTLP: a collector at OTEL_EXPORTER_OTLP_ENDPOINT receives the session's spans over OTLP/HTTP", () =>
    Effect.gen(function*() {
      const { traces, url } = yield* collector
      const result = yield* TracingExample.session.pipe(Effect.provide(TracingExample.otlpLayer(url)))
      assert.strictEqual(result.result, "The command printed: traced")
      const body = JSON.stringify(traces)
      for (const name of ["claude.session", "claude.turn", "execute_tool Bash", "chat "]) assert.include(body, `"name":"${name}`)
      assert.include(body, "gen_ai.conversation.id")
      assert.include(body, result.session_id)
    }).pipe(Effect.scoped))
})
