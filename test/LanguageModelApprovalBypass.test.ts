/**
 * A toolkit tool with `needsApproval` must never run without the session's `Permissions` asked:
 * under `permissionMode: "bypassPermissions"` (or `"auto"`, where a classifier decides) the CLI
 * asks no one, so the call is refused before any session starts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Toolkit from "effect/ai/Toolkit"
import * as ClaudeCodeLanguageModel from "../src/ClaudeCodeLanguageModel.ts"
import type * as Launch from "../src/Launch.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { Admin, AdminHandlers, ListRepos } from "./support/aiTools.ts"

const sessionId = "11111111-1111-4111-8111-111111111111"

const Handlers = AdminHandlers

const run = (permissionMode: Launch.PermissionMode, withApproval: boolean) =>
  Effect.gen(function*() {
    let spawned = false
    const transport = FakeCli.layer((cli) => {
      spawned = true
      return FakeCli.conversation({
        sessionId,
        onUser: (_text, _index, cli) => Effect.forEach(FakeCli.textTurn({ sessionId, text: "ok" }), (line) => cli.emit(line), { discard: true })
      })(cli)
    })
    const call = withApproval
      ? LanguageModel.generateText({ prompt: "Clean up", toolkit: Admin })
      : LanguageModel.generateText({ prompt: "List", toolkit: Toolkit.make(ListRepos) })
    const exit = yield* call.pipe(
      Effect.provide(ClaudeCodeLanguageModel.layer({ permissionMode }).pipe(Layer.provide(transport))),
      Effect.provide(Handlers),
      Effect.exit
    )
    return { exit, spawned }
  })

describe("ClaudeCodeLanguageModel: needsApproval under a mode that asks no one", () => {
  for (const mode of ["bypassPermissions", "auto"] as const) {
    it.effect(`${mode}: a toolkit with a tool that needs approval is refused, no CLI started`, () =>
      Effect.gen(function*() {
        const { exit, spawned } = yield* run(mode, true)
        assert.isFalse(spawned)
        assert.isTrue(exit._tag === "Failure")
        const text = String(exit._tag === "Failure" ? exit.cause : "")
        assert.include(text, "ToolConfigurationError")
        assert.include(text, "DeleteRepo")
      }))
  }

  it.effect("bypassPermissions: a toolkit without such a tool still runs", () =>
    Effect.gen(function*() {
      const { exit, spawned } = yield* run("bypassPermissions", false)
      assert.isTrue(spawned)
      assert.strictEqual(exit._tag, "Success")
    }))
})
