/**
 * `Sessions.messages` on a session the real CLI wrote with parallel tool calls: one API message
 * with two `tool_use` blocks is three assistant lines, each tool result a child of its own
 * `tool_use` line. Every result is a message, as in the official SDK's `getSessionMessages`
 * (found by a review).
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as SessionStore from "../src/SessionStore.ts"
import * as Sessions from "../src/Sessions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { withEnv } from "./support/env.ts"

const script: FakeModel.Script = (request) => {
  if (FakeModel.toolResults(request).length > 0) return FakeModel.text("Both printed.")
  if ((FakeModel.lastUserText(request) ?? "").includes("Run both")) {
    return FakeModel.blocks([
      FakeModel.textBlock("Running two."),
      FakeModel.toolUseBlock("Bash", { command: "echo one", description: "one" }),
      FakeModel.toolUseBlock("Bash", { command: "echo two", description: "two" })
    ])
  }
  return FakeModel.text("Second answer.")
}

const blocksOf = (messages: ReadonlyArray<Sessions.Message>, type: "tool_use" | "tool_result") =>
  messages.flatMap((m) =>
    m.type !== "system" && Array.isArray(m.message.content)
      ? (m.message.content as ReadonlyArray<any>).filter((b) => b.type === type).map((b) => type === "tool_use" ? b.id : b.tool_use_id)
      : []
  )

/** `CLAUDE_CONFIG_DIR` for the SDK's functions while the scope is open; the previous value after. */
const configDirForSdk = (dir: string) => withEnv("CLAUDE_CONFIG_DIR", dir)

describe("Sessions.messages and parallel tool calls", { timeout: 120_000 }, () => {
  it.live("every tool call of the live branch has its result, as in the SDK's getSessionMessages", () =>
    Effect.gen(function*() {
      const setup = yield* live(script)
      const sessionId = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(setup.options)
        yield* session.run("Run both please")
        yield* session.run("And then?")
        return yield* session.sessionId
      }))
      const configDir = Path.join(setup.home, ".claude")
      const sessions = yield* Sessions.Sessions.pipe(Effect.provide(Sessions.layer.pipe(
        Layer.provideMerge(SessionStore.layerDirectory(configDir)),
        Layer.provideMerge(NodeServices.layer)
      )))
      const ours = yield* Stream.runCollect(sessions.messages(sessionId))
      const uses = blocksOf(ours, "tool_use")
      assert.strictEqual(uses.length, 2)
      yield* configDirForSdk(configDir)
      const sdk = yield* Effect.promise(() => import("@anthropic-ai/claude-agent-sdk"))
      const theirs = yield* Effect.promise(() => sdk.getSessionMessages(sessionId))
      assert.deepStrictEqual(ours.map((m) => m.uuid), theirs.map((m) => m.uuid))
      assert.deepStrictEqual([...blocksOf(ours, "tool_result")].sort(), [...uses].sort())
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
