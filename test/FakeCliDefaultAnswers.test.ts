/**
 * A program tested on `FakeCli.replying` (or `FakeCli.conversation` without `onControl`) that
 * calls a session method asking the CLI (`mcpStatus`, `contextUsage`, `settings`, `listModels`,
 * `status`, `usage`, the reloads, `sideQuestion`, `exportConversation`) failed with
 * `ProtocolViolation` ("does not match its schema"): the fake answered `{}` to every request,
 * which the real CLI never does. It answers as CLI 2.1.332 does in a plain session now, and
 * refuses a rewind without checkpointing as that CLI does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as ClaudeError from "../src/ClaudeError.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

describe("FakeCli: default answers to the session's requests", () => {
  it.live("each method asking the CLI succeeds, as on the real CLI", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "300 millis" })
      yield* session.run("hi")
      assert.deepStrictEqual((yield* session.mcpStatus()).mcpServers, [])
      assert.strictEqual((yield* session.contextUsage()).totalTokens, 0)
      assert.deepStrictEqual((yield* session.settings()).sources, [])
      assert.deepStrictEqual(yield* session.listModels(), [])
      assert.deepStrictEqual((yield* session.status()).sections, [])
      assert.isFalse((yield* session.usage()).rate_limits_available)
      assert.deepStrictEqual((yield* session.reloadSkills()).skills, [])
      assert.strictEqual((yield* session.reloadPlugins()).error_count, 0)
      assert.deepStrictEqual((yield* session.reloadOutputStyles()).available_output_styles, ["default"])
      assert.isNull(yield* session.sideQuestion("what now?"))
      yield* session.exportConversation()
      assert.strictEqual(yield* session.setModel("claude-haiku-4-5"), "claude-haiku-4-5")
      assert.isFalse((yield* session.rewindFiles("00000000-0000-4000-8000-000000000001", { dryRun: true })).canRewind)
    })).pipe(Effect.provide(FakeCli.replying(() => "ok"))))

  it.live("a rewind without checkpointing is refused, as the real CLI refuses it", () =>
    Effect.scoped(Effect.gen(function*() {
      const session = yield* Claude.open({ closeGrace: "300 millis" })
      yield* session.run("hi")
      const exit = yield* Effect.exit(session.rewindFiles("00000000-0000-4000-8000-000000000001"))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
      assert.isTrue(error !== undefined && ClaudeError.isClaudeError(error.error))
      assert.strictEqual(
        error !== undefined && ClaudeError.isClaudeError(error.error) ? error.error.reason._tag : undefined,
        "ControlRejected"
      )
    })).pipe(Effect.provide(FakeCli.replying(() => "ok"))))

  // The session follows the mode the CLI reports (its mode guard): the fake names the launch's.
  it.effect("its initialize answer and each turn's system/init name the launch's permission mode", () =>
    Effect.gen(function*() {
      const [initialize, init] = yield* Effect.gen(function*() {
        const session = yield* Claude.open({ permissionMode: "acceptEdits" })
        const initialize = yield* session.initializeResult
        const events = yield* session.turn("hi").pipe(Stream.runCollect)
        return [initialize, events.find((event) => event.type === "system" && event.subtype === "init")] as const
      }).pipe(Effect.scoped, Effect.provide(FakeCli.replying(() => "ok")))
      assert.strictEqual(initialize.current_permission_mode, "acceptEdits")
      assert.strictEqual((init as { readonly permissionMode?: string } | undefined)?.permissionMode, "acceptEdits")
    }))
})
