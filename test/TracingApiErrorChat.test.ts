/**
 * The model request the CLI reports failed (an API error: its `assistant` line has `error` and
 * `is_api_error_message`, as CLI 2.1.332 writes it) had its `chat` span end successful with
 * `error.type` set: an OpenTelemetry exporter sets such a span's status OK, and a trace showed
 * the failed request as a success. It ends failed now, with the API's error type; a request that
 * succeeded still ends successful.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { named, tracedSession } from "./support/spans.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const ended = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? span.status.exit._tag : "open"

describe("Tracing: a model request that failed", () => {
  it.effect("its chat span ends failed, with the API's error type; a successful one's ends successful", () =>
    Effect.gen(function*() {
      const { spans } = yield* tracedSession(
        SESSION,
        (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
            if (index === 0) {
              yield* cli.emit(assistantLine(SESSION, "msg_ok", [{ type: "text", text: "fine" }], { userMessageUuid: uuid }))
              yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION }), user_message_uuid: uuid, user_message_uuids: [uuid] })
              return
            }
            // As testdata/protocol/m7 (an API error 400): the CLI's own line for it.
            yield* cli.emit({
              ...assistantLine(SESSION, "3f6c1c3e-0a4b-4c59-9a55-1d3c4c6e2b11", [{ type: "text", text: "API Error: 400 bad request" }], {
                userMessageUuid: uuid
              }),
              error: "unknown",
              is_api_error_message: true,
              api_error_status: 400,
              api_error_type: "invalid_request_error"
            })
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, text: "API Error: 400 bad request", terminalReason: "api_error" }),
              is_error: true,
              api_error_status: 400,
              user_message_uuid: uuid,
              user_message_uuids: [uuid]
            })
          }),
        (session) => Effect.andThen(session.run("fine"), Effect.exit(session.run("fails")))
      )
      const chats = named(spans, "chat")
      const byId = (id: string) => chats.find((span) => span.attributes.get("gen_ai.response.id") === id)!
      const failed = byId("3f6c1c3e-0a4b-4c59-9a55-1d3c4c6e2b11")
      assert.strictEqual(failed.attributes.get("error.type"), "invalid_request_error")
      assert.strictEqual(ended(failed), "Failure")
      assert.strictEqual(ended(byId("msg_ok")), "Success")
    }))
})
