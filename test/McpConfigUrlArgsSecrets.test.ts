/**
 * Credentials of external MCP servers not in `env` or `headers`: in the URL (a query parameter
 * such as `?api_key=`, `?access_token=`, as services that take a key in the URL document it, or a
 * password in its userinfo) and in a stdio server's `args` (`--api-key <key>`, `--token=<t>`).
 * The CLI echoes every config in its `mcp_status` answer, which reached the transcript in clear.
 * They are the session's secrets now; other parameters and arguments are not.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpServerConfigs from "../src/internal/mcpServerConfigs.ts"
import { mcpStatusTranscript } from "./support/mcpStatusEcho.ts"

const secrets = {
  query: "qk-0123456789abcdef",
  accessToken: "at-0123456789abcdef",
  password: "pw-0123456789abcdef",
  argNext: "sk-arg-0123456789abcdef",
  argJoined: "tok-arg-0123456789abcdef",
  argShort: "pat-arg-0123456789abcdef"
}
const visible = ["visible-region-0123", "visible-monkey-0123", "visible-path-0123", "visible-flag-0123"]
const servers = {
  keyed: { type: "http", url: `https://mcp.example.com/mcp?region=visible-region-0123&monkey=visible-monkey-0123&api_key=${secrets.query}` },
  oauth: { type: "sse", url: `https://mcp.example.com/sse?access_token=${secrets.accessToken}` },
  basic: { type: "http", url: `https://bot:${secrets.password}@mcp.example.com/mcp` },
  tools: {
    command: "node",
    args: [
      "server.js",
      "--root",
      "visible-path-0123",
      "--api-key",
      secrets.argNext,
      `--token=${secrets.argJoined}`,
      "--github-pat",
      secrets.argShort,
      "--name=visible-flag-0123"
    ]
  }
} as const

describe("credentials in MCP server URLs and arguments", () => {
  it("secretsOf takes them; not other parameters or arguments", () => {
    const found = McpServerConfigs.secretsOf(servers, [])
    for (const [name, secret] of Object.entries(secrets)) assert.include(found, secret, name)
    for (const text of [...visible, "server.js", "--root", "--api-key", "mcp.example.com", "bot"]) {
      assert.notInclude(found, text)
    }
  })

  it("a switch (--no-auth, --require-auth) makes no secret of the argument after it", () => {
    const found = McpServerConfigs.secretsOf({
      files: { command: "mcp-files", args: ["--no-auth", "relative/project-dir"] },
      other: { command: "srv", args: ["--require-auth", "--config-file", "/etc/srv.json", "--require-auth", "/srv/project"] }
    }, [])
    assert.deepStrictEqual(found, [])
  })

  it.effect("mcp_status echoing them: the transcript holds none of the credentials", () =>
    Effect.gen(function*() {
      const text = yield* mcpStatusTranscript(servers)
      for (const shown of visible) assert.include(text, shown)
      for (const [name, secret] of Object.entries(secrets)) assert.notInclude(text, secret, name)
    }))
})
