/**
 * A turn cut off by a failure (the CLI exited in the middle of a tool use, the session closed
 * while the CLI still ran the turn): the turn's span ended failed with the reason, but its open
 * tool use and model request ended as successes, so a trace showed a green tool under a red turn.
 * They now end failed with the same reason (`claude.error.reason`, `error.type`); the tool use
 * still says it did not finish (`claude.tool.unfinished`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { collectSpans, named, only } from "./support/spans.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const failedWith = (span: { readonly status: { readonly _tag: string } }, reason: string, tree: string) => {
  const status = span.status as { readonly _tag: string; readonly exit?: Exit.Exit<unknown, unknown> }
  assert.strictEqual(status._tag, "Ended", tree)
  assert.isTrue(status.exit !== undefined && Exit.isFailure(status.exit), `ended as a success:\n${tree}`)
  const attributes = (span as unknown as { readonly attributes: Map<string, unknown> }).attributes
  assert.strictEqual(attributes.get("error.type"), reason, tree)
  assert.strictEqual(attributes.get("claude.error.reason"), reason, tree)
}

const show = (spans: ReadonlyArray<{ readonly name: string; readonly status: { readonly _tag: string } }>) =>
  spans.map((span) => {
    const exit = (span.status as { readonly exit?: Exit.Exit<unknown, unknown> }).exit
    return `${span.name} ${span.status._tag} ${exit === undefined ? "" : Exit.isSuccess(exit) ? "ok" : "failed"}`
  }).join("\n")

describe("Tracing: the spans open when a turn is cut off", () => {
  it.effect("end failed with the reason when the CLI exits in the middle of a tool use", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const cli = FakeCli.layer((cli) =>
        Effect.gen(function*() {
          yield* FakeCli.answerInitialize(cli)
          const user = yield* cli.nextMatching((m) => m.type === "user")
          const uuid = String(user.uuid)
          yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
          yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }], {
            userMessageUuid: uuid
          }))
          return 1
        })
      )
      const exit = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        return yield* session.run("run a command")
      }).pipe(
        Effect.scoped,
        Effect.provide(cli),
        collected.provide,
        Effect.provide(Logger.layer([])),
        Effect.exit
      )
      assert.isTrue(Exit.isFailure(exit))
      const tree = show(collected.spans)
      const turn = only(collected.spans, "claude.turn")
      const reason = String(turn.attributes.get("claude.error.reason"))
      assert.notStrictEqual(reason, "undefined", tree)
      failedWith(only(collected.spans, "execute_tool Bash"), reason, tree)
      assert.strictEqual(only(collected.spans, "execute_tool Bash").attributes.get("claude.tool.unfinished"), true)
      failedWith(named(collected.spans, "chat")[0]!, reason, tree)
    }))

  it.live("end failed with the reason when the session closes while the CLI runs a sent turn", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      const cli = FakeCli.layer(FakeCli.conversation({
        sessionId: SESSION,
        onUser: (_text, _index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "", userMessageUuid: uuid })[0])
            yield* cli.emit(assistantLine(SESSION, "msg_1", [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }], {
              userMessageUuid: uuid
            }))
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.send("run a command")
        // Until the tool use is read.
        while (!collected.spans.some((span) => span.name === "execute_tool Bash")) yield* Effect.sleep("5 millis")
      }).pipe(
        Effect.scoped,
        Effect.provide(cli),
        collected.provide,
        Effect.provide(Logger.layer([]))
      )
      const tree = show(collected.spans)
      const turn = only(collected.spans, "claude.turn")
      const reason = String(turn.attributes.get("claude.error.reason"))
      assert.notStrictEqual(reason, "undefined", tree)
      failedWith(only(collected.spans, "execute_tool Bash"), reason, tree)
      failedWith(named(collected.spans, "chat")[0]!, reason, tree)
    }), { timeout: 10_000 })
})
