/**
 * The transcript viewer, where a reviewing helper found it wanting (each test failed before its
 * fix): a prompt whose content nests tool results thousands deep overflowed the stack, so
 * `Timeline.fromLines` threw, `view` and `--html` died with a stack trace, and under `--follow`
 * every later line of that read was lost; a file replaced by one at least as long was read on
 * from the old offset (the old and new sessions mixed, no reload), and a replacement holding a bad
 * line was never shown; a transcript over Node's longest string died with a stack trace; and text
 * starting with a newline lost it (the HTML parser drops one after `<pre>`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Timeline from "../src/Timeline.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"

const jl = (dir: "send" | "recv", msg: unknown) => JSON.stringify({ dir, ts: 1, msg }) + "\n"
const promptL = (text: string) => jl("send", { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" })
const answerL = (text: string) =>
  jl("recv", {
    type: "assistant",
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text }],
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 }
    },
    parent_tool_use_id: null,
    session_id: "s",
    uuid: "u"
  })
/** A prompt whose content is `depth` nested tool_result blocks, as a transcript line. */
const deepPromptL = (depth: number) => {
  let content = `"leaf"`
  for (let i = 0; i < depth; i++) content = `[{"type":"tool_result","tool_use_id":"t","content":${content}}]`
  return `{"dir":"send","ts":1,"msg":{"type":"user","message":{"role":"user","content":${content}},"parent_tool_use_id":null,"session_id":""}}\n`
}

const mainOf = (page: string) => page.slice(page.indexOf("<main"))

describe("the viewer on hostile transcripts", () => {
  it("Timeline.fromLines does not throw on a prompt nesting tool results 20,000 deep", () => {
    const line = JSON.parse(deepPromptL(20_000)) as Transcript.Line
    const timeline = Timeline.fromLines([line, JSON.parse(promptL("next")) as Transcript.Line])
    assert.strictEqual(timeline.turns.length, 2)
    assert.strictEqual(timeline.turns[1]!.prompt, "next")
  })

  it.effect("--html of such a transcript writes a page", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, deepPromptL(20_000) + answerL("after the deep line"))
      const exit = yield* Effect.exit(Server.writeHtml(path, Path.join(dir, "out.html")))
      assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n")[0] : "")
      assert.include(mainOf(Fs.readFileSync(Path.join(dir, "out.html"), "utf8")), "after the deep line")
    }))

  it.live("--follow: the lines after such a line reach the page", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, promptL("one"))
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      Fs.appendFileSync(path, deepPromptL(20_000) + answerL("after the deep line"))
      yield* Effect.sleep("500 millis")
      const page = yield* Effect.promise(() => fetch(served.url).then((r) => r.text()))
      assert.include(mainOf(page), "after the deep line")
    }))

  it("a text starting with a newline keeps it (the parser drops one newline after <pre>)", () => {
    const timeline = Timeline.fromLines([JSON.parse(promptL("\nsecond line")) as Transcript.Line])
    const html = Page.renderTurn(timeline.turns[0]!)
    assert.include(html, "<pre>\n\nsecond line</pre>")
  })
})

