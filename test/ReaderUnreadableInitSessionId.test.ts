/**
 * A `system/init` line the library cannot read (over `maxLineBytes`, or one field of the wrong
 * type) is a `protocol_problem` and the session goes on; its `session_id` is still read (from
 * the line's head, or the object), so `session.sessionId` does not wait until the session ends.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Claude from "../src/Claude.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"

const SESSION = "11111111-2222-4333-8444-555555555555"

const withInit = (edit: (init: Record<string, unknown>) => Record<string, unknown>) =>
  FakeCli.layer(FakeCli.conversation({
    sessionId: SESSION,
    onUser: (text, _index, cli) =>
      Effect.gen(function*() {
        const lines = FakeCli.textTurn({ sessionId: SESSION, text })
        yield* cli.emit(edit(lines[0] as Record<string, unknown>))
        for (const line of lines.slice(1)) yield* cli.emit(line)
      })
  }))

describe("an unreadable system/init", () => {
  it.live("over the cap: the session id is still known", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({ maxLineBytes: 4000 })
      yield* session.run("x")
      const id = yield* session.sessionId.pipe(Effect.timeoutOption("1 second"))
      assert.deepStrictEqual(id, Option.some(SESSION))
    }).pipe(Effect.provide(withInit((init) => ({
      ...init,
      // Many MCP tools: the init line is over the cap, its head still shows the id.
      tools: Array.from({ length: 200 }, (_, i) => `mcp__server__tool_${i}`)
    })))))

  it.live("a field of the wrong type: the session id is still known", () =>
    Effect.gen(function*() {
      const session = yield* Claude.open({})
      yield* session.run("x")
      const id = yield* session.sessionId.pipe(Effect.timeoutOption("1 second"))
      assert.deepStrictEqual(id, Option.some(SESSION))
    }).pipe(Effect.provide(withInit((init) => ({ ...init, tools: "Bash" })))))
})
