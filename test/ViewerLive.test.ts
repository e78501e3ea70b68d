/**
 * The timeline page in a real browser: headless Chromium (Debian's `chromium`, `.ci/run` installs
 * it; `CHROMIUM` names another) driven by `playwright-core` opens the page served for a
 * transcript recorded here from the real CLI on the fake model (a Bash tool use, a PreToolUse
 * hook, a permission decision, costs, a failed turn), follows a session still running until its
 * next turn appears, and opens the exported file offline. `TIMELINE_SCREENSHOT=docs/timeline.png`
 * also writes the README's screenshot.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { type Browser, chromium, type Page } from "playwright-core"
import * as Claude from "../src/Claude.ts"
import * as Hooks from "../src/Hooks.ts"
import * as Permissions from "../src/Permissions.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import * as Transcript from "../src/Transcript.ts"
import * as Server from "../src/viewer/server.ts"
import { live, processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/tempDir.ts"

/** Three real-CLI turns and a browser: more than the tier's 60 s on a loaded machine. */
const SESSION_TEST_TIMEOUT = 120_000

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium"
const root = Path.resolve(import.meta.dirname, "..")

const browser: Effect.Effect<Browser, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(() => chromium.launch({ executablePath })),
  (b) => Effect.promise(() => b.close())
)

const newPage = (b: Browser, options?: { readonly offline?: boolean }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const context = await b.newContext({ viewport: { width: 1100, height: 900 }, offline: options?.offline === true })
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("pageerror", (error) => problems.push(error.message))
      return { page, problems, context }
    }),
    ({ context }) => Effect.promise(() => context.close())
  )

/** The inner texts of the elements, white space folded (a flex heading breaks lines between its parts). */
const texts = (page: Page, selector: string) =>
  Effect.promise(() => page.locator(selector).allInnerTexts()).pipe(
    Effect.map((all) => all.map((t) => t.replace(/\s+/g, " ").trim()))
  )

/** A PreToolUse hook that lets the command run, and a permission handler that allows it. */
const guards = Layer.mergeAll(
  Hooks.layer(Hooks.on("PreToolUse", { matcher: "Bash" }, () => Effect.succeed(Hooks.allow()))),
  Permissions.layer(() => Effect.succeed(Permissions.allow()))
)

const script: FakeModel.Script = [
  FakeModel.toolUse("Bash", { command: "touch viewer.txt && echo viewer-marker", description: "viewer test" }),
  FakeModel.text("It printed viewer-marker."),
  FakeModel.httpError(500),
  FakeModel.httpError(500),
  FakeModel.thinking("The third prompt wants a short answer.", "Third answer.")
]

/** A session on the real CLI recording its transcript into `path` (in default mode: the Bash call asks). */
const openRecorded = (path: string, options?: Transcript.RecorderOptions) =>
  Effect.gen(function*() {
    const setup = yield* live(script, { permissionMode: "default", errorResults: "return" })
    const recorder = yield* Transcript.toFile(path, options)
    return yield* Claude.open({ ...setup.options, transcript: recorder }).pipe(Effect.provide(guards))
  })

/** Waits until the transcript file holds `n` result lines (the recorder writes from a fiber). */
const resultsWritten = (path: string, n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300; i++) {
      const text = Fs.existsSync(path) ? Fs.readFileSync(path, "utf8") : ""
      if (text.split("\n").filter((l) => l.includes(`"type":"result"`)).length >= n) return
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error(`${path} never held ${n} results`))
  })

/** What every view of the recorded session shows: 3 turns, the Bash call, hook and permission, costs, the error. */
const checkShown = (page: Page) =>
  Effect.gen(function*() {
    const headings = yield* texts(page, "section.turn h2")
    assert.strictEqual(headings.length, 3, headings.join(" | "))
    assert.match(headings[0]!, /^Turn 1 .*ok/)
    assert.match(headings[1]!, /^Turn 2 .*failed/)
    assert.match(headings[2]!, /^Turn 3 .*ok/)
    for (const heading of headings) assert.match(heading, /\$\d+\.\d{4}/, "a cost per turn")
    for (const heading of headings) assert.match(heading, /\d+ in · \d+ out/, "tokens per turn")
    const prompts = yield* texts(page, ".prompt pre")
    assert.deepStrictEqual(prompts, ["Run the marker command", "This will fail", "Think, then answer"])
    const tool = (yield* texts(page, "#turn-1 .item.tool")).join("\n")
    assert.include(tool, "Bash")
    assert.include(tool, "touch viewer.txt && echo viewer-marker")
    assert.include(tool, "viewer-marker", "the tool's result")
    assert.match((yield* texts(page, "#turn-1 .item.hook")).join("\n"), /PreToolUse\s+Bash\s+continue/)
    assert.match((yield* texts(page, "#turn-1 .item.permission")).join("\n"), /Bash\s+allow/)
    assert.include((yield* texts(page, "#turn-1 .item.text")).join("\n"), "It printed viewer-marker.")
    const error = (yield* texts(page, "#turn-2 .item.error")).join("\n")
    assert.include(error, "the turn failed")
    assert.include((yield* texts(page, "#turn-3 .item.thinking")).join("\n"), "The third prompt wants a short answer.")
    assert.include((yield* texts(page, "#turn-3 .item.text")).join("\n"), "Third answer.")
    assert.match((yield* texts(page, "#turn-0 .facts")).join(""), /3 turns · 1 failed · total \$\d/)
  })

