/**
 * On the real CLI 2.1.332: a guard's deny or block answered with `async: true` let the tool run
 * (the CLI reads an async answer as no decision); it is now an invalid answer, and the guard
 * refuses (found by a reviewing helper; failing before). See `SilentNonGuards.test.ts`. And a
 * regular expression with a group at its end (`Bas(h)`), which the first check of permission
 * rules refused, builds and guards the tool it matches (found by a second review); so do MCP
 * regular expressions with `(?:…)` and `(?=…)` groups, which the second check refused (a third).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import * as HookEvents from "../src/HookEvents.ts"
import * as Hooks from "../src/Hooks.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"

const touch = FakeModel.toolUse("Bash", { command: "touch marker", description: "probe" })

const guardedBy = (answer: HookEvents.HookOutput<"PreToolUse">) =>
  Effect.gen(function*() {
    const { options, cwd } = yield* live([touch, FakeModel.text("done"), FakeModel.text("done")])
    const session = yield* Claude.open(options).pipe(
      Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(answer))))
    )
    yield* session.turn("go").pipe(Stream.runDrain)
    assert.isFalse(Fs.existsSync(Path.join(cwd, "marker")), "`touch marker` ran")
  }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([])))

describe("a guard's decision with async: true (real CLI)", { timeout: 60_000 }, () => {
  it.live("a deny with async: true: the tool does not run", () => guardedBy({ ...Hooks.deny("no"), async: true }))
  it.live("a block with async: true: the tool does not run", () => guardedBy({ ...Hooks.block("no"), ...Hooks.async() }))

  it.live("a regular expression ending in a group (Bas(h)) is a matcher: the guard runs for Bash", () =>
    Effect.gen(function*() {
      const { options, cwd } = yield* live([touch, FakeModel.text("done"), FakeModel.text("done")])
      let ran = 0
      const session = yield* Claude.open(options).pipe(
        Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bas(h)" }, () =>
          Effect.sync(() => {
            ran++
            return Hooks.deny("no")
          }))))
      )
      yield* session.turn("go").pipe(Stream.runDrain)
      assert.strictEqual(ran, 1)
      assert.isFalse(Fs.existsSync(Path.join(cwd, "marker")), "`touch marker` ran")
    }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([]))))

  for (const matcher of ["mcp__byre__(?:echo)", "mcp__byre__(?=echo)"]) {
    it.live(`an MCP regular expression with a group (${matcher}) is a matcher: the guard runs for the tool`, () =>
      Effect.gen(function*() {
        const echo = McpServers.tool({
          name: "echo",
          description: "Echo the given text back.",
          input: Schema.Struct({ text: Schema.String }),
          handler: (input) => Effect.succeed(`echo: ${input.text}`)
        })
        const { options } = yield* live([FakeModel.toolUse("mcp__byre__echo", { text: "hi" }), FakeModel.text("done")])
        let ran = 0
        const session = yield* Claude.open(options).pipe(
          Effect.provide(McpServers.layer(McpServers.server("byre", { alwaysLoad: true, tools: [echo] }))),
          Effect.provide(Hooks.layer(Hooks.on("PreToolUse", { matcher }, () =>
            Effect.sync(() => {
              ran++
              return Hooks.allow()
            }))))
        )
        yield* session.turn("go").pipe(Stream.runDrain)
        assert.strictEqual(ran, 1)
      }).pipe(Effect.provide(processLayer), Effect.provide(Logger.layer([]))))
  }
})
