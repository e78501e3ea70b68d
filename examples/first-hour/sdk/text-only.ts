// The official TypeScript SDK: one prompt, print the answer's text.
import { query } from "@anthropic-ai/claude-agent-sdk"

for await (const message of query({ prompt: "What is the capital of France?" })) {
  if (message.type === "result") {
    if (message.subtype === "success" && !message.is_error) console.log(message.result)
    else process.exitCode = 1
  }
}
