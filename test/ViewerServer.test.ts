/**
 * The viewer's server in process (no browser, no CLI): `--follow` sends the turns a growing
 * transcript changes as Server-Sent Events, catches a page up from its version, and tells pages
 * to reload when the file is replaced. The page applying them in Chromium: test/ViewerLive.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"

const line = (dir: "send" | "recv", msg: unknown) => JSON.stringify({ dir, ts: 1, msg }) + "\n"
const prompt = (text: string) => line("send", { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" })
const answer = (text: string) =>
  line("recv", {
    type: "assistant",
    message: { id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
    parent_tool_use_id: null,
    session_id: "s",
    uuid: "u"
  })

const result = (cost: number) =>
  line("recv", {
    type: "result",
    subtype: "success",
    is_error: false,
    session_id: "s",
    uuid: "r",
    num_turns: 1,
    duration_ms: 10,
    duration_api_ms: 5,
    total_cost_usd: cost,
    usage: { input_tokens: 1, output_tokens: 1 },
    modelUsage: {},
    permission_denials: [],
    result: "done"
  })

interface Update {
  readonly version: number
  readonly parts: ReadonlyArray<{ readonly id: string; readonly html: string }>
  readonly reload?: true
}

/** The event stream of `url`, one parsed update at a time. */
const events = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(url, { signal: controller.signal })
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ""
      const next = async (): Promise<Update> => {
        for (;;) {
          const end = buffer.indexOf("\n\n")
          if (end !== -1) {
            const event = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            return JSON.parse(event.replace(/^data: /, "")) as Update
          }
          const { value, done } = await reader.read()
          if (done) throw new Error("the event stream ended")
          buffer += value
        }
      }
      return { next: () => Effect.promise(next), contentType: response.headers.get("content-type"), controller }
    }),
    ({ controller }) => Effect.sync(() => controller.abort())
  )

/**
 * Follows a transcript that starts as `initial`, appends `more`, and gives the HTML of the first
 * update whose parts include `until`.
 */
const followUntil = (initial: string | Uint8Array, more: string | Uint8Array, until: string) =>
  Effect.gen(function*() {
    const dir = yield* makeTempDir("ecc-viewer-sse-")
    const path = Path.join(dir, "t.ndjson")
    Fs.writeFileSync(path, initial)
    const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
    const stream = yield* events(`${served.url}events?v=0`)
    yield* stream.next()
    Fs.appendFileSync(path, more)
    let update = yield* stream.next()
    while (!update.parts.some((p) => p.html.includes(until))) update = yield* stream.next()
    return update.parts.map((p) => p.html).join("")
  })

describe("the viewer's server, following a transcript", () => {
  it.live("sends the changed turns as Server-Sent Events, catches up from a version, and asks for a reload when the file is replaced", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-sse-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, prompt("one") + answer("first answer") + result(0.01))
      const served = yield* Server.serve({ path, follow: true, pollInterval: "20 millis" })
      const page = yield* Effect.promise(() => fetch(served.url).then((r) => r.text()))
      const version = Number(/data-version="(\d+)"/.exec(page)![1])
      // The run of the viewer the page is of: a page of another is told to reload.
      const epoch = /data-epoch="([^"]*)"/.exec(page)![1]!
      assert.include(page, "first answer")

      const stream = yield* events(`${served.url}events?v=${version}&e=${epoch}`)
      assert.strictEqual(stream.contentType, "text/event-stream")
      const catchUp = yield* stream.next()
      assert.deepStrictEqual(catchUp.parts.map((p) => p.id), ["turn-0"])

      // A line written in two pieces (the recorder mid-write) is taken once whole.
      Fs.appendFileSync(path, prompt("two").slice(0, 20))
      Fs.appendFileSync(path, prompt("two").slice(20) + answer("second answer"))
      let update = yield* stream.next()
      while (!update.parts.some((p) => p.id === "turn-2" && p.html.includes("second answer"))) update = yield* stream.next()
      assert.isAbove(update.version, version)

      // A page that missed it (an older version) gets the changed turns at once.
      const late = yield* events(`${served.url}events?v=${version}&e=${epoch}`)
      const lateCatchUp = yield* late.next()
      assert.isTrue(lateCatchUp.parts.some((p) => p.id === "turn-2" && p.html.includes("second answer")))

      // The recorder started over (the file is shorter): pages reload.
      Fs.writeFileSync(path, prompt("again"))
      let reload = yield* stream.next()
      while (reload.reload !== true) reload = yield* stream.next()
      const fresh = yield* Effect.promise(() => fetch(served.url).then((r) => r.text()))
      assert.include(fresh, "again")
      assert.notInclude(fresh, "second answer")
    }))

  it.live("a line that is not a transcript line, written while following, shows as a problem item (T3)", () =>
    Effect.gen(function*() {
      const html = yield* followUntil(
        prompt("one"),
        "not json at all\n" + JSON.stringify({ note: "no dir" }) + "\n" + answer("after"),
        "after"
      )
      assert.include(html, "not json at all")
      assert.include(html, "no dir")
      assert.strictEqual(html.match(/class="item problem"/g)?.length, 2)
    }))

  it.live("a character cut at the end of the first read is decoded once whole (T4)", () =>
    Effect.gen(function*() {
      const bytes = Buffer.from(prompt("one") + prompt("price: 5 €"))
      const cut = bytes.indexOf(Buffer.from("€")) + 1
      const html = yield* followUntil(bytes.subarray(0, cut), bytes.subarray(cut), "price")
      assert.include(html, "price: 5 €")
      assert.notInclude(html, "\uFFFD")
    }))

  it.live("without --follow there is no event stream; another port in use is a clear error", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-sse-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, prompt("one"))
      const served = yield* Server.serve({ path })
      const status = yield* Effect.promise(() => fetch(`${served.url}events`).then((r) => r.status))
      assert.strictEqual(status, 404)
      const taken = yield* Effect.flip(Server.serve({ path, port: Number(new URL(served.url).port) }))
      assert.strictEqual(taken.reason._tag, "InvalidInput")
      assert.include(JSON.stringify(taken.reason), "cannot serve on 127.0.0.1")
    }))
})
