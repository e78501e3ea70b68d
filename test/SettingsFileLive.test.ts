/**
 * The `--settings` JSON leaves no file behind. The library always passes `--settings` (its
 * `attribution` default), and CLI 2.1.0, given inline JSON, writes it to
 * `claude-settings-<uuid>.json` in `os.tmpdir()` (its `TMPDIR`; it reads no `CLAUDE_CODE_TMPDIR`)
 * and reads it from there, and never removes it: every session on 2.1.0 left one file in the
 * user's `/tmp`, for good (found by a reviewing helper; failing before). The process transport
 * now writes the JSON itself, owner-only, into the CLI's private temporary root and passes that
 * file's path: the CLI reads the same settings, and the file goes with the root when the session
 * closes. CLI 2.1.332 writes no such file either way (it reads a path as well); its sessions are
 * covered the same way.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Claude from "../src/Claude.ts"
import * as CliVersion from "../src/CliVersion.ts"
import * as Launch from "../src/Launch.ts"
import * as FakeModel from "../src/testing/FakeModel.ts"
import { installOnce } from "./support/cliVersions.ts"
import { live, processLayer } from "./support/live.ts"
import { makeTempDir } from "./support/realCli.ts"

const FAKE = Path.resolve(import.meta.dirname, "fixtures/fake-claude.mjs")
const VARIABLE = "CLAUDE_CODE_TMPDIR"

/** Every file and directory under `dir`, relative to it. */
const contents = (dir: string): ReadonlyArray<string> => Fs.readdirSync(dir, { recursive: true }).map(String)

/** A settings key whose effect the fake model sees: the model id of the conversation's requests. */
const MODEL = "claude-settings-mark-4d1"
const settings: Launch.Settings = { model: MODEL, attribution: { commit: "by the test" } }

/**
 * "done" to the conversation's requests; requests that are not the conversation's (2.1.0's
 * `Warmup` per agent, tool-less side requests) get "ok". A turn of text: 2.1.0's Bash tool leaves
 * a `claude-XXXX-cwd` file of its own in its TMPDIR, another matter than the settings.
 */
const script: FakeModel.Script = (request) =>
  request.tools.length === 0 || JSON.stringify(request.messages.at(-1)?.content).includes("Warmup")
    ? FakeModel.text("ok")
    : FakeModel.text("done")

describe("the --settings JSON leaves no file (real CLI)", { timeout: 300_000 }, () => {
  // The floor (the one that left a file) and the pinned newest.
  for (const version of [CliVersion.supported.floor, CliVersion.pinned]) {
    it.live(`CLI ${version}: one turn, closed: nothing left in the CLI's TMPDIR, and the settings reached the CLI`, () =>
      Effect.gen(function*() {
        const { executable } = yield* installOnce(version)
        const tmp = yield* makeTempDir("ecc-settings-tmp-")
        const requests = yield* Effect.scoped(Effect.gen(function*() {
          const { model, options } = yield* live(script, { executable, settings, env: { TMPDIR: tmp } })
          const session = yield* Claude.open(options)
          const result = yield* session.run("say done")
          assert.strictEqual(result.subtype, "success")
          return yield* model.messageRequests
        }))
        const conversation = requests.filter((request) => FakeModel.lastUserText(request) === "say done")
        assert.isNotEmpty(conversation, "no request of the conversation")
        assert.deepStrictEqual(conversation.map((request) => request.model), conversation.map(() => MODEL), "the settings did not reach the CLI")
        const left = contents(tmp)
        assert.deepStrictEqual(left.filter((name) => Path.basename(name).startsWith("claude-settings-")), [])
        assert.deepStrictEqual(left, [])
      }).pipe(Effect.scoped, Effect.provide(processLayer)))
  }
})

type Init = {
  readonly fake_argv: ReadonlyArray<string>
  readonly fake_env: Readonly<Record<string, string | null>>
}

/** The fake CLI's `system/init`: its argv, and its environment's `CLAUDE_CODE_TMPDIR`. */
const initOf = (events: ReadonlyArray<Claude.Event>): Init => {
  const init = events.find((event) => event.type === "system" && event.subtype === "init")
  assert.isDefined(init, "no system/init in the turn")
  return init as unknown as Init
}

/** The value after `--settings` in `args`. */
const settingsArg = (args: ReadonlyArray<string>): string => {
  const at = args.indexOf("--settings")
  assert.isAtLeast(at, 0, `no --settings in ${JSON.stringify(args)}`)
  return args[at + 1]!
}

