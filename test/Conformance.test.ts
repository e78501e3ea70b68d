/**
 * The conformance suite's recordings: every scenario of test/scenarios.ts has its recording in
 * testdata/transcripts/, made with the pinned CLI. test/ConformanceLive.test.ts runs each scenario
 * live and replayed and compares them. Re-record with `npm run record` when the pinned CLI changes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Transcript from "../src/Transcript.ts"
import { scenarios, transcriptPath, transcriptsDir } from "./scenarios.ts"

const pinnedVersion = (JSON.parse(
  Fs.readFileSync(Path.resolve(import.meta.dirname, "../node_modules/@anthropic-ai/claude-code/package.json"), "utf8")
) as { version: string }).version

const recordings = Fs.readdirSync(transcriptsDir).filter((file) => file.endsWith(".ndjson")).sort()

describe("conformance: recorded transcripts", () => {
  it.effect("every scenario has its recording, and every recording was made with the pinned CLI", () =>
    Effect.gen(function*() {
      for (const scenario of scenarios) assert.isTrue(Fs.existsSync(transcriptPath(scenario.name, 0)), `no recording for ${scenario.name}: run npm run record`)
      assert.isAtLeast(recordings.length, scenarios.length)
      for (const file of recordings) {
        const lines = yield* Transcript.read(Path.join(transcriptsDir, file))
        const versions = lines.flatMap((line) => {
          const msg = line.msg as { type?: unknown; subtype?: unknown; claude_code_version?: unknown }
          return line.dir === "recv" && msg.type === "system" && msg.subtype === "init" ? [String(msg.claude_code_version)] : []
        })
        assert.isAtLeast(versions.length, 1, `${file} has no system/init`)
        for (const version of versions) {
          assert.strictEqual(
            version,
            pinnedVersion,
            `${file} was recorded with CLI ${version} but ${pinnedVersion} is pinned: re-record with npm run record`
          )
        }
      }
    }))
})
