/**
 * A handler that returns no Effect (a plain answer, a Promise: a JavaScript caller, or a cast)
 * killed the fiber serving the CLI's request ("Fiber.runLoop: Not a valid effect"), past every
 * guard: the CLI got no answer at all (a `can_use_tool` waits for one as long as the turn runs;
 * a hook until the CLI's own timeout), and the program no `handler_failed`. It is now a handler
 * that died: a guard refuses, reported.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

/** What the fake CLI's request `body` is answered, and the failures the session reported. */
const answered = <S>(body: Record<string, unknown>, services: Layer.Layer<S, ClaudeError.ClaudeError>) =>
  Effect.gen(function*() {
    let answer: unknown
    const cli = FakeCli.layer((cli) =>
      Effect.gen(function*() {
        yield* FakeCli.answerInitialize(cli)
        answer = yield* cli.request(body, { timeout: "3 seconds" }).pipe(
          Effect.map((response) => (response as { readonly response?: unknown }).response),
          Effect.catch((error) => Effect.succeed(error.message))
        )
        return 0
      })
    )
    const reported = yield* Effect.gen(function*() {
      const session = yield* Claude.open()
      return yield* session.events.pipe(
        Stream.filter((event) => event.type === "handler_failed"),
        Stream.runCollect,
        Effect.catch(() => Effect.succeed([]))
      )
    }).pipe(Effect.scoped, Effect.provide([cli, services]), Effect.provide(Logger.layer([])))
    return { answer, reported: [...reported] }
  })

const notAnEffect = [
  { name: "a plain answer", value: (answer: unknown) => answer },
  { name: "a Promise", value: (answer: unknown) => Promise.resolve(answer) }
]

describe("a handler that returns no Effect", () => {
  for (const { name, value } of notAnEffect) {
    it.live(`a Permissions handler returning ${name}: the tool call is denied, reported`, () =>
      Effect.gen(function*() {
        const { answer, reported } = yield* answered(
          { subtype: "can_use_tool", tool_name: "Bash", input: { command: "rm victim.txt" }, tool_use_id: "toolu_1" },
          Permissions.layer(() => value(Permissions.allow()) as never)
        )
        assert.strictEqual((answer as { readonly behavior?: unknown }).behavior, "deny", `answered: ${JSON.stringify(answer)}`)
        assert.strictEqual(reported.length, 1)
      }))

    it.live(`a PreToolUse guard returning ${name}: the tool call is refused, reported`, () =>
      Effect.gen(function*() {
        const { answer, reported } = yield* answered(
          {
            subtype: "hook_callback",
            callback_id: "hook_0",
            tool_use_id: "toolu_1",
            input: {
              session_id: "s",
              transcript_path: "t",
              cwd: ".",
              hook_event_name: "PreToolUse",
              permission_mode: "default",
              tool_name: "Bash",
              tool_input: { command: "rm victim.txt" },
              tool_use_id: "toolu_1"
            }
          },
          Hooks.layer(Hooks.on("PreToolUse", () => value(Hooks.allowWith()) as never))
        )
        const decision = (answer as { readonly hookSpecificOutput?: { readonly permissionDecision?: unknown } })
          .hookSpecificOutput?.permissionDecision
        assert.strictEqual(decision, "deny", `answered: ${JSON.stringify(answer)}`)
        assert.strictEqual(reported.length, 1)
      }))
  }
})
