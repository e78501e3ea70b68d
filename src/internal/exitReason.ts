/**
 * Why the CLI exited, in the program's terms: the session turns a CLI exit into the reason that
 * fails whatever was pending. Most exits are `ProcessExited` with the stderr tail; an exit whose
 * cause the library recognises on stderr gets its own reason, which names the way out.
 */
import * as ClaudeError from "../ClaudeError.ts"
import type { LaunchOptions, PermissionMode } from "../Launch.ts"
import type { ExitStatus } from "../Transport.ts"
import { TAIL_CHARS } from "./stderrLines.ts"

/** What the session knows of how it started the CLI, for {@link explainExit}. */
export interface ExitContext {
  /** The `permissionMode` the program named (not the one the library derived). */
  readonly permissionMode: PermissionMode | undefined
  /** The `IS_SANDBOX` value in the CLI's environment, if any. */
  readonly sandboxVariable: string | undefined
  /**
   * Takes the session's secrets out of the stderr tail (a CLI may print what it was given). The
   * tail is cut to {@link TAIL_CHARS} after it, so that a secret the cut falls in is out whole.
   */
  readonly redact?: ((text: string) => string) | undefined
}

/**
 * The line CLI 2.1.332 writes on stderr (then exits 1, before reading stdin) when it runs as root
 * and is asked to bypass permissions (`--permission-mode bypassPermissions`, or
 * `--allow-dangerously-skip-permissions` alone) without `IS_SANDBOX=1` (`yes` or `true` do not do).
 */
const rootBypassRefusal = /--dangerously-skip-permissions cannot be used with root\/sudo privileges/

/**
 * The reason a CLI exit fails what was pending. Pure.
 *
 * - The CLI refused to bypass permissions because it runs as root: `BypassRefused`, whose message
 *   names the option the program set and the ways out (another user, another mode, or
 *   `IS_SANDBOX=1` on a throwaway machine).
 * - Anything else: `ProcessExited` with the code, the signal and the stderr tail.
 *
 * The tail reported is the last {@link TAIL_CHARS} characters of the transport's, redacted first.
 */
export const explainExit = (status: ExitStatus, context: ExitContext): ClaudeError.Reason => {
  const redacted = context.redact?.(status.stderrTail) ?? status.stderrTail
  const stderrTail = redacted.length > TAIL_CHARS ? redacted.slice(-TAIL_CHARS) : redacted
  if (rootBypassRefusal.test(stderrTail)) {
    return new ClaudeError.BypassRefused({
      permissionMode: context.permissionMode ?? null,
      sandboxVariable: context.sandboxVariable ?? null,
      exitCode: status.code,
      stderrTail
    })
  }
  return new ClaudeError.ProcessExited({ exitCode: status.code, signal: status.signal, stderrTail })
}

/**
 * The {@link ExitContext} of a session started with `options`: the mode the program named, and the
 * `IS_SANDBOX` the CLI sees (the `env` option's value when it names the variable, else the host's).
 */
export const exitContext = (
  options: Pick<LaunchOptions, "permissionMode" | "env">,
  hostEnv: Readonly<Record<string, string | undefined>> = process.env
): ExitContext => {
  const env = options.env
  const own = env !== undefined && Object.hasOwn(env, "IS_SANDBOX")
  const value = own ? env.IS_SANDBOX : hostEnv.IS_SANDBOX
  return {
    permissionMode: options.permissionMode,
    sandboxVariable: typeof value === "string" ? value : undefined
  }
}
