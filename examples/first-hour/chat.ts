// A chat from stdin: one session, a turn per line, each answer's text streamed.
import * as Readline from "node:readline"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Claude from "../../src/Claude.ts"
import * as Turn from "../../src/Turn.ts"
import { ClaudeNode } from "../../src/node.ts"

const chat = Effect.gen(function*() {
  const session = yield* Claude.open()
  const lines = Stream.fromAsyncIterable(Readline.createInterface({ input: process.stdin }), (error) => error)
  yield* Stream.runForEach(lines, (line) =>
    session.turn(line).pipe(
      Turn.textDeltas,
      Stream.runForEach((text) => Effect.sync(() => process.stdout.write(text))),
      Effect.andThen(Effect.sync(() => process.stdout.write("\n")))
    ))
})
ClaudeNode.runMain(chat)
