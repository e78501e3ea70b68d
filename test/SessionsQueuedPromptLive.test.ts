/**
 * `Sessions` on a session where the real CLI queued a prompt (sent with `send` while a turn ran):
 * the CLI writes it as a `queued_command` attachment. `messages` gives the same messages as the
 * official SDK's `getSessionMessages` (the queued prompt a user message with the uuid `send`
 * returned), and `fork` up to that uuid succeeds, as the SDK's `forkSession` (found by a review).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { withEnv } from "./support/env.ts"
import { live, processLayer } from "./support/live.ts"

const script: FakeModel.Script = (request) => {
  if (FakeModel.toolResults(request).length > 0 && FakeModel.lastUserText(request) === undefined) return FakeModel.text("Done waiting.")
  const said = FakeModel.lastUserText(request) ?? ""
  if (said.includes("Slow")) return FakeModel.toolUse("Bash", { command: "sleep 3; echo done", description: "wait" })
  return FakeModel.text(`Answer to ${said.slice(0, 30)}`)
}

const contentOf = (m: object) => JSON.stringify(("message" in m ? m.message as { content?: unknown } : undefined)?.content)

describe("Sessions and a prompt the CLI queued", { timeout: 120_000 }, () => {
  it.live("messages as the SDK's getSessionMessages, the queued prompt included; fork up to it", () =>
    Effect.gen(function*() {
      const setup = yield* live(script)
      const { sessionId, queued } = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(setup.options)
        // The first turn's tool call, once the session has read it: its tool runs then (3 s).
        const toolCalled = yield* session.events.pipe(
          Stream.filter((event) => event.type === "assistant" && JSON.stringify(event.message.content).includes("\"tool_use\"")),
          Stream.take(1),
          Stream.runDrain,
          Effect.forkChild({ startImmediately: true })
        )
        yield* session.send("Slow one please")
        // Sent while the first turn's tool runs: the CLI queues it.
        yield* Fiber.join(toolCalled)
        const queued = yield* session.send("Queued follow-up")
        yield* session.run("Last")
        return { sessionId: yield* session.sessionId, queued }
      }))
      const configDir = Path.join(setup.home, ".claude")
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(configDir)),
        Layer.provideMerge(NodeServices.layer)
      )))
      const ours = yield* Stream.runCollect(sessions.messages(sessionId))
      const prompt = ours.find((m) => m.uuid === queued)
      assert.isDefined(prompt)
      assert.strictEqual(prompt!.type, "user")
      assert.include(contentOf(prompt!), "Queued follow-up")
      yield* withEnv("CLAUDE_CONFIG_DIR", configDir)
      const sdk = yield* Effect.promise(() => import("@anthropic-ai/claude-agent-sdk"))
      const theirs = yield* Effect.promise(() => sdk.getSessionMessages(sessionId))
      assert.deepStrictEqual(ours.map((m) => [m.type, m.uuid, contentOf(m)]), theirs.map((m) => [m.type, m.uuid, contentOf(m)]))
      const forkId = yield* sessions.fork(sessionId, { upToMessageId: queued })
      const copied = yield* Stream.runCollect(sessions.entries(forkId))
      assert.isTrue(copied.some((l) => !Sessions.isProblem(l) && JSON.stringify(l).includes("Queued follow-up")))
      assert.isFalse(copied.some((l) => !Sessions.isProblem(l) && JSON.stringify(l).includes("Answer to Last")))
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
