/**
 * The viewer command's server (`effect-claude-code view`): a port in use is refused with its
 * reason (the message was empty), a followed transcript that disappears is warned about once
 * with its reason (a warning and a stack trace every poll), and `--html` naming the transcript
 * itself is refused (the recording was overwritten with the page). Each was wrong before (found
 * by an audit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"

const prompt = (text: string) =>
  JSON.stringify({
    dir: "send",
    ts: 1,
    msg: { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" }
  }) + "\n"

describe("the viewer's server", () => {
  it.live("a port in use fails with a description naming why (EADDRINUSE), not an empty reason", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-port-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, prompt("one"))
      const blocker = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Net.Server>((resolve) => {
            const server = Net.createServer()
            server.listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const port = (blocker.address() as Net.AddressInfo).port
      const error = yield* Effect.flip(Server.serve({ path, port }))
      assert.strictEqual(error.reason._tag, "InvalidInput")
      const description = error.reason._tag === "InvalidInput" ? error.reason.description : ""
      assert.match(description, /EADDRINUSE|in use/i)
    }))

  it.live("--follow: a transcript that disappears is warned about once, not on every poll", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-follow-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, prompt("one"))
      const logs: Array<{ readonly level: string; readonly message: string; readonly cause: boolean }> = []
      const capture = Logger.layer([Logger.make((options) => {
        logs.push({ level: options.logLevel, message: String(options.message), cause: options.cause.reasons.length > 0 })
      })])
      yield* Effect.gen(function*() {
        yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
        Fs.rmSync(path)
        yield* Effect.sleep("400 millis")
        Fs.writeFileSync(path, prompt("one"))
        yield* Effect.sleep("200 millis")
      }).pipe(Effect.scoped, Effect.provide(capture))
      const warnings = logs.filter((log) => log.level === "Warn")
      assert.strictEqual(warnings.length, 1, `${warnings.length} warnings in 400 ms`)
      assert.include(warnings[0]!.message, "ENOENT", "the warning says why")
      assert.isFalse(warnings[0]!.cause, "no cause (a stack trace) with it")
      assert.isTrue(logs.some((log) => log.level === "Info" && log.message.includes("can be read again")), "the recovery is told")
    }))

  it.live("--html naming the transcript itself is refused: the recording is not overwritten", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-html-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, prompt("one"))
      const link = Path.join(dir, "link.ndjson")
      Fs.linkSync(path, link)
      for (const out of [path, link]) {
        const error = yield* Effect.flip(Server.writeHtml(path, out))
        assert.strictEqual(error.reason._tag, "InvalidInput")
        assert.include(error.message, "is the transcript itself")
      }
      assert.strictEqual(Fs.readFileSync(path, "utf8"), prompt("one"))
      // Another file is written.
      yield* Server.writeHtml(path, Path.join(dir, "page.html"))
      assert.include(Fs.readFileSync(Path.join(dir, "page.html"), "utf8"), "<!doctype html>")
    }))
})
