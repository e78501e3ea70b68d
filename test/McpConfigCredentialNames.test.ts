/**
 * Plain credentials of external MCP server configs named otherwise than the few names the
 * library knew: headers other than `Authorization`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
 * `Cookie` (GitLab's `Private-Token`, Google's `X-Goog-Api-Key`, `X-Access-Token`), and a stdio
 * server's `env` variables other than the CLI's own secret names (`BRAVE_API_KEY`,
 * `SLACK_BOT_TOKEN`, `GITLAB_PERSONAL_ACCESS_TOKEN`, the MCP servers' documented setup). The CLI
 * echoes them in its `mcp_status` answer, which reached the transcript in clear (found by a
 * review). They are the session's secrets now; other headers and variables are not.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as McpServerConfigs from "../src/internal/mcpServerConfigs.ts"
import { mcpStatusTranscript } from "./support/mcpStatusEcho.ts"

const headers = {
  "Private-Token": "glpat-0123456789abcdef",
  "X-Goog-Api-Key": "AIzaSy0123456789abcdef",
  "X-Access-Token": "acc-0123456789abcdef",
  "x-api-token": "apitok-0123456789abcdef",
  "X-Trace": "visible-trace-0123",
  Accept: "application/json"
}
const env = {
  BRAVE_API_KEY: "BSA0123456789abcdef",
  SLACK_BOT_TOKEN: "xoxb-0123456789abcdef",
  GITLAB_PERSONAL_ACCESS_TOKEN: "glpat-env-0123456789abcdef",
  DB_PASSWORD: "hunter2-0123456789",
  LOG_LEVEL_NAME: "visible-level-0123",
  SSH_KEY_PATH: "keys/id_visible"
}
const envSecrets = ["BRAVE_API_KEY", "SLACK_BOT_TOKEN", "GITLAB_PERSONAL_ACCESS_TOKEN", "DB_PASSWORD"] as const
const servers = {
  api: { type: "http", url: "https://mcp.example.com/mcp", headers },
  tools: { command: "node", args: ["server.js"], env }
} as const

describe("credentials of MCP server configs, named otherwise", () => {
  it("secretsOf takes their values; not those of other headers", () => {
    const secrets = McpServerConfigs.secretsOf(servers, [])
    for (const name of ["Private-Token", "X-Goog-Api-Key", "X-Access-Token", "x-api-token"] as const) {
      assert.include(secrets, headers[name], name)
    }
    for (const name of envSecrets) assert.include(secrets, env[name], name)
    assert.notInclude(secrets, headers["X-Trace"])
    assert.notInclude(secrets, headers.Accept)
    assert.notInclude(secrets, env.LOG_LEVEL_NAME)
    assert.notInclude(secrets, env.SSH_KEY_PATH)
  })

  it.effect("mcp_status echoing them: the transcript holds none of the credentials", () =>
    Effect.gen(function*() {
      const text = yield* mcpStatusTranscript(servers)
      assert.include(text, "visible-trace-0123")
      assert.include(text, "visible-level-0123")
      for (const name of envSecrets) assert.notInclude(text, env[name], name)
      for (const name of ["Private-Token", "X-Goog-Api-Key", "X-Access-Token", "x-api-token"] as const) {
        assert.notInclude(text, headers[name], name)
      }
    }))
})
