// The official TypeScript SDK's version of the README's Quickstart, for the line counts in the README.
import { query } from "@anthropic-ai/claude-agent-sdk"

const messages = query({
  prompt: "List the files here, in one line.",
  options: { model: "sonnet", cwd: process.cwd(), includePartialMessages: true }
})
for await (const message of messages) {
  if (message.type === "stream_event" && message.event.type === "content_block_delta") {
    if (message.event.delta.type === "text_delta") process.stdout.write(message.event.delta.text)
  }
  if (message.type === "result") {
    console.log(`\n${message.is_error ? "failed" : "done"}, $${message.total_cost_usd.toFixed(4)}`)
    if (message.is_error) process.exitCode = 1
  }
}
