// The official TypeScript SDK: a PreToolUse hook that refuses `rm`, and an in-process MCP tool.
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk"
import { z } from "zod"

const calculator = createSdkMcpServer({
  name: "calc",
  tools: [
    tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }]
    }))
  ]
})
const messages = query({
  prompt: "Add 2 and 3 with the calculator, then list the files here.",
  options: {
    mcpServers: { calc: calculator },
    allowedTools: ["mcp__calc__add", "Bash"],
    hooks: {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [async (input) => {
          const command = input.hook_event_name === "PreToolUse" ? String((input.tool_input as { command?: unknown }).command) : ""
          return command.includes("rm ")
            ? { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm" } }
            : {}
        }]
      }]
    }
  }
})
for await (const message of messages) {
  if (message.type === "result") console.log(message.subtype === "success" ? message.result : message.subtype)
}
