/**
 * The one error of the library. Every failure is a `ClaudeError` whose `reason` says what went
 * wrong, so callers handle it with `Effect.catchReason("ClaudeError", "ProcessExited", ...)`.
 *
 * A turn whose `result` says it failed (`is_error`: not logged in, an API error, a limit) fails
 * `run` and the turn's stream with `NotAuthenticated`, `ApiError`, `PromptTooLong`,
 * `LimitReached` or `TurnFailed`, each carrying the result (unless the session has
 * `errorResults: "return"`); `session.events` still gets it as data. An interrupted turn's result
 * is not a failure.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isRecord } from "./internal/json.ts"
import { cutText } from "./internal/textChunks.ts"

/**
 * No `claude` executable was found where the library looked.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CliNotFound extends Schema.TaggedError<CliNotFound>()("CliNotFound", {
  searched: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `The claude CLI was not found (looked in: ${this.searched.join(", ")}). ` +
      `Install it with \`npm install @anthropic-ai/claude-code\` or pass the \`executable\` option.`
  }
}

/**
 * The operating system refused to start the CLI.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  executable: Schema.String,
  description: Schema.String
}) {
  override get message(): string {
    return `Could not start ${this.executable}: ${this.description}`
  }
}

/**
 * The `executable` exists but cannot be run: a file without execute permission, or a directory.
 * `mode` is the file's permission bits (`0o644`), shown in octal in the message.
 *
 * @since 0.1.0
 * @category reasons
 */
export class NotExecutable extends Schema.TaggedError<NotExecutable>()("NotExecutable", {
  path: Schema.String,
  mode: Schema.Number,
  isDirectory: Schema.Boolean
}) {
  override get message(): string {
    const mode = `0${(this.mode & 0o7777).toString(8).padStart(3, "0")}`
    if (this.isDirectory) return `The executable ${this.path} is a directory (mode ${mode}), not a program`
    return `The executable ${this.path} exists but is not executable (mode ${mode}): ` +
      `make it executable (chmod +x), or run it through its interpreter, ` +
      `e.g. executable: { command: "node", args: [${JSON.stringify(this.path)}] }`
  }
}

/**
 * The working directory (`cwd`) cannot be used: it does not exist, is not a directory, or cannot
 * be entered.
 *
 * @since 0.1.0
 * @category reasons
 */
export class BadWorkingDirectory extends Schema.TaggedError<BadWorkingDirectory>()("BadWorkingDirectory", {
  path: Schema.String,
  problem: Schema.Literals(["missing", "not a directory", "not accessible"])
}) {
  override get message(): string {
    const what = this.problem === "missing"
      ? "does not exist"
      : this.problem === "not a directory"
      ? "is not a directory"
      : "cannot be entered (permission denied)"
    return `The working directory ${this.path} (the cwd option) ${what}`
  }
}

/**
 * The CLI refused to bypass permission checks and exited at start. It does so when it runs as
 * root (uid 0) outside a sandbox: it accepts `bypassPermissions` as root only with `IS_SANDBOX=1`
 * in its environment, a statement that the machine is a throwaway sandbox. The library never sets
 * that variable on its own.
 *
 * @since 0.1.0
 * @category reasons
 */
export class BypassRefused extends Schema.TaggedError<BypassRefused>()("BypassRefused", {
  /** The mode the program asked for (`null`: none; the bypass then came from `extraArgs`). */
  permissionMode: Schema.NullOr(Schema.String),
  /** The `IS_SANDBOX` value the CLI saw, if any (the CLI accepts only `"1"`). */
  sandboxVariable: Schema.NullOr(Schema.String),
  exitCode: Schema.NullOr(Schema.Number),
  stderrTail: Schema.String
}) {
  override get message(): string {
    const asked = this.permissionMode === "bypassPermissions"
      ? `permissionMode "bypassPermissions"`
      : `to bypass permission checks (--dangerously-skip-permissions)`
    const sandbox = this.sandboxVariable === null
      ? ""
      : ` (IS_SANDBOX is ${JSON.stringify(this.sandboxVariable)} now; the CLI accepts only "1")`
    return `The claude CLI refused ${asked}: it runs as root, where the CLI bypasses permission checks ` +
      `only in a sandbox. Run the program as a user other than root, or leave permissionMode unset ` +
      `or name another mode; only on a throwaway sandbox or container, ` +
      `pass env: { IS_SANDBOX: "1" } to tell the CLI so${sandbox}. ` +
      `The CLI said: ${this.stderrTail.trim()}`
  }
}

