/**
 * External MCP servers at launch (issue 15): the `--mcp-config` the library writes from
 * `mcpServers` (stdio, SSE, HTTP) merged with the in-process servers of the `McpServers` layer,
 * `--strict-mcp-config`, and the configs `validate` refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as Launch from "../src/Launch.ts"
import * as McpServers from "../src/McpServers.ts"
import * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const noWiring: Launch.Wiring = { mcpServers: [], permissionPromptTool: false }
const withInProcess: Launch.Wiring = {
  mcpServers: [{ name: "inside", alwaysLoad: true }, { name: "lazy", alwaysLoad: false }],
  permissionPromptTool: false
}

/** The parsed JSON after `--mcp-config`, or `undefined` without the flag. */
const mcpConfigOf = (options: Launch.LaunchOptions, wiring: Launch.Wiring = noWiring): unknown => {
  const { args } = Launch.buildCommand(options, wiring)
  const at = args.indexOf("--mcp-config")
  if (at === -1) return undefined
  assert.strictEqual(args.indexOf("--mcp-config", at + 1), -1, "one --mcp-config only")
  return JSON.parse(args[at + 1]!)
}

const invalidOf = (options: Launch.LaunchOptions, wiring?: Launch.Wiring) =>
  Launch.validate(options, wiring).pipe(
    Effect.flip,
    Effect.map((error) => {
      assert.strictEqual(error.reason._tag, "InvalidInput")
      return error.message
    })
  )

const external = {
  files: { command: "node", args: ["server.mjs", "--root", "."], env: { LOG_LEVEL: "debug" } },
  typed: { type: "stdio", command: "uvx", args: ["some-server"] },
  events: { type: "sse", url: "https://mcp.example.com/sse", headers: { Authorization: "Bearer t" } },
  api: { type: "http", url: "http://127.0.0.1:8931/mcp" }
} as const

describe("buildCommand: mcpServers", () => {
  it("writes the external servers as given, in one --mcp-config with the in-process ones", () => {
    assert.deepStrictEqual(mcpConfigOf({ mcpServers: external }, withInProcess), {
      mcpServers: {
        ...external,
        inside: { type: "sdk", name: "inside", alwaysLoad: true },
        lazy: { type: "sdk", name: "lazy" }
      }
    })
  })

  it("writes --mcp-config with external servers only, and none without any server", () => {
    assert.deepStrictEqual(mcpConfigOf({ mcpServers: { api: external.api } }), { mcpServers: { api: external.api } })
    assert.isUndefined(mcpConfigOf({}))
    assert.isUndefined(mcpConfigOf({ mcpServers: {} }))
    assert.deepStrictEqual(mcpConfigOf({ mcpServers: {} }, withInProcess), {
      mcpServers: { inside: { type: "sdk", name: "inside", alwaysLoad: true }, lazy: { type: "sdk", name: "lazy" } }
    })
  })

  it("the config decodes with the protocol's McpServerConfig schema", () => {
    const config = mcpConfigOf({ mcpServers: external }, withInProcess) as { readonly mcpServers: unknown }
    const decoded = Schema.decodeUnknownSync(Schema.Record(Schema.String, Protocol.McpServerConfig))(config.mcpServers)
    assert.deepStrictEqual(Object.keys(decoded).sort(), ["api", "events", "files", "inside", "lazy", "typed"])
  })

  it("passes --strict-mcp-config only when asked, right after the servers", () => {
    const { args } = Launch.buildCommand({ mcpServers: { api: external.api }, strictMcpConfig: true }, noWiring)
    assert.strictEqual(args[args.indexOf("--mcp-config") + 2], "--strict-mcp-config")
    assert.isTrue(Launch.buildCommand({ strictMcpConfig: true }, noWiring).args.includes("--strict-mcp-config"))
    assert.isFalse(Launch.buildCommand({ strictMcpConfig: false }, noWiring).args.includes("--strict-mcp-config"))
    assert.isFalse(Launch.buildCommand({}, noWiring).args.includes("--strict-mcp-config"))
  })
})

