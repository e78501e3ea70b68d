/**
 * Secrets through a real process (live tier): test/fixtures/fake-claude.mjs receives the real
 * values; logs and errors hold none. The in-memory checks are in test/Secrets.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import { isAlive, processLayer } from "./support/live.ts"

const FAKE_CLAUDE = Path.join(import.meta.dirname, "fixtures", "fake-claude.mjs")

/** Fresh secrets per run, so no fixture text can contain them by accident. */
const makeSecrets = () => ({
  apiKey: `sk-secret-${Crypto.randomBytes(12).toString("hex")}`,
  marked: `marked-secret-${Crypto.randomBytes(12).toString("hex")}`,
  redactedEnv: `redacted-env-${Crypto.randomBytes(12).toString("hex")}`,
  github: `ghp_${Crypto.randomBytes(12).toString("hex")}`
})

/** Collects every log line at every level: the formatted line and the cause, pretty. */
const capturingLogger = (into: Array<string>) =>
  Logger.make((options) => {
    into.push(Logger.formatSimple.log(options))
    into.push(Util.inspect(options.message, { depth: null }))
    if (options.cause.reasons.length > 0) into.push(Cause.pretty(options.cause))
  })

const withCapturedLogs = (into: Array<string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(Logger.layer([capturingLogger(into)])),
    Effect.provideService(References.MinimumLogLevel, "All")
  )

/** Every printed form of an error. */
const errorTexts = (error: unknown): Array<string> => {
  const texts = [String(error), Util.inspect(error, { depth: null }), JSON.stringify(error) ?? ""]
  if (error instanceof Error) texts.push(error.message, error.stack ?? "")
  if (ClaudeError.isClaudeError(error)) texts.push(error.reason.message, JSON.stringify(error.reason))
  return texts
}

const exitTexts = (exit: Exit.Exit<unknown, unknown>): Array<string> => {
  if (Exit.isSuccess(exit)) return []
  const texts = [Cause.pretty(exit.cause), String(exit), Util.inspect(exit, { depth: null })]
  for (const reason of exit.cause.reasons) {
    if (Cause.isFailReason(reason)) texts.push(...errorTexts(reason.error))
    if (Cause.isDieReason(reason)) texts.push(...errorTexts(reason.defect))
  }
  return texts
}

const occurrences = (texts: ReadonlyArray<string>, secret: string): Array<string> =>
  texts.filter((text) => text.includes(secret)).map((text) => text.slice(0, 300))

const failureTag = (exit: Exit.Exit<unknown, ClaudeError.ClaudeError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  return exit.cause.reasons.find(Cause.isFailReason)?.error.reason._tag
}

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
