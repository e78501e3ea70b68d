/**
 * External MCP servers at launch (issue 15), against the real CLI (the pinned devDependency) on the
 * fake model: a stdio server given in `mcpServers` next to an in-process server of the `McpServers`
 * layer, both called by the model in one session; and `strictMcpConfig`, which makes the CLI ignore
 * the servers of a project's `.mcp.json`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const stdioServer = Path.join(import.meta.dirname, "fixtures", "stdio-mcp-server.mjs")

const echoServer = (name: string, received: Array<string>) =>
  McpServers.server(name, {
    alwaysLoad: true,
    tools: [McpServers.tool({
      name: "echo",
      description: "Echo the given text back.",
      input: Schema.Struct({ text: Schema.String }),
      handler: (input) =>
        Effect.sync(() => {
          received.push(input.text)
          return `echo: ${input.text}`
        })
    })]
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "claude-mcp-config-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("external MCP servers at launch against the real CLI", { timeout: 120_000 }, () => {
  it.live("a stdio server from mcpServers and an in-process server: the model calls a tool of each in one session", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const dir = yield* tempDir
      const log = Path.join(dir, "echo.log")
      const { session, model } = yield* Offline.open([
        FakeModel.toolUse("mcp__outside__echo", { text: "over stdio" }),
        FakeModel.toolUse("mcp__inside__echo", { text: "in process" }),
        FakeModel.text("done")
      ], {
        executable: cliPath,
        allowedTools: ["mcp__outside__echo", "mcp__inside__echo"],
        mcpServers: {
          outside: { command: process.execPath, args: [stdioServer, "outside"], env: { ECHO_LOG: log } }
        }
      }).pipe(Effect.provide(McpServers.layer(echoServer("inside", received))))
      const result = yield* session.run("Call both echo tools")
      assert.strictEqual(result.result, "done")
      assert.strictEqual(Fs.readFileSync(log, "utf8"), "over stdio\n")
      assert.deepStrictEqual(received, ["in process"])
      const requests = yield* model.messageRequests
      assert.strictEqual(FakeModel.toolResults(requests[1]!)[0]?.content, "stdio echo: over stdio")
      assert.strictEqual(FakeModel.toolResults(requests[2]!)[0]?.content, "echo: in process")
      const status = yield* session.mcpStatus()
      assert.strictEqual(status.mcpServers.find((s) => s.name === "outside")?.status, "connected")
      assert.strictEqual(status.mcpServers.find((s) => s.name === "inside")?.status, "connected")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("strictMcpConfig: the server of the project's .mcp.json is seen without it and ignored with it", () =>
    Effect.gen(function*() {
      const cwd = yield* tempDir
      Fs.writeFileSync(
        Path.join(cwd, ".mcp.json"),
        JSON.stringify({ mcpServers: { project: { type: "stdio", command: process.execPath, args: [stdioServer, "project"] } } })
      )
      const namesWith = (strictMcpConfig: boolean) =>
        Effect.scoped(Effect.gen(function*() {
          const { session } = yield* Offline.open([FakeModel.text("one")], {
            executable: cliPath,
            cwd,
            settings: { enableAllProjectMcpServers: true },
            strictMcpConfig,
            mcpServers: { outside: { type: "stdio", command: process.execPath, args: [stdioServer, "outside"] } }
          })
          yield* session.run("one")
          const status = yield* session.mcpStatus()
          return status.mcpServers.map((s) => `${s.name}:${s.status}`).sort()
        }))
      const loose = yield* namesWith(false)
      const strict = yield* namesWith(true)
      assert.deepStrictEqual(loose, ["outside:connected", "project:connected"])
      assert.deepStrictEqual(strict, ["outside:connected"])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
