/**
 * `view <transcript> --html out.html` writes the page once; `--follow` and `--port` are flags of
 * the served page. Given with `--html`, they were ignored silently: `--html live.html --follow`
 * printed `wrote live.html` and exited 0, a page that never follows the session. The command now
 * refuses the mix, saying why, and writes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import { makeTempDir } from "./support/tempDir.ts"

const bin = Path.resolve(import.meta.dirname, "../src/bin.ts")

describe("the view command", () => {
  it.effect("--html with --follow or --port is refused, nothing written; --html alone writes the page", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-flags-")
      const transcript = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(
        transcript,
        JSON.stringify({ dir: "send", ts: 1, msg: { type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null, session_id: "" } }) + "\n"
      )
      for (const extra of [["--follow"], ["--port", "8123"]]) {
        const out = Path.join(dir, `${extra[0]!.slice(2)}.html`)
        const run = ChildProcess.spawnSync(process.execPath, [bin, "view", transcript, "--html", out, ...extra], { encoding: "utf8", timeout: 30_000 })
        assert.strictEqual(run.status, 1, `${extra.join(" ")}: exit ${run.status}, ${run.stdout}`)
        assert.include(run.stdout + run.stderr, extra[0]!, "the error names the flag")
        assert.isFalse(Fs.existsSync(out), `${extra.join(" ")}: the page was written anyway`)
      }
      const out = Path.join(dir, "page.html")
      const run = ChildProcess.spawnSync(process.execPath, [bin, "view", transcript, "--html", out], { encoding: "utf8", timeout: 30_000 })
      assert.strictEqual(run.status, 0, run.stderr)
      assert.isTrue(Fs.existsSync(out))
    }), 60_000)
})
