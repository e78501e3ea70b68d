/**
 * The session as a service (issue 13, "Structure"): `ClaudeSession.layer` opens one session when
 * the layer is built and ends the CLI when the layer's scope closes; `layerConfig` reads the
 * options from a `ConfigProvider`, and the API key read with `Config.Redacted` reaches the CLI's
 * environment (the in-memory fake's launch spec, and the real environment of fake-claude.mjs)
 * while it never shows in logs or errors. `Claude.layer` still works, as the deprecated name of
 * `Claude.layerProcess`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Util from "node:util"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeSession from "../src/ClaudeSession.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Index from "../src/index.ts"
import type { LaunchSpec } from "../src/Transport.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { occurrences, withCapturedLogs } from "./support/secrets.ts"

/** Every printed form of a failed exit. */
const exitTexts = (exit: Exit.Exit<unknown, unknown>): Array<string> => {
  if (Exit.isSuccess(exit)) return []
  const texts = [Cause.pretty(exit.cause), String(exit), Util.inspect(exit, { depth: null })]
  for (const reason of exit.cause.reasons) {
    if (Cause.isFailReason(reason)) {
      texts.push(String(reason.error), Util.inspect(reason.error, { depth: null }), JSON.stringify(reason.error) ?? "")
      if (reason.error instanceof Error) texts.push(reason.error.message, reason.error.stack ?? "")
    }
  }
  return texts
}

const fromUnknown = (values: Record<string, unknown>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(values))

