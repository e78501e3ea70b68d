/**
 * Re-records `test/fixtures/messages/cli-2.1.332.ndjson`, one line of each message type the real
 * CLI writes offline among those issue 15 typed, and `hook-inputs-2.1.332.ndjson`, one input of
 * each hook event issue 15 typed that it fires offline (`test/support/messageRecording.ts`), from
 * the pinned CLI and the fake model: `npm run record:messages`.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { processLayer } from "../test/support/live.ts"
import { recordHookInputs, recordMessages } from "../test/support/messageRecording.ts"

const dir = Path.resolve(import.meta.dirname, "../test/fixtures/messages")

const write = (file: string, lines: ReadonlyArray<unknown>) =>
  Effect.sync(() => {
    Fs.writeFileSync(Path.join(dir, file), lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
    console.log(`${lines.length} lines written to test/fixtures/messages/${file}`)
  })

const program = Effect.gen(function*() {
  const { samples } = yield* Effect.scoped(recordMessages)
  yield* write("cli-2.1.332.ndjson", samples)
  yield* write("hook-inputs-2.1.332.ndjson", yield* Effect.scoped(recordHookInputs))
}).pipe(Effect.provide(processLayer))

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
