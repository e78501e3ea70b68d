/**
 * `reconnectMcpServer` on a server that `setMcpServers` made an external one, found by a reviewing
 * helper on the real CLI 2.1.332 (failing before): the session's in-process server `byre`, replaced
 * by `setMcpServers({ byre: { command } })` (the CLI answers `added` and `removed` `byre`, and
 * `mcpStatus` shows it as a stdio server), could not be reconnected: `InvalidInput` said it was one
 * of the session's in-process servers, as long as the session lived. It is sent now; a server made
 * in-process again by a later `setMcpServers` is refused again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import { answering } from "./support/answeringCli.ts"

const byre = McpServers.server("byre", {
  tools: [McpServers.tool({ name: "echo", description: "Echo.", input: Schema.Struct({ text: Schema.String }), handler: ({ text }) => Effect.succeed(text) })]
})

/** The CLI's answer to `mcp_set_servers`: every server named added and removed (as 2.1.332 answers a replacement). */
const replacing = (body: Record<string, unknown>): Record<string, unknown> => {
  const names = Object.keys((body.servers ?? {}) as Record<string, unknown>)
  return body.subtype === "mcp_set_servers" ? { added: names, removed: names, errors: {} } : {}
}

describe("reconnectMcpServer after setMcpServers", () => {
  it.effect("a server setMcpServers made external is reconnected; made in-process again, refused", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const [before, replaced, back] = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const before = yield* Effect.exit(session.reconnectMcpServer("byre"))
        yield* session.setMcpServers({ byre: { command: "byre-server" } })
        const replaced = yield* Effect.exit(session.reconnectMcpServer("byre"))
        yield* session.setMcpServers({}, { inProcess: [byre] })
        const back = yield* Effect.exit(session.reconnectMcpServer("byre"))
        return [before, replaced, back] as const
      }).pipe(Effect.scoped, Effect.provide(McpServers.layer(byre)), Effect.provide(answering(received, replacing)))
      assert.isTrue(Exit.isFailure(before), "the in-process server is refused")
      assert.isTrue(Exit.isSuccess(replaced), `the external server is reconnected: ${String(replaced)}`)
      assert.isTrue(Exit.isFailure(back), "in-process again: refused")
      assert.deepStrictEqual(received.map((body) => String(body.subtype)).filter((s) => s.startsWith("mcp_")), ["mcp_set_servers", "mcp_reconnect", "mcp_set_servers"])
    }))

  // Decided when it runs, not when made (found by a reviewing helper): an Effect made before
  // setMcpServers, or run again by Effect.retry, refused a reconnectable server or sent one the
  // CLI fails.
  it.effect("an Effect made before setMcpServers follows what the server is when it runs", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const [replaced, back] = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const reconnect = session.reconnectMcpServer("byre")
        yield* session.setMcpServers({ byre: { command: "byre-server" } })
        const replaced = yield* Effect.exit(reconnect)
        yield* session.setMcpServers({}, { inProcess: [byre] })
        const back = yield* Effect.exit(reconnect)
        return [replaced, back] as const
      }).pipe(Effect.scoped, Effect.provide(McpServers.layer(byre)), Effect.provide(answering(received, replacing)))
      assert.isTrue(Exit.isSuccess(replaced), `the external server is reconnected: ${String(replaced)}`)
      assert.isTrue(Exit.isFailure(back), "in-process again: refused")
      assert.deepStrictEqual(
        received.map((body) => String(body.subtype)).filter((s) => s.startsWith("mcp_")),
        ["mcp_set_servers", "mcp_reconnect", "mcp_set_servers"]
      )
    }))
})