describe("the timeline page in Chromium", () => {
  it.live("shows a recorded real-CLI session: turns, tool uses, hook and permission, costs, the error; saves a screenshot; the exported file shows the same offline", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-")
      const path = Path.join(dir, "session.ndjson")
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* openRecorded(path)
        yield* session.run("Run the marker command")
        const failed = yield* session.run("This will fail")
        assert.isTrue(failed.is_error)
        yield* session.run("Think, then answer")
      }))
      // Every line has its time.
      const lines = yield* Transcript.read(path)
      assert.isTrue(lines.every((l) => typeof l.ts === "number"))
      assert.isFalse(lines.some((l) => (l.msg as { type?: unknown }).type === "stream_event"))

      const served = yield* Server.serve({ path })
      const b = yield* browser
      const { page, problems } = yield* newPage(b)
      yield* Effect.promise(() => page.goto(served.url))
      yield* checkShown(page)
      // The page reaches nothing, not even its own server (which is up: it just served the page).
      const reach = (p: Page) =>
        Effect.promise(() => p.evaluate((url) => fetch(url).then(() => "reached", () => "blocked"), served.url))
      assert.strictEqual(yield* reach(page), "blocked")
      // A request naming another host (DNS rebinding) gets no transcript.
      const port = Number(new URL(served.url).port)
      const foreign = yield* Effect.callback<number>((resume) => {
        Http.get({ host: "127.0.0.1", port, path: "/", headers: { host: "attacker.example" } }, (res) => {
          res.resume()
          resume(Effect.succeed(res.statusCode ?? 0))
        }).on("error", (error) => resume(Effect.die(error)))
      })
      assert.strictEqual(foreign, 403)
      const shot = Path.join(dir, "timeline.png")
      yield* Effect.promise(() => page.screenshot({ path: shot }))
      assert.deepStrictEqual([...Fs.readFileSync(shot).subarray(1, 4)], [0x50, 0x4e, 0x47], "a PNG")
      const readme = process.env.TIMELINE_SCREENSHOT
      if (readme !== undefined) Fs.copyFileSync(shot, Path.resolve(root, readme))
      assert.deepStrictEqual(problems, [])

      // The exported file, opened from disk in a browser context without network.
      const out = Path.join(dir, "share", "session.html")
      yield* Server.writeHtml(path, out)
      const offline = yield* newPage(b, { offline: true })
      yield* Effect.promise(() => offline.page.goto(`file://${out}`))
      yield* checkShown(offline.page)
      assert.strictEqual(yield* reach(offline.page), "blocked")
      const html = Fs.readFileSync(out, "utf8")
      assert.include(html, "connect-src 'none'")
      assert.notMatch(html, /<(?:link|img|iframe)\b|src="http/)
      assert.deepStrictEqual(offline.problems, [])
    }).pipe(Effect.provide(processLayer)), SESSION_TEST_TIMEOUT)

  it.live("--follow: the page of a session still running shows its next turn when it is recorded (stream_events kept)", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-follow-")
      const path = Path.join(dir, "running.ndjson")
      // With the stream_events kept (the page leaves them out).
      const session = yield* openRecorded(path, { streamEvents: true })
      yield* session.run("Run the marker command")
      yield* resultsWritten(path, 1)
      assert.include(Fs.readFileSync(path, "utf8"), `"type":"stream_event"`)

      const served = yield* Server.serve({ path, follow: true, pollInterval: "50 millis" })
      const b = yield* browser
      const { page, problems } = yield* newPage(b)
      yield* Effect.promise(() => page.goto(served.url))
      assert.strictEqual((yield* texts(page, "section.turn h2")).length, 1)
      assert.strictEqual(yield* Effect.promise(() => page.locator("#live").innerText()), "following")

      // The session goes on; the open page receives the turn as the recorder writes it.
      yield* session.run("This will fail")
      yield* Effect.promise(() => page.locator("#turn-2 h2", { hasText: "failed" }).waitFor({ timeout: 30_000 }))
      yield* session.run("Think, then answer")
      yield* Effect.promise(() => page.locator("#turn-3 h2", { hasText: "ok" }).waitFor({ timeout: 30_000 }))
      yield* Effect.promise(() => page.locator("#turn-3 .item.text", { hasText: "Third answer." }).waitFor({ timeout: 30_000 }))
      yield* checkShown(page)
      assert.deepStrictEqual(problems, [])
    }).pipe(Effect.provide(processLayer)), SESSION_TEST_TIMEOUT)

  it.live("the command: `view` prints the URL of the served page, `--html` writes the file, a missing transcript is a clear error", () =>
    Effect.gen(function*() {
      const dir = yield* makeTempDir("ecc-viewer-cmd-")
      const transcript = Path.join(root, "testdata/transcripts/bash-tool.ndjson")
      const bin = Path.join(root, "src/bin.ts")
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => ChildProcess.spawn(process.execPath, [bin, "view", transcript, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] })),
        (c) => Effect.sync(() => c.kill("SIGTERM"))
      )
      const url = yield* Effect.callback<string>((resume) => {
        let out = ""
        child.stdout.setEncoding("utf8").on("data", (s: string) => {
          out += s
          const match = /(http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/)/.exec(out)
          if (match !== null) resume(Effect.succeed(match[1]!))
        })
      }).pipe(Effect.timeout("20 seconds"))
      const body = yield* Effect.promise(() => fetch(url).then((r) => r.text()))
      assert.include(body, "Turn 1")
      assert.include(body, "echo hi")

      const out = Path.join(dir, "bash.html")
      const html = ChildProcess.spawnSync(process.execPath, [bin, "view", transcript, "--html", out], { encoding: "utf8" })
      assert.strictEqual(html.status, 0, html.stderr)
      assert.include(Fs.readFileSync(out, "utf8"), "echo hi")

      const missing = ChildProcess.spawnSync(process.execPath, [bin, "view", Path.join(dir, "nope.ndjson")], { encoding: "utf8" })
      assert.strictEqual(missing.status, 1)
      assert.include(missing.stdout + missing.stderr, "cannot read the transcript")
    }))
})
