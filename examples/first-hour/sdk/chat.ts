// The official TypeScript SDK: a chat from stdin, one session, each answer's text streamed.
import { query, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import * as Readline from "node:readline/promises"

const rl = Readline.createInterface({ input: process.stdin })
let answered: () => void = () => {}
async function* prompts(): AsyncGenerator<SDKUserMessage> {
  for await (const line of rl) {
    yield { type: "user", message: { role: "user", content: line }, parent_tool_use_id: null }
    await new Promise<void>((resolve) => (answered = resolve))
  }
}
for await (const message of query({ prompt: prompts(), options: { includePartialMessages: true } })) {
  if (message.type === "stream_event" && message.event.type === "content_block_delta") {
    if (message.event.delta.type === "text_delta") process.stdout.write(message.event.delta.text)
  }
  if (message.type === "result") {
    process.stdout.write("\n")
    answered()
  }
}
