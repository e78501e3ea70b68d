/**
 * A program to ship as one file: it imports the library and Effect module by module, and
 * `examples/bundle/build.ts` bundles it with esbuild, `effect` and `@effect/platform-node` inside.
 *
 *   node examples/bundle/build.ts                  # writes .tmp/bundle/program.mjs
 *   node .tmp/bundle/program.mjs "Say hello"       # runs it (the `claude` on PATH, or CLAUDE_PATH)
 *
 * It runs one turn and prints the result's text, then the session's figures as one JSON line.
 * `CLAUDE_PATH` names the CLI to run (a path); without it, the `claude` found on PATH.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../../src/Claude.ts"
import { ClaudeNode } from "../../src/node.ts"

// Node's clock from the process's start: how long the bundled program takes to its first event.
const sinceStart = (): number => performance.now()

const prompt = process.argv[2] ?? "Say hello"

const program = Effect.gen(function*() {
  const executable = process.env.CLAUDE_PATH
  const session = yield* Claude.open(executable === undefined ? {} : { executable })
  let firstEventMs: number | undefined
  let events = 0
  let text = ""
  yield* session.turn(prompt).pipe(
    Stream.runForEach((event) =>
      Effect.sync(() => {
        firstEventMs ??= sinceStart()
        events++
        if (event.type === "result" && event.subtype === "success") text = event.result ?? ""
      })
    )
  )
  yield* Console.log(text)
  yield* Console.log(JSON.stringify({ events, firstEventMs }))
})

// The real CLI (`ClaudeNode.layer`), the program's scope closed at its end, Ctrl-C handled.
ClaudeNode.runMain(program)
