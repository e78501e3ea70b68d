/**
 * The timeline viewer where an audit found it wanting: a `--follow` page ignored the server's
 * `reload` (the transcript replaced) and kept the old session's turns; a port out of range died
 * with a stack trace instead of `InvalidInput`; a deeply nested line (hand-made, or hostile)
 * crashed the page build with a stack overflow.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Vm from "node:vm"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Timeline from "../src/Timeline.ts"
import type * as Transcript from "../src/Transcript.ts"
import * as Page from "../src/viewer/page.ts"
import * as Server from "../src/viewer/server.ts"
import { makeTempDir } from "./support/tempDir.ts"

const send = (msg: unknown): Transcript.Line => ({ dir: "send", ts: 1_000, msg })
const recv = (msg: unknown): Transcript.Line => ({ dir: "recv", ts: 1_000, msg })
const user = (content: string) => ({ type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: "" })
const assistantText = (text: string) => ({
  type: "assistant",
  message: { id: "m", type: "message", role: "assistant", model: "m", content: [{ type: "text", text }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } },
  parent_tool_use_id: null,
  session_id: "s",
  uuid: "u"
})

const result = (cost: number) => ({
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

/**
 * The page's inline script run against a minimal DOM: sections by id in document order, an
 * `EventSource` the test drives, `location.reload` recorded.
 */
const runPageScript = (html: string) => {
  const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!
  const version = /data-version="(\d+)"/.exec(html)![1]!
  const sections: Array<{ id: string; html: string }> = []
  for (const m of html.matchAll(/<section [^>]*id="(turn-\d+)"[\s\S]*?<\/section>/g)) sections.push({ id: m[1]!, html: m[0] })
  const reloads: Array<string> = []
  let source: { onmessage?: (e: { data: string }) => void; onerror?: () => void; url: string } | undefined
  const element = (id: string) => ({
    id,
    textContent: "",
    onclick: null as unknown,
    replaceWith: (content: { html: string }) => {
      const at = sections.findIndex((s) => s.id === id)
      sections[at] = { id, html: content.html }
    },
    appendChild: (content: { html: string }) => {
      sections.push({ id: /id="(turn-\d+)"/.exec(content.html)?.[1] ?? "?", html: content.html })
    }
  })
  const fixed = new Map<string, ReturnType<typeof element>>()
  for (const id of ["expand", "collapse", "live", "turns"]) fixed.set(id, element(id))
  const location = { reload: () => reloads.push("reload"), href: "http://127.0.0.1:1/", assign: (u: string) => reloads.push(u), replace: (u: string) => reloads.push(u) }
  const body = { dataset: { follow: "1", version } as Record<string, string>, scrollHeight: 0 }
  const document = {
    body,
    querySelectorAll: () => [],
    getElementById: (id: string) => fixed.get(id) ?? (sections.some((s) => s.id === id) ? element(id) : null),
    createElement: () => {
      const t = { content: { html: "" }, set innerHTML(v: string) { t.content = { html: v } } }
      return t
    },
    location
  }
  class EventSource {
    onmessage?: (e: { data: string }) => void
    onerror?: () => void
    readonly url: string
    constructor(url: string) {
      this.url = url
      source = this
    }
  }
  const window = { innerHeight: 0, scrollY: 0, scrollTo: () => {}, location }
  Vm.runInNewContext(script, { document, window, location, EventSource })
  return {
    send: (update: unknown) => source!.onmessage!({ data: JSON.stringify(update) }),
    reloads,
    text: () => sections.map((s) => s.html).join("\n")
  }
}

describe("the viewer: --follow page", () => {
  it("when the server says the transcript was replaced (`reload`), the page reloads instead of keeping the old session's turns", () => {
    // A page following a session of 2 turns.
    const timeline = Timeline.fromLines([
      send(user("one")),
      recv(assistantText("first answer")),
      recv(result(0.01)),
      send(user("two")),
      recv(assistantText("second answer")),
      recv(result(0.02))
    ])
    const page = runPageScript(Page.renderPage(timeline, { title: "t.ndjson", follow: { version: 3 } }))
    assert.include(page.text(), "second answer")
    assert.include(page.text(), `id="turn-2"`)
    // The recorder started over: the server sends what server.ts's `Update` documents for it
    // ("`reload` when the file was replaced"; test/ViewerServer.test.ts checks the server sends it).
    page.send({ version: 4, parts: [], reload: true })
    // ... then the new session's first turn.
    const fresh = Timeline.fromLines([send(user("again"))])
    page.send({ version: 5, parts: [{ id: "turn-0", html: Page.renderHead(fresh) }, { id: "turn-1", html: Page.renderTurn(fresh.turns[0]!) }] })
    assert.isTrue(
      page.reloads.length > 0 || !page.text().includes("second answer"),
      `the page neither reloaded nor dropped the old session's turn 2:\n${page.text()}`
    )
  })
})

describe("the viewer: serve", () => {
  it.live("a port that cannot be listened on (out of range) is InvalidInput, as documented, not a defect", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-view-")
      const path = Path.join(dir, "t.ndjson")
      Fs.writeFileSync(path, JSON.stringify(send(user("one"))) + "\n")
      const exit = yield* Effect.exit(Effect.scoped(Server.serve({ path, port: 70000 })))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        assert.isFalse(Cause.hasDies(exit.cause), `died instead of failing: ${Cause.pretty(exit.cause)}`)
        const error = Cause.findErrorOption(exit.cause)
        assert.strictEqual(error._tag === "Some" ? error.value.reason._tag : "none", "InvalidInput")
      }
    }))
})

describe("the viewer: a transcript line the page cannot show", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
  const lines = {
    "a system line with a deeply nested field":
      `{"dir":"recv","ts":1,"msg":{"type":"system","subtype":"status","status":null,"x":${nested(20_000)},"session_id":"s","uuid":"u"}}`,
    "a line the schemas refuse, deeply nested": `{"dir":"recv","ts":1,"msg":{"type":"assistant","x":${nested(20_000)}}}`
  }
  for (const [name, line] of Object.entries(lines)) {
    it.effect(`${name}: --html writes the page (the line shown) or fails with InvalidInput, never a RangeError defect`, () =>
      Effect.gen(function*() {
        const dir = yield* makeTempDir("ecc-view-")
        const path = Path.join(dir, "t.ndjson")
        Fs.writeFileSync(path, JSON.stringify(send(user("one"))) + "\n" + line + "\n")
        const exit = yield* Effect.exit(Server.writeHtml(path, Path.join(dir, "out.html")))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.hasDies(exit.cause), `died: ${Cause.pretty(exit.cause).split("\n").slice(0, 3).join(" | ")}`)
        }
      }))
  }
})
