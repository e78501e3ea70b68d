/**
 * Secrets in the configs of external MCP servers (a bearer token in `headers`, a key in `env`):
 * the CLI echoes every server's config in its `mcp_status` answer, and `setMcpServers` writes
 * them on stdin, so they reached transcripts in clear, with no way to mark them secret (found by
 * a review). A `Redacted` value is taken in `env` and `headers` (revealed to the CLI only), and
 * it, a plain `env` value of a secret name and a plain credential header are the session's
 * secrets: `[redacted]` in the transcript.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Sink from "effect/Sink"
import * as Claude from "../src/Claude.ts"
import * as McpServerConfigs from "../src/internal/mcpServerConfigs.ts"
import * as Launch from "../src/Launch.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const BEARER = "tok-plain-0123456789abcdef"
const KEY = "key-redacted-0123456789abcdef"
const ENV_SECRET = "ghp_mcpenv0123456789abcdef"
const LATER = "tok-later-0123456789abcdef"

const servers = {
  api: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: `Bearer ${BEARER}`, "X-Trace": "visible-trace-1" } },
  tools: { command: "node", args: ["server.js"], env: { MCP_KEY: Redacted.make(KEY), GITHUB_TOKEN: ENV_SECRET, MODE: "visible-mode-2" } }
} as const

/** The configs as the CLI echoes them: revealed (what the CLI got). */
const echoed = (configs: Record<string, unknown>) => ({
  mcpServers: Object.entries(configs).map(([name, config]) => ({ name, status: "failed", config }))
})

describe("secrets in external MCP server configs", () => {
  it("the --mcp-config the CLI gets holds the Redacted values revealed", () => {
    const command = Launch.buildCommand({ mcpServers: servers }, { mcpServers: [], permissionPromptTool: false })
    const json = command.args[command.args.indexOf("--mcp-config") + 1]!
    const config = JSON.parse(json) as { mcpServers: Record<string, { headers?: Record<string, string>; env?: Record<string, string> }> }
    assert.strictEqual(config.mcpServers.api?.headers?.Authorization, `Bearer ${BEARER}`)
    assert.strictEqual(config.mcpServers.tools?.env?.MCP_KEY, KEY)
    assert.strictEqual(config.mcpServers.tools?.env?.GITHUB_TOKEN, ENV_SECRET)
  })

  it.effect("mcp_status echoing the launch configs, and setMcpServers with a Redacted header: the transcript holds none of them; the CLI got them", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      let sent: unknown
      const cli = FakeCli.layer(FakeCli.conversation({
        sessionId: "s-1",
        onControl: (request, cli) =>
          Effect.gen(function*() {
            const body = request.request as { subtype: string; servers?: Record<string, unknown> }
            if (body.subtype === "mcp_status") {
              const { api, tools } = servers
              yield* cli.emit(FakeCli.success(request, echoed({
                api,
                tools: { ...tools, env: { ...tools.env, MCP_KEY: KEY } }
              })))
            } else if (body.subtype === "mcp_set_servers") {
              sent = body.servers
              yield* cli.emit(FakeCli.success(request, { added: Object.keys(body.servers ?? {}), removed: [], errors: {} }))
            } else yield* cli.emit(FakeCli.success(request, {}))
          })
      }))
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
        const session = yield* Claude.open({ mcpServers: servers, transcript: recorder })
        const status = yield* session.mcpStatus()
        assert.lengthOf(status.mcpServers, 2)
        yield* session.setMcpServers({
          later: { type: "sse", url: "https://mcp.example.com/sse", headers: { "X-Api-Key": Redacted.make(LATER) } }
        })
      })).pipe(Effect.provide(cli))
      assert.deepStrictEqual(sent, { later: { type: "sse", url: "https://mcp.example.com/sse", headers: { "X-Api-Key": LATER } } })
      const text = written.join("")
      assert.include(text, "visible-trace-1")
      assert.include(text, "visible-mode-2")
      for (const secret of [BEARER, KEY, ENV_SECRET, LATER]) assert.notInclude(text, secret)
    }))
})

describe("McpServerConfigs.secretsOf", () => {
  it("Redacted values, env values of secret names, credential headers and the credential after their scheme; nothing else", () => {
    const secrets = McpServerConfigs.secretsOf({
      a: { type: "http", url: "https://x.example", headers: { authorization: "Bearer abc-token-1", Accept: "application/json", "X-Key": Redacted.make("xkey-value-2") } },
      b: { command: "node", env: { GH_TOKEN: "ghp_value_3", MODE: "production", OWN: Redacted.make("own-value-4") } }
    }, ["GH_TOKEN"])
    assert.deepStrictEqual([...secrets].sort(), ["Bearer abc-token-1", "abc-token-1", "ghp_value_3", "own-value-4", "xkey-value-2"])
  })
})
