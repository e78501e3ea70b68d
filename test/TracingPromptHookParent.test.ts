/**
 * The CLI asks a prompt's `UserPromptSubmit` hook before the turn's `system/init`. A CLI that
 * echoes no uuids (2.1.0, 2.1.200: no `command_lifecycle`, no `user_message_uuids`) has then
 * started no turn the library can see, and the hook's span (with the handler's `Hooks.dispatch`
 * under it) was under the session span, outside the turn whose prompt it judged (with 2.1.332 it
 * is under the turn). It is now under the turn (`turn`/`run`) whose prompt it carries.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { chain, collectSpans, named } from "./support/spans.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("Tracing: a prompt's hook on a CLI that echoes no uuids", () => {
  it.effect("is under the turn of that prompt", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const cli = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (text, _index, cli) =>
          Effect.gen(function*() {
            yield* FakeCli.callHook(cli, "UserPromptSubmit", { prompt: text })
            // No uuid echoed anywhere, as CLI 2.1.200 writes its lines.
            for (const line of FakeCli.textTurn({ sessionId: SESSION, text: `answer to ${text}` })) yield* cli.emit(line)
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.run("first prompt")
        yield* session.run("second prompt")
      }).pipe(
        Effect.scoped,
        Effect.provide(Layer.merge(cli, Hooks.layer(Hooks.on("UserPromptSubmit", () => Effect.succeed(Hooks.allow()))))),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const turns = named(collected.spans, "claude.turn")
      const hooks = named(collected.spans, "claude.hook UserPromptSubmit")
      const tree = collected.spans.map((span) => chain(span).join(" < ")).join("\n")
      assert.strictEqual(turns.length, 2, tree)
      assert.strictEqual(hooks.length, 2, tree)
      hooks.forEach((hook, i) => {
        const parent = hook.parent._tag === "Some" ? hook.parent.value : undefined
        assert.strictEqual(parent, turns[i], tree)
      })
    }))
})
