/**
 * The viewer served the transcript to any local process that found its port (found by a reviewing
 * helper; failing before): a transcript kept owner-only became readable by every local user, and
 * by every container sharing the network namespace; `/events` under `--follow` too. The viewer's
 * address now carries a random token (`http://127.0.0.1:<port>/<token>/`, printed as before), and
 * a request without it gets no transcript.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Server from "../src/viewer/server.ts"

const line = (dir: "send" | "recv", msg: unknown) => JSON.stringify({ dir, ts: 1, msg }) + "\n"
const SECRET_PLAN = "the confidential plan"

const transcript = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "ecc-viewer-token-"))
    const file = Path.join(dir, "t.ndjson")
    Fs.writeFileSync(
      file,
      line("send", { type: "user", message: { role: "user", content: SECRET_PLAN }, parent_tool_use_id: null, session_id: "" }),
      { mode: 0o600 }
    )
    return { dir, file }
  }),
  ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const get = (url: string) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const response = await fetch(url, { signal: controller.signal })
    // An event stream never ends: its first bytes are enough.
    const reader = response.body!.getReader()
    const first = await reader.read()
    controller.abort()
    return { status: response.status, body: first.value === undefined ? "" : new TextDecoder().decode(first.value) }
  })

describe("the viewer's address carries a token", () => {
  for (const follow of [false, true]) {
    it.live(`${follow ? "--follow" : "a page"}: the printed address serves the page; the port alone, or another token, gets nothing`, () =>
      Effect.gen(function*() {
        const { file } = yield* transcript
        const served = yield* Server.serve({ path: file, follow })
        const url = new URL(served.url)
        assert.match(url.pathname, /^\/[A-Za-z0-9_-]{22,}\/$/)
        const page = yield* get(served.url)
        assert.strictEqual(page.status, 200)
        const origin = `http://127.0.0.1:${url.port}`
        for (const path of ["/", "/events?v=0&e=", "/AAAAAAAAAAAAAAAAAAAAAA/", "/AAAAAAAAAAAAAAAAAAAAAA/events?v=0&e="]) {
          const other = yield* get(`${origin}${path}`)
          assert.notStrictEqual(other.status, 200, path)
          assert.notInclude(other.body, SECRET_PLAN, path)
        }
        if (follow) {
          const events = yield* get(`${served.url}events?v=0&e=`)
          assert.strictEqual(events.status, 200)
        }
      }).pipe(Effect.scoped))
  }
})
