/**
 * Which `claude` CLI versions this library supports, how a version is told, and the check a
 * session runs before it writes the first user turn.
 *
 * - **Supported:** `>=2.1.0 <2.2.0`, the whole 2.1 line. The floor is the first 2.1 release: the
 *   stream-json control protocol the library speaks (`initialize` with hooks and in-process MCP
 *   servers, `hook_callback`, `can_use_tool` over `--permission-prompt-tool stdio`, `mcp_message`,
 *   `interrupt`, `set_model`) is all there in 2.1.0, and users run every 2.1 release (the CLI
 *   updates itself on some machines and is pinned on others). A 2.2 release may change the
 *   protocol, so it is outside until it has been tested.
 * - **Tested:** the floor (2.1.0), one in the middle (2.1.200, the native build) and the pinned
 *   newest (2.1.332, the one the conformance suite is recorded with). What differs between them is
 *   recorded in `testdata/cli-versions/` and explained in README's compatibility section.
 * - **Told:** from `claude_code_version` in the answer to `initialize` (CLI 2.1.332 has it; older
 *   ones, 2.1.200 among them, do not), else from `claude --version` (`2.1.0 (Claude Code)`); see
 *   {@link resolve}. `system/init` also carries it, but only once a turn has started.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ClaudeError from "./ClaudeError.ts"
import * as SpanExits from "./internal/spanExits.ts"
import { type LaunchSpec, Transport } from "./Transport.ts"

/**
 * A `major.minor.patch` version (a pre-release or build suffix is kept in `suffix`, not compared).
 *
 * @since 0.1.0
 * @category models
 */
export interface Version {
  /** The first number. */
  readonly major: number
  /** The second number. */
  readonly minor: number
  /** The third number. */
  readonly patch: number
  /** What follows `major.minor.patch` (`-beta.1`, `+build`), or `""`; not compared. */
  readonly suffix: string
}

/**
 * A range of versions: `floor` inclusive, `below` exclusive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Range {
  /** The lowest version in the range (inclusive). */
  readonly floor: string
  /** The first version above the range (exclusive). */
  readonly below: string
}

/**
 * The versions this library supports: the 2.1 line.
 *
 * @since 0.1.0
 * @category range
 */
export const supported: Range = { floor: "2.1.0", below: "2.2.0" }

/**
 * The version the conformance suite is recorded with (the devDependency).
 *
 * @since 0.1.0
 * @category range
 */
export const pinned = "2.1.332"

/**
 * The versions the test suite runs the conformance scenarios against: the floor, one in the
 * middle, the pinned newest.
 *
 * @since 0.1.0
 * @category range
 */
export const tested: ReadonlyArray<string> = ["2.1.0", "2.1.200", pinned]

const versionPattern = /(?:^|[^\d.])(\d+)\.(\d+)\.(\d+)([-+][0-9A-Za-z.+-]*)?/

/**
 * Reads a version out of a string: `"2.1.332"`, `"2.1.0 (Claude Code)"` (what `claude --version`
 * prints), `"v2.1.7"`. `None` when there is no `x.y.z` in it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Option.Option<Version> => {
  const match = versionPattern.exec(text.trim())
  if (match === null) return Option.none()
  return Option.some({
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    suffix: match[4] ?? ""
  })
}

/**
 * `major.minor.patch` (the suffix left out).
 *
 * @since 0.1.0
 * @category parsing
 */
export const format = (version: Version): string => `${version.major}.${version.minor}.${version.patch}`

/**
 * Orders two versions by major, minor, patch: negative, 0 or positive.
 *
 * @since 0.1.0
 * @category comparison
 */
export const compare = (a: Version, b: Version): number =>
  a.major !== b.major ? a.major - b.major : a.minor !== b.minor ? a.minor - b.minor : a.patch - b.patch

const parseOrThrow = (text: string): Version =>
  Option.getOrElse(parse(text), () => {
    throw new Error(`not a version: ${text}`)
  })

/**
 * What is wrong with `range`, if anything: its ends must be versions (`x.y.z`), `floor` below
 * `below`.
 *
 * @since 0.2.0
 * @category comparison
 */
export const rangeProblem = (range: Range): string | undefined => {
  const floor = parse(String(range.floor))
  const below = parse(String(range.below))
  if (Option.isNone(floor) || Option.isNone(below)) {
    return `a range's floor and below must be versions x.y.z (got ${JSON.stringify(range.floor)} and ${JSON.stringify(range.below)})`
  }
  return compare(floor.value, below.value) < 0
    ? undefined
    : `a range's floor must be below its below (got ${range.floor} and ${range.below})`
}

