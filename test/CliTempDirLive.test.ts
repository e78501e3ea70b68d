/**
 * The CLI's temporary files go with its session. CLI 2.1.332 keeps them under its temporary root
 * (`CLAUDE_CODE_TMPDIR`, else the system's temporary directory): `claude-<uid>/<project>/<session>/`
 * with the output of every background task, `cc-socks/<pid>.sock`, `fswatch-probe-*` directories,
 * and removes none of them when it exits. A session left them in the user's `/tmp`, one set a
 * session, for good (found by hand, failing before). The process transport now gives each CLI a
 * temporary root of its own, removed once the CLI and what it started are gone; the model's tools
 * keep the user's `TMPDIR`, and a session that sets `env.CLAUDE_CODE_TMPDIR` keeps its own.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { live, processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/realCli.ts"
import { withEnv } from "./support/env.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const VARIABLE = "CLAUDE_CODE_TMPDIR"

/** Every file and directory under `dir`, relative to it. */
const contents = (dir: string): ReadonlyArray<string> => Fs.readdirSync(dir, { recursive: true }).map(String)

/** The fake CLI's `system/init` reports its environment's `CLAUDE_CODE_TMPDIR`. */
const fakeSession = (tmp: string, mode: string, env: Claude.SessionOptions["env"] = {}) =>
  Claude.open({
    executable: FAKE,
    env: { FAKE_CLAUDE_MODE: mode, FAKE_CLAUDE_ENV_KEYS: VARIABLE, TMPDIR: tmp, ...env }
  })

const reportedRoot = (events: ReadonlyArray<Claude.Event>): string | null => {
  const init = events.find((event) => event.type === "system" && event.subtype === "init") as
    | { readonly fake_env: Readonly<Record<string, string | null>> }
    | undefined
  return init?.fake_env[VARIABLE] ?? null
}

describe("the CLI's temporary files (fake CLI)", { timeout: 60_000 }, () => {
  it.live("the CLI gets a temporary root of its own in its TMPDIR, removed when the session closes", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const scope = yield* Scope.make()
      const session = yield* fakeSession(tmp, "").pipe(Scope.provide(scope))
      const root = reportedRoot(yield* session.turn("hello").pipe(Stream.runCollect))
      assert.isNotNull(root, "the CLI got no CLAUDE_CODE_TMPDIR")
      assert.strictEqual(Path.dirname(root!), tmp)
      assert.isTrue(Fs.statSync(root!).isDirectory())
      Fs.writeFileSync(Path.join(root!, "left-by-the-cli"), "x")
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a CLI that crashed leaves nothing either", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const scope = yield* Scope.make()
      const session = yield* fakeSession(tmp, "exit-mid-turn").pipe(Scope.provide(scope))
      const exit = yield* Effect.exit(session.turn("hello").pipe(Stream.runCollect))
      assert.isTrue(Exit.isFailure(exit))
      // The root, with the `--settings` file in it (test/SettingsFileLive.test.ts), until the session closes.
      const roots = Fs.readdirSync(tmp)
      assert.strictEqual(roots.length, 1, "the root is there until the session closes")
      assert.deepStrictEqual(contents(tmp).toSorted(), [roots[0]!, Path.join(roots[0]!, "settings.json")])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a CLI that could not start leaves nothing", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const exit = yield* Effect.exit(Effect.scoped(Claude.open({ executable: Path.join(tmp, "no-such-claude"), env: { TMPDIR: tmp } })))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a TMPDIR where no directory can be made: the session goes on, the CLI's TMPDIR as it was", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const missing = Path.join(tmp, "missing")
      const root = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* fakeSession(missing, "")
        return reportedRoot(yield* session.turn("hello").pipe(Stream.runCollect))
      }))
      assert.isNull(root)
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a CLAUDE_CODE_TMPDIR the host process has: the CLI's root is made in it (where its files would have gone), and removed", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const hosts = Path.join(tmp, "hosts")
      Fs.mkdirSync(hosts)
      yield* withEnv(VARIABLE, hosts)
      const root = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* fakeSession(tmp, "")
        return reportedRoot(yield* session.turn("hello").pipe(Stream.runCollect))
      }))
      assert.isNotNull(root)
      assert.strictEqual(Path.dirname(root!), hosts)
      assert.deepStrictEqual(contents(tmp), ["hosts"])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("env.CLAUDE_CODE_TMPDIR is the session's choice: passed as given and left in place", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const own = Path.join(tmp, "mine")
      Fs.mkdirSync(own)
      const root = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* fakeSession(tmp, "", { [VARIABLE]: own })
        return reportedRoot(yield* session.turn("hello").pipe(Stream.runCollect))
      }))
      assert.strictEqual(root, own)
      assert.deepStrictEqual(contents(tmp), ["mine"])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})

