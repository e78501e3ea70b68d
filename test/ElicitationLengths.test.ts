/**
 * An elicitation's `minLength`/`maxLength` count characters (code points), as JSON Schema and the
 * MCP SDK's validator do, not UTF-16 units: before, valid content with an emoji was declined and
 * content too short was accepted (found by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Elicitation from "../src/Elicitation.ts"

const request = (property: Record<string, unknown>) => ({
  mcp_server_name: "forms",
  requested_schema: { type: "object", properties: { name: property }, required: ["name"] }
})

describe("elicitation string lengths", () => {
  it.effect("one emoji is one character: valid for maxLength 1", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Elicitation.decodeContent(request({ type: "string", maxLength: 1 }), { name: "😀" }))
      assert.isTrue(Exit.isSuccess(exit), String(exit))
    }))

  it.effect("one emoji is one character: breaks minLength 2", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Elicitation.decodeContent(request({ type: "string", minLength: 2 }), { name: "😀" }))
      assert.isTrue(Exit.isFailure(exit), `accepted: ${JSON.stringify(Exit.isSuccess(exit) ? exit.value : undefined)}`)
    }))
})
