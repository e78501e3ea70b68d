/**
 * Re-records `test/fixtures/messages/cli-2.1.332.ndjson`, one line of each message type the real
 * CLI writes offline among those issue 15 typed (`test/support/messageRecording.ts`), from the
 * pinned CLI and the fake model: `npm run record:messages`.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { processLayer } from "../test/support/live.ts"
import { recordMessages } from "../test/support/messageRecording.ts"

const target = Path.resolve(import.meta.dirname, "../test/fixtures/messages/cli-2.1.332.ndjson")

const program = Effect.scoped(recordMessages).pipe(
  Effect.provide(processLayer),
  Effect.map(({ samples }) => {
    Fs.writeFileSync(target, samples.map((line) => JSON.stringify(line)).join("\n") + "\n")
    console.log(`${samples.length} lines written to ${Path.relative(process.cwd(), target)}`)
  })
)

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
