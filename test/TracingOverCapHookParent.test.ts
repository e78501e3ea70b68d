/**
 * A hook request over `maxLineBytes` (a `Write` of a large file, say) is still answered, by its
 * guard's refusal (`UnreadableGuardRequests.test.ts`); its span had no parent of its own, so it
 * fell under whatever span was current when the session opened, not under the turn it is about.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { preToolUseRmRf as preToolUse } from "./support/hookInputs.ts"
import { chain, tracedSession } from "./support/spans.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("Tracing: a hook request over the line cap", () => {
  it.effect("its span is under its tool use (its id read from the line's tail) and turn, as a readable one's", () =>
    Effect.gen(function*() {
      const { spans } = yield* tracedSession(
        SESSION,
        (_text, _index, cli, message) =>
          Effect.gen(function*() {
            // The turn's first line (its init), then the tool's hook request, as the CLI writes them.
            const uuid = String(message.uuid)
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
            yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }], { userMessageUuid: uuid }))
            const input = { ...preToolUse, tool_input: { command: `echo ${"x".repeat(20_000)}` } }
            yield* cli.request({ subtype: "hook_callback", callback_id: "hook_0", input, tool_use_id: "toolu_1" })
            yield* cli.emit({ ...FakeCli.result({ sessionId: SESSION }), user_message_uuid: uuid, user_message_uuids: [uuid] })
          }),
        (session) => session.run("write a big file"),
        Claude.open({ maxLineBytes: 4096 }).pipe(
          Effect.provide(Hooks.layer(Hooks.on("PreToolUse", () => Effect.succeed(Hooks.allow())))),
          // The span current when the session opens: the hook's must not fall under it.
          Effect.withSpan("program.open")
        )
      )
      const hook = spans.find((span) => span.name.startsWith("claude.hook") || span.name.includes("hook_callback"))
      assert.isDefined(hook, spans.map((span) => span.name).join(", "))
      assert.deepStrictEqual(chain(hook!).slice(1, 3), ["execute_tool Bash", "claude.turn"], chain(hook!).join(" < "))
    }))
})
