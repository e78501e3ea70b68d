/**
 * A turn the CLI starts by itself (after a background task's notification) opens a `claude.turn`
 * span of the library's own; when the CLI folds the program's next message into it (the message
 * was written while that turn ran), the one result ends both. That result's usage and cost were
 * written on both spans: the program's `run` span and the automatic turn's, so a trace summed
 * over its turns counted the turn twice. They are now on the program's span only; the automatic
 * turn's span still ends with it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { named, tracedSession } from "./support/spans.ts"
import { assistantLine } from "./support/toolLines.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

describe("Tracing: a user message folded into an automatic turn", () => {
  it.effect("puts the turn's usage and cost on one claude.turn span", () =>
    Effect.gen(function*() {
      const { spans } = yield* tracedSession(
        SESSION,
        (_text, index, cli, message) =>
          Effect.gen(function*() {
            const uuid = String(message.uuid)
            if (index === 0) {
              const lines = FakeCli.textTurn({ sessionId: SESSION, text: "one", userMessageUuid: uuid, totalCostUsd: 0.1 })
              return yield* Effect.forEach(lines, cli.emit, { discard: true })
            }
            // A turn of the CLI's own (its init names no user message), then the message folded in.
            yield* cli.emit(FakeCli.textTurn({ sessionId: SESSION, text: "" })[0])
            yield* cli.emit(assistantLine(SESSION, "msg_auto", [{ type: "text", text: "the task is done" }]))
            yield* cli.emit(assistantLine(SESSION, "msg_two", [{ type: "text", text: "two" }], { userMessageUuid: uuid }))
            yield* cli.emit({
              ...FakeCli.result({ sessionId: SESSION, text: "two", totalCostUsd: 0.3 }),
              origin: { kind: "task-notification" },
              user_message_uuid: uuid,
              user_message_uuids: [uuid]
            })
          }),
        (session) => session.run("one").pipe(Effect.andThen(session.run("two")))
      )
      const turns = named(spans, "claude.turn")
      const tree = turns.map((span) => `${span.name} ${JSON.stringify(Object.fromEntries(span.attributes))}`).join("\n")
      assert.strictEqual(turns.length, 3, tree)
      for (const span of turns) assert.strictEqual(span.status._tag, "Ended", tree)
      const cost = turns.reduce((total, span) => total + Number(span.attributes.get("claude.cost_usd") ?? 0), 0)
      assert.closeTo(cost, 0.3, 1e-9, tree)
      const output = turns.reduce((total, span) => total + Number(span.attributes.get("gen_ai.usage.output_tokens") ?? 0), 0)
      assert.strictEqual(output, 1500, tree)
    }))
})