/**
 * Whether `version` is in `range` (default {@link supported}); false for a range that is none
 * (see {@link rangeProblem}), as for text that is no version.
 *
 * @since 0.1.0
 * @category comparison
 */
export const isSupported = (version: Version | string, range: Range = supported): boolean => {
  const v = typeof version === "string" ? parse(version) : Option.some(version)
  if (Option.isNone(v) || rangeProblem(range) !== undefined) return false
  return compare(v.value, parseOrThrow(range.floor)) >= 0 && compare(v.value, parseOrThrow(range.below)) < 0
}

/**
 * The first CLI that takes a user message's `client_composed` (a verbatim turn).
 *
 * @since 0.2.0
 * @category comparison
 */
export const verbatimPromptsSince = "2.1.248"

/**
 * The first CLI known to end a turn of structured output whose model answers in text (it asks
 * once more, then ends the turn): 2.1.200 and 2.1.332 do (measured); 2.1.0 asks again without
 * end. The versions between are untested.
 *
 * @since 0.2.0
 * @category comparison
 */
export const structuredOutputSince = "2.1.200"

/**
 * Whether `version` is `since` or later: false for a version that cannot be told (`undefined`,
 * text without `x.y.z`), which may be an older one. A session asks it of the CLI before a
 * verbatim turn ({@link verbatimPromptsSince}) and a turn of structured output
 * ({@link structuredOutputSince}); an in-memory CLI, which names none, is not asked.
 *
 * @since 0.2.0
 * @category comparison
 */
export const atLeast = (version: string | undefined, since: string): boolean => {
  const v = version === undefined ? Option.none() : parse(version)
  const floor = parse(since)
  return Option.isSome(v) && Option.isSome(floor) && compare(v.value, floor.value) >= 0
}

/**
 * Whether the CLI reads a host's `control_cancel_request`: 2.1.0 exits on it ("Expected message
 * type 'user' or 'control', got 'control_cancel_request'", exit 1); 2.1.100, 2.1.200 and 2.1.332
 * accept it (measured). A version that cannot be told is taken to accept it, as the pinned one.
 *
 * @since 0.1.0
 * @category comparison
 */
export const acceptsControlCancel = (version: string | undefined): boolean => {
  if (version === undefined) return true
  const v = parse(version)
  return Option.isNone(v) || compare(v.value, parseOrThrow("2.1.100")) >= 0
}

/**
 * What a session does when the CLI's version is outside the supported range, or cannot be told.
 * Add it to the session's options as `cliVersionPolicy`.
 *
 * @since 0.1.0
 * @category policy
 */
export interface Policy {
  /**
   * `"fail"` (the default): the session fails with `UnsupportedCliVersion` before it writes a
   * user turn. `"warn"`: a warning in the log, and the session goes on, best effort.
   */
  readonly onUnsupported?: "fail" | "warn" | undefined
  /** The range to accept instead of {@link supported} (e.g. to try a new CLI line early). */
  readonly range?: Range | undefined
}

/**
 * Checks the CLI's version against the policy's range (default {@link supported}): succeeds when
 * it is inside; otherwise fails with `UnsupportedCliVersion` (found and supported versions in the
 * message), or, with `onUnsupported: "warn"`, logs that message as a warning and succeeds.
 *
 * A version that cannot be told (`undefined`: an in-memory or replayed CLI that names none, a
 * `claude --version` that printed none; or text without `x.y.z`) is not checked: logged at debug
 * level, and the check succeeds ({@link verify} warns of it for a CLI with a process).
 *
 * @since 0.1.0
 * @category policy
 */
export const check: (
  version: string | undefined,
  options?: Policy | undefined
) => Effect.Effect<void, ClaudeError.ClaudeError> = Effect.fn("CliVersion.check")(
  function*(version: string | undefined, options?: Policy | undefined) {
    const range = options?.range ?? supported
    const problem = rangeProblem(range)
    if (problem !== undefined) {
      return yield* Effect.fail(ClaudeError.make(new ClaudeError.InvalidInput({ description: `Invalid cliVersionPolicy: ${problem}` })))
    }
    const parsed = version === undefined ? Option.none() : parse(version)
    if (Option.isNone(parsed)) {
      yield* Effect.logDebug(`the claude CLI's version is unknown (${version ?? "not reported"}): not checked`)
      return
    }
    if (isSupported(parsed.value, range)) return
    const reason = new ClaudeError.UnsupportedCliVersion({
      found: format(parsed.value),
      floor: range.floor,
      below: range.below
    })
    if (options?.onUnsupported === "warn") {
      yield* Effect.logWarning(reason.message)
      return
    }
    return yield* Effect.fail(ClaudeError.make(reason))
  }
)