/**
 * The CLI process ended while something still needed it: a turn, a control request.
 * `stderrTail` holds the last few KiB the CLI wrote on stderr, which usually says why.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ProcessExited extends Schema.TaggedError<ProcessExited>()("ProcessExited", {
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  stderrTail: Schema.String
}) {
  override get message(): string {
    const how = this.signal !== null ? `signal ${this.signal}` : `exit code ${this.exitCode}`
    const tail = this.stderrTail.trim()
    return `The claude CLI exited (${how})${tail.length > 0 ? `: ${tail}` : ""}`
  }
}

/**
 * A line from the CLI broke the protocol: JSON that does not match a known message's schema, or
 * a line over the configured size cap. Reported on the event stream; the session goes on.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ProtocolViolation extends Schema.TaggedError<ProtocolViolation>()("ProtocolViolation", {
  description: Schema.String,
  /** The offending line, cut to its first 2 KiB (a line over the cap is never kept whole). */
  line: Schema.String
}) {
  override get message(): string {
    return `Protocol problem: ${this.description} (line: ${cutText(this.line, 200)})`
  }
}

/**
 * The CLI answered a control request with `subtype: "error"`. In the testing kit
 * (`FakeCli.callHook`, `askPermission`, `callMcpTool`) it is the other way round: the host (the
 * program under test) answered the fake CLI's request with an error, and `by` is `"host"`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ControlRejected extends Schema.TaggedError<ControlRejected>()("ControlRejected", {
  subtype: Schema.String,
  error: Schema.String,
  errorCode: Schema.optional(Schema.String),
  /** Who rejected the request: the CLI (when absent) or the host. @since 0.2.0 */
  by: Schema.optionalKey(Schema.Literals(["cli", "host"]))
}) {
  override get message(): string {
    return `The ${this.by === "host" ? "host" : "CLI"} rejected ${this.subtype}: ${this.error}${
      this.errorCode ? ` (${this.errorCode})` : ""
    }`
  }
}

