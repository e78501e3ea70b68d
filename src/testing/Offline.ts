/**
 * A session against the real `claude` CLI and a fake model, offline, in one line: the CLI runs
 * in a fresh temporary HOME and working directory, with the environment it needs to talk to a
 * {@link FakeModel} on 127.0.0.1 and nothing else (no network, no credentials, never your own
 * `~/.claude`). Everything is scoped: when the scope closes, the session ends, the fake model
 * stops and the temporary directories are removed, also when the test failed.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { ClaudeNode } from "effect-claude-code/node"
 * import { FakeModel, Offline } from "effect-claude-code/testing"
 *
 * const program = Effect.gen(function*() {
 *   const { session, model } = yield* Offline.open([FakeModel.text("Hello.")])
 *   const result = yield* session.run("Say hello")  // result.result === "Hello."
 *   const [request] = yield* model.messageRequests  // what the CLI asked the model
 * }).pipe(Effect.scoped, Effect.provide(ClaudeNode.layer))
 * ```
 *
 * The `claude` executable is looked up as for any session (`claude` on `PATH`, then
 * `node_modules/.bin/claude` above the current directory); `executable` names another.
 *
 * @since 0.2.0
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Claude from "../Claude.ts"
import type * as ClaudeError from "../ClaudeError.ts"
import * as ClaudeSession from "../ClaudeSession.ts"
import type { Transport } from "../Transport.ts"
import * as FakeModel from "./FakeModel.ts"

/**
 * Options of an offline session: the session's own options, plus the fake model's.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options<S extends Claude.OutputFormat = Claude.OutputFormat> extends Claude.SessionOptions<S> {
  /**
   * The working directory of the CLI. Default: a fresh temporary directory, removed when the
   * scope closes (a directory given here is left as it is).
   */
  readonly cwd?: string | undefined
  /** Options of the fake model: `whenExhausted`, `models` (reject unknown model ids). */
  readonly fakeModel?: FakeModel.MakeOptions | undefined
  /** `CLAUDE_CODE_MAX_RETRIES` (default 1: an API error ends the turn in about a second). */
  readonly maxRetries?: number | undefined
}

/**
 * A fake model, and the options of a session whose CLI talks to it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Setup {
  /** The fake Messages API: its recorded requests, `awaitRequests`, `setScript`. */
  readonly model: FakeModel.Server
  /** The fresh HOME of the CLI (removed when the scope closes). */
  readonly home: string
  /** The working directory of the CLI (a fresh one, removed when the scope closes, unless given). */
  readonly cwd: string
  /** The session options: the ones given, with `cwd` and the offline environment. */
  readonly options: Claude.SessionOptions
}

/**
 * An open offline session, with its fake model and directories.
 *
 * @since 0.2.0
 * @category models
 */
export interface OfflineSession<R extends Claude.TurnResult = Claude.TurnResult> extends Setup {
  /**
   * The session, open on the real CLI with {@link Setup.options}; it ends when the scope closes.
   * Its `run` returns `R` (a `Claude.StructuredResult` with an `outputFormat`).
   */
  readonly session: Claude.Session<R>
}

/** True when this process runs as root (the CLI then wants `IS_SANDBOX=1` for bypassPermissions). */
const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0

const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * Starts a fake model playing `script`, makes a fresh HOME (and cwd, unless `options.cwd` is
 * given), and returns the session options that point the CLI at them, without opening a
 * session: for a program that opens its own (`Claude.open(setup.options)`).
 *
 * **Details**
 *
 * The environment is {@link FakeModel.cliEnvironment} (`HOME`, `ANTHROPIC_API_KEY=sk-test`,
 * `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`, `CLAUDE_CODE_MAX_RETRIES`, `DISABLE_TELEMETRY=1`,
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_AUTOUPDATER=1`, `NO_PROXY` for loopback,
 * and `TMPDIR` in that HOME, so that the CLI's temporary files go with it; `CLAUDECODE`,
 * `CLAUDE_CONFIG_DIR`, every other provider's switch (`CLAUDE_CODE_USE_*`) and other credentials
 * removed), then `options.env` over it. `IS_SANDBOX=1`
 * is set only when this process runs as root and the session asks for `bypassPermissions`,
 * which the CLI refuses as root without it; otherwise it is removed, so a test runs as the
 * program would. `options.env` can set it either way.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (script: FakeModel.Script, options?: Options) => Effect.Effect<Setup, never, Scope.Scope> = Effect
  .fn("Offline.make")(function*(script: FakeModel.Script, options: Options = {}) {
    const { fakeModel, maxRetries, ...sessionOptions } = options
    const model = yield* FakeModel.make(script, fakeModel)
    const home = yield* tempDir("claude-offline-home-")
    // The CLI's own temporary files (its task files, a socket) go in the HOME removed with it,
    // not in the system's temporary directory, where they would stay.
    const tmp = Path.join(home, "tmp")
    Fs.mkdirSync(tmp, { mode: 0o700 })
    const cwd = sessionOptions.cwd ?? (yield* tempDir("claude-offline-cwd-"))
    const sandbox = isRoot() && sessionOptions.permissionMode === "bypassPermissions" ? "1" : undefined
    const sessionOptionsOffline: Claude.SessionOptions = {
      ...sessionOptions,
      cwd,
      env: {
        ...model.cliEnvironment(home, { maxRetries }),
        TMPDIR: tmp,
        IS_SANDBOX: sandbox,
        ...sessionOptions.env
      }
    }
    return { model, home, cwd, options: sessionOptionsOffline }
  })

/**
 * Opens a session against the real `claude` CLI and a fake model playing `script`, offline, in
 * a fresh HOME and cwd ({@link make}): one line for a test of a program. Needs the process
 * transport (`Claude.layerProcess` with Node's spawner); takes `Hooks`, `Permissions` and
 * `McpServers` from the context as `Claude.open` does.
 *
 * @since 0.2.0
 * @category constructors
 */
export const open: <S extends Claude.OutputFormat = never>(
  script: FakeModel.Script,
  options?: Options<S>
) => Effect.Effect<OfflineSession<Claude.RunResult<S>>, ClaudeError.ClaudeError, Transport | Scope.Scope> = <
  S extends Claude.OutputFormat
>(script: FakeModel.Script, options?: Options<S>) =>
  // The session's `run` decodes with the options' `outputFormat`, so its type follows it.
  openOffline(script, options) as Effect.Effect<
    OfflineSession<Claude.RunResult<S>>,
    ClaudeError.ClaudeError,
    Transport | Scope.Scope
  >

const openOffline: (
  script: FakeModel.Script,
  options?: Options
) => Effect.Effect<OfflineSession, ClaudeError.ClaudeError, Transport | Scope.Scope> = Effect.fn("Offline.open")(
  function*(script: FakeModel.Script, options?: Options) {
    const setup = yield* make(script, options)
    const session = yield* Claude.open(setup.options)
    return { ...setup, session }
  }
)

/**
 * {@link open} as a layer: a `ClaudeSession` against the real CLI and the fake model, and that
 * fake model as the `FakeModel` service (to read what the CLI asked it). The CLI ends, the fake
 * model stops and the directories are removed when the layer's scope closes.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  script: FakeModel.Script,
  options?: Options
): Layer.Layer<ClaudeSession.ClaudeSession | FakeModel.FakeModel, ClaudeError.ClaudeError, Transport> =>
  Layer.effectContext(
    Effect.map(
      open(script, options),
      ({ model, session }) => Context.make(ClaudeSession.ClaudeSession, session).pipe(Context.add(FakeModel.FakeModel, model))
    )
  )
