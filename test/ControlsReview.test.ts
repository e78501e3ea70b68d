/**
 * The session's control methods, found by a reviewing helper on the real CLI (each failing
 * before; `ControlsReviewLive.test.ts` for the first on the real CLI):
 * - `setMcpServers` sent a stdio server without `args` as given, and CLI 2.1.332 fails such a
 *   server ("Spread syntax requires ...iterable not be null or undefined"), though `args` is
 *   optional in the type and at launch: it is sent with `args: []`;
 * - `setMcpServers` with an in-process server the library cannot serve (an empty name) died with
 *   an untyped error: `InvalidInput`, nothing sent;
 * - `setModel("")` went to the CLI, which refused "(unrecognized model name)"; `stopTask("")`
 *   was acknowledged and stopped nothing: both are `InvalidInput`, nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeCli from "../src/testing/FakeCli.ts"
import { answering } from "./support/answeringCli.ts"


const reasonOf = <A>(exit: Exit.Exit<A, unknown>): string =>
  Exit.isSuccess(exit) ? "success" : Option.match(Cause.findErrorOption(exit.cause), {
    onNone: () => `no typed error: ${Cause.pretty(exit.cause).split("\n")[0]}`,
    onSome: (error) => (error as { readonly reason: { readonly _tag: string } }).reason._tag
  })

describe("control methods' input", () => {
  it.effect("setMcpServers: a stdio server without args is sent with args: []", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        yield* session.setMcpServers({ outside: { type: "stdio", command: "/bin/echo-server" }, plain: { command: "x" } })
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      const sent = received.find((r) => r.subtype === "mcp_set_servers")!.servers as Record<string, Record<string, unknown>>
      assert.deepStrictEqual(sent.outside, { type: "stdio", command: "/bin/echo-server", args: [] })
      assert.deepStrictEqual(sent.plain, { command: "x", args: [] })
    }))

  it.effect("setMcpServers: an in-process server with an empty name is InvalidInput, nothing sent", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const exit = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const unnamed = McpServers.server("", {
          tools: [McpServers.tool({ name: "echo", description: "e", input: Schema.Struct({ text: Schema.String }), handler: (i) => Effect.succeed(i.text) })]
        })
        return yield* Effect.exit(session.setMcpServers({}, { inProcess: [unnamed] }))
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      assert.strictEqual(reasonOf(exit), "InvalidInput")
      assert.isFalse(received.some((r) => r.subtype === "mcp_set_servers"))
    }))

  it.effect("setModel and stopTask with an empty or blank argument are InvalidInput, nothing sent", () =>
    Effect.gen(function*() {
      const received: Array<Record<string, unknown>> = []
      const reasons = yield* Effect.gen(function*() {
        const session = yield* Claude.open()
        const reasons: Array<string> = []
        for (const blank of ["", "   "]) {
          reasons.push(reasonOf(yield* Effect.exit(session.setModel(blank))))
          reasons.push(reasonOf(yield* Effect.exit(session.stopTask(blank))))
        }
        return reasons
      }).pipe(Effect.scoped, Effect.provide(answering(received)))
      assert.deepStrictEqual(reasons, ["InvalidInput", "InvalidInput", "InvalidInput", "InvalidInput"])
      assert.deepStrictEqual(received.map((r) => r.subtype), [])
    }))
})
