/**
 * `reconnectMcpServer(name)` decided whether `name` is one of the session's in-process servers
 * (`InvalidInput`, nothing sent) when the Effect was made, not when it ran: an Effect made before
 * `setMcpServers` replaced that server with an external one (or kept and run again, by
 * `Effect.retry` or `Effect.repeat`) refused a server it could reconnect, and one made while the
 * name was external sent `mcp_reconnect` for an in-process server, which CLI 2.1.332 fails with an
 * internal error. It is decided when it runs now (found by a reviewing helper).
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

describe("reconnectMcpServer: decided when it runs", () => {
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
