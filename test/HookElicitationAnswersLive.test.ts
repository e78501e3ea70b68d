/**
 * The answers of `Elicitation` and `ElicitationResult` hooks against the real CLI 2.1.332, with
 * the MCP server of test/fixtures/elicit-mcp-server.mjs (it hands back, as its tool's result,
 * what the CLI told it). The CLI runs these hooks apart from the others and reads of an SDK
 * host's answer only `decision: "block"` and `systemMessage` (as the hook's JSON), not
 * `hookSpecificOutput`: a hook's decline was read as no opinion, and the `Elicitation` handler's
 * accept (the user's data) reached the server.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as Layer from "effect/Layer"
import * as Elicitation from "../src/Elicitation.ts"
import * as Hooks from "../src/Hooks.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Offline from "../src/testing/Offline.ts"
import { processLayer } from "./support/live.ts"
import { cliPath } from "./support/realCli.ts"

const server = Path.join(import.meta.dirname, "fixtures", "elicit-mcp-server.mjs")

/** What the server was told, for one turn that calls its tool with these hooks (and an `Elicitation` handler that accepts). */
const serverWasTold = (hooks: Layer.Layer<Hooks.Hooks, unknown>, handler: boolean) =>
  Effect.gen(function*() {
    const { session, model } = yield* Offline.open([
      FakeModel.text("ready"),
      FakeModel.toolUse("mcp__asker__ask", {}),
      FakeModel.text("done")
    ], { executable: cliPath, allowedTools: ["mcp__asker__ask"] }).pipe(
      Effect.provide(hooks),
      handler
        ? Effect.provide(Elicitation.layer(() => Effect.succeed(Elicitation.accept({ environment: "production", confirm: true }))))
        : (open) => open
    )
    yield* session.run("one")
    yield* session.setMcpServers({ asker: { type: "stdio", command: process.execPath, args: [server, "asker"] } })
    yield* session.run("Ask where to deploy")
    const requests = yield* model.messageRequests
    const content = FakeModel.toolResults(requests[2]!)[0]?.content
    return typeof content === "string" ? content : JSON.stringify(content)
  }).pipe(Effect.scoped, Effect.provide(processLayer))

describe("Elicitation hooks' answers, real CLI", { timeout: 120_000 }, () => {
  it.live("an Elicitation hook's decline: the server is told decline, not the handler's accept", () =>
    Effect.gen(function*() {
      const told = yield* serverWasTold(
        Hooks.layer(Hooks.on("Elicitation", () => Effect.succeed({ hookSpecificOutput: { action: "decline" as const } }))),
        true
      )
      assert.strictEqual(told, `elicitation: {"action":"decline"}`)
    }))

  it.live("an Elicitation hook's accept: its content reaches the server (no handler asked)", () =>
    Effect.gen(function*() {
      const told = yield* serverWasTold(
        Hooks.layer(Hooks.on("Elicitation", () =>
          Effect.succeed({
            hookSpecificOutput: { action: "accept" as const, content: { environment: "staging", confirm: false } }
          }))),
        false
      )
      assert.strictEqual(told, `elicitation: {"action":"accept","content":{"environment":"staging","confirm":false}}`)
    }))

  it.effect("an accept beside decision \"block\" says two things: an invalid answer", () =>
    Effect.gen(function*() {
      const bound = Hooks.bind(
        yield* Hooks.register(Hooks.on("Elicitation", () =>
          Effect.succeed({ decision: "block" as const, hookSpecificOutput: { action: "accept" as const } })))
      )
      const error = yield* Effect.flip(bound.dispatch("hook_0", {
        session_id: "s",
        transcript_path: "t",
        cwd: "/",
        hook_event_name: "Elicitation",
        mcp_server_name: "asker",
        message: "Where to deploy?"
      }, undefined))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      assert.include(error.message, "answer one decision")
    }).pipe(Effect.provide(Logger.layer([]))))

  it.live("an ElicitationResult hook's cancel overrides the handler's accept", () =>
    Effect.gen(function*() {
      const told = yield* serverWasTold(
        Hooks.layer(Hooks.on("ElicitationResult", () => Effect.succeed({ hookSpecificOutput: { action: "cancel" as const } }))),
        true
      )
      assert.include(told, `elicitation: {"action":"cancel"`)
      assert.notInclude(told, "production")
    }))
})
