/**
 * `ClaudeSession.layerConfig` over the process transport (live tier): test/fixtures/fake-claude.mjs
 * gets the real key in its environment; the in-memory half is test/ClaudeSession.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { NodeServices } from "@effect/platform-node"
import * as Claude from "../src/Claude.ts"
import * as ClaudeSession from "../src/ClaudeSession.ts"
import { occurrences, withCapturedLogs } from "./support/secrets.ts"

const FAKE_CLAUDE = Path.join(import.meta.dirname, "fixtures", "fake-claude.mjs")

const fromUnknown = (values: Record<string, unknown>) =>
  Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(values))

describe("ClaudeSession over a process", () => {
  it.live("ClaudeSession.layerConfig over Claude.layerProcess: fake-claude.mjs gets the real key in its environment, not on argv, and logs hold none of it", () =>
    Effect.gen(function*() {
      const secret = `sk-config-${Crypto.randomBytes(12).toString("hex")}`
      const logs: Array<string> = []
      const layer = ClaudeSession.layerConfig({
        executable: Config.succeed(FAKE_CLAUDE),
        apiKey: Config.Redacted("ANTHROPIC_API_KEY"),
        env: { FAKE_CLAUDE_ENV_KEYS: Config.succeed("ANTHROPIC_API_KEY"), FAKE_CLAUDE_MODE: Config.succeed("stderr-chatter") },
        closeGrace: Config.succeed("2 seconds")
      }).pipe(Layer.provide(Claude.layerProcess), Layer.provide(NodeServices.layer))

      const events = yield* Effect.gen(function*() {
        const session = yield* ClaudeSession.ClaudeSession
        return yield* Stream.runCollect(session.turn("hello"))
      }).pipe(
        Effect.provide(layer),
        fromUnknown({ ANTHROPIC_API_KEY: secret }),
        withCapturedLogs(logs)
      )
      const init = events.find((e) => e.type === "system" && e.subtype === "init") as
        | { readonly fake_env: Record<string, string | null>; readonly fake_argv: ReadonlyArray<string> }
        | undefined
      assert.isDefined(init)
      assert.strictEqual(init!.fake_env.ANTHROPIC_API_KEY, secret)
      assert.notInclude(init!.fake_argv.join(" "), secret)
      // The CLI's stderr reached the log (debug), which holds no key.
      assert.isTrue(logs.some((line) => line.includes("claude stderr: fake-claude: started")), logs.join("\n"))
      assert.deepStrictEqual(occurrences(logs, secret), [])
    }), { timeout: 30_000 })
})