describe("the viewer's --follow when the file is replaced", () => {
  const oldText = promptL("old prompt") + answerL("old answer")
  const newText = promptL("NEW prompt one") + answerL("NEW answer one") + promptL("NEW prompt two") + answerL("NEW answer two")
  const shows = (replace: (path: string, dir: string) => void) =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, oldText)
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      replace(path, dir)
      yield* Effect.sleep("400 millis")
      const main = mainOf(yield* Effect.promise(() => fetch(served.url).then((r) => r.text())))
      return { old: main.includes("old answer"), newOne: main.includes("NEW prompt one") }
    })

  it.live("by a longer file moved over it (rename)", () =>
    Effect.gen(function*() {
      const seen = yield* shows((path, dir) => {
        Fs.writeFileSync(Path.join(dir, "next.ndjson"), newText)
        Fs.renameSync(Path.join(dir, "next.ndjson"), path)
      })
      assert.deepStrictEqual(seen, { old: false, newOne: true })
    }))

  it.live("by a longer file copied over it (the same inode, truncated and written)", () =>
    Effect.gen(function*() {
      const seen = yield* shows((path, dir) => {
        Fs.writeFileSync(Path.join(dir, "other.ndjson"), newText)
        Fs.copyFileSync(Path.join(dir, "other.ndjson"), path)
      })
      assert.deepStrictEqual(seen, { old: false, newOne: true })
    }))

  it.live("by a shorter file holding a line that is no transcript line: shown, the line a problem", () =>
    Effect.gen(function*() {
      const seen = yield* shows((path) => Fs.writeFileSync(path, promptL("NEW prompt one") + "not json\n"))
      assert.deepStrictEqual(seen, { old: false, newOne: true })
    }))

  it.live("once replaced and growing, the page is told to reload once, then gets the new lines as parts", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, oldText)
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      const page = yield* Effect.promise(() => fetch(served.url).then((r) => r.text()))
      const query = `v=${/data-version="(\d+)"/.exec(page)![1]}&e=${/data-epoch="([^"]*)"/.exec(page)![1]}`
      const updates: Array<{ readonly reload?: true; readonly parts: ReadonlyArray<unknown> }> = []
      const controller = new AbortController()
      yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
      // The page's feed, read as it comes.
      yield* Effect.forkScoped(Effect.promise(async () => {
        const response = await fetch(`${served.url}events?${query}`, { signal: controller.signal })
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ""
        try {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) return
            buffer += value
            for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
              updates.push(JSON.parse(buffer.slice(0, end).replace(/^data: /, "")))
              buffer = buffer.slice(end + 2)
            }
          }
        } catch {
          // aborted at the end
        }
      }))
      yield* Effect.sleep("100 millis")
      Fs.writeFileSync(Path.join(dir, "next.ndjson"), newText)
      Fs.renameSync(Path.join(dir, "next.ndjson"), path)
      for (let i = 0; i < 15; i++) {
        Fs.appendFileSync(path, answerL(`more ${i}`))
        yield* Effect.sleep("20 millis")
      }
      yield* Effect.sleep("300 millis")
      const reloads = updates.filter((update) => update.reload === true).length
      assert.strictEqual(reloads, 1, `${reloads} reloads in ${updates.length} updates`)
      const main = mainOf(yield* Effect.promise(() => fetch(served.url).then((r) => r.text())))
      assert.include(main, "more 14")
    }).pipe(Effect.scoped))
})

describe("the viewer's --follow feed for a page that connects late", () => {
  /** The first update `events` sends a page that says it shows `query`. */
  const firstUpdate = (url: string, query: string) =>
    Effect.promise(async () => {
      const controller = new AbortController()
      try {
        const response = await fetch(`${url}events?${query}`, { signal: controller.signal })
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
        let buffer = ""
        for (;;) {
          const { value } = await reader.read()
          buffer += value ?? ""
          const end = buffer.indexOf("\n\n")
          if (end !== -1) return JSON.parse(buffer.slice(0, end).replace(/^data: /, "")) as { reload?: true; version: number }
        }
      } finally {
        controller.abort()
      }
    })
  const pageOf = (url: string) => Effect.promise(() => fetch(url).then((r) => r.text()))
  const attribute = (page: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(page)?.[1] ?? ""

  it.live("a page from before the file was replaced is told to reload; one from after is not", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, promptL("old 1") + answerL("old answer 1") + promptL("old 2"))
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      const before = yield* pageOf(served.url)
      Fs.writeFileSync(path, promptL("new 1"))
      yield* Effect.sleep("200 millis")
      const after = yield* pageOf(served.url)
      const query = (page: string) => `v=${attribute(page, "data-version")}&e=${attribute(page, "data-epoch")}`
      assert.isTrue((yield* firstUpdate(served.url, query(before))).reload === true, "the older page was not told to reload")
      assert.isUndefined((yield* firstUpdate(served.url, query(after))).reload)
    }))

  it.live("a page of another run of the viewer (restarted on its port) is told to reload", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, promptL("one") + answerL("answer") + promptL("two"))
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
        return yield* pageOf(served.url)
      }))
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      const update = yield* firstUpdate(served.url, `v=${attribute(first, "data-version")}&e=${attribute(first, "data-epoch")}`)
      assert.isTrue(update.reload === true, "the page of the earlier run was not told to reload")
    }))
})

