/**
 * A secret a tool printed in base64 (found by a reviewing helper; failed before its fix):
 * `kubectl get secret -o yaml` shows each value so, and `echo "$TOKEN" | base64` too (the value,
 * then a newline). The transcript kept such a tool result as it came: the secret in base64 is
 * the secret.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Transcript from "../src/Transcript.ts"

const SECRET = "ghp_testsecret0123456789abcdefXYZ"

const recordResult = (secrets: ReadonlyArray<string>, text: string) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
      recorder.secrets?.(secrets)
      recorder.record("recv", {
        type: "user",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: text }] },
        parent_tool_use_id: null,
        session_id: "s-1"
      })
    }))
    return written.join("")
  })

const b64 = (text: string) => Buffer.from(text).toString("base64")

describe("a secret in base64 in a tool result", () => {
  it.effect("the value alone (kubectl get secret -o yaml) is redacted", () =>
    Effect.gen(function*() {
      const written = yield* recordResult([SECRET], `apiVersion: v1\ndata:\n  token: ${b64(SECRET)}\nkind: Secret\n`)
      assert.notInclude(written, b64(SECRET).slice(0, 20), written)
      assert.include(written, "token: [redacted]")
    }))

  it.effect("the value and a newline (echo | base64), and in base64url, are redacted", () =>
    Effect.gen(function*() {
      const written = yield* recordResult([SECRET], `${b64(`${SECRET}\n`)} ${Buffer.from(SECRET).toString("base64url")}`)
      assert.notInclude(written, b64(SECRET).slice(0, 20), written)
      assert.notInclude(written, Buffer.from(SECRET).toString("base64url").slice(0, 20), written)
    }))

  it.effect("a short secret's base64 is left alone (it could be any text)", () =>
    Effect.gen(function*() {
      const written = yield* recordResult(["abc"], `YWJj is base64`)
      assert.include(written, "YWJj is base64")
    }))
})
