/**
 * Re-records the conformance transcripts in testdata/transcripts/ from the pinned real CLI and the
 * fake model, driving the library itself with `Transcript.toFile` (`npm run record`).
 * `node scripts/record.ts [scenario-name ...]` records only the named scenarios.
 */
import * as Fs from "node:fs"
import * as Effect from "effect/Effect"
import { liveHarness, scenarios, transcriptsDir } from "../test/scenarios.ts"

const only = process.argv.slice(2)
const selected = scenarios.filter((s) => only.length === 0 || only.includes(s.name))

const program = Effect.gen(function*() {
  Fs.mkdirSync(transcriptsDir, { recursive: true })
  for (const scenario of selected) {
    for (const file of Fs.readdirSync(transcriptsDir)) {
      if (file === `${scenario.name}.ndjson` || (file.startsWith(`${scenario.name}.`) && /^\.\d+\.ndjson$/.test(file.slice(scenario.name.length)))) {
        Fs.rmSync(`${transcriptsDir}/${file}`)
      }
    }
    const started = Date.now()
    const summary = yield* Effect.scoped(Effect.flatMap(liveHarness(scenario, { record: true }), scenario.run)).pipe(
      Effect.timeout("60 seconds")
    )
    console.log(`${scenario.name} (${Date.now() - started} ms)\n  ${summary.join("\n  ")}`)
  }
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
