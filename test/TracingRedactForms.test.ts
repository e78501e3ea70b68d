/**
 * What the session's tracing redacts from span attributes, logged stderr lines and error texts
 * (`SessionTracing.redact`, `redactValue`): a secret in every form the transcript redacts it in
 * (`SecretText.formsOf`: JSON-escaped as JavaScript, Go and Python write it, and base64), and the
 * account e-mail in any casing. `redact` had its own list (the secret and its JSON escapes), so a
 * tool's base64 or Go-escaped print of a secret, or `Jane.Doe@Example.com`, reached a span or a
 * log line in clear, where the transcript now has `[redacted]` (found with the transcripts'
 * review).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Tracing from "../src/internal/tracing.ts"

const SECRET = "p&ss<w>rd-0123456789"
const EMAIL = "jane.doe@example.com"

describe("SessionTracing: the forms of a secret", () => {
  it.effect("base64, Go's JSON escapes, and the account e-mail in another casing are redacted by redact and redactValue", () =>
    Effect.gen(function*() {
      const span = yield* Effect.makeSpan("session")
      const tracing = yield* Tracing.make(span, [SECRET])
      tracing.addSecret(EMAIL, { anyCase: true })
      const base64 = Buffer.from(SECRET.slice(0, 18)).toString("base64")
      const go = SECRET.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
      const text = `printed ${base64} and ${go} for Jane.Doe@Example.com`
      const redacted = tracing.redact(text)
      assert.notInclude(redacted, base64)
      assert.notInclude(redacted, go)
      assert.notInclude(redacted, "Jane.Doe@Example.com")
      const value = tracing.redactValue({ text })
      assert.notInclude(JSON.stringify(value), base64)
      assert.notInclude(JSON.stringify(value), "Jane.Doe@Example.com")
    }))
})
