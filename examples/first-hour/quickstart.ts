// The README's Quickstart: one prompt, its text streamed as it comes, then the turn's cost.
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../../src/Claude.ts"
import { ClaudeNode } from "../../src/node.ts"

Claude.queryStream("List the files here, in one line.", { model: "sonnet", cwd: process.cwd() }).pipe(
  Stream.runForEach((event) => Effect.sync(() => {
    if (event.type === "stream_event" && event.event.type === "content_block_delta") {
      if (event.event.delta.type === "text_delta") process.stdout.write(event.event.delta.text)
    }
    if (event.type === "result") console.log(`\n${event.is_error ? "failed" : "done"}, $${event.turn.costUsd.toFixed(4)}`)
  })),
  ClaudeNode.runMain
)