/**
 * The `claude_code_version` of the answer to `initialize` (its `response` body), when it has
 * one. 2.1.200 and older do not send it.
 *
 * @since 0.1.0
 * @category detection
 */
export const fromInitialize = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const version = (body as { readonly claude_code_version?: unknown }).claude_code_version
  return typeof version === "string" && version.length > 0 ? version : undefined
}

/**
 * Runs `claude --version` through the `Transport` (the same executable, environment and cwd as
 * the session) and reads the version it prints (on the line naming Claude Code when one does, so
 * that a wrapper's banner is not taken for it). `undefined` when it prints none, fails, or takes
 * more than 15 seconds; never fails.
 *
 * @since 0.1.0
 * @category detection
 */
export const query: (
  spec: Omit<LaunchSpec, "args">
) => Effect.Effect<string | undefined, never, Transport> = Effect.fnUntraced(
  function*(spec: Omit<LaunchSpec, "args">) {
    const transport = yield* Transport
    const output = yield* Effect.scoped(Effect.gen(function*() {
      const connection = yield* transport.open({ ...spec, args: ["--version"] })
      yield* connection.endInput
      return yield* connection.incoming.pipe(Stream.decodeText, Stream.mkString)
    })).pipe(
      Effect.timeoutOption("15 seconds"),
      Effect.map(Option.getOrElse(() => "")),
      Effect.catchCause((cause) => Effect.as(Effect.logDebug("claude --version failed", cause), ""))
    )
    // The line naming Claude Code (`2.1.0 (Claude Code)`) wins: a wrapper's banner before it
    // (`Now using node v20.11.1`) or a notice after it names other versions.
    const named = output.split("\n").find((line) => /claude code/i.test(line) && Option.isSome(parse(line)))
    return Option.match(parse(named ?? output), { onNone: () => undefined, onSome: format })
  },
  SpanExits.withSpan("CliVersion.query")
)

/**
 * The CLI's version, as early as it can be told: `claude_code_version` from the answer to
 * `initialize` when there is one; else, when the session's connection is a process (it has a
 * `pid`), `claude --version` ({@link query}) with the same spec; else (an in-memory or replayed
 * CLI) `undefined`.
 *
 * @since 0.1.0
 * @category detection
 */
export const resolve: (
  initializeBody: unknown,
  spec: Omit<LaunchSpec, "args">,
  connection: {
    /** The CLI's process id; `undefined` for a CLI without a process (a fake), which is not asked. */
    readonly pid: number | undefined
  }
) => Effect.Effect<string | undefined, never, Transport> = Effect.fnUntraced(
  function*(initializeBody: unknown, spec: Omit<LaunchSpec, "args">, connection: { readonly pid: number | undefined }) {
    const reported = fromInitialize(initializeBody)
    if (reported !== undefined || connection.pid === undefined) return reported
    return yield* query(spec)
  },
  SpanExits.withSpan("CliVersion.resolve")
)

/**
 * What a session runs once the CLI has answered `initialize` and before it writes the first user
 * turn: {@link resolve} the version, then {@link check} it against the policy. Succeeds with the
 * version (to expose on the session; `undefined` when it cannot be told), or fails with
 * `UnsupportedCliVersion`.
 *
 * @since 0.1.0
 * @category policy
 */
export const verify: (
  initializeBody: unknown,
  spec: Omit<LaunchSpec, "args">,
  connection: {
    /** The CLI's process id; `undefined` for a CLI without a process (a fake), which is not asked. */
    readonly pid: number | undefined
  },
  policy?: Policy | undefined
) => Effect.Effect<string | undefined, ClaudeError.ClaudeError, Transport> = Effect.fnUntraced(
  function*(
    initializeBody: unknown,
    spec: Omit<LaunchSpec, "args">,
    connection: { readonly pid: number | undefined },
    policy?: Policy | undefined
  ) {
    const version = yield* resolve(initializeBody, spec, connection)
    // A CLI of a process that could not tell its version runs unchecked: said where a program
    // sees it (an in-memory or replayed CLI is never asked).
    if (connection.pid !== undefined && (version === undefined || Option.isNone(parse(version)))) {
      yield* Effect.logWarning(
        `the claude CLI's version could not be told (${version ?? "claude --version printed none"}): ` +
          `not checked against ${(policy?.range ?? supported).floor} to <${(policy?.range ?? supported).below}`
      )
    }
    yield* check(version, policy)
    return version
  },
  // Its span ends with no value, as every span of a session does (`Tracing`).
  SpanExits.withSpan("CliVersion.verify")
)
