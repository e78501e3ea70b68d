/**
 * The seam between the session and the bytes: something that starts a CLI and carries its
 * stdin and stdout. The real process, the scripted fake and transcript replay are all layers of
 * this one small service, so the session code never knows which it talks to.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { ClaudeError } from "./ClaudeError.ts"
import type { Executable } from "./Launch.ts"

/**
 * What to start: the resolved executable, its argv and environment (values may be `Redacted`;
 * `undefined` removes a variable inherited from the host).
 *
 * @since 0.1.0
 * @category models
 */
export interface LaunchSpec {
  /**
   * An explicit path to the CLI, or an interpreter with arguments put before `args`; otherwise
   * the transport looks for one (`claude` on PATH, node_modules/.bin).
   */
  readonly executable?: string | Executable | undefined
  /** The CLI's arguments (the flags `Launch` built). */
  readonly args: ReadonlyArray<string>
  /**
   * Variables laid over the inherited environment; `undefined` removes one, a `Redacted` value is revealed
   * only to the process.
   */
  readonly env: Readonly<Record<string, string | Redacted.Redacted<string> | undefined>>
  /** The working directory (default: the program's). */
  readonly cwd?: string | undefined
  /**
   * The whole budget of closing, counted from stdin EOF: SIGTERM at its {@link eofShare}, SIGKILL
   * at its end.
   */
  readonly closeGrace: Duration.Duration
}

/**
 * How much of the close budget a CLI gets to exit after stdin EOF before SIGTERM (the rest is
 * for SIGTERM, then SIGKILL): three fifths. After EOF the CLI finishes its turn and writes its
 * session file (20–130 ms, ~0.9 s after an interrupted tool, measured), after SIGTERM it kills
 * its tools (~1.4 s).
 *
 * @since 0.1.0
 * @category models
 */
export const eofShare = (closeGrace: Duration.Duration): number => Math.round(Duration.toMillis(closeGrace) * 0.6)

/**
 * How the process ended. `code` is null when a signal ended it. `stderrTail` holds the last
 * bytes the process wrote on stderr.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExitStatus {
  /** The exit code; `null` when a signal ended the process. */
  readonly code: number | null
  /** The signal that ended the process (`SIGTERM`, …); `null` when it exited. */
  readonly signal: string | null
  /** The last bytes the process wrote on stderr. */
  readonly stderrTail: string
}

/**
 * One running CLI.
 *
 * Invariants: `incoming` has a single consumer (the session's reader) and ends when the CLI's
 * stdout ends; `send` never writes after `endInput` (it fails with `SessionClosed` instead);
 * closing the scope the connection was opened in ends the process, escalating from stdin EOF to
 * SIGTERM to SIGKILL within `closeGrace` in all, and leaves no process of its group behind.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  /** The process id, when there is a process. */
  readonly pid: number | undefined
  /**
   * The CLI's stdout, as it arrives; run once, by the session. It keeps what the CLI writes from
   * `open` on, until it is run: a session writes `initialize` before it starts reading. It ends
   * when stdout ends, or once the CLI exited and its stdout stayed quiet for a moment (a process
   * the CLI started may hold the pipe open for long).
   */
  readonly incoming: Stream.Stream<Uint8Array, ClaudeError>
  /**
   * The CLI's stderr, line by line as it arrives (without the line end; a line over 16 Ki
   * characters comes in pieces). Each run of the stream listens anew: it first gets the last 100
   * lines written before it started (an error the CLI printed at once), then every line as it
   * comes, and ends when stderr ends. A run that falls 4096 lines behind loses the oldest. The
   * tail of stderr is also kept for the exit status (`stderrTail`).
   */
  readonly stderr: Stream.Stream<string>
  /**
   * Writes one line (the newline is added here). The session runs it uninterruptibly, so that a
   * line is handed over whole or not at all: a wait after the line was handed over (for a full
   * pipe to drain) is to be marked `Effect.interruptible`, and once the line is handed over it
   * counts as written even when that wait is interrupted. A failure means it was not written.
   */
  readonly send: (line: string) => Effect.Effect<void, ClaudeError>
  /** Ends stdin: the CLI finishes its running turn, then exits. Idempotent. */
  readonly endInput: Effect.Effect<void>
  /** Waits for the process to exit. */
  readonly exit: Effect.Effect<ExitStatus>
}

/**
 * Starts CLIs. Provide `ClaudeNode.layer` from `effect-claude-code/node` or `Claude.layerProcess`
 * (real processes, with `node:child_process`), or a fake from `effect-claude-code/testing`.
 *
 * @since 0.1.0
 * @category services
 */
export class Transport extends Context.Service<Transport, {
  /** Starts one CLI, which ends when the scope closes. */
  readonly open: (spec: LaunchSpec) => Effect.Effect<Connection, ClaudeError, Scope.Scope>
}>()("effect-claude-code/Transport") {}
