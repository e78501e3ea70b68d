/**
 * Secrets: the API key (`apiKey`) and the environment values marked secret (`secretEnv`, the
 * default secret names, `Redacted` values in `env`) stay `Redacted` on their way to the child.
 * They never show in logs (every level), errors (`String`, `message`, JSON, `Cause.pretty`),
 * transcripts (`Transcript.toFile`) or the printed launch spec (FakeCli). That the child does
 * receive the real values is test/SecretsLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as Transcript from "../src/Transcript.ts"
import type { LaunchSpec } from "../src/Transport.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { makeTempDir } from "./support/tempDir.ts"
import { capturingLogger, errorTexts, exitTexts, failureTag, makeSecrets, occurrences, withCapturedLogs } from "./support/secrets.ts"

describe("secrets", () => {
  it.live("never in logs, errors, transcripts or the printed launch spec (FakeCli); the spec carries them Redacted", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const logs: Array<string> = []
      const texts: Array<string> = []
      let spec: LaunchSpec | undefined

      const script = (cli: FakeCli.FakeCliHandle) =>
        Effect.gen(function*() {
          spec = cli.spec
          yield* FakeCli.answerInitialize(cli)
          let turns = 0
          while (true) {
            const message = yield* cli.next
            if (message.type === "control_request") {
              // Every control request after initialize is refused, with an error text.
              yield* cli.emit(FakeCli.failure(message, "nope: not supported here", "unsupported_request"))
            } else if (message.type === "user") {
              const turn = turns++
              if (turn === 0) {
                for (const line of FakeCli.textTurn({ sessionId: "s-secret", text: "hello" })) yield* cli.emit(line)
              } else if (turn === 1) {
                // A result that breaks its schema: the turn fails with a ProtocolViolation.
                yield* cli.emitRaw("this line is not JSON\n")
                yield* cli.emit({ type: "result", subtype: "success" })
              } else {
                yield* cli.stderr("fatal: the CLI crashed mid-turn\n")
                return 3
              }
            }
          }
        })

      const transcriptPath = Path.join(yield* makeTempDir("secrets-transcript-"), "session.ndjson")
      yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(transcriptPath)
        const session = yield* Claude.open({
          apiKey: Redacted.make(secrets.apiKey),
          env: {
            MY_SERVICE_TOKEN: secrets.marked,
            OTHER_SECRET: Redacted.make(secrets.redactedEnv),
            GITHUB_TOKEN: secrets.github,
            PLAIN_SETTING: "not-a-secret"
          },
          secretEnv: ["MY_SERVICE_TOKEN"],
          closeGrace: "1 second",
          transcript: recorder
        })
        yield* Effect.logDebug("session opened", session)
        const first = yield* session.run("hello")
        assert.strictEqual(first.result, "hello")
        // A failing control request, then a crash with stderr mid-turn.
        const rejected = yield* Effect.exit(session.setModel("opus"))
        assert.strictEqual(failureTag(rejected), "ControlRejected")
        texts.push(...exitTexts(rejected))
        const broken = yield* Effect.exit(session.turn("a broken result").pipe(Stream.runCollect))
        assert.strictEqual(failureTag(broken), "ProtocolViolation")
        texts.push(...exitTexts(broken))
        const crashed = yield* Effect.exit(session.turn("crash now").pipe(Stream.runCollect))
        assert.strictEqual(failureTag(crashed), "ProcessExited")
        texts.push(...exitTexts(crashed))
        const after = yield* Effect.exit(session.run("after the crash"))
        assert.isDefined(failureTag(after))
        texts.push(...exitTexts(after))
      })).pipe(withCapturedLogs(logs), Effect.provide(FakeCli.layer(script)))

      // Errors from validation, which sees the options with the secrets in them.
      const invalid = yield* Effect.exit(Effect.scoped(Claude.open({
        apiKey: Redacted.make(secrets.apiKey),
        env: { MY_SERVICE_TOKEN: secrets.marked, "BAD=NAME": Redacted.make(secrets.redactedEnv) },
        secretEnv: ["MY_SERVICE_TOKEN"],
        resume: "x",
        continueConversation: true
      })).pipe(withCapturedLogs(logs), Effect.provide(FakeCli.layer(() => Effect.never))))
      assert.strictEqual(failureTag(invalid), "InvalidInput")
      texts.push(...exitTexts(invalid))
      // A plain string where a Redacted key belongs is refused without echoing it.
      const plainKey = yield* Effect.exit(Effect.scoped(Claude.open({
        apiKey: secrets.apiKey as unknown as Redacted.Redacted<string>
      })).pipe(withCapturedLogs(logs), Effect.provide(FakeCli.layer(() => Effect.never))))
      assert.strictEqual(failureTag(plainKey), "InvalidInput")
      texts.push(...exitTexts(plainKey))

      // The spec the transport got: every secret Redacted, with the real value inside.
      assert.isDefined(spec)
      const env = spec!.env
      for (
        const [name, value] of [
          ["ANTHROPIC_API_KEY", secrets.apiKey],
          ["MY_SERVICE_TOKEN", secrets.marked],
          ["OTHER_SECRET", secrets.redactedEnv],
          ["GITHUB_TOKEN", secrets.github]
        ] as const
      ) {
        const held = env[name]
        assert.isTrue(Redacted.isRedacted(held), `${name} is not Redacted`)
        assert.strictEqual(Redacted.value(held as Redacted.Redacted<string>), value)
      }
      assert.strictEqual(env.PLAIN_SETTING, "not-a-secret")
      texts.push(String(spec), JSON.stringify(spec), Util.inspect(spec, { depth: null }), spec!.args.join(" "))

      // The transcript file, flushed when its scope closed.
      const transcript = Fs.readFileSync(transcriptPath, "utf8").split("\n").filter((l) => l.length > 0)
      // The captures are not empty: the check below looks at real text.
      assert.isAbove(logs.length, 0)
      assert.isAbove(transcript.length, 4)
      assert.isTrue(transcript.some((l) => l.includes("\"recv\"") && l.includes("\"result\"")))
      assert.isTrue(texts.some((t) => t.includes("fatal: the CLI crashed mid-turn")))
      assert.isTrue(texts.some((t) => t.includes("nope: not supported here")))
      assert.isTrue(texts.some((t) => t.includes("resume and continueConversation cannot be combined")))
      assert.isTrue(texts.some((t) => t.includes("PLAIN_SETTING")))
      const all = [...logs, ...transcript, ...texts]
      for (const secret of Object.values(secrets)) assert.deepStrictEqual(occurrences(all, secret), [], secret)
    }))

})
