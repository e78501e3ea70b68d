/**
 * A secret a tool prints inside JSON of its own escaping (found by a reviewing helper; failed
 * before its fix): Go's encoder writes `&`, `<` and `>` as `\u0026`, `\u003c`, `\u003e`
 * (`docker inspect` showing `DB_PASSWORD=p&ss…`), Python's `json.dumps` writes every non-ASCII
 * character as `\uXXXX`. Such a tool result held the secret in clear in the transcript: only
 * the escapes `JSON.stringify` writes were taken for a form of a secret.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

/** The transcript of a session whose secrets are `secrets`, reading `results` as tool results. */
const recordResults = (secrets: ReadonlyArray<string>, results: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
      recorder.secrets?.(secrets)
      recorder.record("send", { type: "control_request", request_id: "init-1", request: { subtype: "initialize" } })
      recorder.record("recv", {
        type: "control_response",
        response: { subtype: "success", request_id: "init-1", response: { account: { email: "someone@example.com" } } }
      })
      for (const [i, text] of results.entries()) {
        recorder.record("recv", {
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: text }] },
          parent_tool_use_id: null,
          session_id: "s-1"
        })
      }
    }))
    return written.join("")
  })

describe("secrets a tool printed as escaped JSON", () => {
  it.effect("Go's escapes of & < > (docker inspect) are redacted", () =>
    Effect.gen(function*() {
      const secret = "p&ss<w>rd-0123456789"
      const written = yield* recordResults([secret], [
        `[{"Config":{"Env":["DB_PASSWORD=p\\u0026ss\\u003cw\\u003erd-0123456789"]}}]`
      ])
      assert.notInclude(written, "rd-0123456789", written)
      assert.include(written, "DB_PASSWORD=[redacted]")
    }))

  it.effect("Python's escapes of non-ASCII characters (json.dumps) are redacted", () =>
    Effect.gen(function*() {
      const secret = "Passwört-0123456789"
      const written = yield* recordResults([secret], [`{"password": "Passw\\u00f6rt-0123456789"}`])
      assert.notInclude(written, "rt-0123456789", written)
      assert.include(written, "[redacted]")
    }))

  it.effect("and a secret of plain ASCII letters and digits is redacted as before", () =>
    Effect.gen(function*() {
      const written = yield* recordResults(["sk-plain-0123456789"], [`{"key":"sk-plain-0123456789"}`])
      assert.notInclude(written, "sk-plain-0123456789")
    }))
})