/**
 * A control request got no answer in time.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ControlTimeout extends Schema.TaggedError<ControlTimeout>()("ControlTimeout", {
  subtype: Schema.String,
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `No answer to ${this.subtype} within ${this.timeoutMillis} ms`
  }
}

/**
 * The CLI wrote nothing for longer than the stall watchdog allows while a turn was open.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Stalled extends Schema.TaggedError<Stalled>()("Stalled", {
  idleMillis: Schema.Number
}) {
  override get message(): string {
    return `The claude CLI wrote nothing for ${this.idleMillis} ms during a turn`
  }
}

/**
 * The session is closed: its scope ended, or stdin was closed, before the operation could run.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionClosed extends Schema.TaggedError<SessionClosed>()("SessionClosed", {
  operation: Schema.String
}) {
  override get message(): string {
    return `The session is closed (${this.operation})`
  }
}

/**
 * A user turn that ends without its result: the CLI dropped it from its queue before it ran
 * (withdrawn by the program, a turn interrupted while still queued, an `interrupt` that cancelled
 * queued messages, or, with `lifecycle`, a message the CLI said it would not run), or, with `gaveUpAfterMillis`, the library gave up waiting for the
 * result of its interrupt (`interruptTimeout`): the turn may have run, and the CLI may still
 * finish it.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TurnCancelled extends Schema.TaggedError<TurnCancelled>()("TurnCancelled", {
  uuid: Schema.String,
  /** Set when the library gave up on the turn's interrupt after this long. @since 0.2.0 */
  gaveUpAfterMillis: Schema.optionalKey(Schema.Number),
  /**
   * Set when the CLI ended the message's `command_lifecycle` without starting it by another state
   * than `cancelled`: `completed` (CLI 2.1.332 drops a message whose uuid is already in the
   * session), `discarded` or `refused`. @since 0.2.0
   */
  lifecycle: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    if (this.gaveUpAfterMillis !== undefined) {
      return `The turn of the user message ${this.uuid} was given up: its interrupt brought no result within ${this.gaveUpAfterMillis} ms (the CLI may still finish it)`
    }
    switch (this.lifecycle) {
      case undefined:
        return `The CLI cancelled the user message ${this.uuid} before its turn ran`
      case "completed":
        return `The CLI dropped the user message ${this.uuid} without running it (it said completed before it started): ` +
          `the CLI drops a message whose uuid is already in the session, a resumed session's earlier messages included; ` +
          `give each message a uuid of its own`
      case "discarded":
        return `The CLI discarded the user message ${this.uuid} before its turn ran (the session ended with it queued)`
      case "refused":
        return `The CLI refused the user message ${this.uuid}: the session's receive-side policy declined it, and it will not run in this session`
      default:
        return `The CLI ended the user message ${this.uuid} (${this.lifecycle}) before its turn ran`
    }
  }
}

/**
 * The CLI closed its stdout but its process did not exit: the session can read nothing more.
 *
 * @since 0.1.0
 * @category reasons
 */
export class StdoutClosed extends Schema.TaggedError<StdoutClosed>()("StdoutClosed", {
  waitedMillis: Schema.Number
}) {
  override get message(): string {
    return `The CLI closed its stdout and was still running ${this.waitedMillis} ms later`
  }
}

/**
 * A turn whose result says it failed (`is_error`), for a reason none of the more specific
 * reasons names. Carries the result.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TurnFailed extends Schema.TaggedError<TurnFailed>()("TurnFailed", {
  result: Schema.Unknown,
  description: Schema.String
}) {
  override get message(): string {
    return `The turn failed: ${this.description}`
  }
}

/**
 * The model declined to answer (`stop_reason: "refusal"`: its safeguards stopped the response),
 * and the CLI gave up after its own second try. Trying the same request again will not help;
 * rephrasing it, in a new session, or another model may. Carries the result.
 *
 * @since 0.2.0
 * @category reasons
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  result: Schema.Unknown,
  description: Schema.String
}) {
  override get message(): string {
    return `The model refused to answer: ${this.description}`
  }
}

/**
 * The CLI has no credentials (not logged in, no API key): it made no request. A key the API
 * refused is `ApiError` with status 401.
 *
 * @since 0.1.0
 * @category reasons
 */
export class NotAuthenticated extends Schema.TaggedError<NotAuthenticated>()("NotAuthenticated", {
  result: Schema.Unknown,
  description: Schema.String
}) {
  override get message(): string {
    return `Claude Code is not authenticated: ${this.description}`
  }
}

/**
 * The model API answered an error the CLI gave up on (after its retries), with the HTTP status
 * and the API's error type when the CLI reports them.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  result: Schema.Unknown,
  status: Schema.NullOr(Schema.Number),
  errorType: Schema.NullOr(Schema.String),
  description: Schema.String
}) {
  override get message(): string {
    return `The model API failed${this.status === null ? "" : ` (${this.status}${this.errorType === null ? "" : ` ${this.errorType}`})`}: ${this.description}`
  }
  /** Whether trying again may help: no status (the connection failed), 429 (rate limited) or a 5xx. */
  get isRetryable(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500
  }
}

/**
 * The prompt (with the conversation so far) is over the model's context window.
 *
 * @since 0.1.0
 * @category reasons
 */
