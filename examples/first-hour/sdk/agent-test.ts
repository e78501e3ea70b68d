// The official TypeScript SDK: testing a program offline means mocking `query` (the SDK has no fake CLI).
import { query, type SDKMessage } from "@anthropic-ai/claude-agent-sdk"
import { expect, it, vi } from "vitest"

vi.mock("@anthropic-ai/claude-agent-sdk", () => ({ query: vi.fn() }))

const shout = async (prompt: string): Promise<string> => {
  for await (const message of query({ prompt })) {
    if (message.type === "result" && message.subtype === "success") return message.result.toUpperCase()
  }
  throw new Error("no result")
}

it("shouts the answer", async () => {
  const result = { type: "result", subtype: "success", result: "hello", is_error: false } as SDKMessage
  vi.mocked(query).mockReturnValue((async function*() { yield result })() as ReturnType<typeof query>)
  expect(await shout("hi")).toBe("HELLO")
})