describe("ClaudeSession", () => {
  it("is exported from the package's main entry, and Claude.layer is still the process transport", () => {
    assert.strictEqual(Index.ClaudeSession.ClaudeSession, ClaudeSession.ClaudeSession)
    assert.strictEqual(Index.ClaudeSession.layer, ClaudeSession.layer)
    assert.strictEqual(ClaudeSession.make, Claude.open)
    assert.strictEqual(Claude.layer, Claude.layerProcess)
  })

  it.effect("ClaudeSession.layer: the program reaches the session as a service; closing the layer ends the CLI", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        const session = yield* ClaudeSession.ClaudeSession
        const first = yield* session.run("one")
        const second = yield* session.run("two")
        return { session, results: [first.result, second.result] }
      })
      const { results, session } = yield* program.pipe(
        Effect.provide(ClaudeSession.layer({ closeGrace: "1 second" }).pipe(
          Layer.provide(FakeCli.layer(FakeCli.conversation({})))
        ))
      )
      assert.deepStrictEqual(results, ["echo: one", "echo: two"])
      // The layer's scope is closed: the CLI got its EOF and exited by itself.
      const status = yield* session.exit
      assert.deepStrictEqual({ code: status.code, signal: status.signal }, { code: 0, signal: null })
    }))

  it.effect("ClaudeSession.layer takes Hooks from the layer's context, as Claude.open does", () =>
    Effect.gen(function*() {
      let initialize: Record<string, unknown> | undefined
      const script = (cli: FakeCli.FakeCliHandle) =>
        Effect.gen(function*() {
          initialize = yield* FakeCli.answerInitialize(cli)
          return yield* FakeCli.conversation({})(cli)
        })
      yield* Effect.flatMap(Effect.service(ClaudeSession.ClaudeSession), (session) => session.run("hi")).pipe(
        Effect.provide(ClaudeSession.layer().pipe(
          Layer.provide(Hooks.layer(Hooks.on("Stop", () => Effect.succeed(Hooks.allow())))),
          Layer.provide(FakeCli.layer(script))
        ))
      )
      const hooks = (initialize?.request as { hooks?: Record<string, unknown> } | undefined)?.hooks
      assert.deepStrictEqual(Object.keys(hooks ?? {}), ["Stop"])
    }))

  it.effect("a failure to open fails the layer with the ClaudeError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.asVoid(Effect.service(ClaudeSession.ClaudeSession)).pipe(
          Effect.provide(ClaudeSession.layer({ resume: "x", continueConversation: true }).pipe(
            Layer.provide(FakeCli.layer(() => Effect.never))
          ))
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
      assert.strictEqual(error?._tag, "ClaudeError")
      assert.strictEqual(error?._tag === "ClaudeError" ? error.reason._tag : undefined, "InvalidInput")
    }))

  it.live("ClaudeSession.layerConfig: a redacted key from the ConfigProvider reaches the fake CLI's launch spec, and never a log or an error", () =>
    Effect.gen(function*() {
      const secret = `sk-config-${Crypto.randomBytes(12).toString("hex")}`
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
              yield* cli.emit(FakeCli.failure(message, "nope: not supported here", "unsupported_request"))
            } else if (message.type === "user") {
              if (turns++ === 0) {
                for (const line of FakeCli.textTurn({ sessionId: "s-config", text: "hello" })) yield* cli.emit(line)
              } else {
                yield* cli.stderr("fatal: the CLI crashed mid-turn\n")
                return 3
              }
            }
          }
        })
      const layer = ClaudeSession.layerConfig({
        apiKey: Config.Redacted("ANTHROPIC_API_KEY"),
        model: Config.String("CLAUDE_MODEL"),
        closeGrace: Config.succeed("1 second")
      }).pipe(Layer.provide(FakeCli.layer(script)))

      yield* Effect.gen(function*() {
        const session = yield* ClaudeSession.ClaudeSession
        yield* Effect.logDebug("session opened", session)
        const first = yield* session.run("hello")
        assert.strictEqual(first.result, "hello")
        const rejected = yield* Effect.exit(session.setModel("opus"))
        assert.isTrue(Exit.isFailure(rejected))
        texts.push(...exitTexts(rejected))
        const crashed = yield* Effect.exit(session.turn("crash now").pipe(Stream.runCollect))
        assert.isTrue(Exit.isFailure(crashed))
        texts.push(...exitTexts(crashed))
      }).pipe(
        Effect.provide(layer),
        fromUnknown({ ANTHROPIC_API_KEY: secret, CLAUDE_MODEL: "haiku" }),
        withCapturedLogs(logs)
      )

      // The spec the CLI was started with: the configured model on argv, the key Redacted in env.
      assert.isDefined(spec)
      const key = spec!.env.ANTHROPIC_API_KEY
      assert.isTrue(Redacted.isRedacted(key), "ANTHROPIC_API_KEY is not Redacted")
      assert.strictEqual(Redacted.value(key as Redacted.Redacted<string>), secret)
      const model = spec!.args.indexOf("--model")
      assert.strictEqual(spec!.args[model + 1], "haiku")
      texts.push(String(spec), JSON.stringify(spec), Util.inspect(spec, { depth: null }), spec!.args.join(" "))

      // The captures hold real text (the crash and the refusal), and not the key.
      assert.isAbove(logs.length, 0)
      assert.isTrue(texts.some((t) => t.includes("fatal: the CLI crashed mid-turn")))
      assert.isTrue(texts.some((t) => t.includes("nope: not supported here")))
      assert.deepStrictEqual(occurrences([...logs, ...texts], secret), [])
    }))

  it.effect("ClaudeSession.layerConfig: a missing key fails the layer with a ConfigError naming it, and no CLI is started", () =>
    Effect.gen(function*() {
      let started = false
      const exit = yield* Effect.exit(
        Effect.asVoid(Effect.service(ClaudeSession.ClaudeSession)).pipe(
          Effect.provide(ClaudeSession.layerConfig({ apiKey: Config.Redacted("ANTHROPIC_API_KEY") }).pipe(
            Layer.provide(FakeCli.layer(() => Effect.sync(() => { started = true })))
          )),
          fromUnknown({ OTHER: "x" })
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
      assert.strictEqual(error?._tag, "ConfigError")
      assert.include(exitTexts(exit).join("\n"), "ANTHROPIC_API_KEY")
      assert.isFalse(started)
    }))

})