export class PromptTooLong extends Schema.TaggedError<PromptTooLong>()("PromptTooLong", {
  result: Schema.Unknown,
  description: Schema.String
}) {
  override get message(): string {
    return `The prompt is too long: ${this.description}`
  }
}

/**
 * The turn stopped at a limit: one the program set (`maxTurns`, `maxBudgetUsd`, structured-output
 * retries; `limit` is the result's subtype or terminal reason), or the model's output-token
 * maximum on every try (`limit` `max_output_tokens`, which `CLAUDE_CODE_MAX_OUTPUT_TOKENS` sets).
 *
 * @since 0.1.0
 * @category reasons
 */
export class LimitReached extends Schema.TaggedError<LimitReached>()("LimitReached", {
  result: Schema.Unknown,
  limit: Schema.String
}) {
  override get message(): string {
    return `The turn stopped at a limit: ${this.limit}`
  }
}

/**
 * A turn that ran past the session's `turnTimeout`; it was interrupted on the CLI.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TurnTimedOut extends Schema.TaggedError<TurnTimedOut>()("TurnTimedOut", {
  timeoutMillis: Schema.Number
}) {
  override get message(): string {
    return `The turn took longer than ${this.timeoutMillis} ms and was interrupted`
  }
}

/**
 * Something the library was given does not fit: a user message that does not encode, a
 * transcript that does not match, a handler's answer that breaks its schema.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  description: Schema.String
}) {
  override get message(): string {
    return this.description
  }
}

/**
 * A transcript replay met a line the recording did not expect.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ReplayMismatch extends Schema.TaggedError<ReplayMismatch>()("ReplayMismatch", {
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message(): string {
    return `Replay mismatch.\n  expected: ${this.expected}\n  actual:   ${this.actual}`
  }
}

/**
 * Writing a transcript failed (the recording sink failed). The session itself goes on.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TranscriptFailed extends Schema.TaggedError<TranscriptFailed>()("TranscriptFailed", {
  description: Schema.String
}) {
  override get message(): string {
    return `Transcript recording failed: ${this.description}`
  }
}

/**
 * The CLI's version is outside the range this library supports (`CliVersion.supported`).
 * `found` is the version the CLI reported.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnsupportedCliVersion extends Schema.TaggedError<UnsupportedCliVersion>()("UnsupportedCliVersion", {
  found: Schema.String,
  /** The lowest supported version, inclusive. */
  floor: Schema.String,
  /** The first version that is no longer supported (exclusive upper bound). */
  below: Schema.String
}) {
  override get message(): string {
    return `The claude CLI ${this.found} is not supported: this library supports >=${this.floor} <${this.below}. ` +
      `Install a supported one (npm install @anthropic-ai/claude-code@<version>), or set ` +
      `cliVersionPolicy: { onUnsupported: "warn" } to go on at your own risk.`
  }
}

/**
 * A turn's structured output (`outputFormat`) that the session's Schema does not decode: the CLI
 * checked it against the JSON Schema it was given, which cannot say everything a Schema says
 * (a custom filter, a branded check). `value` is the raw `structured_output`, `issue` the
 * Schema's report, `result` the turn's result.
 *
 * @since 0.2.0
 * @category reasons
 */
export class StructuredOutputInvalid extends Schema.TaggedError<StructuredOutputInvalid>()("StructuredOutputInvalid", {
  value: Schema.Unknown,
  issue: Schema.String,
  result: Schema.Unknown
}) {
  override get message(): string {
    return `The structured output does not match the output format: ${this.issue}`
  }
}

/**
 * A turn of a session with an `outputFormat` whose result carries no structured output: the
 * model answered in text although the CLI asked it (once more) to call its `StructuredOutput`
 * tool, the turn was interrupted before it did (`session.interrupt`: the result's
 * `terminal_reason` is `aborted_*`, and the message says so), or the result was a failed one
 * returned as data (`errorResults: "return"`). When the model called the tool with values the
 * JSON Schema refused until the CLI gave up, the turn fails with `LimitReached`
 * (`error_max_structured_output_retries`) instead. Carries the result.
 *
 * @since 0.2.0
 * @category reasons
 */
