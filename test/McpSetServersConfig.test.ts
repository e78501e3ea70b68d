/**
 * `setMcpServers` with an external server config the launch option `mcpServers` refuses, found
 * by a reviewing helper on the real CLI 2.1.332 (each case failing before):
 * - a config without `command`, or `null` (a program in JavaScript, a configuration file), died
 *   with a `TypeError` (no typed error);
 * - `args` that is not an array of strings, `env` or `headers` holding a number, a URL that is not
 *   http(s) went to the CLI, which "added" the server and failed it with an error that does not
 *   name the config ("t.args?.some is not a function", "[mcp error detail unavailable: redaction
 *   failed]"), in `errors` of a successful answer.
 * Each is now `InvalidInput` naming the server and what is wrong, nothing sent, as at launch.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import type * as Protocol from "../src/Protocol.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { answering } from "./support/answeringCli.ts"


const describeExit = <A>(exit: Exit.Exit<A, unknown>): string =>
  Exit.isSuccess(exit) ? "success" : Option.match(Cause.findErrorOption(exit.cause), {
    onNone: () => `no typed error: ${Cause.pretty(exit.cause).split("\n")[0]}`,
    onSome: (error) => {
      const { reason } = error as { readonly reason: { readonly _tag: string; readonly message: string } }
      return `${reason._tag}: ${reason.message}`
    }
  })

// What a program in JavaScript (or a configuration file) may pass; the types refuse each.
const bad: ReadonlyArray<readonly [string, unknown, string]> = [
  ["noCommand", { type: "stdio" }, "noCommand.command must be a non-empty string"],
  ["nullConfig", null, "nullConfig must be"],
  ["argsString", { command: "node", args: "server.js" }, "argsString.args must be an array of strings"],
  ["envNumber", { command: "node", env: { PORT: 8080 } }, "envNumber.env must be an object of strings"],
  ["headersNumber", { type: "http", url: "https://example.com/mcp", headers: { "X-Retries": 3 } }, "headersNumber.headers must be an object of strings"],
  ["ftp", { type: "http", url: "ftp://example.com/mcp" }, "ftp.url must be an http:// or https:// URL"],
  ["websocket", { type: "ws", url: "ws://example.com/mcp" }, "websocket.type must be"]
]

describe("setMcpServers with a bad external config", () => {
  it.effect("is InvalidInput naming the server and what is wrong; nothing is sent", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const outcomes = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const outcomes: Array<string> = []
        for (const [name, config] of bad) {
          const servers = { [name]: config } as unknown as Record<string, Protocol.McpExternalServerConfig>
          outcomes.push(describeExit(yield* Effect.exit(session.setMcpServers(servers))))
        }
        return outcomes
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      bad.forEach(([name, , expected], i) => {
        assert.include(outcomes[i], "InvalidInput: ", name)
        assert.include(outcomes[i], expected, name)
      })
      assert.isFalse(received.some((r) => r.subtype === "mcp_set_servers"))
    }))

  it.effect("good configs still go as before (a stdio server without args gets args: [])", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.setMcpServers({
          files: { command: "node", args: ["server.js"], env: { PORT: "8080" } },
          plain: { command: "x" },
          web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } }
        })
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      const sent = received.find((r) => r.subtype === "mcp_set_servers")!.servers
      assert.deepStrictEqual(sent, {
        files: { command: "node", args: ["server.js"], env: { PORT: "8080" } },
        plain: { command: "x", args: [] },
        web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } }
      })
    }))
})
