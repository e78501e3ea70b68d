/**
 * The one error of the library. Every failure is a `ClaudeError` whose `reason` says what went
 * wrong, so callers handle it with `Effect.catchReason("ClaudeError", "ProcessExited", ...)`.
 *
 * A `result` with `is_error: true` (an API error, an interrupted turn) is data on the event
 * stream, never a `ClaudeError`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

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
    return `Protocol problem: ${this.description} (line: ${this.line.slice(0, 200)})`
  }
}

/**
 * The CLI answered a control request with `subtype: "error"`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ControlRejected extends Schema.TaggedError<ControlRejected>()("ControlRejected", {
  subtype: Schema.String,
  error: Schema.String,
  errorCode: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return `The CLI rejected ${this.subtype}: ${this.error}${this.errorCode ? ` (${this.errorCode})` : ""}`
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
 * Every reason a `ClaudeError` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([
  CliNotFound,
  SpawnFailed,
  ProcessExited,
  ProtocolViolation,
  ControlRejected,
  ControlTimeout,
  Stalled,
  SessionClosed,
  InvalidInput,
  ReplayMismatch,
  TranscriptFailed,
  UnsupportedCliVersion
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
