/**
 * Secrets through a real process (live tier): test/fixtures/fake-claude.mjs receives the real
 * values; logs and errors hold none. The in-memory checks are in test/Secrets.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import { isAlive, processLayer } from "./support/live.ts"
import { capturingLogger, errorTexts, exitTexts, failureTag, makeSecrets, occurrences, withCapturedLogs } from "./support/secrets.ts"

const FAKE_CLAUDE = Path.join(import.meta.dirname, "fixtures", "fake-claude.mjs")

describe("secrets through a process", () => {
  it.live("the child process receives the real values (fake-claude.mjs), and logs and errors still hold none", () =>
    Effect.gen(function*() {
      const secrets = makeSecrets()
      const logs: Array<string> = []
      const texts: Array<string> = []
      const outcome = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open({
          executable: FAKE_CLAUDE,
          apiKey: Redacted.make(secrets.apiKey),
          env: {
            MY_SERVICE_TOKEN: secrets.marked,
            OTHER_SECRET: Redacted.make(secrets.redactedEnv),
            GITHUB_TOKEN: secrets.github,
            FAKE_CLAUDE_ENV_KEYS: "ANTHROPIC_API_KEY,MY_SERVICE_TOKEN,OTHER_SECRET,GITHUB_TOKEN",
            FAKE_CLAUDE_MODE: "exit-mid-turn"
          },
          secretEnv: ["MY_SERVICE_TOKEN"],
          closeGrace: "2 seconds"
        })
        const events: Array<Claude.Event> = []
        const turn = yield* Effect.exit(
          session.turn("hello").pipe(Stream.runForEach((event) => Effect.sync(() => events.push(event))))
        )
        const rejected = yield* Effect.exit(session.request({ subtype: "bogus_subtype" }, Schema.Unknown))
        return { events, turn, rejected, pid: session.pid }
      })).pipe(withCapturedLogs(logs), Effect.provide(processLayer))

      // The child got every secret, as the real value (fake-claude echoes them in system/init).
      const init = outcome.events.find((e) => e.type === "system" && e.subtype === "init") as
        | { readonly fake_env: Record<string, string | null>; readonly fake_argv: ReadonlyArray<string> }
        | undefined
      assert.isDefined(init)
      assert.deepStrictEqual(
        {
          ANTHROPIC_API_KEY: init!.fake_env.ANTHROPIC_API_KEY,
          MY_SERVICE_TOKEN: init!.fake_env.MY_SERVICE_TOKEN,
          OTHER_SECRET: init!.fake_env.OTHER_SECRET,
          GITHUB_TOKEN: init!.fake_env.GITHUB_TOKEN
        },
        {
          ANTHROPIC_API_KEY: secrets.apiKey,
          MY_SERVICE_TOKEN: secrets.marked,
          OTHER_SECRET: secrets.redactedEnv,
          GITHUB_TOKEN: secrets.github
        }
      )
      // ... through the environment only: never on the command line (visible in `ps`).
      for (const secret of Object.values(secrets)) assert.notInclude(init!.fake_argv.join(" "), secret)

      // The crash is a typed error with the CLI's stderr; the process is gone.
      assert.strictEqual(failureTag(outcome.turn), "ProcessExited")
      texts.push(...exitTexts(outcome.turn), ...exitTexts(outcome.rejected))
      assert.isTrue(texts.some((t) => t.includes("fatal: simulated crash")))
      assert.isFalse(isAlive(outcome.pid!))
      for (const secret of Object.values(secrets)) assert.deepStrictEqual(occurrences([...logs, ...texts], secret), [], secret)
    }), { timeout: 30_000 })
})
