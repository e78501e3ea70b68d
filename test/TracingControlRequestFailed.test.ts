/**
 * A request of the CLI the library answered with an error (a subtype it does not handle, an MCP
 * message for a server it does not have) had its span end successful, `error.type` and all: an
 * exporter sets such a span's status OK, and a trace showed the failed request as a success. The
 * span ends failed now, as a host request's refused by the CLI does; the CLI gets the same answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { only, tracedSession } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("Tracing: the CLI's requests", () => {
  it.effect("one answered with an error ends its span failed; one answered ends it successful", () =>
    Effect.gen(function*() {
      const answers: Array<unknown> = []
      const { spans } = yield* tracedSession(
        SESSION,
        (_text, _index, cli, message) =>
          Effect.gen(function*() {
            answers.push(yield* cli.request({ subtype: "no_such_subtype" }))
            answers.push(yield* cli.request({
              subtype: "mcp_message",
              server_name: "nowhere",
              message: { jsonrpc: "2.0", id: 1, method: "tools/list" }
            }))
            yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION }), user_message_uuid: message.uuid, user_message_uuids: [message.uuid] })
          }),
        (session) => session.run("go")
      )
      // The CLI got error answers.
      assert.deepStrictEqual(answers.map((answer) => (answer as { readonly subtype: string }).subtype), ["error", "error"])
      for (const name of ["claude.control_request no_such_subtype", "claude.mcp tools/list"]) {
        const span = only(spans, name)
        assert.strictEqual(span.status._tag === "Ended" && span.status.exit._tag, "Failure", name)
      }
      // The reason, in a word.
      assert.strictEqual(only(spans, "claude.control_request no_such_subtype").attributes.get("error.type"), "Unsupported")
      assert.strictEqual(only(spans, "claude.mcp tools/list").attributes.get("error.type"), "InvalidInput")
      const initialize = only(spans, "claude.control_request initialize")
      assert.strictEqual(initialize.status._tag === "Ended" && initialize.status.exit._tag, "Success")
    }))
})
