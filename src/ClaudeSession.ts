/**
 * The session as a service, for programs with one session: `ClaudeSession.layer(options)` opens
 * the CLI when the layer is built and ends it when the layer's scope closes, and the program
 * reaches the session with `yield* ClaudeSession.ClaudeSession`. `layerConfig` reads the options
 * from `Config` (the API key with `Config.Redacted`, so it stays `Redacted` all the way to the
 * CLI's environment), as Effect's own `SqlClient` drivers and `McpClient` do.
 *
 * Programs with several sessions keep using `Claude.open` (which `ClaudeSession.make` is), one
 * scope per session.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Claude from "./Claude.ts"
import type * as ClaudeError from "./ClaudeError.ts"
import type { Transport } from "./Transport.ts"

/**
 * One running session of the CLI, as a service (see {@link Claude.Session}).
 *
 * **Details**
 *
 * The layers need a `Transport`: `ClaudeNode.layer` from `effect-claude-code/node` for the real
 * CLI on Node (`Claude.layerProcess`), or a fake from
 * `effect-claude-code/testing`. `Hooks`,
 * `Permissions` and `McpServers` are taken from the layer's context when provided, as
 * `Claude.open` does.
 *
 * **Gotchas**
 *
 * One layer build is one CLI process: a layer shared by the whole program is one session for the
 * whole program. For a session per request, or several at once, use `ClaudeSession.make` in a
 * scope of its own.
 *
 * ```ts
 * import * as Config from "effect/Config"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { ClaudeSession } from "effect-claude-code"
 * import { ClaudeNode } from "effect-claude-code/node"
 *
 * const SessionLive = ClaudeSession.layerConfig({
 *   apiKey: Config.Redacted("ANTHROPIC_API_KEY"),
 *   model: Config.String("CLAUDE_MODEL")
 * }).pipe(Layer.provide(ClaudeNode.layer))
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* ClaudeSession.ClaudeSession
 *   return yield* session.run("Say hello")
 * }).pipe(Effect.provide(SessionLive))
 * ```
 *
 * @since 0.1.0
 * @category services
 */
export class ClaudeSession extends Context.Service<ClaudeSession, Claude.Session>()("effect-claude-code/ClaudeSession") {}

/**
 * Opens a session in the current scope: `Claude.open`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options?: Claude.SessionOptions
) => Effect.Effect<Claude.Session, ClaudeError.ClaudeError, Transport | Scope.Scope> = Claude.open

/**
 * A layer holding one session opened with `options`; closing the layer's scope ends the CLI.
 *
 * **Details**
 *
 * With an `outputFormat`, pass the key of a service of your own whose session type says what
 * `run` returns: the layer then provides that service, typed by the Schema (a key whose type does
 * not match the Schema does not compile). Without a key the session is the {@link ClaudeSession}
 * service, whose `run` is typed `TurnResult` (the `structured` value is there at run time).
 *
 * ```ts
 * import * as Context from "effect/Context"
 * import * as Schema from "effect/Schema"
 * import { Claude, ClaudeSession } from "effect-claude-code"
 *
 * const Review = Schema.Struct({ verdict: Schema.Literals(["ok", "changes"]) })
 *
 * class Reviewer extends Context.Service<Reviewer, Claude.Session<Claude.StructuredResult<typeof Review.Type>>>()(
 *   "app/Reviewer"
 * ) {}
 *
 * const ReviewerLive = ClaudeSession.layer({ outputFormat: Review }, Reviewer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: {
  /** The session as the {@link ClaudeSession} service. */
  <S extends Claude.OutputFormat = never>(
    options?: Claude.SessionOptions<S>
  ): Layer.Layer<ClaudeSession, ClaudeError.ClaudeError, Transport>
  /** The session as the service of `key`, its `run` typed by the options' `outputFormat` (since 0.2.0). */
  <S extends Claude.OutputFormat, I>(
    options: Claude.SessionOptions<S>,
    key: Context.Key<I, Claude.Session<Claude.RunResult<S>>>
  ): Layer.Layer<I, ClaudeError.ClaudeError, Transport>
} = <S extends Claude.OutputFormat, I>(
  options?: Claude.SessionOptions<S>,
  key?: Context.Key<I, Claude.Session<Claude.RunResult<S>>>
): Layer.Layer<ClaudeSession, ClaudeError.ClaudeError, Transport> | Layer.Layer<I, ClaudeError.ClaudeError, Transport> =>
  key === undefined
    ? Layer.effect(ClaudeSession, Claude.open(options) as Effect.Effect<Claude.Session, ClaudeError.ClaudeError, Transport | Scope.Scope>)
    : Layer.effect(key, Claude.open(options))

/**
 * {@link layer} with options read from `Config`: each option is a `Config` of its value (e.g.
 * `apiKey: Config.Redacted("ANTHROPIC_API_KEY")`), or the whole options are one `Config`. An
 * option that is not configuration (a `transcript` recorder) is given with
 * `Config.succeed(value)`.
 *
 * **Details**
 *
 * The key stays `Redacted` from the `ConfigProvider` to the CLI's environment
 * (`ANTHROPIC_API_KEY`), so it shows neither in logs nor in errors. A missing or malformed
 * value fails the layer with Effect's `ConfigError`, naming the value but never its content.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Claude.SessionOptions>
): Layer.Layer<ClaudeSession, ClaudeError.ClaudeError | Config.ConfigError, Transport> =>
  Layer.effect(ClaudeSession, Effect.flatMap(Config.unwrap(config), (options) => Claude.open(options)))