export class StructuredOutputMissing extends Schema.TaggedError<StructuredOutputMissing>()("StructuredOutputMissing", {
  result: Schema.Unknown
}) {
  override get message(): string {
    const result = isRecord(this.result) ? this.result : {}
    const terminal = result.terminal_reason
    if (typeof terminal === "string" && terminal.startsWith("aborted_")) {
      return `The turn was interrupted (${terminal}) before the model gave its structured output`
    }
    // CLI 2.1.0 writes no terminal reason: an interrupted turn is `error_during_execution`.
    if (terminal === undefined && result.subtype === "error_during_execution") {
      return "The turn was interrupted before the model gave its structured output"
    }
    // A hook that stopped the turn (`hook_stopped`, `stop_hook_prevented`), or another end the
    // CLI names: said as it is, not blamed on the model.
    return typeof terminal === "string" && terminal !== "completed"
      ? `The turn ended (${terminal}) before the model gave its structured output`
      : "The turn ended without structured output (the model did not call the StructuredOutput tool)"
  }
}

/**
 * No session with this id was found where the library looked (a project directory of the CLI's
 * config directory, or a `SessionStore`).
 *
 * @since 0.2.0
 * @category reasons
 */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String,
  /** Where the library looked: a directory, or the store's name. */
  searched: Schema.String
}) {
  override get message(): string {
    return `No session ${this.sessionId} in ${this.searched}`
  }
}

/**
 * A `SessionStore` failed an operation: the file system, the database, or a bounded retry that
 * gave up. `operation` names it (`append`, `load`, `list`, `delete`, ...).
 *
 * @since 0.2.0
 * @category reasons
 */
export class StoreFailed extends Schema.TaggedError<StoreFailed>()("StoreFailed", {
  store: Schema.String,
  operation: Schema.String,
  description: Schema.String
}) {
  override get message(): string {
    return `The session store ${this.store} failed to ${this.operation}: ${this.description}`
  }
}

/**
 * A turn accepted by a cluster runner that was lost (the runner died or gave its shard up) before
 * the turn's outcome was recorded. Reported instead of running the turn again when the session
 * entity's `lostTurns` is `"fail"`; the turn may have partly run on the lost runner.
 *
 * @since 0.2.0
 * @category reasons
 */
export class TurnLost extends Schema.TaggedError<TurnLost>()("TurnLost", {
  uuid: Schema.String,
  sessionId: Schema.String
}) {
  override get message(): string {
    return `The turn ${this.uuid} of session ${this.sessionId} was lost with the runner that ran it (not run again)`
  }
}

/**
 * Every reason a `ClaudeError` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([
  CliNotFound,
  NotExecutable,
  BadWorkingDirectory,
  SpawnFailed,
  ProcessExited,
  BypassRefused,
  ProtocolViolation,
  ControlRejected,
  ControlTimeout,
  Stalled,
  SessionClosed,
  TurnCancelled,
  StdoutClosed,
  TurnFailed,
  NotAuthenticated,
  Refused,
  ApiError,
  PromptTooLong,
  LimitReached,
  TurnTimedOut,
  InvalidInput,
  ReplayMismatch,
  TranscriptFailed,
  UnsupportedCliVersion,
  StructuredOutputInvalid,
  StructuredOutputMissing,
  SessionNotFound,
  StoreFailed,
  TurnLost
])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * The library's error. Match on `reason._tag`, or use `Effect.catchReason`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeError extends Schema.TaggedError<ClaudeError>()("ClaudeError", {
  reason: Reason
}) {
  override get message(): string {
    return this.reason.message
  }
}

/**
 * Wraps a reason in a `ClaudeError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason): ClaudeError => new ClaudeError({ reason })

/**
 * @since 0.1.0
 * @category guards
 */
export const isClaudeError = (u: unknown): u is ClaudeError => u instanceof ClaudeError
