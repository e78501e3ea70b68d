/**
 * A typed MCP tool served in-process: its input is a Schema (advertised to the model as JSON
 * Schema, decoded before the handler runs), its handler an Effect. `alwaysLoad` puts it in the
 * first prompt instead of behind `ToolSearch`. The CLI calls it as `mcp__<server>__<tool>`.
 *
 * The CLI asks before it calls an MCP tool, and with no `Permissions` layer to ask it denies the
 * call: `allowedTools` lets this one tool run without asking (the library's default permission
 * mode is the CLI's own; `permissionMode: "bypassPermissions"` would allow every tool).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Claude from "../src/Claude.ts"
import type * as ClaudeError from "../src/ClaudeError.ts"
import * as McpServers from "../src/McpServers.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { fakeModel, isMain, processLayer } from "./support.ts"

/** What happened: the decoded inputs the handler got, whether the model saw the tool, its answer. */
export interface McpOutcome {
  readonly calls: ReadonlyArray<{ readonly city: string; readonly days: number }>
  readonly offeredToModel: boolean
  readonly answer: string
}

/** The fake model calls the tool, then answers with what it returned. */
const script: FakeModel.Script = (request) => {
  const [result] = FakeModel.toolResults(request)
  return result === undefined
    ? FakeModel.toolUse("mcp__weather__forecast", { city: "Paris", days: 2 })
    : FakeModel.text(`The forecast tool says: ${result.content}`)
}

/** One turn in which the model uses the in-process tool. */
export const program: Effect.Effect<McpOutcome, ClaudeError.ClaudeError> = Effect.gen(function*() {
  const calls: Array<{ readonly city: string; readonly days: number }> = []
  const forecast = McpServers.tool({
    name: "forecast",
    description: "The weather forecast for a city.",
    input: Schema.Struct({ city: Schema.String, days: Schema.Number }),
    handler: (input) =>
      Effect.sync(() => {
        calls.push(input)
        return `${input.city}: sunny for ${input.days} days`
      })
  })
  const WeatherLive = McpServers.layer(McpServers.server("weather", { tools: [forecast], alwaysLoad: true }))
  const { model, options } = yield* fakeModel(script, { allowedTools: ["mcp__weather__forecast"] })
  const session = yield* Claude.open(options).pipe(Effect.provide(WeatherLive))
  const result = yield* session.run("What will the weather be in Paris?")
  const [first] = yield* model.messageRequests
  yield* Console.log(result.result)
  return {
    calls,
    offeredToModel: first !== undefined && FakeModel.hasTool(first, "mcp__weather__forecast"),
    answer: result.result ?? ""
  }
}).pipe(Effect.scoped, Effect.provide(processLayer))

if (isMain(import.meta)) NodeRuntime.runMain(program)
