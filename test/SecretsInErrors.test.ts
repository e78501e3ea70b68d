/**
 * Text the CLI writes that the library puts in its errors: a line that breaks its schema (the
 * `ProtocolViolation`'s line), a control answer that breaks its schema, a control error answer
 * (`ControlRejected`). A CLI may echo a secret there (a model printing the key; a settings answer
 * holding the environment), and the error reaches the caller and the exit of the span it ends.
 * Found by a reviewing helper: none was redacted (each test failed before).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { exitTexts, failureTag, makeSecrets, occurrences } from "./support/secrets.ts"
import { collectSpans } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"
const tagOf = (exit: Exit.Exit<unknown, unknown>) => failureTag(exit as Exit.Exit<unknown, never>)

describe("secrets in the errors made of the CLI's text", () => {
  it.live("a result line that breaks its schema, echoing the API key: neither the error nor the turn span's exit holds it", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const collected = collectSpans()
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, message) =>
          cli.emit({
            ...FakeCli.result({ sessionId: SESSION, text: `your key is ${secrets.apiKey}` }),
            duration_ms: "not a number",
            user_message_uuid: message.uuid,
            user_message_uuids: [message.uuid]
          })
      }))
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), closeGrace: "1 second" })
        return yield* session.run("print my key")
      })).pipe(Effect.provide(transport), collected.provide, Effect.provide(Logger.layer([]))))
      const turn = collected.spans.find((span) => span.name === "claude.turn")
      const spanExit = turn !== undefined && turn.status._tag === "Ended" ? exitTexts(turn.status.exit) : []
      assert.deepStrictEqual({
        tag: tagOf(exit),
        error: occurrences(exitTexts(exit), secrets.apiKey).length,
        turnSpanExit: occurrences(spanExit, secrets.apiKey).length,
        redactedThere: exitTexts(exit).some((text) => text.includes("your key is"))
      }, { tag: "ProtocolViolation", error: 0, turnSpanExit: 0, redactedThere: true })
    }))

  it.live("a control answer that breaks its schema, holding the API key (get_settings): neither the error nor the span's exit holds it", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const collected = collectSpans()
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onControl: (request, cli) =>
          cli.emit(FakeCli.success(request, { effective: { env: { ANTHROPIC_API_KEY: secrets.apiKey } }, sources: "broken" }))
      }))
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), closeGrace: "1 second" })
        return yield* session.settings()
      })).pipe(Effect.provide(transport), collected.provide, Effect.provide(Logger.layer([]))))
      const span = collected.spans.find((span) => span.name === "claude.control_request get_settings")
      const spanExit = span !== undefined && span.status._tag === "Ended" ? exitTexts(span.status.exit) : []
      assert.deepStrictEqual({
        tag: tagOf(exit),
        error: occurrences(exitTexts(exit), secrets.apiKey).length,
        spanExit: occurrences(spanExit, secrets.apiKey).length
      }, { tag: "ProtocolViolation", error: 0, spanExit: 0 })
    }))

  it.live("a control error answer holding the API key: ControlRejected does not hold it", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const transport = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onControl: (request, cli) => cli.emit(FakeCli.failure(request, `MCP server auth failed with token ${secrets.apiKey}`))
      }))
      const exit = yield* Effect.exit(Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({ apiKey: Redacted.make(secrets.apiKey), closeGrace: "1 second" })
        return yield* session.reconnectMcpServer("x")
      })).pipe(Effect.provide(transport), Effect.provide(Logger.layer([]))))
      assert.deepStrictEqual(
        { tag: tagOf(exit), error: occurrences(exitTexts(exit), secrets.apiKey).length, said: exitTexts(exit).some((t) => t.includes("MCP server auth failed")) },
        { tag: "ControlRejected", error: 0, said: true }
      )
    }))
})
