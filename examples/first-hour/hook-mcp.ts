// A PreToolUse hook that refuses `rm`, and an in-process MCP tool.
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Claude from "../../src/Claude.ts"
import * as Hooks from "../../src/Hooks.ts"
import * as McpServers from "../../src/McpServers.ts"
import { ClaudeNode } from "../../src/node.ts"

const add = McpServers.tool({
  name: "add",
  description: "Adds two numbers",
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed(String(a + b))
})
const guard = Hooks.on("PreToolUse", { matcher: "Bash" }, (input) =>
  Effect.succeed(input.tool_input.command.includes("rm ") ? Hooks.deny("no rm") : Hooks.allow()))

Claude.query("Add 2 and 3 with the calculator, then list the files here.", {
  allowedTools: ["mcp__calc__add", "Bash"]
}).pipe(
  Effect.flatMap((result) => Console.log(result.result)),
  Effect.provide([McpServers.layer(McpServers.server("calc", { tools: [add], alwaysLoad: true })), Hooks.layer(guard)]),
  ClaudeNode.runMain
)
