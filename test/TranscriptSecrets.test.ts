/**
 * A transcript holds no secret of the session: a CLI line that carries one (a Bash tool printing
 * `$GITHUB_TOKEN`, the API key) is written with `[redacted]`, as the account e-mail is (README,
 * "Secrets"). Before, only the e-mail was replaced (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Sink from "effect/Sink"
import * as Claude from "../src/Claude.ts"
import { secretsOf } from "../src/internal/tracing.ts"
import * as Transcript from "../src/Transcript.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const EMAIL = "someone@example.com"
const API_KEY = "sk-test-secret-0123456789abcdef"
const TOKEN = "ghp_testsecret0123456789abcdef"

describe("secrets in transcripts", () => {
  it.live("a secret the CLI echoes is redacted in the transcript, as the e-mail is", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-secrets-"))
      const file = Path.join(dir, "t.ndjson")
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          const initialize = yield* cli.nextMatching((m) => m.type === "control_request")
          yield* cli.emit(FakeCli.success(initialize, {
            commands: [],
            models: [],
            account: { email: EMAIL }
          }))
          yield* cli.nextMatching((m) => m.type === "user")
          const text = `env says ANTHROPIC_API_KEY=${API_KEY} GITHUB_TOKEN=${TOKEN} for ${EMAIL}`
          for (const line of FakeCli.textTurn({ sessionId: "s-1", text })) yield* cli.emit(line)
          return yield* Effect.exit(cli.next).pipe(Effect.as(0))
        })
      )
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file)
        const session = yield* Claude.open({
          apiKey: Redacted.make(API_KEY),
          env: { GITHUB_TOKEN: TOKEN },
          transcript: recorder,
          closeGrace: "1 second"
        })
        const result = yield* session.run("print the env")
        assert.include(result.result, "env says")
      })).pipe(Effect.provide(cli))
      const text = Fs.readFileSync(file, "utf8")
      Fs.rmSync(dir, { recursive: true, force: true })
      assert.include(text, "env says")
      assert.notInclude(text, EMAIL, "the e-mail is redacted (control)")
      assert.notInclude(text, API_KEY, "the apiKey (Redacted) reached the transcript in clear")
      assert.notInclude(text, TOKEN, "GITHUB_TOKEN (a default secret name) reached the transcript in clear")
    }))
  it.live("a recorder given to two sessions of two accounts redacts each one's e-mail", () =>
    Effect.gen(function*() {
      // Found by a review: once the first session's `initialize` was answered, the lines of the
      // next were written as they came, its account's e-mail in clear.
      const cli = (email: string) =>
        FakeCli.layer((cli) =>
          Effect.gen(function*() {
            const initialize = yield* cli.nextMatching((m) => m.type === "control_request")
            yield* cli.emit(FakeCli.success(initialize, { commands: [], models: [], account: { email } }))
            yield* cli.nextMatching((m) => m.type === "user")
            for (const line of FakeCli.textTurn({ sessionId: "s-1", text: `Hello ${email}` })) yield* cli.emit(line)
            return yield* Effect.exit(cli.next).pipe(Effect.as(0))
          })
        )
      const written: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
        for (const email of ["first@example.com", "second@example.com"]) {
          yield* Effect.scoped(Effect.gen(function*() {
            const session = yield* Claude.open({ transcript: recorder })
            const result = yield* session.run("hi")
            assert.strictEqual(result.result, `Hello ${email}`)
          })).pipe(Effect.provide(cli(email)))
        }
      }))
      const text = written.join("")
      assert.strictEqual(text.match(/Hello \[redacted\]/g)?.length, 4, "both answers recorded (assistant and result lines)")
      assert.notInclude(text, "first@example.com")
      assert.notInclude(text, "second@example.com", "the second session's account e-mail reached the transcript in clear")
    }))
  it("the session's secrets: its env's Redacted values and the host's values it inherits, 8 characters or more, longest first", () => {
    const secrets = secretsOf(
      { OWN: Redacted.make("sk-own-secret-01"), PLAIN: "not a secret", SHORT: Redacted.make("list"), GH_TOKEN: Redacted.make("ghp_own_value_0") },
      ["GH_TOKEN", "GITHUB_TOKEN", "ANTHROPIC_API_KEY"],
      { GH_TOKEN: "ghp_host_value_ignored", GITHUB_TOKEN: "ghp_inherited_0123", ANTHROPIC_API_KEY: "short" }
    )
    // A short value ("list") would turn every such word of every line into [redacted]; the host's
    // GH_TOKEN is not the CLI's (env sets its own).
    assert.deepStrictEqual(secrets, ["ghp_inherited_0123", "sk-own-secret-01", "ghp_own_value_0"])
  })
})