describe("the CLI's temporary files (real CLI)", { timeout: 120_000 }, () => {
  it.live("a session with a background task leaves nothing in the CLI's TMPDIR; the model's Bash keeps that TMPDIR", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-tmp-")
      const requests = yield* Effect.scoped(Effect.gen(function*() {
        const { model, options } = yield* live([
          FakeModel.toolUse("Bash", { command: "echo \"tmp=$TMPDIR\"", description: "where" }),
          FakeModel.toolUse("Bash", {
            command: "node -e \"setTimeout(() => {}, 200)\"",
            description: "in the background",
            run_in_background: true
          }),
          FakeModel.text("done")
        ], { env: { TMPDIR: tmp } })
        const session = yield* Claude.open(options)
        const result = yield* session.run("hello")
        assert.strictEqual(result.subtype, "success")
        return yield* model.messageRequests
      }))
      const echoed = requests.flatMap((request) => FakeModel.toolResults(request)).map((result) => result.content)
      assert.include(echoed, `tmp=${tmp}`)
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})

/**
 * What the private root costs, stated: a background task's output goes with its CLI process, so
 * a session resumed in a new process finds no earlier process's task output file (the CLI tells
 * the model where it is; the model then reads "File does not exist"; found by a reviewing
 * helper). A session that wants them kept names its own `env.CLAUDE_CODE_TMPDIR`.
 */
describe("background tasks' output and resumed sessions (real CLI)", { timeout: 120_000 }, () => {
  const toolTexts = (requests: ReadonlyArray<FakeModel.RecordedRequest>) =>
    requests.flatMap((request) => FakeModel.toolResults(request)).map((result) => result.content).join("\n")

  /** A session that starts a background task printing `hello-from-bg`, then one resumed in a new process whose model reads the file the first was told of. */
  const resumedRead = (extra: Claude.SessionOptions["env"]) =>
    Effect.gen(function*() {
      // One HOME (the CLI's sessions) and one working directory for both processes.
      const env = { HOME: yield* makeTempDir("ecc-resume-home-"), ...extra }
      const cwd = yield* makeTempDir("ecc-resume-cwd-")
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const setup = yield* live([
          FakeModel.toolUse("Bash", { command: "echo hello-from-bg", description: "bg", run_in_background: true }),
          FakeModel.text("started")
        ], { env, cwd })
        const session = yield* Claude.open(setup.options)
        yield* session.run("start it")
        yield* Effect.sleep("1500 millis")
        const path = /(\/\S+\.output)/.exec(toolTexts(yield* setup.model.messageRequests))?.[1]
        assert.isDefined(path, "the CLI named no output file")
        return { sessionId: yield* session.sessionId, path: path! }
      }))
      const second = yield* live(
        (request) => FakeModel.toolResults(request).length === 0 ? FakeModel.toolUse("Read", { file_path: first.path }) : FakeModel.text("read"),
        { resume: first.sessionId, cwd, env }
      )
      const session = yield* Claude.open(second.options)
      yield* session.run("what did it print?")
      return toolTexts(yield* second.model.messageRequests)
    }).pipe(Effect.scoped)

  it.live("by default the earlier process's task output is gone; with env.CLAUDE_CODE_TMPDIR it is kept and read", () =>
    Effect.gen(function*() {
      const gone = yield* resumedRead({})
      assert.notInclude(gone, "hello-from-bg")
      assert.include(gone, "does not exist")
      const kept = yield* makeTempDir("ecc-kept-tmp-")
      const read = yield* resumedRead({ [VARIABLE]: kept })
      assert.include(read, "hello-from-bg")
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
