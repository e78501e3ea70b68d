/**
 * With `includeHookEvents`, the real CLI 2.1.332's `system/hook_started` / `hook_response` lines
 * of a settings hook reach the stream of the turn they belong to (`session.turn`), typed: the
 * `UserPromptSubmit` hook's (written before the turn's `system/init`) and the `Stop` hook's, in
 * every turn. The CLI writes `command_lifecycle` first; the order without it is
 * test/HookLinesRouting.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const hook = { type: "command", command: "cat > /dev/null; echo '{}'" }

describe("hook lines reach their turn, real CLI", () => {
  it.live("each turn's stream has its UserPromptSubmit and Stop hook lines, before its init and its result", () =>
    Effect.scoped(Effect.gen(function*() {
      const offline = yield* Offline.open([FakeModel.text("one"), FakeModel.text("two")], {
        executable: cliPath,
        settings: { hooks: { UserPromptSubmit: [{ hooks: [hook] }], Stop: [{ hooks: [hook] }] } },
        includeHookEvents: true
      })
      for (const prompt of ["first", "second"]) {
        const events = Array.from(yield* Stream.runCollect(offline.session.turn(prompt)))
        const kinds = events.flatMap((e) =>
          e.type === "system" && (e.subtype === "hook_started" || e.subtype === "hook_response")
            ? [`${e.hook_event}/${e.subtype}`]
            : e.type === "system" && e.subtype === "init" ? ["init"] : e.type === "result" ? ["result"] : []
        )
        assert.deepStrictEqual(kinds, [
          "UserPromptSubmit/hook_started",
          "UserPromptSubmit/hook_response",
          "init",
          "Stop/hook_started",
          "Stop/hook_response",
          "result"
        ], prompt)
      }
    })).pipe(Effect.provide(processLayer)), 90_000)
})
