/**
 * A background subagent traced against the real CLI (the `Agent` tool runs in the background by
 * default in CLI 2.1.332) and the fake model: its model request, streamed while its turn ends and
 * the program's next turn runs, is under its `Agent` tool use, and the trace has one turn span a
 * turn (the two of the program's, and the CLI's own after the task's notification), with each
 * turn's cost once.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { collectEvents } from "./support/events.ts"
import { live, processLayer } from "./support/live.ts"
import { collectSpans, named, parentName } from "./support/spans.ts"

const SUB = "Sub-agent says hello."
const AUTOMATIC = "Main: re-invoked after the agent finished."

const script = (request: FakeModel.RecordedRequest): FakeModel.Reply => {
  // The subagent streams for about 1.2 s: past its turn's result, into the next turn.
  if (FakeModel.systemText(request).includes("cc_is_subagent=true")) return FakeModel.text(SUB, { chunks: 20, delayMs: 60 })
  const raw = JSON.stringify(FakeModel.lastUserMessage(request)?.content ?? "")
  if (raw.includes("SYSTEM NOTIFICATION") || raw.includes("task-notification")) return FakeModel.text(AUTOMATIC)
  if (FakeModel.toolResults(request).length > 0) return FakeModel.text("Main: after Agent tool result.")
  const text = FakeModel.lastUserText(request) ?? ""
  if (text.includes("Use a subagent")) {
    return FakeModel.toolUse("Agent", { description: "Probe subagent", prompt: "Say sub-hello", subagent_type: "general-purpose" })
  }
  return FakeModel.text("Main: the next turn.", { chunks: 20, delayMs: 100 })
}

describe("Tracing a background subagent (real CLI)", { timeout: 120_000 }, () => {
  it.live("its model request is under its Agent tool use; one turn span a turn", () =>
    Effect.gen(function*() {
      const collected = collectSpans()
      yield* Effect.gen(function*() {
        const { options } = yield* live(script)
        const session = yield* Claude.open(options)
        const seen = yield* collectEvents(session)
        yield* session.run("Use a subagent")
        yield* session.run("And now the next turn")
        for (let waited = 0; waited < 30_000; waited += 20) {
          if (seen.some((e) => e.type === "result" && e.result === AUTOMATIC)) break
          yield* Effect.sleep("20 millis")
        }
      }).pipe(Effect.scoped, collected.provide, Effect.provide(processLayer))
      const spans = collected.spans
      const tree = spans.map((span) => `${span.name} < ${parentName(span)} ${JSON.stringify(span.attributes.get("gen_ai.response.id") ?? "")}`).join("\n")
      const agent = named(spans, "execute_tool Agent")
      assert.strictEqual(agent.length, 1, tree)
      // The subagent's one request under its tool use; the main agent's four under their turns.
      const chats = named(spans, "chat")
      assert.strictEqual(chats.filter((span) => parentName(span) === "execute_tool Agent").length, 1, tree)
      assert.strictEqual(chats.filter((span) => parentName(span) === "claude.turn").length, 4, tree)
      const turns = named(spans, "claude.turn")
      assert.deepStrictEqual(turns.map((span) => span.attributes.get("claude.turn.kind")), ["user", "user", "automatic"], tree)
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended", `${span.name} did not end`)
    }))
})