describe("validate: mcpServers", () => {
  it.effect("accepts stdio, SSE and HTTP servers next to differently named in-process ones", () =>
    Effect.gen(function*() {
      const options = { mcpServers: external, strictMcpConfig: true }
      assert.strictEqual(yield* Launch.validate(options, withInProcess), options)
    }))

  it.effect("rejects bad configs with InvalidInput", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ mcpServers: [] }, "mcpServers must be an object of MCP server configs by name"],
        [{ mcpServers: { "": external.api } }, "mcpServers names must not be empty"],
        [{ mcpServers: { s: "node server.mjs" } }, "mcpServers.s must be { command, args?, env? }"],
        [{ mcpServers: { s: {} } }, "mcpServers.s.command must be a non-empty string"],
        [{ mcpServers: { s: { type: "stdio", args: ["x"] } } }, "mcpServers.s.command must be a non-empty string"],
        [{ mcpServers: { s: { command: " " } } }, "mcpServers.s.command must be a non-empty string"],
        [{ mcpServers: { s: { command: "node", args: "x.mjs" } } }, "mcpServers.s.args must be an array of strings"],
        [{ mcpServers: { s: { command: "node", env: { N: 1 } } } }, "mcpServers.s.env must be an object of strings"],
        [{ mcpServers: { s: { type: "http" } } }, "mcpServers.s.url must be an http:// or https:// URL (got undefined)"],
        [{ mcpServers: { s: { type: "sse", url: "not a url" } } }, `mcpServers.s.url must be an http:// or https:// URL (got "not a url")`],
        [{ mcpServers: { s: { type: "http", url: "file:///etc/passwd" } } }, "mcpServers.s.url must be an http:// or https:// URL"],
        [{ mcpServers: { s: { type: "sse", url: "ws://localhost:1/mcp" } } }, "mcpServers.s.url must be an http:// or https:// URL"],
        [{ mcpServers: { s: { type: "http", url: "https://x.test/mcp", headers: { A: true } } } }, "mcpServers.s.headers must be an object of strings"],
        [{ mcpServers: { s: { type: "ws", url: "ws://localhost:1" } } }, `mcpServers.s.type must be "stdio", "sse" or "http" (got "ws")`],
        [{ mcpServers: { s: { type: "sdk", name: "s" } } }, "mcpServers.s: in-process servers come from the McpServers layer"],
        [{ strictMcpConfig: "yes" }, "strictMcpConfig must be a boolean"]
      ]
      for (const [options, expected] of cases) {
        const message = yield* invalidOf(options as Launch.LaunchOptions)
        assert.include(message, expected, JSON.stringify(options))
      }
    }))

  it.effect("rejects a name used both by mcpServers and by the McpServers layer", () =>
    Effect.gen(function*() {
      const message = yield* invalidOf({ mcpServers: { inside: external.api } }, withInProcess)
      assert.include(message, `MCP server "inside" is named both in mcpServers and in the McpServers layer`)
    }))

  it.effect("Claude.open refuses the clash before the CLI starts", () =>
    Effect.gen(function*() {
      let started = false
      const cli = FakeCli.layer(() =>
        Effect.sync(() => {
          started = true
        }).pipe(Effect.andThen(Effect.never))
      )
      const inside = McpServers.server("inside", {
        tools: [McpServers.tool({
          name: "noop",
          description: "Does nothing.",
          input: Schema.Struct({}),
          handler: () => Effect.succeed("ok")
        })]
      })
      const error = yield* Effect.scoped(Claude.open({ mcpServers: { inside: external.api } })).pipe(
        Effect.provide(Layer.merge(cli, McpServers.layer(inside))),
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, `MCP server "inside" is named both in mcpServers and in the McpServers layer`)
      assert.isFalse(started)
    }))
})
