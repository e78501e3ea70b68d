/**
 * The official SDK's counterpart of `examples/bundle/program.ts`, for the start-up of a shipped
 * program (`BENCH_ONLY=bundle node bench/run.ts`): one turn with `query()`, the first event's time
 * from the process's start, printed as one JSON line. `bench/run.ts` bundles it with esbuild the
 * same way as the library's program (the SDK inside), and with the SDK left to Node.
 *
 * `CLAUDE_PATH` names the CLI (run with `node`, as the benchmark's load fake is a `.mjs` file).
 */
import { query } from "@anthropic-ai/claude-agent-sdk"

// Node's clock from the process's start: how long the program takes to its first event.
const sinceStart = (): number => performance.now()

const prompt = process.argv[2] ?? "Say hello"
const executable = process.env.CLAUDE_PATH

let firstEventMs: number | undefined
let events = 0
let text = ""
const q = query({
  prompt,
  options: {
    ...(executable === undefined ? {} : { pathToClaudeCodeExecutable: executable, executable: "node" as const }),
    includePartialMessages: true
  }
})
for await (const message of q) {
  firstEventMs ??= sinceStart()
  events++
  if (message.type === "result") {
    if (message.subtype === "success") text = message.result
    break
  }
}
process.stdout.write(text + "\n")
process.stdout.write(JSON.stringify({ events, firstEventMs }) + "\n")
