/**
 * The transcript of a session whose CLI echoes its external MCP servers' configs, as CLI 2.1.332
 * does in its `mcp_status` answer: what a test of the configs' secrets reads.
 */
import * as Effect from "effect/Effect"
import * as Sink from "effect/Sink"
import * as Claude from "../../src/Claude.ts"
import type * as Launch from "../../src/Launch.ts"
import * as Transcript from "../../src/Transcript.ts"
import * as FakeCli from "../../src/testing/FakeCli.ts"

/** The text of the transcript of a session with `servers` that asked `mcpStatus` once. */
export const mcpStatusTranscript = (servers: Readonly<Record<string, Launch.McpExternalServer>>) =>
  Effect.gen(function*() {
    const written: Array<string> = []
    const cli = FakeCli.layer(FakeCli.conversation({
      sessionId: "s-1",
      onControl: (request, cli) =>
        (request.request as { subtype: string }).subtype === "mcp_status"
          ? cli.emit(FakeCli.success(request, {
            mcpServers: Object.entries(servers).map(([name, config]) => ({ name, status: "failed", config }))
          }))
          : cli.emit(FakeCli.success(request, {}))
    }))
    yield* Effect.scoped(Effect.gen(function*() {
      const recorder = yield* Transcript.toSink(Sink.forEach((line: string) => Effect.sync(() => written.push(line))))
      const session = yield* Claude.open({ mcpServers: servers, transcript: recorder })
      yield* session.mcpStatus()
    })).pipe(Effect.provide(cli))
    return written.join("")
  })
