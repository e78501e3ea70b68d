/**
 * Credentials the CLI reads that were not default secrets (found by a reviewing helper; failing
 * before): `ANTHROPIC_CUSTOM_HEADERS` (headers the CLI sends with every API request: a gateway's
 * key, an `Authorization` line) inherited from the host reached a transcript in clear, and so
 * would `CLAUDE_CODE_CLIENT_KEY_PASSPHRASE` (the passphrase of the client certificate's key). Both
 * are default secrets now, and each header's value is a secret of its own: a key printed without
 * its header's name is taken out too.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Launch from "../src/Launch.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { withEnv } from "./support/env.ts"

const KEY = "gw-live-0123456789abcdefSECRET"
const TOKEN = "Bearer tok-9876543210fedcbaSECRET"

/** Runs one turn whose answer is `text` with `variable` set in this process (as the host's), and returns the transcript. */
const transcriptOf = (variable: string, value: string, text: string) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-headers-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    yield* withEnv(variable, value)
    const file = Path.join(dir, "t.ndjson")
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        const user = yield* cli.nextMatching((m) => m.type === "user")
        for (const line of FakeCli.textTurn({ sessionId: "s-1", text, userMessageUuid: String(user.uuid) })) yield* cli.emit(line)
        return yield* Effect.exit(cli.next).pipe(Effect.as(0))
      })
    )
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toFile(file)
      const session = yield* Claude.open({ transcript: recorder, closeGrace: "300 millis" })
      yield* session.run("print the env")
    })).pipe(Effect.provide(cli))
    return Fs.readFileSync(file, "utf8")
  }).pipe(Effect.scoped)

describe("credential variables the CLI reads", () => {
  it("are default secrets", () => {
    assert.include(Launch.defaultSecretEnv, "ANTHROPIC_CUSTOM_HEADERS")
    assert.include(Launch.defaultSecretEnv, "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE")
  })

  it.live("ANTHROPIC_CUSTOM_HEADERS inherited from the host: neither the whole value nor a header's value reaches the transcript", () =>
    Effect.gen(function*() {
      const headers = `x-api-key: ${KEY}\nAuthorization: ${TOKEN}`
      const written = yield* transcriptOf(
        "ANTHROPIC_CUSTOM_HEADERS",
        headers,
        `env: ANTHROPIC_CUSTOM_HEADERS=${headers}; the key alone: ${KEY}; the token alone: ${TOKEN}`
      )
      assert.include(written, "ANTHROPIC_CUSTOM_HEADERS=")
      assert.include(written, "the key alone")
      assert.notInclude(written, KEY)
      assert.notInclude(written, "tok-9876543210fedcbaSECRET")
    }))

  it.live("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE inherited from the host does not reach the transcript", () =>
    Effect.gen(function*() {
      const written = yield* transcriptOf("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE", "correct horse battery staple", "the passphrase: correct horse battery staple")
      assert.include(written, "the passphrase")
      assert.notInclude(written, "correct horse battery staple")
    }))
})
