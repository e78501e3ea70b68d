/**
 * Short turns from a program shipped as one file: `npm run bench` bundles this program with the
 * recipe's settings (`examples/bundle/build.ts`: esbuild, `effect` inside), the library resolved to
 * the package as it ships (`dist/`), and runs it beside `bench/child.ts lib-turns` (the same turns
 * from a program that loads the library and `effect` from node_modules) and the SDK's.
 *
 *   node <bundle> <turns>     (CLAUDE_PATH: the load fake CLI; FAKE_CLI_EVENTS: deltas a turn)
 *
 * Prints one JSON line: the turns' figures (`bench/figures.ts`), as `bench/child.ts` reports them.
 * With 0 turns, the first turn only (not timed): its process's peak RSS and heap, for one long
 * turn (the 1M-event turn with the real CLI's final lines, `FAKE_CLI_FULL_ASSISTANT=1`).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../src/Claude.ts"
import { ClaudeNode } from "../src/node.ts"
import { longTurnFigures, report, turnEnded, turnFigures, turnsStart } from "./figures.ts"

const turns = Number(process.argv[2] ?? 100)

const program = Effect.gen(function*() {
  const session = yield* Claude.open({
    executable: process.env.CLAUDE_PATH!,
    env: { FAKE_CLI_EVENTS: process.env.FAKE_CLI_EVENTS ?? "13" }
  })
  let lines = 0
  const count = Stream.runForEach((event: Claude.Event) =>
    Effect.sync(() => {
      lines++
      if (event.type === "result" && event.subtype !== "success") throw new Error("turn failed")
    })
  )
  // The first turn (start-up, the session's handshake) is not counted.
  yield* count(session.turn("go"))
  if (turns === 0) return report(longTurnFigures(lines))
  lines = 0
  const start = turnsStart()
  for (let i = 0; i < turns; i++) {
    yield* count(session.turn("go"))
    turnEnded(start, i + 1, turns)
  }
  report(turnFigures(turns, lines, start))
})

ClaudeNode.runMain(program)
