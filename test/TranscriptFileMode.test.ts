/**
 * A transcript is the whole conversation, tool outputs and file contents with it; the page
 * `view --html` writes shows the same. Both were created world-readable (0644 under umask 022;
 * found by a security review). They are created readable by their owner only (0600), and a
 * transcript written over an existing file makes that file owner-only before truncating it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Transcript from "../src/Transcript.ts"
import * as Server from "../src/viewer/server.ts"

const line = (dir: "send" | "recv", msg: unknown) => JSON.stringify({ dir, ts: 1, msg }) + "\n"

/** A temporary directory, removed when the test's scope closes (a failing assertion too). */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-probe-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("file modes", () => {
  it.live("a transcript file is readable by its owner only", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      yield* Effect.scoped(Transcript.toFile(file))
      const html = Path.join(dir, "t.html")
      Fs.writeFileSync(file, line("send", { type: "user", message: { role: "user", content: "x" }, parent_tool_use_id: null, session_id: "" }))
      yield* Server.writeHtml(file, html)
      const modes = [Fs.statSync(file).mode & 0o777, Fs.statSync(html).mode & 0o777]
      assert.deepStrictEqual(modes.map((m) => (m & 0o077) === 0), [true, true], modes.map((m) => m.toString(8)).join(","))
    }))

  it.live("an existing world-readable file is made owner-only when a recorder opens it, before it is truncated", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(file, "the previous recording\n", { mode: 0o644 })
      Fs.chmodSync(file, 0o644)
      const modeWhenOpen = yield* Effect.scoped(Effect.gen(function*() {
        const recorder = yield* Transcript.toFile(file)
        recorder.record("send", { type: "user", message: { role: "user", content: "x" } })
        return Fs.statSync(file).mode & 0o777
      }))
      assert.strictEqual(modeWhenOpen.toString(8), "600")
      assert.strictEqual((Fs.statSync(file).mode & 0o777).toString(8), "600")
      assert.notInclude(Fs.readFileSync(file, "utf8"), "the previous recording")
    }))
})

describe("the timeline page's file mode", () => {
  it.live("view --html over an existing world-readable page makes it owner-only, and writes the new page", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(file, line("send", { type: "user", message: { role: "user", content: "the new page's prompt" }, parent_tool_use_id: null, session_id: "" }))
      const html = Path.join(dir, "t.html")
      Fs.writeFileSync(html, "<p>the old page</p>", { mode: 0o644 })
      Fs.chmodSync(html, 0o644)
      yield* Server.writeHtml(file, html)
      assert.strictEqual((Fs.statSync(html).mode & 0o777).toString(8), "600")
      const page = Fs.readFileSync(html, "utf8")
      assert.notInclude(page, "the old page")
      assert.include(page, "the new page")
    }).pipe(Effect.scoped))
})