/** The options of a session with the fake CLI, whose TMPDIR is `tmp`. */
const fakeOptions = (tmp: string, env: Claude.SessionOptions["env"] = {}): Claude.SessionOptions => ({
  executable: FAKE,
  settings: { ...settings, permissions: { allow: ["Read"] } },
  env: { FAKE_CLAUDE_MODE: "", FAKE_CLAUDE_ENV_KEYS: VARIABLE, TMPDIR: tmp, ...env }
})

/** The command line `Launch.buildCommand` shows for `options`. */
const shown = (options: Claude.SessionOptions): ReadonlyArray<string> =>
  Launch.buildCommand(options, { mcpServers: [], permissionPromptTool: false }).args

describe("the --settings JSON as a file in the CLI's own root (fake CLI)", { timeout: 60_000 }, () => {
  it.live("the CLI gets the path of an owner-only file in its root, holding the JSON buildCommand shows; the file goes with the root", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-settings-tmp-")
      const options = fakeOptions(tmp)
      const scope = yield* Scope.make()
      const session = yield* Claude.open(options).pipe(Scope.provide(scope))
      const events = yield* session.turn("hello").pipe(Stream.runCollect)
      assert.strictEqual(events.at(-1)?.type, "result")
      const init = initOf(events)
      const root = init.fake_env[VARIABLE]
      assert.isString(root, "the CLI got no root of its own")
      const file = settingsArg(init.fake_argv)
      assert.strictEqual(Path.dirname(file), root)
      assert.strictEqual(Fs.readFileSync(file, "utf8"), settingsArg(shown(options)))
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      // Only the value differs from the command line shown.
      assert.deepStrictEqual(init.fake_argv.map((arg) => arg === file ? settingsArg(shown(options)) : arg), shown(options))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(Fs.existsSync(file))
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("no root (a TMPDIR where no directory can be made): the JSON goes on the command line as before, and the session works", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-settings-tmp-")
      const options = fakeOptions(Path.join(tmp, "missing"))
      const events = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Claude.open(options)
        return yield* session.turn("hello").pipe(Stream.runCollect)
      }))
      const result = events.at(-1)
      assert.strictEqual(result?.type === "result" ? result.subtype : undefined, "success")
      const init = initOf(events)
      assert.isNull(init.fake_env[VARIABLE])
      assert.deepStrictEqual(init.fake_argv, shown(options))
      assert.deepStrictEqual(JSON.parse(settingsArg(init.fake_argv)), {
        attribution: { commit: "by the test", pr: "" },
        model: MODEL,
        permissions: { allow: ["Read"] }
      })
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("env.CLAUDE_CODE_TMPDIR of the session's own: left as it is; the settings file is in a directory of the library's in TMPDIR, removed", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-settings-tmp-")
      const own = Path.join(tmp, "mine")
      Fs.mkdirSync(own)
      const options = fakeOptions(tmp, { [VARIABLE]: own })
      const scope = yield* Scope.make()
      const session = yield* Claude.open(options).pipe(Scope.provide(scope))
      const init = initOf(yield* session.turn("hello").pipe(Stream.runCollect))
      assert.strictEqual(init.fake_env[VARIABLE], own)
      const file = settingsArg(init.fake_argv)
      assert.strictEqual(Path.dirname(Path.dirname(file)), tmp)
      assert.notStrictEqual(Path.dirname(file), own)
      assert.strictEqual(Fs.readFileSync(file, "utf8"), settingsArg(shown(options)))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(contents(tmp), ["mine"])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))

  it.live("a CLI that cannot be started once its root and settings file are made: SpawnFailed, and nothing left", () =>
    Effect.gen(function*() {
      const tmp = yield* makeTempDir("ecc-settings-tmp-")
      const bin = yield* makeTempDir("ecc-settings-bin-")
      const broken = Path.join(bin, "claude-broken")
      Fs.writeFileSync(broken, "#!/nonexistent/interpreter\n", { mode: 0o755 })
      const exit = yield* Effect.exit(Effect.scoped(Claude.open({ ...fakeOptions(tmp), executable: broken })))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error), "not a typed failure")
      assert.strictEqual(Option.getOrThrow(error).reason._tag, "SpawnFailed")
      assert.deepStrictEqual(contents(tmp), [])
    }).pipe(Effect.scoped, Effect.provide(processLayer)))
})
